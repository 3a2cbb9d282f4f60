/**
 * GET /readyz?remotes=true (Note [Probing a remote schema] in engine/remote/probe.ts) against a
 * real engine and a real HTTP GraphQL server that is stopped and started again on its port: the
 * probe reports the remote down and up without changing the engine's metadata (resource_version,
 * catalog snapshot), the rest of the schema keeps serving meanwhile, a remote never changes the
 * HTTP status, and a plain /readyz never contacts a remote.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { freePort } from '../../support/engine-process.ts';
import { startGraphqlServer, type GraphqlTestServer, type RecordedRequest } from '../../support/graphql-server.ts';
import { eventuallyValue } from '../../support/eventually.ts';

interface RemoteCheck {
  name: string;
  ok: boolean;
  error?: string;
  latencyMs: number;
  inconsistent?: string;
}
interface ReadyBody {
  status: string;
  checks: unknown[];
  remotes?: RemoteCheck[];
}

const SDL = 'type Query { weather: String }';
const TOKEN_ENV = 'ENGINE_TEST_PROBE_TOKEN';

let db: TestDatabase;
let engine: TestEngine;
let remote: GraphqlTestServer | null = null;
let port: number;

const startRemote = async (): Promise<GraphqlTestServer> => await startGraphqlServer(SDL, { weather: () => 'sunny' }, port);
const probes = (s: GraphqlTestServer | null): RecordedRequest[] => (s?.requests ?? []).filter((r) => (r.body.query ?? '').includes('__typename'));

async function ready(query = '?remotes=true', headers: Record<string, string> = {}): Promise<{ status: number; body: ReadyBody }> {
  const r = await fetch(`${engine.url}/readyz${query}`, { headers: { 'x-engine-admin-secret': 'adm', ...headers } });
  return { status: r.status, body: (await r.json()) as ReadyBody };
}

async function resourceVersion(): Promise<number> {
  const r = await engine.metadata<{ resource_version: number }>({ type: 'export_metadata', version: 2, args: {} });
  expect(r.status).toBe(200);
  return r.body.resource_version;
}

/** Polls /readyz?remotes=true until the remote `weather` has `ok` (bounded). */
async function untilRemote(ok: boolean, timeoutMs = 15_000): Promise<RemoteCheck> {
  return await eventuallyValue(
    async () => {
      const { status, body } = await ready();
      expect(status).toBe(200);
      const w = body.remotes?.find((c) => c.name === 'weather');
      return w?.ok === ok ? w : undefined;
    },
    { what: `remote weather reported ok=${ok}`, timeoutMs, intervalMs: 100 },
  );
}

beforeAll(async () => {
  db = await createTestDatabase('remote_readiness');
  await db.sql(`CREATE TABLE item (id int PRIMARY KEY); INSERT INTO item VALUES (1), (2);`);
  port = await freePort();
  remote = await startRemote();
  process.env[TOKEN_ENV] = 'from-the-environment';
  engine = await startTestEngine({ databaseUrl: db.url, adminSecret: 'adm' });
  expect((await engine.metadata({ type: 'pg_track_table', args: { source: 'default', table: 'item' } })).status).toBe(200);
  const add = await engine.metadata({
    type: 'add_remote_schema',
    args: {
      name: 'weather',
      definition: {
        url: remote.url,
        timeout_seconds: 20,
        headers: [
          { name: 'X-Probe-Token', value_from_env: TOKEN_ENV },
          { name: 'X-Static', value: 'fixed' },
        ],
      },
    },
  });
  expect(add.status).toBe(200);
});

afterAll(async () => {
  delete process.env[TOKEN_ENV];
  await engine?.close();
  await remote?.close();
  await db?.drop();
});

