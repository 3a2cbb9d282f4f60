/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Remote schemas' subscription roots (Note [Remote subscriptions]) through
 * Engine's WebSocket with real graphql-ws clients, against a real graphql-ws
 * server on loopback: the fields on subscription_root (customized, per role
 * permission with presets), each event forwarded (names mapped back, equal
 * events too), one upstream socket per subscription carrying the configured,
 * forwarded and session headers, closed when the client completes or leaves
 * (open sockets counted on the server), upstream errors as
 * `remote-schema-error`, a remote that is down or drops the socket, and
 * refusals of subscriptions mixing fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startGraphqlWsServer, type GraphqlWsTestServer } from '../../support/graphql-ws-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { openRawSocket, wsUrl } from '../../support/ws-client.ts';

let db: TestDatabase;
let engine: TestEngine;
let market: GraphqlWsTestServer;
const clients: Client[] = [];

const SDL = `
type Price { symbol: String! value: Float! }
type Query { hello: String }
type Subscription {
  priceOf(symbol: String!): Price!
  ticks(channel: String!, user: String): Int!
}
`;
const TOPICS = {
  priceOf: (a: Record<string, unknown>) => `price:${String(a['symbol'])}`,
  ticks: (a: Record<string, unknown>) => `ticks:${String(a['channel'])}:${String(a['user'] ?? '')}`,
};
const USER_PERMISSION = `
type Query { hello: String }
type Subscription { ticks(channel: String!, user: String @preset(value: "x-engine-user-id")): Int! }
`;

const md = async (type: string, args: unknown): Promise<any> => await engine.metadata({ type, args });

type Result = { data?: any; errors?: Array<{ message: string; extensions: { code: string; path: string } }> };
interface Watch {
  results: Result[];
  errors: any[];
  completed: boolean;
  stop: () => void;
}

function client(headers: Record<string, string> = {}): Client {
  const c = createClient({ url: wsUrl(engine.url), webSocketImpl: WebSocket, connectionParams: { headers }, retryAttempts: 0, lazyCloseTimeout: 0 });
  clients.push(c);
  return c;
}

function watch(c: Client, query: string, variables?: Record<string, unknown>): Watch {
  const w: Watch = { results: [], errors: [], completed: false, stop: () => {} };
  w.stop = c.subscribe(
    { query, variables },
    {
      next: (r) => w.results.push(r as Result),
      error: (e) => w.errors.push(e),
      complete: () => (w.completed = true),
    },
  );
  return w;
}

beforeAll(async () => {
  db = await createTestDatabase('rss');
  await db.sql(`
    CREATE TABLE item (id int PRIMARY KEY); INSERT INTO item VALUES (1);
    CREATE TABLE stock (symbol text PRIMARY KEY, name text NOT NULL); INSERT INTO stock VALUES ('ACME', 'Acme Corp');
  `);
  engine = await startTestEngine({ databaseUrl: db.url, enableRemoteSchemaPermissions: true });
  for (const table of ['item', 'stock']) expect((await md('pg_track_table', { table })).status).toBe(200);
  market = await startGraphqlWsServer(SDL, { hello: () => 'hi' }, TOPICS);
  const add = await md('add_remote_schema', {
    name: 'market',
    definition: { url: market.url, headers: [{ name: 'x-api-key', value: 'k1' }], forward_client_headers: true },
  });
  expect(add.status, JSON.stringify(add.body)).toBe(200);
  const custom = await md('add_remote_schema', {
    name: 'custom',
    definition: {
      url: market.url,
      customization: {
        root_fields_namespace: 'mk',
        type_names: { prefix: 'Mk_' },
        field_names: [
          { parent_type: 'Subscription', mapping: { priceOf: 'price' } },
          { parent_type: 'Price', mapping: { value: 'amount' } },
        ],
      },
    },
  });
  expect(custom.status, JSON.stringify(custom.body)).toBe(200);
  const perm = await md('add_remote_schema_permissions', { remote_schema: 'market', role: 'user', definition: { schema: USER_PERMISSION } });
  expect(perm.status, JSON.stringify(perm.body)).toBe(200);
});

