/**
 * GET /v1/metrics as Prometheus scrapes it from real engines: the metrics
 * secret (bearer) and its fallbacks, GraphQL requests by operation type and
 * status, the execution-time histogram, HTTP requests by API and status, the
 * plan cache's hits and misses, the metadata resource version, the live
 * gauges, and prom-client's default Node metrics only when asked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
const engines: TestEngine[] = [];

async function start(settings: Parameters<typeof startTestEngine>[0]): Promise<TestEngine> {
  const e = await startTestEngine({ databaseUrl: db.url, ...settings });
  engines.push(e);
  return e;
}

/** The value of one sample (`name{labels}`) in a scrape, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    if (line.slice(0, i) === series) return Number(line.slice(i + 1));
  }
  return undefined;
}

async function scrape(e: TestEngine, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${e.url}/v1/metrics`, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return await res.text();
}

beforeAll(async () => {
  db = await createTestDatabase('metrics');
  await db.sql(`CREATE TABLE item (id int PRIMARY KEY, n int NOT NULL); INSERT INTO item VALUES (1, 1), (2, 2);`);
});

afterAll(async () => {
  for (const e of engines) await e.close();
  await db?.drop();
});

describe('the metrics secret', () => {
  it('needs `Authorization: Bearer <metrics secret>` when one is set, and answers 401 in v2 shape otherwise', async () => {
    const e = await start({ adminSecret: 'adm', metricsSecret: 'scrape-me' });
    for (const headers of [{}, { authorization: 'Bearer nope' }, { 'x-engine-admin-secret': 'adm' }, { authorization: 'scrape-me' }]) {
      const res = await fetch(`${e.url}/v1/metrics`, { headers });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ path: '$', error: 'invalid metrics secret: send "Authorization: Bearer <metrics secret>"', code: 'access-denied' });
    }
    await scrape(e, { authorization: 'Bearer scrape-me' });
  });

  it('falls back to the admin secret, and is open with neither', async () => {
    const guarded = await start({ adminSecret: 'adm' });
    expect((await fetch(`${guarded.url}/v1/metrics`)).status).toBe(401);
    await scrape(guarded, { 'x-engine-admin-secret': 'adm' });
    await scrape(guarded, { authorization: 'Bearer adm' });
    const open = await start({});
    await scrape(open, {});
  });
});

describe('what a scrape shows', () => {
  let e: TestEngine;
  const auth = { authorization: 'Bearer m' };
  beforeAll(async () => {
    e = await start({ adminSecret: 'adm', metricsSecret: 'm' });
    expect((await e.metadata({ type: 'pg_track_table', args: { table: 'item' } })).status).toBe(200);
  });

  it('counts GraphQL requests by operation type and status, and times the successful ones', async () => {
    const admin = { 'x-engine-admin-secret': 'adm' };
    for (let i = 0; i < 3; i++) expect((await e.graphql('{ item { id } }', undefined, admin)).body).toEqual({ data: { item: [{ id: 1 }, { id: 2 }] } });
    expect((await e.graphql('mutation { update_item(where: {}, _inc: {n: 1}) { affected_rows } }', undefined, admin)).body).toEqual({
      data: { update_item: { affected_rows: 2 } },
    });
    // A field that does not exist (validation) and a wrong admin secret fail before the operation type is known.
    expect((await e.graphql('{ nope { id } }', undefined, admin)).body).toMatchObject({ errors: [{ extensions: { code: 'validation-failed' } }] });
    expect((await e.graphql('{ item { id } }', undefined, { 'x-engine-admin-secret': 'wrong' })).body).toMatchObject({
      errors: [{ extensions: { code: 'access-denied' } }],
    });
    // A query that fails in the database is a failed query.
    expect((await e.graphql('mutation { update_item(where: {}, _set: {n: null}) { affected_rows } }', undefined, admin)).body).toMatchObject({
      errors: [{ extensions: { code: 'constraint-violation' } }],
    });

    const text = await scrape(e, auth);
    expect(sample(text, 'engine_graphql_requests_total{operation_type="query",response_status="success"}')).toBe(3);
    expect(sample(text, 'engine_graphql_requests_total{operation_type="mutation",response_status="success"}')).toBe(1);
    expect(sample(text, 'engine_graphql_requests_total{operation_type="mutation",response_status="failed"}')).toBe(1);
    expect(sample(text, 'engine_graphql_requests_total{operation_type="unknown",response_status="failed"}')).toBe(2);
    expect(sample(text, 'engine_graphql_execution_time_seconds_count{operation_type="query"}')).toBe(3);
    expect(sample(text, 'engine_graphql_execution_time_seconds_count{operation_type="mutation"}')).toBe(1);
    expect(sample(text, 'engine_graphql_execution_time_seconds_bucket{le="10",operation_type="query"}')).toBe(3);
    expect(sample(text, 'engine_graphql_execution_time_seconds_sum{operation_type="query"}')).toBeGreaterThan(0);
    // The same query three times: one miss, then hits.
    expect(sample(text, 'engine_plan_cache_lookups_total{result="hit"}')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'engine_plan_cache_lookups_total{result="miss"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'engine_plan_cache_entries')).toBeGreaterThanOrEqual(1);
    // HTTP requests by API and status (this scrape itself is counted once it is answered).
    expect(sample(text, 'engine_http_requests_total{api="graphql",status="200"}')).toBe(7);
    expect(sample(text, 'engine_http_requests_total{api="metadata",status="200"}')).toBe(1);
    expect(sample(text, 'engine_http_request_duration_seconds_count{api="graphql"}')).toBe(7);
    expect(sample(text, 'engine_http_connections')).toBeGreaterThanOrEqual(1);
    // The default source's pool: it has run statements, so it has opened connections.
    expect(sample(text, 'engine_postgres_connections{source_name="default",state="total"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'engine_postgres_connections{source_name="default",state="waiting"}')).toBe(0);
  });

  it('follows the metadata resource version and its inconsistencies', async () => {
    const version = async (): Promise<number> =>
      (await e.metadata<{ resource_version: number }>({ type: 'get_resource_version', args: {} })).body.resource_version;
    const before = await version();
    expect(sample(await scrape(e, auth), 'engine_schema_cache_metadata_resource_version')).toBe(before);
    expect(
      (await e.metadata({ type: 'pg_create_select_permission', args: { table: 'item', role: 'user', permission: { columns: ['id'], filter: {} } } })).status,
    ).toBe(200);
    const after = await version();
    expect(after).toBeGreaterThan(before);
    const text = await scrape(e, auth);
    expect(sample(text, 'engine_schema_cache_metadata_resource_version')).toBe(after);
    expect(sample(text, 'engine_metadata_inconsistent_objects')).toBe(0);
  });

  it('has the live gauges at 0 until the WebSocket server moves them, and no default Node metrics', async () => {
    let text = await scrape(e, auth);
    expect(sample(text, 'engine_websocket_connections')).toBe(0);
    expect(sample(text, 'engine_active_subscriptions')).toBe(0);
    e.engine.metrics.websocketOpened();
    e.engine.metrics.subscriptionStarted();
    e.engine.metrics.subscriptionStarted();
    e.engine.metrics.subscriptionStopped();
    text = await scrape(e, auth);
    expect(sample(text, 'engine_websocket_connections')).toBe(1);
    expect(sample(text, 'engine_active_subscriptions')).toBe(1);
    e.engine.metrics.websocketClosed();
    e.engine.metrics.subscriptionStopped();
    expect(text).not.toMatch(/process_cpu|nodejs_/);
  });
});

it("adds prom-client's default Node metrics when ENGINE_GRAPHQL_METRICS_NODE_DEFAULTS asks", async () => {
  const e = await start({ metricsNodeDefaults: true });
  const text = await scrape(e, {});
  expect(sample(text, 'engine_process_cpu_user_seconds_total')).toBeGreaterThan(0);
  expect(text).toMatch(/^engine_nodejs_eventloop_lag_seconds /m);
});
