/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Asynchronous actions on real engine processes: the mutation answers an id
 * at once, a worker calls the handler, the result is read by id only from
 * the session that submitted it, and an engine killed with SIGKILL mid-way
 * loses none of the accepted actions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnEngine, type EngineProcess } from '../../support/engine-process.ts';
import { startTestServer, type TestServer } from '../../support/http-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let handler: TestServer;
const running: EngineProcess[] = [];
/** How long the handler waits before answering, in ms. */
let delayMs = 0;
/** Handler calls per input n. */
const calls = new Map<number, number>();

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return (await res.json()) as unknown;
}

const USER = { 'x-engine-role': 'user', 'x-engine-user-id': '7' };

beforeAll(async () => {
  db = await createTestDatabase('async');
  await db.sql('CREATE TABLE note (id serial PRIMARY KEY, body text)');
  handler = await startTestServer((_req, body, res) => {
    const p = JSON.parse(body) as { input: { n: number }; session_variables: Record<string, string> };
    const n = p.input.n;
    calls.set(n, (calls.get(n) ?? 0) + 1);
    setTimeout(() => {
      if (n < 0) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: `negative ${n}`, extensions: { code: 'negative' } }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ n, who: p.session_variables['x-engine-user-id'] ?? null }));
    }, delayMs);
  });
}, 60_000);

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop('SIGKILL')));
  await handler?.close();
  await db?.drop();
});

async function start(): Promise<EngineProcess> {
  const p = await spawnEngine(['--database-url', db.url]);
  running.push(p);
  return p;
}

async function result(url: string, id: string, headers: Record<string, string> = USER): Promise<any> {
  const r = await post(
    `${url}/v1/graphql`,
    { query: 'query($id: uuid!) { work(id: $id) { id created_at output { n who } errors } }', variables: { id } },
    headers,
  );
  return r.data === undefined || r.data === null ? r : r.data.work;
}

/** Polls until every id has an output or errors, or the bound passes. */
async function settle(url: string, ids: readonly string[], boundMs: number): Promise<Map<string, any>> {
  const done = new Map<string, any>();
  const deadline = Date.now() + boundMs;
  while (done.size < ids.length && Date.now() < deadline) {
    for (const id of ids) {
      if (done.has(id)) continue;
      const r = await result(url, id);
      if (r !== null && (r.output !== null || r.errors !== null)) done.set(id, r);
    }
    if (done.size < ids.length) await new Promise((r) => setTimeout(r, 200));
  }
  return done;
}

describe('asynchronous actions', () => {
  let a: EngineProcess;

  it('are defined as mutations with an object output', async () => {
    a = await start();
    const md = (type: string, args: unknown): Promise<any> => post(`${a.url}/v1/metadata`, { type, args });
    expect(
      await md('set_custom_types', {
        objects: [
          {
            name: 'WorkOutput',
            fields: [
              { name: 'n', type: 'Int!' },
              { name: 'who', type: 'String' },
            ],
          },
        ],
      }),
    ).toEqual({ message: 'success' });
    const query = await md('create_action', {
      name: 'q',
      definition: { kind: 'asynchronous', type: 'query', output_type: 'WorkOutput', handler: handler.url },
    });
    expect(query.error).toContain('asynchronous action must be a mutation');
    const def = { kind: 'asynchronous', arguments: [{ name: 'n', type: 'Int!' }], output_type: 'WorkOutput', handler: handler.url, timeout: 2 };
    expect(await md('create_action', { name: 'work', definition: def })).toEqual({ message: 'success' });
    expect(await md('create_action_permission', { action: 'work', role: 'user' })).toEqual({ message: 'success' });
  });

  it('answer an id at once; the result is read by id, only by the same session', async () => {
    delayMs = 300;
    const t0 = Date.now();
    const sub = await post(`${a.url}/v1/graphql`, { query: 'mutation { work(n: 5) }' }, USER);
    expect(Date.now() - t0).toBeLessThan(delayMs + 2000);
    const id = sub.data.work as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const done = await settle(a.url, [id], 20_000);
    expect(done.get(id)).toMatchObject({ id, output: { n: 5, who: '7' }, errors: null, created_at: expect.any(String) });
    // Another user, or the same user under another role, does not see it.
    expect(await result(a.url, id, { 'x-engine-role': 'user', 'x-engine-user-id': '8' })).toBeNull();
    expect(await result(a.url, id, {})).toBeNull();
    const bad = await result(a.url, 'not-a-uuid');
    expect(bad.errors[0].extensions.code).toBe('validation-failed');
  });

  it('store a 4xx answer as errors', async () => {
    const sub = await post(`${a.url}/v1/graphql`, { query: 'mutation { work(n: -1) }' }, USER);
    const id = sub.data.work as string;
    const done = await settle(a.url, [id], 20_000);
    expect(done.get(id)).toMatchObject({ output: null, errors: { message: 'negative -1', extensions: { code: 'negative' } } });
  });

  it('lose none when the engine is killed with SIGKILL mid-way', async () => {
    delayMs = 400;
    const N = 60;
    const subs = await Promise.all(Array.from({ length: N }, (_, i) => post(`${a.url}/v1/graphql`, { query: `mutation { work(n: ${100 + i}) }` }, USER)));
    const ids = subs.map((s) => s.data.work as string);
    expect(new Set(ids).size).toBe(N);
    // Kill once the worker is calling the handler, so some calls are cut mid-way.
    const deadline = Date.now() + 20_000;
    while ([...calls.keys()].filter((n) => n >= 100).length < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await a.stop('SIGKILL');
    const b = await start();
    // Leases of the killed worker run out after the action's timeout plus a margin.
    const done = await settle(b.url, ids, 60_000);
    expect(done.size).toBe(N);
    for (const [i, id] of ids.entries()) expect(done.get(id)).toMatchObject({ output: { n: 100 + i, who: '7' }, errors: null });
    for (let i = 0; i < N; i++) expect(calls.get(100 + i) ?? 0).toBeGreaterThanOrEqual(1);
    // drop_action (clear_data defaults to true) deletes the stored submissions.
    expect(await post(`${b.url}/v1/metadata`, { type: 'drop_action', args: { name: 'work' } })).toEqual({ message: 'success' });
    const left = await db.sql('SELECT count(*)::int AS n FROM engine_metadata.action_log');
    expect(left.rows).toEqual([{ n: 0 }]);
  }, 120_000);
});
