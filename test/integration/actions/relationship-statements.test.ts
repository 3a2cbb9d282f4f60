/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Output relationships of an action read their rows with one statement for
 * the whole response, counted by a protocol-reading proxy in front of the source.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/http-server.ts';
import { startPgProxy, type PgProxy } from '../../support/pg-proxy.ts';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';

let s: SeededEngine;
let proxy: PgProxy;
let handler: TestServer;

beforeAll(async () => {
  handler = await startTestServer((_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify([{ city_id: 1 }, { city_id: 2 }, { city_id: 1 }, { city_id: 3 }]));
  });
  s = await startSeededEngine({
    prefix: 'actrel',
    sql: `CREATE TABLE city (id integer PRIMARY KEY, name text NOT NULL);
          CREATE TABLE person (id serial PRIMARY KEY, city_id integer REFERENCES city(id), name text NOT NULL);
          INSERT INTO city VALUES (1, 'Lyon'), (2, 'Oslo'), (3, 'Rome');
          INSERT INTO person (city_id, name) VALUES (1, 'a'), (1, 'b'), (2, 'c'), (1, 'd');`,
    settings: async (db) => {
      proxy = await startPgProxy(db.url);
      return { databaseUrl: proxy.url, metadataDatabaseUrl: db.url };
    },
  });
  const md = async (type: string, args: unknown): Promise<void> => {
    const r = await s.engine.metadata({ type, args });
    expect(r.body, JSON.stringify(r.body)).toEqual({ message: 'success' });
  };
  await md('pg_track_table', { table: 'city' });
  await md('pg_track_table', { table: 'person' });
  await md('pg_create_select_permission', { table: 'person', role: 'user', permission: { columns: ['name'], filter: { name: { _neq: 'b' } }, limit: 1 } });
  await md('pg_create_select_permission', { table: 'city', role: 'user', permission: { columns: ['name'], filter: {} } });
  await md('set_custom_types', {
    objects: [
      {
        name: 'Stop',
        fields: [{ name: 'city_id', type: 'Int!' }],
        relationships: [
          { name: 'city', type: 'object', remote_table: 'city', field_mapping: { city_id: 'id' } },
          { name: 'people', type: 'array', remote_table: 'person', field_mapping: { city_id: 'city_id' } },
        ],
      },
    ],
  });
  await md('create_action', { name: 'route', definition: { type: 'query', output_type: '[Stop!]!', handler: handler.url } });
  await md('create_action_permission', { action: 'route', role: 'user' });
});
afterAll(async () => {
  await s?.close();
  await proxy?.close();
  await handler?.close();
});

it('reads every relationship of the whole response with one statement', async () => {
  const q = '{ route { city_id city { name } people(order_by: {name: desc}) { name } } }';
  proxy.reset();
  const admin = await s.engine.graphql<any>(q);
  expect(admin.body).toEqual({
    data: {
      route: [
        { city_id: 1, city: { name: 'Lyon' }, people: [{ name: 'd' }, { name: 'b' }, { name: 'a' }] },
        { city_id: 2, city: { name: 'Oslo' }, people: [{ name: 'c' }] },
        { city_id: 1, city: { name: 'Lyon' }, people: [{ name: 'd' }, { name: 'b' }, { name: 'a' }] },
        { city_id: 3, city: { name: 'Rome' }, people: [] },
      ],
    },
  });
  expect(proxy.counts.statements).toBe(1);
  // The caller's permission: filter (no 'b') and its limit, per object.
  proxy.reset();
  const user = await s.engine.graphql<any>('{ route { city { name } people(order_by: {name: asc}) { name } } }', undefined, { 'x-engine-role': 'user' });
  expect(user.body.data.route.map((r: any) => r.people)).toEqual([[{ name: 'a' }], [{ name: 'c' }], [{ name: 'a' }], []]);
  expect(proxy.counts.statements).toBe(1);
});

it("applies an array relationship's limit and offset per output object inside the one statement", async () => {
  proxy.reset();
  const admin = await s.engine.graphql<any>('query($l: Int!) { route { city_id people(order_by: {name: asc}, limit: $l, offset: 1) { name } } }', { l: 1 });
  expect(admin.body.data.route).toEqual([
    { city_id: 1, people: [{ name: 'b' }] },
    { city_id: 2, people: [] },
    { city_id: 1, people: [{ name: 'b' }] },
    { city_id: 3, people: [] },
  ]);
  expect(proxy.counts.statements).toBe(1);
  // The rows are cut by the database, per key: the statement carries the limit and the offset.
  expect(proxy.counts.texts[0]).toMatch(/LIMIT/);
  expect(proxy.counts.texts[0]).toMatch(/OFFSET/);
  // A where and an order per object; the role's permission limit (1) on top of the client's (2).
  proxy.reset();
  const user = await s.engine.graphql<any>('{ route { people(where: {name: {_neq: "a"}}, order_by: {name: desc}, limit: 2) { name } } }', undefined, {
    'x-engine-role': 'user',
  });
  expect(user.body.data.route).toEqual([{ people: [{ name: 'd' }] }, { people: [{ name: 'c' }] }, { people: [{ name: 'd' }] }, { people: [] }]);
  const all = await s.engine.graphql<any>('{ route { people(order_by: {name: desc}, limit: 2) { name } } }');
  expect(all.body.data.route.map((r: any) => r.people)).toEqual([[{ name: 'd' }, { name: 'b' }], [{ name: 'c' }], [{ name: 'd' }, { name: 'b' }], []]);
});
