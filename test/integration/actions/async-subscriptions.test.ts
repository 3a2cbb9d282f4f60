/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * An asynchronous action's result as a subscription field (Note [Action
 * result subscriptions]): real engines sharing one database, a real handler
 * server that answers when the test lets it, real graphql-ws clients. The
 * result is pushed when the worker stores it (no polling: nothing else
 * would send a second message), to subscribers on every engine, and only to
 * the session that submitted the action.
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
const OTHER = { 'x-engine-role': 'user', 'x-engine-user-id': '8' };

let db: TestDatabase;
let handler: TestServer;
let a: TestEngine;
let b: TestEngine;
const clients: Client[] = [];
/** Handler calls waiting for the test to answer them, by input n. */
const held = new Map<number, http.ServerResponse>();

beforeAll(async () => {
  db = await createTestDatabase('async_sub');
  handler = await startTestServer((_req, body, res) => {
    const n = (JSON.parse(body) as { input: { n: number } }).input.n;
    held.set(n, res);
  });
  a = await startTestEngine({ databaseUrl: db.url });
  b = await startTestEngine({ databaseUrl: db.url });
  const md = async (type: string, args: unknown): Promise<void> => {
    const r = await a.metadata({ type, args });
    expect(r.body).toEqual({ message: 'success' });
  };
  await md('set_custom_types', {
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
  await md('create_action', {
    name: 'work',
    definition: { kind: 'asynchronous', arguments: [{ name: 'n', type: 'Int!' }], output_type: 'WorkOutput', handler: handler.url, timeout: 20 },
  });
  await md('create_action_permission', { action: 'work', role: 'user' });
  // Engine b sees the action too (it reads the metadata version on its own).
  const deadline = Date.now() + 20_000;
  const sees = async (): Promise<boolean> =>
    JSON.stringify((await b.graphql('{ __type(name: "WorkOutput") { name } }', undefined, USER)).body).includes('WorkOutput');
  while (!(await sees())) {
    if (Date.now() > deadline) throw new Error('engine b never saw the action');
    await new Promise((r) => setTimeout(r, 100));
  }
}, 60_000);

afterAll(async () => {
  for (const c of clients) await c.dispose();
  for (const res of held.values()) res.destroy();
  await a?.close();
  await b?.close();
  await handler?.close();
  await db?.drop();
});

function client(url: string, headers: Record<string, string>): Client {
  const c = createClient({ url: wsUrl(url), webSocketImpl: WebSocket, connectionParams: { headers }, retryAttempts: 0 });
  clients.push(c);
  return c;
}

type Result = { data?: Record<string, any>; errors?: Array<{ message: string; extensions: { code: string } }> };

function watch(c: Client, query: string, variables?: Record<string, unknown>): { results: Result[]; errors: unknown[]; done: boolean } {
  const out = { results: [] as Result[], errors: [] as unknown[], done: false };
  c.subscribe(
    { query, variables },
    {
      next: (r) => out.results.push(r as Result),
      error: (e) => out.errors.push(e),
      complete: () => {
        out.done = true;
      },
    },
  );
  return out;
}

/** Answers the held handler call of input n with status and body. */
async function answer(n: number, status: number, body: unknown): Promise<void> {
  await expect.poll(() => held.has(n), { timeout: 20_000 }).toBe(true);
  const res = held.get(n) as http.ServerResponse;
  held.delete(n);
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const RESULT = 'subscription($id: uuid!) { work(id: $id) { id created_at output { n doubled } errors } }';

async function submit(n: number): Promise<string> {
  const r = await a.graphql<{ data: { work: string } }>(`mutation { work(n: ${n}) }`, undefined, USER);
  expect(r.body.data.work).toMatch(/^[0-9a-f-]{36}$/);
  return r.body.data.work;
}

describe('asynchronous action results as subscription fields', () => {
  it('push the output when the handler answers, to the submitting session on every engine, and nothing to another session', async () => {
    const id = await submit(5);
    const onA = watch(client(a.url, USER), RESULT, { id });
    const onB = watch(client(b.url, USER), RESULT, { id });
    const other = watch(client(a.url, OTHER), RESULT, { id });
    const pending = { work: { id, created_at: expect.any(String), output: null, errors: null } };
    await expect.poll(() => onA.results.length, { timeout: 10_000 }).toBe(1);
    await expect.poll(() => onB.results.length, { timeout: 10_000 }).toBe(1);
    await expect.poll(() => other.results.length, { timeout: 10_000 }).toBe(1);
    expect(onA.results[0]).toEqual({ data: pending });
    expect(onB.results[0]).toEqual({ data: pending });
    expect(other.results[0]).toEqual({ data: { work: null } });

    await answer(5, 200, { n: 5, doubled: 10 });
    const done = { work: { id, created_at: expect.any(String), output: { n: 5, doubled: 10 }, errors: null } };
    await expect.poll(() => onA.results.length, { timeout: 10_000 }).toBe(2);
    await expect.poll(() => onB.results.length, { timeout: 10_000 }).toBe(2);
    expect(onA.results[1]).toEqual({ data: done });
    expect(onB.results[1]).toEqual({ data: done });
    // The other session read again on the same notification and found nothing new to send; a
    // subscription it starts now sees nothing either, while the submitter's own sees the result.
    const late = watch(client(a.url, OTHER), RESULT, { id });
    const own = watch(client(b.url, USER), RESULT, { id });
    await expect.poll(() => late.results.length, { timeout: 10_000 }).toBe(1);
    await expect.poll(() => own.results.length, { timeout: 10_000 }).toBe(1);
    expect(late.results[0]).toEqual({ data: { work: null } });
    expect(own.results[0]).toEqual({ data: done });
    expect(other.results).toHaveLength(1);
    expect([onA, onB, other].every((s) => s.errors.length === 0 && !s.done)).toBe(true);
  });

  it("push a handler's 4xx answer as the result's errors; a mutation over the socket submits", async () => {
    const c = client(a.url, USER);
    const submitted = watch(c, 'mutation { work(n: -3) }');
    await expect.poll(() => submitted.done, { timeout: 10_000 }).toBe(true);
    const id = submitted.results[0]?.data?.['work'] as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const sub = watch(c, RESULT, { id });
    await expect.poll(() => sub.results.length, { timeout: 10_000 }).toBe(1);
    await answer(-3, 400, { message: 'negative', extensions: { code: 'negative-input' } });
    await expect.poll(() => sub.results.length, { timeout: 10_000 }).toBe(2);
    expect(sub.results[1]).toEqual({
      data: { work: { id, created_at: expect.any(String), output: null, errors: { message: 'negative', extensions: { code: 'negative-input' } } } },
    });
  });

  it('refuse an id that is not a uuid with a validation error that ends the subscription', async () => {
    const sub = watch(client(a.url, USER), 'subscription { work(id: "nope") { id } }');
    await expect.poll(() => sub.errors.length, { timeout: 10_000 }).toBe(1);
    expect(sub.errors[0]).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'validation-failed' }) })]);
    expect(sub.results).toHaveLength(0);
  });

  it('stop reading when the client stops: a later result reaches only the subscriptions still running', async () => {
    const id = await submit(9);
    const c = client(a.url, USER);
    const kept = watch(c, RESULT, { id });
    const out = { results: [] as Result[] };
    const stop = c.subscribe({ query: RESULT, variables: { id } }, { next: (r) => out.results.push(r as Result), error: () => {}, complete: () => {} });
    await expect.poll(() => kept.results.length + out.results.length, { timeout: 10_000 }).toBe(2);
    stop();
    await answer(9, 200, { n: 9 });
    await expect.poll(() => kept.results.length, { timeout: 10_000 }).toBe(2);
    expect(kept.results[1]?.data?.['work'].output).toEqual({ n: 9, doubled: null });
    expect(out.results).toHaveLength(1);
  });
});

describe('subscription_root', () => {
  it('serves the async result field and, as v2, not synchronous query actions', async () => {
    const r = await a.metadata({
      type: 'bulk',
      args: [
        { type: 'create_action', args: { name: 'peek', definition: { type: 'query', output_type: 'WorkOutput', handler: handler.url } } },
        { type: 'create_action_permission', args: { action: 'peek', role: 'user' } },
      ],
    });
    expect(r.body).toEqual([{ message: 'success' }, { message: 'success' }]);
    const names = async (root: 'queryType' | 'subscriptionType'): Promise<string[]> => {
      const res = await a.graphql<any>(`{ __schema { ${root} { fields { name } } } }`, undefined, USER);
      return (res.body.data.__schema[root].fields as Array<{ name: string }>).map((f) => f.name).sort();
    };
    expect(await names('queryType')).toEqual(['peek', 'work']);
    expect(await names('subscriptionType')).toEqual(['work']);
    const sub = watch(client(a.url, USER), 'subscription { peek { n } }');
    await expect.poll(() => sub.errors.length, { timeout: 10_000 }).toBe(1);
    expect(sub.errors[0]).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'validation-failed' }) })]);
  });
});
