/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Issue 29.2: actions with `forward_client_headers` send the client's own
 * headers on, never the admin secret or session headers (`x-engine-*`, v2's
 * `x-hasura-*`): the session reaches the handler in `session_variables`.
 * Async submissions store only what the worker forwards, nothing once the call
 * has ended, and rows stored by older engines are scrubbed at start-up
 * (Note [Stored request headers]).
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';
import { startTestServer, type TestServer } from '../../support/http-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

const SECRET = 'forwarded-headers-secret-29';
/** A backend calling as a role with the admin secret, in both spellings, plus what forwarding is for. */
const CLIENT = {
  'x-engine-admin-secret': SECRET,
  'x-hasura-admin-secret': SECRET,
  'x-engine-role': 'user',
  'x-engine-user-id': '7',
  'x-hasura-custom-claim': 'spoofed',
  'x-custom': 'c1',
  authorization: 'Bearer end-user-token',
};

let db: TestDatabase;
let handler: TestServer;
let e: TestEngine;
let remote: GraphqlTestServer;
/** What the handler got, per action name. */
const received = new Map<string, Array<{ headers: http.IncomingHttpHeaders; session: Record<string, string> }>>();
/** Resolved by the test to let a held async call answer. */
let release: (() => void) | null = null;

beforeAll(async () => {
  db = await createTestDatabase('fwd_headers');
  handler = await startTestServer((req, body, res) => {
    const p = JSON.parse(body) as { action: { name: string }; session_variables: Record<string, string> };
    const list = received.get(p.action.name) ?? [];
    list.push({ headers: req.headers, session: p.session_variables });
    received.set(p.action.name, list);
    const answer = (): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true }));
    };
    if (p.action.name === 'held') new Promise<void>((r) => (release = r)).then(answer, answer);
    else answer();
  });
  e = await startTestEngine({ databaseUrl: db.url, adminSecret: SECRET });
  const def = (kind: string): Record<string, unknown> => ({
    kind,
    type: 'mutation',
    output_type: 'Out',
    handler: handler.url,
    forward_client_headers: true,
    headers: [{ name: 'X-Configured', value: 'conf' }],
  });
  const r = await e.metadata({
    type: 'bulk',
    args: [
      { type: 'set_custom_types', args: { objects: [{ name: 'Out', fields: [{ name: 'ok', type: 'Boolean!' }] }] } },
      { type: 'create_action', args: { name: 'now', definition: def('synchronous') } },
      { type: 'create_action', args: { name: 'later', definition: def('asynchronous') } },
      { type: 'create_action', args: { name: 'held', definition: def('asynchronous') } },
      ...['now', 'later', 'held'].map((action) => ({ type: 'create_action_permission', args: { action, role: 'user' } })),
    ],
  });
  expect(r.status).toBe(200);
}, 60_000);

afterAll(async () => {
  release?.();
  await e?.close();
  await remote?.close();
  await handler?.close();
  await db?.drop();
});

/** The handler saw the client's own headers and the session, and nothing naming the session or the secret. */
function expectClean(call: { headers: http.IncomingHttpHeaders; session: Record<string, string> } | undefined): void {
  expect(call).toBeDefined();
  const h = call!.headers;
  expect(h['x-custom']).toBe('c1');
  expect(h['authorization']).toBe('Bearer end-user-token');
  expect(h['x-configured']).toBe('conf');
  expect(Object.keys(h).filter((k) => k.startsWith('x-engine-') || k.startsWith('x-hasura-'))).toEqual([]);
  expect(JSON.stringify(h)).not.toContain(SECRET);
  expect(JSON.stringify(h)).not.toContain('spoofed');
  expect(call!.session).toMatchObject({ 'x-engine-role': 'user', 'x-engine-user-id': '7' });
}

async function storedRows(): Promise<Array<{ action_name: string; status: string; request_headers: Record<string, string>; all: string }>> {
  return (await db.sql('SELECT action_name, status, request_headers, to_jsonb(l)::text AS all FROM engine_metadata.action_log l ORDER BY created_at')).rows;
}