describe('/readyz?remotes=true', () => {
  it('probes with the configured headers (from_env too), never the client headers', async () => {
    const before = probes(remote).length;
    const { status, body } = await ready('?remotes=true', { authorization: 'Bearer client', 'x-engine-role': 'user', cookie: 'c=1' });
    expect(status).toBe(200);
    expect(body.remotes).toEqual([{ name: 'weather', ok: true, latencyMs: expect.any(Number) as number }]);
    const sent = probes(remote).slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toEqual({ query: 'query { __typename }' });
    expect(sent[0]?.headers['x-probe-token']).toBe('from-the-environment');
    expect(sent[0]?.headers['x-static']).toBe('fixed');
    for (const h of ['authorization', 'x-engine-role', 'cookie', 'x-engine-admin-secret']) expect(sent[0]?.headers[h]).toBeUndefined();
  });

  it('reports a remote that stopped as down and then up, without touching metadata, while the rest keeps serving', async () => {
    await untilRemote(true);
    const rv = await resourceVersion();
    const catalog = engine.engine.metadata.catalogRef.current;

    await remote?.close();
    remote = null;
    const stopped = Date.now();
    const down = await untilRemote(false);
    console.log(`[remote-readiness] down reported ${Date.now() - stopped} ms after the remote stopped (probe latency ${down.latencyMs} ms)`);
    expect(down.error).toMatch(/could not reach the remote schema at http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
    // Only the origin: never the URL's path (a URL may carry a token).
    expect(down.error).not.toContain('/graphql');
    expect(down.inconsistent).toBeUndefined();
    // A down remote does not take the replica out of the Service.
    const whole = await ready();
    expect(whole.status).toBe(200);
    expect(whole.body.status).toBe('ready');

    // The schema is unchanged: the table answers, the remote's field is still there and fails at run time.
    expect((await engine.graphql('{ item(order_by: {id: asc}) { id } }')).body).toEqual({ data: { item: [{ id: 1 }, { id: 2 }] } });
    const through = await engine.graphql<{ errors?: Array<{ extensions?: { code?: string } }> }>('{ weather }');
    expect(through.body.errors?.[0]?.extensions?.code).not.toBe('validation-failed');
    expect((await engine.metadata<{ is_consistent: boolean }>({ type: 'get_inconsistent_metadata', args: {} })).body.is_consistent).toBe(true);
    expect(await resourceVersion()).toBe(rv);
    expect(engine.engine.metadata.catalogRef.current).toBe(catalog);

    remote = await startRemote();
    const back = Date.now();
    const up = await untilRemote(true);
    console.log(`[remote-readiness] up reported ${Date.now() - back} ms after the remote answered again (probe latency ${up.latencyMs} ms)`);
    expect(up.error).toBeUndefined();
    expect(await resourceVersion()).toBe(rv);
    expect(engine.engine.metadata.catalogRef.current).toBe(catalog);
    expect((await engine.graphql('{ weather }')).body).toEqual({ data: { weather: 'sunny' } });
  });

  it('does not contact a remote on a plain /readyz, and coalesces a burst of probes', async () => {
    await untilRemote(true);
    const before = remote?.requests.length ?? 0;
    for (let i = 0; i < 5; i++) {
      const plain = await ready('');
      expect(plain.status).toBe(200);
      expect(plain.body.remotes).toBeUndefined();
    }
    expect(remote?.requests.length).toBe(before);

    // Twenty at once: at most one probe reaches the remote (one round, or none inside a reused one).
    const start = remote?.requests.length ?? 0;
    const burst = await Promise.all(Array.from({ length: 20 }, async () => await ready()));
    for (const b of burst) expect(b.body.remotes?.[0]).toMatchObject({ name: 'weather', ok: true });
    expect((remote?.requests.length ?? 0) - start).toBeLessThanOrEqual(1);
  });

  it('answers the remote probe only to the admin secret, and sends nothing out without it', async () => {
    const before = remote?.requests.length ?? 0;
    for (const headers of [{}, { 'x-engine-admin-secret': 'wrong' }]) {
      const r = await fetch(`${engine.url}/readyz?remotes=true`, { headers });
      expect(r.status).toBe(401);
      expect(await r.json()).toEqual({ code: 'access-denied', error: 'probing remote schemas needs the admin secret', path: '$' });
    }
    expect(remote?.requests.length).toBe(before);
    // v2's header name is an alias; the plain readiness check stays open for the kubelet.
    expect((await fetch(`${engine.url}/readyz?remotes=true`, { headers: { 'x-hasura-admin-secret': 'adm' } })).status).toBe(200);
    expect((await fetch(`${engine.url}/readyz`)).status).toBe(200);
  });

  it('refuses a remotes value that is neither true nor false', async () => {
    const r = await fetch(`${engine.url}/readyz?remotes=yes`);
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ code: 'bad-request', error: 'the "remotes" parameter must be true or false', path: '$.remotes' });
  });

  it('probes a remote the engine holds inconsistent at its definition, and says so', async () => {
    const deadPort = await freePort();
    const add = await engine.metadata({ type: 'add_remote_schema', args: { name: 'gone', definition: { url: `http://127.0.0.1:${deadPort}/graphql` } } });
    // v2 refuses to add a remote it cannot introspect; put it in through replace_metadata instead, inconsistent.
    expect(add.status).toBe(400);
    const exported = await engine.metadata<Record<string, unknown> & { remote_schemas?: unknown[] }>({ type: 'export_metadata', args: {} });
    const doc = {
      ...exported.body,
      remote_schemas: [...(exported.body.remote_schemas ?? []), { name: 'gone', definition: { url: `http://127.0.0.1:${deadPort}/graphql` } }],
    };
    expect((await engine.metadata({ type: 'replace_metadata', args: { allow_inconsistent_metadata: true, metadata: doc } })).status).toBe(200);
    const { body } = await ready();
    const gone = body.remotes?.find((c) => c.name === 'gone');
    expect(gone).toMatchObject({ ok: false, inconsistent: expect.stringContaining('ECONNREFUSED') as string });
    expect(gone?.error).toContain('ECONNREFUSED');
    expect(body.remotes?.find((c) => c.name === 'weather')).toMatchObject({ ok: true });
  });
});
