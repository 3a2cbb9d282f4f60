/**
 * The engine's own database (Note [Metadata database] in
 * engine/backends/postgres/metadata-db/database.ts): an idle engine holds one
 * LISTEN connection on it for every channel (metadata changes, async action
 * results, scheduled events), and when that connection is killed
 * (`pg_terminate_backend`) it comes back and every consumer hears
 * notifications again. Real engines on a metadata database separate from
 * their source, a real webhook server, real graphql-ws clients.
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startTestServer, type TestServer } from '../../support/http-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { wsUrl } from '../../support/ws-client.ts';

const USER = { 'x-engine-role': 'user', 'x-engine-user-id': '7' };

let meta: TestDatabase;
let source: TestDatabase;
let hook: TestServer;
let a: TestEngine;
let b: TestEngine | undefined;
const clients: Client[] = [];

/** Both the action handler and the scheduled events' webhook. */
function answer(req: http.IncomingMessage, body: string, res: http.ServerResponse): void {
  if (req.url === '/action') {
    const n = (JSON.parse(body) as { input: { n: number } }).input.n;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ n, doubled: 2 * n }));
    return;
  }
  res.writeHead(200).end('{"ok":true}');
}

/** The backends on the metadata database whose last statement was a LISTEN. */
async function listenerPids(): Promise<number[]> {
  const r = await meta.sql("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()");
  return r.rows.map((x: { pid: number }) => x.pid);
}

async function listeners(): Promise<number> {
  return (await listenerPids()).length;
}

async function md(e: TestEngine, type: string, args: unknown): Promise<unknown> {
  const r = await e.metadata({ type, args });
  expect(r.status, r.text).toBe(200);
  return r.body;
}

beforeAll(async () => {
  meta = await createTestDatabase('mdb');
  source = await createTestDatabase('mdb_src');
  await source.sql('CREATE TABLE first_table (id int PRIMARY KEY); CREATE TABLE second_table (id int PRIMARY KEY)');
  hook = await startTestServer(answer);
  a = await startTestEngine({ databaseUrl: source.url, metadataDatabaseUrl: meta.url });
  await md(a, 'set_custom_types', {
    objects: [
      {
        name: 'WorkOutput',
        fields: [
          { name: 'n', type: 'Int!' },
          { name: 'doubled', type: 'Int' },
        ],
      },
    ],
  });
  await md(a, 'create_action', {
    name: 'work',
    definition: { kind: 'asynchronous', arguments: [{ name: 'n', type: 'Int!' }], output_type: 'WorkOutput', handler: `${hook.url}action`, timeout: 20 },
  });
  await md(a, 'create_action_permission', { action: 'work', role: 'user' });
}, 60_000);

afterAll(async () => {
  for (const c of clients) await c.dispose();
  await a?.close();
  await b?.close();
  await hook?.close();
  await meta?.drop();
  await source?.drop();
});

/** Submits `work(n)` on `e` and returns the pushed results of a subscription to it. */
async function submitAndWatch(e: TestEngine, n: number): Promise<{ id: string; results: unknown[] }> {
  const r = await e.graphql<{ data: { work: string } }>(`mutation { work(n: ${n}) }`, undefined, USER);
  expect(r.body.data?.work, r.text).toMatch(/^[0-9a-f-]{36}$/);
  const id = r.body.data.work;
  const c = createClient({ url: wsUrl(e.url), webSocketImpl: WebSocket, connectionParams: { headers: USER }, retryAttempts: 0 });
  clients.push(c);
  const results: unknown[] = [];
  c.subscribe(
    { query: 'subscription($id: uuid!) { work(id: $id) { output { n doubled } errors } }', variables: { id } },
    { next: (x) => void results.push(x), error: () => {}, complete: () => {} },
  );
  return { id, results };
}

describe('an idle engine on its metadata database', () => {
  it('holds one LISTEN connection for metadata changes, async action results and scheduled events', async () => {
    // Every consumer has subscribed: a result subscription makes the action runtime listen.
    const { results } = await submitAndWatch(a, 1);
    await expect.poll(() => results.at(-1), { timeout: 20_000 }).toEqual({ data: { work: { output: { n: 1, doubled: 2 }, errors: null } } });
    await expect.poll(listeners, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    expect(await listeners()).toBe(1);
  });
});

describe('when the LISTEN connection on the metadata database is killed', () => {
  it('comes back, and metadata changes, async action results and scheduled events are heard again', async () => {
    b = await startTestEngine({ databaseUrl: source.url, metadataDatabaseUrl: meta.url });
    await expect.poll(listeners, { timeout: 10_000 }).toBe(2);
    const killed = await listenerPids();
    await meta.sql('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [killed]);
    // Each engine listens again on one new connection (reconnecting by itself, not on the next request).
    const fresh = async (): Promise<number> => (await listenerPids()).filter((pid) => !killed.includes(pid)).length;
    await expect.poll(fresh, { timeout: 15_000 }).toBe(2);
    await expect.poll(listeners, { timeout: 10_000 }).toBe(2);

    // Metadata: b hears a's change by NOTIFY, well before its 10 s safety poll.
    const tablesOfB = (): ReadonlyMap<string, unknown> | undefined => b?.engine.metadata.catalogRef.current.sources.get('default')?.tables;
    await md(a, 'pg_track_table', { table: 'first_table' });
    await expect.poll(() => tablesOfB()?.has('public.first_table'), { timeout: 5_000, interval: 50 }).toBe(true);

    // Async actions: a result subscription is pushed only by a notification (it never polls).
    const { results } = await submitAndWatch(b, 21);
    await expect.poll(() => results.at(-1), { timeout: 20_000 }).toEqual({ data: { work: { output: { n: 21, doubled: 42 }, errors: null } } });

    // Scheduled events: a one-off event due now is taken on its NOTIFY, well before the 10 s fallback poll.
    const before = hook.requests.filter((r) => r.path === '/event').length;
    await md(a, 'create_scheduled_event', { webhook: `${hook.url}event`, schedule_at: new Date().toISOString(), payload: { after: 'kill' } });
    await expect.poll(() => hook.requests.filter((r) => r.path === '/event').length, { timeout: 6_000, interval: 50 }).toBe(before + 1);
  });
});