afterAll(async () => {
  for (const c of clients) await c.dispose();
  await engine?.close();
  await market?.close();
  await db?.drop();
});

/** Waits until the server runs `n` subscriptions and has `sockets` sockets open. */
async function upstream(n: number, sockets = n): Promise<void> {
  await expect.poll(() => [market.activeSubscriptions(), market.openSockets()], { timeout: 10_000 }).toEqual([n, sockets]);
}

describe('remote subscription roots', () => {
  it("shows a remote's subscription fields on subscription_root, customized, and not its query fields", async () => {
    const r = (await engine.graphql('{ __schema { subscriptionType { fields { name type { name ofType { name } } } } queryType { fields { name } } } }'))
      .body as any;
    const sub = r.data.__schema.subscriptionType.fields.map((f: any) => f.name);
    expect(sub).toEqual(expect.arrayContaining(['item', 'priceOf', 'ticks', 'mk']));
    expect(sub).not.toContain('hello');
    expect(r.data.__schema.subscriptionType.fields.find((f: any) => f.name === 'mk').type.ofType.name).toBe('mk_subscription');
    const query = r.data.__schema.queryType.fields.map((f: any) => f.name);
    expect(query).toEqual(expect.arrayContaining(['hello', 'mk']));
    expect(query).not.toContain('priceOf');
    const nested = (await engine.graphql('{ __type(name: "mk_subscription") { fields { name } } }')).body as any;
    expect(nested.data.__type.fields.map((f: any) => f.name).sort()).toEqual(['price', 'ticks']);
  });

  it('forwards every event (equal ones too) with one upstream socket carrying the headers, and closes it when the client completes', async () => {
    const c = client({ 'x-engine-user-id': '7', 'x-client-trace': 'abc' });
    const w = watch(c, 'subscription($s: String!) { p: priceOf(symbol: $s) { __typename symbol value } }', { s: 'ACME' });
    await upstream(1);
    for (const value of [1.5, 1.5, 2]) market.publish('price:ACME', { priceOf: { symbol: 'ACME', value } });
    await expect.poll(() => w.results.length).toBe(3);
    expect(w.results.map((r) => r.data.p.value)).toEqual([1.5, 1.5, 2]);
    expect(w.results[0]).toEqual({ data: { p: { __typename: 'Price', symbol: 'ACME', value: 1.5 } } });
    const conn = market.connections.at(-1);
    for (const headers of [conn?.headers, (conn?.params as any)?.headers]) {
      expect(headers?.['x-api-key']).toBe('k1');
      expect(headers?.['x-client-trace']).toBe('abc');
      expect(headers?.['x-engine-user-id']).toBe('7');
    }
    expect(market.subscribes.at(-1)).toEqual({
      query: 'subscription ($s: String!) { r0: priceOf(symbol: $s) { __typename: __typename symbol value } }',
      variables: { s: 'ACME' },
    });
    w.stop();
    await upstream(0);
    expect(w.errors).toEqual([]);
  });

  it('maps customized names both ways', async () => {
    const w = watch(client(), 'subscription { mk { __typename price(symbol: "Y") { __typename symbol amount } } }');
    await upstream(1);
    expect(market.subscribes.at(-1)?.query).toBe('subscription { r0: priceOf(symbol: "Y") { __typename: __typename symbol amount: value } }');
    market.publish('price:Y', { priceOf: { symbol: 'Y', value: 3 } });
    await expect.poll(() => w.results.length).toBe(1);
    expect(w.results[0]).toEqual({ data: { mk: { __typename: 'mk_subscription', price: { __typename: 'Mk_Price', symbol: 'Y', amount: 3 } } } });
    w.stop();
    await upstream(0);
  });

  it('serves a role the fields of its permission, presets injected from the session', async () => {
    const c = client({ 'x-engine-role': 'user', 'x-engine-user-id': '42' });
    const refused = watch(c, 'subscription { priceOf(symbol: "X") { value } }');
    await expect.poll(() => refused.errors.length).toBe(1);
    expect(refused.errors[0][0].message).toMatch(/priceOf/);
    const w = watch(c, 'subscription { ticks(channel: "c") }');
    await upstream(1);
    expect(market.subscribes.at(-1)).toEqual({
      query: 'subscription ($__engine_session_0: String) { r0: ticks(channel: "c", user: $__engine_session_0) }',
      variables: { __engine_session_0: '42' },
    });
    market.publish('ticks:c:42', { ticks: 5 });
    await expect.poll(() => w.results).toEqual([{ data: { ticks: 5 } }]);
    const user = watch(c, 'subscription { ticks(channel: "c", user: "1") }');
    await expect.poll(() => user.errors.length).toBe(1);
    w.stop();
    await upstream(0);
  });

  it('keeps the upstream through an unrelated metadata change and ends the subscription when the permission goes', async () => {
    const w = watch(client({ 'x-engine-role': 'user', 'x-engine-user-id': '5' }), 'subscription { ticks(channel: "m") }');
    await upstream(1);
    const connections = market.connections.length;
    expect((await md('pg_create_select_permission', { table: 'item', role: 'user', permission: { columns: ['id'], filter: {} } })).status).toBe(200);
    market.publish('ticks:m:5', { ticks: 1 });
    await expect.poll(() => w.results).toEqual([{ data: { ticks: 1 } }]);
    expect(market.connections.length).toBe(connections);
    expect((await md('drop_remote_schema_permissions', { remote_schema: 'market', role: 'user' })).status).toBe(200);
    await expect.poll(() => w.errors.length).toBe(1);
    expect(w.errors[0][0].extensions.code).toBe('validation-failed');
    await upstream(0);
    expect((await md('add_remote_schema_permissions', { remote_schema: 'market', role: 'user', definition: { schema: USER_PERMISSION } })).status).toBe(200);
  });

  it("runs the joins of the remote's types on each event", async () => {
    const rel = await md('create_remote_schema_remote_relationship', {
      remote_schema: 'market',
      type_name: 'Price',
      name: 'stock',
      definition: { to_source: { source: 'default', table: 'stock', relationship_type: 'object', field_mapping: { symbol: 'symbol' } } },
    });
    expect(rel.status, JSON.stringify(rel.body)).toBe(200);
    const w = watch(client(), 'subscription { priceOf(symbol: "ACME") { value stock { name } } }');
    await upstream(1);
    market.publish('price:ACME', { priceOf: { symbol: 'ACME', value: 4 } });
    await expect.poll(() => w.results).toEqual([{ data: { priceOf: { value: 4, stock: { name: 'Acme Corp' } } } }]);
    w.stop();
    await upstream(0);
  });

  it('forwards an event with errors as remote-schema-error and goes on; the remote completing completes the client', async () => {
    const w = watch(client(), 'subscription { t: ticks(channel: "e") }');
    await upstream(1);
    market.publish('ticks:e:', { ticks: null });
    market.publish('ticks:e:', { ticks: 9 });
    await expect.poll(() => w.results.length).toBe(2);
    expect(w.results[0]?.errors?.[0]?.extensions).toMatchObject({ code: 'remote-schema-error', path: '$.t' });
    expect(w.results[0]?.errors?.[0]?.message).toMatch(/non-nullable/);
    expect(w.results[1]).toEqual({ data: { t: 9 } });
    market.end('ticks:e:');
    await expect.poll(() => w.completed).toBe(true);
    await upstream(0);
  });

  it('closes the upstream socket when the client leaves without completing', async () => {
    const s = await openRawSocket(engine.url, 'graphql-transport-ws');
    s.send({ type: 'connection_init', payload: {} });
    await s.waitFor((m) => m['type'] === 'connection_ack');
    s.send({ id: '1', type: 'subscribe', payload: { query: 'subscription { ticks(channel: "leave") }' } });
    s.send({ id: '2', type: 'subscribe', payload: { query: 'subscription { priceOf(symbol: "leave") { value } }' } });
    await upstream(2);
    market.publish('ticks:leave:', { ticks: 1 });
    await s.waitFor((m) => m['type'] === 'next' && m['id'] === '1');
    s.ws.terminate();
    await upstream(0);
  });

  it('ends the subscription with remote-schema-error when the remote drops the socket, and the engine serves on', async () => {
    const w = watch(client(), 'subscription { ticks(channel: "drop") }');
    await upstream(1);
    market.dropAll();
    await expect.poll(() => w.errors.length).toBe(1);
    expect(w.errors[0][0].extensions.code).toBe('remote-schema-error');
    expect(w.errors[0][0].message).toMatch(/closed the subscription/);
    await upstream(0);
    expect((await engine.graphql('{ hello item { id } }')).body).toEqual({ data: { hello: 'hi', item: [{ id: 1 }] } });
  });

  it('cuts a remote that hangs without closing its socket at timeout_seconds', async () => {
    const hung = await startGraphqlWsServer('type Query { a: Int } type Subscription { beat: Int! }', { a: () => 1 }, { beat: () => 'beat' });
    try {
      expect((await md('add_remote_schema', { name: 'hung', definition: { url: hung.url, timeout_seconds: 1 } })).status).toBe(200);
      const w = watch(client(), 'subscription { beat }');
      await expect.poll(() => hung.activeSubscriptions()).toBe(1);
      hung.publish('beat', { beat: 1 });
      await expect.poll(() => w.results).toEqual([{ data: { beat: 1 } }]);
      hung.freeze();
      await expect.poll(() => w.errors.length, { timeout: 10_000 }).toBe(1);
      expect(w.errors[0][0]).toMatchObject({
        message: 'the remote schema did not answer a ping within 1 seconds',
        extensions: { code: 'remote-schema-error' },
      });
      expect((await md('remove_remote_schema', { name: 'hung' })).status).toBe(200);
    } finally {
      await hung.close();
    }
  });

  it('answers remote-schema-error when the remote is down', async () => {
    const gone = await startGraphqlWsServer('type Query { a: Int } type Subscription { gone: Int! }', { a: () => 1 }, { gone: () => 'gone' });
    expect((await md('add_remote_schema', { name: 'gone', definition: { url: gone.url } })).status).toBe(200);
    await gone.close();
    const w = watch(client(), 'subscription { gone }');
    await expect.poll(() => w.errors.length, { timeout: 10_000 }).toBe(1);
    expect(w.errors[0][0].extensions.code).toBe('remote-schema-error');
    expect(w.errors[0][0].message).toMatch(/could not reach the remote schema/);
    expect((await md('remove_remote_schema', { name: 'gone' })).status).toBe(200);
  });

  it('ends the subscription with remote-schema-error when the remote refuses it (its schema changed since introspection)', async () => {
    const fickle = await startGraphqlWsServer('type Query { a: Int } type Subscription { beat: Int! }', { a: () => 1 }, { beat: () => 'beat' });
    try {
      expect((await md('add_remote_schema', { name: 'fickle', definition: { url: fickle.url } })).status).toBe(200);
      fickle.setSchema('type Query { a: Int } type Subscription { pulse: Int! }');
      const w = watch(client(), 'subscription { beat }');
      await expect.poll(() => w.errors.length).toBe(1);
      expect(w.errors[0][0].extensions.code).toBe('remote-schema-error');
      expect(w.errors[0][0].message).toMatch(/beat/);
      await expect.poll(() => fickle.openSockets()).toBe(0);
      expect((await md('remove_remote_schema', { name: 'fickle' })).status).toBe(200);
    } finally {
      await fickle.close();
    }
  });

  it('refuses a subscription selecting a remote field with anything else', async () => {
    const c = client();
    const mixed = watch(c, 'subscription { priceOf(symbol: "X") { value } item { id } }');
    const two = watch(c, 'subscription { mk { price(symbol: "X") { amount } ticks(channel: "x") } }');
    const query = watch(c, 'subscription { hello }');
    await expect.poll(() => [mixed.errors.length, two.errors.length, query.errors.length]).toEqual([1, 1, 1]);
    expect(mixed.errors[0][0].message).toBe('Anonymous Subscription must select only one top level field.');
    expect(two.errors[0][0]).toEqual({
      message: "a subscription must select exactly one field of a remote schema's subscription root",
      extensions: { path: '$', code: 'validation-failed' },
    });
    expect(query.errors[0][0].message).toMatch(/hello/);
    expect(market.activeSubscriptions()).toBe(0);
  });
});
