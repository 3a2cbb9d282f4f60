/**
 * `engine serve` as a real process: JSON logs, graceful shutdown, and two
 * instances sharing one metadata database.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { spawnEngine, type EngineProcess } from '../../support/engine-process.ts';

let db: TestDatabase;
const running: EngineProcess[] = [];

async function post(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as unknown };
}

/** Waits (bounded by 10 s) until `cond` holds. */
async function until(cond: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(what);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  db = await createTestDatabase('proc');
  await db.sql('CREATE TABLE city (id serial PRIMARY KEY, name text NOT NULL); INSERT INTO city (name) VALUES ($$Lyon$$), ($$Oslo$$)');
});

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop('SIGKILL')));
  await db?.drop();
});

describe('engine serve', () => {
  it('writes structured JSON logs', async () => {
    const p = await spawnEngine(['--database-url', db.url]);
    running.push(p);
    const lines = p
      .stdout()
      .trim()
      .split('\n')
      .filter((l) => l.length > 0);
    expect(lines.length).toBeGreaterThan(0);
    // The first startup line names the environment variables read (kind env_names); the serving line follows.
    const started = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['type'] === 'startup' && (l['detail'] as { kind?: string } | undefined)?.kind === 'server_configuration');
    expect(started).toMatchObject({
      level: 'info',
      detail: { kind: 'server_configuration', message: 'engine serving', info: { version: expect.any(String) } },
    });
    expect(await p.stop()).toBe(0);
  });

  it('finishes an in-flight request on SIGTERM, then exits 0', async () => {
    const p = await spawnEngine(['--database-url', db.url]);
    running.push(p);
    // The request is held by an advisory lock this test owns, not by a fixed sleep: it stays in
    // flight until the engine has begun shutting down, however slow the machine is.
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock(4242)');
    const slow = post(`${p.url}/v2/query`, { type: 'run_sql', args: { sql: 'SELECT pg_advisory_lock(4242)::text AS slept', read_only: true } });
    let code: Promise<number | null>;
    try {
      // SIGTERM only once PostgreSQL runs the statement (waiting for the lock), so the request is in
      // flight for sure (a fixed wait sent it before the engine had read the request: a 503).
      await until(async () => {
        const waiting = await db.sql(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%pg_advisory_lock(4242)::text%'",
        );
        return (waiting.rows[0] as { n: number }).n > 0;
      }, 'the statement never waited for the lock');
      code = p.stop('SIGTERM');
      await until(async () => p.stdout().includes('shutting down'), 'the engine never began shutting down');
    } finally {
      await holder.end();
    }
    const res = await slow;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ result_type: 'TuplesOk', result: [['slept'], ['']] });
    expect(await code).toBe(0);
  });

  it('lets a second instance on the same metadata database see a change within a second', async () => {
    const a = await spawnEngine(['--database-url', db.url]);
    const b = await spawnEngine(['--database-url', db.url]);
    running.push(a, b);
    const before = await post(`${b.url}/v1/graphql`, { query: '{ city { name } }' });
    expect(before.body).toMatchObject({ errors: [{ extensions: { code: 'validation-failed' } }] });
    const tracked = await post(`${a.url}/v1/metadata`, { type: 'pg_track_table', args: { table: 'city' } });
    expect(tracked.body).toEqual({ message: 'success' });
    const t0 = Date.now();
    let seen: unknown = null;
    // The requirement is one second; the loop allows two so that a loaded two-core CI machine
    // (other test files run alongside) does not make it flaky. The in-process timing is in
    // test/integration/metadata/two-instances.test.ts.
    while (Date.now() - t0 < 2000) {
      const res = await post(`${b.url}/v1/graphql`, { query: '{ city(order_by: {id: asc}) { name } }' });
      if (!JSON.stringify(res.body).includes('errors')) {
        seen = res.body;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen).toEqual({ data: { city: [{ name: 'Lyon' }, { name: 'Oslo' }] } });
  });
});