describe('forward_client_headers', () => {
  it('a synchronous action gets the client headers and session_variables, never the secret or session headers', async () => {
    const r = await e.graphql<any>('mutation { now { ok } }', undefined, CLIENT);
    expect(r.body).toEqual({ data: { now: { ok: true } } });
    expectClean(received.get('now')?.[0]);
    // v2 drops the connection's own headers and sends Host on as X-Forwarded-Host.
    const h = received.get('now')?.[0]?.headers ?? {};
    expect(h['x-forwarded-host']).toBe(new URL(e.url).host);
  });

  it('a client header cannot stand in for a configured one', async () => {
    received.delete('now');
    const r = await e.graphql<any>('mutation { now { ok } }', undefined, { ...CLIENT, 'x-configured': 'from-client' });
    expect(r.body).toEqual({ data: { now: { ok: true } } });
    expect(received.get('now')?.[0]?.headers['x-configured']).toBe('conf');
  });

  it('an asynchronous action stores only the forwardable headers, and none once the call ended', async () => {
    const id = (await e.graphql<any>('mutation { held }', undefined, CLIENT)).body.data.held as string;
    await expect.poll(() => received.get('held')?.length ?? 0, { timeout: 20_000 }).toBe(1);
    // While the call runs, its row holds what a retry would forward, and no credential.
    const pending = (await storedRows()).find((r) => r.action_name === 'held');
    expect(pending?.request_headers).toMatchObject({ 'x-custom': 'c1', authorization: 'Bearer end-user-token' });
    expect(Object.keys(pending?.request_headers ?? {}).filter((k) => k.startsWith('x-engine-') || k.startsWith('x-hasura-'))).toEqual([]);
    expect(pending?.all).not.toContain(SECRET);
    expectClean(received.get('held')?.[0]);
    release?.();
    const read = async (): Promise<unknown> =>
      (await e.graphql<any>('query($id: uuid!) { held(id: $id) { output { ok } } }', { id }, CLIENT)).body.data?.held?.output;
    await expect.poll(read, { timeout: 20_000 }).toEqual({ ok: true });
    const done = (await storedRows()).find((r) => r.action_name === 'held');
    expect(done?.status).toBe('completed');
    expect(done?.request_headers).toEqual({});
  });

  it('the worker forwards the same headers as a synchronous call', async () => {
    const id = (await e.graphql<any>('mutation { later }', undefined, CLIENT)).body.data.later as string;
    const read = async (): Promise<unknown> =>
      (await e.graphql<any>('query($id: uuid!) { later(id: $id) { output { ok } } }', { id }, CLIENT)).body.data?.later?.output;
    await expect.poll(read, { timeout: 20_000 }).toEqual({ ok: true });
    expectClean(received.get('later')?.[0]);
    for (const row of await storedRows()) expect(row.all).not.toContain(SECRET);
  });

  it('rows stored by an older engine are scrubbed once at start-up, and the worker filters them anyway', async () => {
    const legacy = { ...CLIENT, host: 'engine.internal', 'content-type': 'application/json' };
    // An older engine's rows: every client header kept, the column not marked as scrubbed.
    await db.sql('COMMENT ON COLUMN engine_metadata.action_log.request_headers IS NULL');
    await db.sql(
      `INSERT INTO engine_metadata.action_log (id, action_name, input, session_variables, request_headers, request_query, status, claimed_until)
       VALUES (gen_random_uuid(), 'later', '{}', $1, $2, 'mutation { later }', 'completed', NULL),
              (gen_random_uuid(), 'later', '{}', $1, $2, 'mutation { later }', 'processing', now() + interval '1 hour')`,
      [JSON.stringify({ 'x-engine-role': 'user', 'x-engine-user-id': '7' }), JSON.stringify(legacy)],
    );
    const second = await startTestEngine({ databaseUrl: db.url, adminSecret: SECRET });
    try {
      const rows = await storedRows();
      for (const row of rows) expect(row.all).not.toContain(SECRET);
      const ended = rows.filter((r) => r.status === 'completed');
      for (const r of ended) expect(r.request_headers).toEqual({});
      const pending = rows.filter((r) => r.status === 'processing');
      expect(pending).toHaveLength(1);
      expect(pending[0]?.request_headers).toEqual({
        'x-custom': 'c1',
        authorization: 'Bearer end-user-token',
        host: 'engine.internal',
        'content-type': 'application/json',
      });
      const marked = await db.sql(
        "SELECT col_description(attrelid, attnum) AS c FROM pg_attribute WHERE attrelid = 'engine_metadata.action_log'::regclass AND attname = 'request_headers'",
      );
      expect(marked.rows[0].c).toContain('no credentials');
    } finally {
      await second.close();
    }
    // The pending row's lease runs out: the worker replays it, forwarding only what the filter lets through.
    received.delete('later');
    await db.sql("UPDATE engine_metadata.action_log SET claimed_until = now() - interval '1 second' WHERE status = 'processing'");
    await expect.poll(() => received.get('later')?.length ?? 0, { timeout: 20_000 }).toBe(1);
    const h = received.get('later')?.[0]?.headers ?? {};
    expect(h['x-custom']).toBe('c1');
    expect(h['x-forwarded-host']).toBe('engine.internal');
    expect(Object.keys(h).filter((k) => k.startsWith('x-engine-') || k.startsWith('x-hasura-'))).toEqual([]);
  });

  it('a remote schema gets the session as the engine made it, never the secret or the client session headers', async () => {
    remote = await startGraphqlServer('type Query { ping: Boolean }', { ping: () => true });
    const added = await e.metadata({ type: 'add_remote_schema', args: { name: 'far', definition: { url: remote.url, forward_client_headers: true } } });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const r = await e.graphql<any>('{ ping }', undefined, CLIENT);
    expect(r.body).toEqual({ data: { ping: true } });
    const h = remote.queries().at(-1)?.headers ?? {};
    expect(h['x-custom']).toBe('c1');
    expect(h['x-engine-role']).toBe('user');
    expect(h['x-engine-user-id']).toBe('7');
    expect(Object.keys(h).filter((k) => k.startsWith('x-hasura-') || k === 'x-engine-admin-secret')).toEqual([]);
    expect(JSON.stringify(h)).not.toContain(SECRET);
  });
});
