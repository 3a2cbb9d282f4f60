/**
 * GraphQL over WebSocket with real clients: graphql-ws (graphql-transport-ws),
 * subscriptions-transport-ws (the legacy graphql-ws protocol) and Apollo
 * Client; live queries on a real PostgreSQL, with changes made through the
 * engine and through plain SQL; the protocols' close codes for bad messages.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { SubscriptionClient } from 'subscriptions-transport-ws';
import { ApolloClient, InMemoryCache, gql } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';
import { openRawSocket, wsUrl, type RawSocket } from '../../support/ws-client.ts';

const SQL = `
CREATE TABLE items (id serial PRIMARY KEY, owner text NOT NULL, name text NOT NULL, qty int NOT NULL DEFAULT 0);
INSERT INTO items (owner, name, qty) VALUES ('u1', 'apple', 1), ('u2', 'pear', 2);
`;
const TRACK = {
  type: 'bulk',
  args: [
    { type: 'pg_track_table', args: { source: 'default', table: 'items' } },
    {
      type: 'pg_create_select_permission',
      args: {
        source: 'default',
        table: 'items',
        role: 'user',
        permission: { columns: ['id', 'owner', 'name', 'qty'], filter: { owner: { _eq: 'X-Engine-User-Id' } } },
      },
    },
  ],
};

let s: SeededEngine;
const clients: { dispose(): unknown }[] = [];

beforeAll(async () => {
  s = await startSeededEngine({
    prefix: 'ws_protocols',
    sql: SQL,
    track: TRACK,
    settings: { websocketConnectionInitTimeout: 1, liveQueriesMultiplexedRefetchInterval: 100 },
  });
});

afterAll(async () => {
  for (const c of clients) await c.dispose();
  await s?.close();
});

/** Collects a subscription's results; `waitFor` polls them with a bound. */
function collector<T = Record<string, unknown>>(): {
  results: T[];
  errors: unknown[];
  done: boolean;
  waitFor(pred: (r: T) => boolean, ms?: number): Promise<T>;
} {
  const c = {
    results: [] as T[],
    errors: [] as unknown[],
    done: false,
    async waitFor(pred: (r: T) => boolean, ms = 10_000): Promise<T> {
      const end = Date.now() + ms;
      for (;;) {
        const hit = c.results.find(pred);
        if (hit !== undefined) return hit;
        if (Date.now() > end) throw new Error(`timed out; got ${JSON.stringify(c.results)} ${JSON.stringify(c.errors)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
  };
  return c;
}

function graphqlWs(connectionParams?: Record<string, unknown>): Client {
  const client = createClient({ url: wsUrl(s.engine.url), webSocketImpl: WebSocket, connectionParams, lazy: true, retryAttempts: 0 });
  clients.push(client);
  return client;
}

type Items = { data?: { items: { id: number; name: string }[] }; errors?: unknown[] };

describe('graphql-transport-ws (graphql-ws client)', () => {
  it('streams a live query, changed through the engine and through plain SQL', async () => {
    const client = graphqlWs();
    const got = collector<Items>();
    const stop = client.subscribe<Items['data']>(
      { query: 'subscription { items(order_by: {id: asc}) { id name } }' },
      { next: (r) => got.results.push(r as Items), error: (e) => got.errors.push(e), complete: () => (got.done = true) },
    );
    await got.waitFor((r) => r.data?.items.length === 2);
    const m = await s.engine.graphql('mutation { insert_items_one(object: {owner: "u1", name: "fig"}) { id } }');
    expect(m.status).toBe(200);
    await got.waitFor((r) => r.data?.items.some((i) => i.name === 'fig') === true);
    await s.db.sql("UPDATE items SET name = 'plum' WHERE name = 'pear'");
    await got.waitFor((r) => r.data?.items.some((i) => i.name === 'plum') === true);
    // Only changes are sent: each result differs from the one before.
    for (let i = 1; i < got.results.length; i++) expect(got.results[i]).not.toEqual(got.results[i - 1]);
    stop();
    expect(got.errors).toEqual([]);
  });

  it('answers queries and mutations over the socket, then completes', async () => {
    const client = graphqlWs();
    const q = collector<Items>();
    client.subscribe(
      { query: 'query { items(where: {name: {_eq: "apple"}}) { id name } }' },
      { next: (r) => q.results.push(r as Items), error: (e) => q.errors.push(e), complete: () => (q.done = true) },
    );
    await q.waitFor((r) => r.data?.items[0]?.name === 'apple');
    const m = collector<Record<string, unknown>>();
    client.subscribe(
      { query: 'mutation($n: String!) { insert_items(objects: [{owner: "u2", name: $n}]) { affected_rows } }', variables: { n: 'kiwi' } },
      { next: (r) => m.results.push(r as Record<string, unknown>), error: (e) => m.errors.push(e), complete: () => (m.done = true) },
    );
    await m.waitFor((r) => JSON.stringify(r) === '{"data":{"insert_items":{"affected_rows":1}}}');
    await expect.poll(() => q.done && m.done).toBe(true);
  });

  it('refuses an invalid operation with an error message in v2 shape', async () => {
    const client = graphqlWs();
    const errors: unknown[] = [];
    client.subscribe({ query: 'subscription { nope { id } }' }, { next: () => {}, error: (e) => errors.push(e), complete: () => {} });
    await expect.poll(() => errors.length).toBe(1);
    expect(errors[0]).toEqual([
      expect.objectContaining({ message: expect.stringContaining('nope'), extensions: expect.objectContaining({ code: 'validation-failed' }) }),
    ]);
  });

  it("applies each subscriber's own permissions (session variables from connection_init)", async () => {
    const u1 = graphqlWs({ headers: { 'X-Engine-Role': 'user', 'X-Engine-User-Id': 'u1' } });
    // v2 also accepts the headers at the top level of the payload.
    const u2 = graphqlWs({ 'x-engine-role': 'user', 'x-engine-user-id': 'u2' });
    const a = collector<{ data?: { items: { owner: string }[] } }>();
    const b = collector<{ data?: { items: { owner: string }[] } }>();
    const q = { query: 'subscription { items { owner } }' };
    u1.subscribe(q, { next: (r) => a.results.push(r as never), error: (e) => a.errors.push(e), complete: () => {} });
    u2.subscribe(q, { next: (r) => b.results.push(r as never), error: (e) => b.errors.push(e), complete: () => {} });
    await a.waitFor((r) => (r.data?.items.length ?? 0) > 0);
    await b.waitFor((r) => (r.data?.items.length ?? 0) > 0);
    await s.db.sql("INSERT INTO items (owner, name) VALUES ('u2', 'only-u2')");
    await b.waitFor((r) => (r.data?.items.length ?? 0) >= 3);
    expect(a.results.every((r) => r.data?.items.every((i) => i.owner === 'u1'))).toBe(true);
    expect(b.results.every((r) => r.data?.items.every((i) => i.owner === 'u2'))).toBe(true);
  });
});

describe('graphql-ws, the legacy protocol (subscriptions-transport-ws client)', () => {
  it('streams a live query and answers a query', async () => {
    const client = new SubscriptionClient(wsUrl(s.engine.url), { reconnect: false }, WebSocket);
    clients.push({ dispose: () => client.close() });
    const got = collector<Items>();
    const sub = client.request({ query: 'subscription($n: String!) { items(where: {name: {_eq: $n}}) { id name } }', variables: { n: 'legacy' } }).subscribe({
      next: (r) => got.results.push(r as Items),
      error: (e: unknown) => got.errors.push(e),
    });
    await got.waitFor((r) => r.data?.items.length === 0);
    await s.db.sql("INSERT INTO items (owner, name) VALUES ('u3', 'legacy')");
    await got.waitFor((r) => r.data?.items.length === 1);
    sub.unsubscribe();
    const q = collector<Items>();
    client
      .request({ query: '{ items(where: {name: {_eq: "legacy"}}) { name } }' })
      .subscribe({ next: (r) => q.results.push(r as Items), error: (e: unknown) => q.errors.push(e), complete: () => (q.done = true) });
    await q.waitFor((r) => r.data?.items[0]?.name === 'legacy');
    await expect.poll(() => q.done).toBe(true);
  });
});

describe('Apollo Client over the socket', () => {
  it('subscribes through GraphQLWsLink', async () => {
    const wsClient = graphqlWs();
    const apollo = new ApolloClient({ link: new GraphQLWsLink(wsClient), cache: new InMemoryCache() });
    const got = collector<{ data?: { items: { name: string }[] } }>();
    const sub = apollo
      .subscribe({
        query: gql`
          subscription {
            items(where: { name: { _eq: "apollo" } }) {
              id
              name
            }
          }
        `,
      })
      .subscribe({
        next: (r) => got.results.push(r as never),
        error: (e: unknown) => got.errors.push(e),
      });
    await got.waitFor((r) => r.data?.items.length === 0);
    await s.engine.graphql('mutation { insert_items_one(object: {owner: "u9", name: "apollo"}) { id } }');
    await got.waitFor((r) => r.data?.items.length === 1);
    sub.unsubscribe();
    apollo.stop();
  });
});

describe("protocol errors close the socket with the protocol's codes", () => {
  const open = async (protocol: string | null = 'graphql-transport-ws'): Promise<RawSocket> => await openRawSocket(s.engine.url, protocol);

  it('4400 for a frame that is not a message', async () => {
    for (const frame of ['not json', '[]', '{"type": 5}', '{"type":"subscribe","id":"1"}', '{"type":"mystery"}']) {
      const ws = await open();
      ws.send(frame);
      expect((await ws.waitClosed()).code).toBe(4400);
    }
  });

  it('4401 for subscribe before connection_ack, 4429 for a second connection_init, 4409 for a duplicate id', async () => {
    const a = await open();
    a.send({ type: 'subscribe', id: '1', payload: { query: 'subscription { items { id } }' } });
    expect((await a.waitClosed()).code).toBe(4401);
    const b = await open();
    b.send({ type: 'connection_init' });
    await b.waitFor((m) => m['type'] === 'connection_ack');
    b.send({ type: 'connection_init' });
    expect((await b.waitClosed()).code).toBe(4429);
    const c = await open();
    c.send({ type: 'connection_init', payload: {} });
    await c.waitFor((m) => m['type'] === 'connection_ack');
    c.send({ type: 'subscribe', id: 'x', payload: { query: 'subscription { items { id } }' } });
    c.send({ type: 'subscribe', id: 'x', payload: { query: 'subscription { items { id } }' } });
    expect((await c.waitClosed()).code).toBe(4409);
  });

  it('4408 when connection_init does not come in time; ping gets pong', async () => {
    const a = await open();
    a.send({ type: 'ping', payload: { n: 1 } });
    expect(await a.waitFor((m) => m['type'] === 'pong')).toEqual({ type: 'pong', payload: { n: 1 } });
    expect((await a.waitClosed(5000)).code).toBe(4408);
  });

  it('legacy: connection_error for a bad frame, ka after ack, error for a start before init', async () => {
    const a = await open('graphql-ws');
    a.send({ type: 'start', id: '1', payload: { query: '{ items { id } }' } });
    await a.waitFor((m) => m['type'] === 'error' && m['id'] === '1');
    a.send('garbage');
    await a.waitFor((m) => m['type'] === 'connection_error');
    a.send({ type: 'connection_init', payload: {} });
    await a.waitFor((m) => m['type'] === 'connection_ack');
    await a.waitFor((m) => m['type'] === 'ka');
    a.send({ type: 'connection_terminate' });
    expect((await a.waitClosed()).code).toBe(1000);
  });

  it('refuses upgrades of other paths and unknown sub-protocols', async () => {
    const other = new WebSocket(`${s.engine.url.replace('http', 'ws')}/v1/metadata`, 'graphql-ws');
    const status = await new Promise<number>((resolve) => other.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(404);
    const unknown = new WebSocket(wsUrl(s.engine.url), 'mqtt');
    const st2 = await new Promise<number>((resolve) => unknown.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(st2).toBe(400);
  });
});
