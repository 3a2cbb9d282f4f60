/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Relationships of remote schemas' types (create_remote_schema_remote_relationship)
 * through HTTP on real PostgreSQL (behind a statement-counting proxy) and
 * two real GraphQL servers: remote type → table (the caller's select
 * permission applied, ONE statement per response level), remote type →
 * another remote's field (ONE request per level), joins nested both ways
 * (table → remote → table, remote → table → remote), refusals of bad
 * definitions with nothing stored, dependency reports, inconsistency when
 * the remote changes, export and replace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';
import { startPgProxy, type PgProxy } from '../../support/pg-proxy.ts';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';

let s: SeededEngine;
let proxy: PgProxy;
let geo: GraphqlTestServer;
let weather: GraphqlTestServer;

const GEO_SDL = `
interface Named { name: String! }
type Country implements Named { code: String! name: String! capital: String }
type Query { countries: [Country!]! country(code: String!): Country named: [Named!]! }
type Mutation { renameCountry(code: String!, name: String!): Country }
`;
const countries = [
  { code: 'FR', name: 'France', capital: 'Paris' },
  { code: 'DE', name: 'Germany', capital: 'Berlin' },
  { code: 'IT', name: 'Italy', capital: 'Rome' },
];
const geoRoot = {
  countries: () => countries,
  country: ({ code }: { code: string }) => countries.find((c) => c.code === code) ?? null,
  named: () => countries.map((c) => ({ ...c, __typename: 'Country' })),
  renameCountry: ({ code, name }: { code: string; name: string }) => {
    const c = countries.find((x) => x.code === code);
    if (c !== undefined) c.name = name;
    return c ?? null;
  },
};
const WEATHER_SDL = `
type Weather { city: String! celsius: Int! }
type Query { weather(city: String!): Weather }
`;
const weatherRoot = { weather: ({ city }: { city: string }) => ({ city, celsius: city.length }) };

const md = async (type: string, args: unknown): Promise<any> => await s.engine.metadata({ type, args });
const gql = async (query: string, headers?: Record<string, string>): Promise<any> => (await s.engine.graphql<any>(query, undefined, headers)).body;

/** Runs `fn` and counts the SQL statements run (prepared or not) and the remote requests (introspection aside) it caused. */
async function counting<T>(fn: () => Promise<T>): Promise<{ result: T; sql: number; geo: number; weather: number }> {
  const g = geo.queries().length;
  const w = weather.queries().length;
  proxy.reset();
  const result = await fn();
  return { result, sql: proxy.counts.executions, geo: geo.queries().length - g, weather: weather.queries().length - w };
}

const authorsRel = {
  remote_schema: 'geo',
  type_name: 'Country',
  name: 'authors',
  definition: { to_source: { source: 'default', table: 'author', relationship_type: 'array', field_mapping: { code: 'country_code' } } },
};
const capitalRel = {
  remote_schema: 'geo',
  type_name: 'Country',
  name: 'capitalInfo',
  definition: { to_source: { source: 'default', table: 'city', relationship_type: 'object', field_mapping: { capital: 'name' } } },
};
const weatherRel = {
  remote_schema: 'geo',
  type_name: 'Country',
  name: 'weather',
  definition: { to_remote_schema: { remote_schema: 'weather', lhs_fields: ['capital'], remote_field: { weather: { arguments: { city: '$capital' } } } } },
};

beforeAll(async () => {
  geo = await startGraphqlServer(GEO_SDL, geoRoot);
  weather = await startGraphqlServer(WEATHER_SDL, weatherRoot);
  s = await startSeededEngine({
    prefix: 'rsrel',
    sql: `CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL, country_code text);
          CREATE TABLE article (id int PRIMARY KEY, author_id int NOT NULL REFERENCES author(id), title text NOT NULL);
          CREATE TABLE city (name text PRIMARY KEY, population int NOT NULL);
          INSERT INTO author VALUES (1, 'Ann', 'FR'), (2, 'Bob', 'FR'), (3, 'Cem', 'DE'), (4, 'Dan', NULL);
          INSERT INTO article VALUES (1, 1, 'a1'), (2, 1, 'a2'), (3, 3, 'c1');
          INSERT INTO city VALUES ('Paris', 2100000), ('Berlin', 3600000);`,
    settings: async (db) => {
      proxy = await startPgProxy(db.url);
      return { databaseUrl: proxy.url, metadataDatabaseUrl: db.url };
    },
  });
  const ok = async (type: string, args: unknown): Promise<void> => {
    const r = await md(type, args);
    expect(r.body, JSON.stringify(r.body)).toEqual({ message: 'success' });
  };
  for (const t of ['author', 'article', 'city']) await ok('pg_track_table', { table: t });
  await ok('pg_create_array_relationship', {
    table: 'author',
    name: 'articles',
    using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } },
  });
  await ok('pg_create_select_permission', {
    table: 'author',
    role: 'user',
    permission: { columns: ['id', 'name', 'country_code'], filter: { id: { _neq: 2 } } },
  });
  await ok('pg_create_select_permission', { table: 'article', role: 'user', permission: { columns: ['title'], filter: {} } });
  await ok('add_remote_schema', { name: 'geo', definition: { url: geo.url, timeout_seconds: 5 } });
  await ok('add_remote_schema', { name: 'weather', definition: { url: weather.url, timeout_seconds: 5 } });
  await ok('pg_create_remote_relationship', {
    table: 'author',
    name: 'country',
    definition: {
      to_remote_schema: { remote_schema: 'geo', lhs_fields: ['country_code'], remote_field: { country: { arguments: { code: '$country_code' } } } },
    },
  });
  await ok('create_remote_schema_remote_relationship', authorsRel);
  await ok('create_remote_schema_remote_relationship', capitalRel);
  await ok('create_remote_schema_remote_relationship', weatherRel);
});

afterAll(async () => {
  await s?.close();
  await proxy?.close();
  await geo?.close();
  await weather?.close();
});

describe('remote schema relationships', () => {
  it('join a remote type to tables with one statement and to another remote with one request per level', async () => {
    const q = `{ countries { code authors(order_by: {id: asc}) { name articles(order_by: {id: asc}) { title } } capitalInfo { population } weather { celsius } } }`;
    const r = await counting(async () => await gql(q));
    expect(r.result).toEqual({
      data: {
        countries: [
          {
            code: 'FR',
            authors: [
              { name: 'Ann', articles: [{ title: 'a1' }, { title: 'a2' }] },
              { name: 'Bob', articles: [] },
            ],
            capitalInfo: { population: 2100000 },
            weather: { celsius: 5 },
          },
          { code: 'DE', authors: [{ name: 'Cem', articles: [{ title: 'c1' }] }], capitalInfo: { population: 3600000 }, weather: { celsius: 6 } },
          { code: 'IT', authors: [], capitalInfo: null, weather: { celsius: 4 } },
        ],
      },
    });
    // One request for the root field, one statement for both table joins of the level, one weather request for all three keys.
    expect({ sql: r.sql, geo: r.geo, weather: r.weather }).toEqual({ sql: 1, geo: 1, weather: 1 });
    const w = weather.queries().at(-1)?.body.query ?? '';
    expect(w.match(/weather\(/g)?.length).toBe(3);
  });

  it('join through fragments on an interface of the remote', async () => {
    const r = await gql('{ named { name ...C } } fragment C on Country { authors(where: {id: {_lt: 3}}, order_by: {id: asc}) { id } }');
    expect(r).toEqual({
      data: {
        named: [
          { name: 'France', authors: [{ id: 1 }, { id: 2 }] },
          { name: 'Germany', authors: [] },
          { name: 'Italy', authors: [] },
        ],
      },
    });
  });

  it('work on a customized remote under a root-field namespace (type names as the remote names them)', async () => {
    const ok = async (type: string, args: unknown): Promise<void> => {
      const r = await md(type, args);
      expect(r.body, JSON.stringify(r.body)).toEqual({ message: 'success' });
    };
    await ok('add_remote_schema', {
      name: 'geo2',
      definition: {
        url: geo.url,
        customization: {
          root_fields_namespace: 'g2',
          type_names: { prefix: 'G_' },
          field_names: [{ parent_type: 'Country', mapping: { code: 'isoCode' } }],
        },
      },
    });
    await ok('create_remote_schema_remote_relationship', { ...authorsRel, remote_schema: 'geo2' });
    const r = await counting(async () => await gql('{ g2 { countries { isoCode __typename authors(order_by: {id: asc}) { id } } } }'));
    expect(r.result).toEqual({
      data: {
        g2: {
          countries: [
            { isoCode: 'FR', __typename: 'G_Country', authors: [{ id: 1 }, { id: 2 }] },
            { isoCode: 'DE', __typename: 'G_Country', authors: [{ id: 3 }] },
            { isoCode: 'IT', __typename: 'G_Country', authors: [] },
          ],
        },
      },
    });
    expect({ sql: r.sql, geo: r.geo }).toEqual({ sql: 1, geo: 1 });
    await ok('remove_remote_schema', { name: 'geo2' });
  });

  it('honour @skip and @include on a relationship field', async () => {
    const q = 'query Q($on: Boolean!) { country(code: "DE") { code authors @include(if: $on) { name } weather @skip(if: $on) { celsius } } }';
    expect((await s.engine.graphql<any>(q, { on: true })).body).toEqual({ data: { country: { code: 'DE', authors: [{ name: 'Cem' }] } } });
    expect((await s.engine.graphql<any>(q, { on: false })).body).toEqual({ data: { country: { code: 'DE', weather: { celsius: 6 } } } });
  });

  it('apply the caller’s select permission to the joined table, and hide a table the role cannot read', async () => {
    const r = await gql('{ countries { code authors(order_by: {id: asc}) { name } } }', { 'x-engine-role': 'user' });
    expect(r.data.countries.map((c: any) => c.authors.map((a: any) => a.name))).toEqual([['Ann'], ['Cem'], []]);
    const hidden = await gql('{ countries { capitalInfo { population } } }', { 'x-engine-role': 'user' });
    expect(hidden.errors[0].extensions.code).toBe('validation-failed');
    expect(hidden.errors[0].message).toContain('capitalInfo');
  });

  it('nest: table → remote → table and remote, one statement or request per level', async () => {
    const r = await counting(
      async () => await gql('{ author(order_by: {id: asc}) { name country { name authors(order_by: {id: desc}) { name } weather { city } } } }'),
    );
    expect(r.result.data.author).toEqual([
      { name: 'Ann', country: { name: 'France', authors: [{ name: 'Bob' }, { name: 'Ann' }], weather: { city: 'Paris' } } },
      { name: 'Bob', country: { name: 'France', authors: [{ name: 'Bob' }, { name: 'Ann' }], weather: { city: 'Paris' } } },
      { name: 'Cem', country: { name: 'Germany', authors: [{ name: 'Cem' }], weather: { city: 'Berlin' } } },
      { name: 'Dan', country: null },
    ]);
    expect({ sql: r.sql, geo: r.geo, weather: r.weather }).toEqual({ sql: 2, geo: 1, weather: 1 });
  });

  it('nest: remote → table → remote, one request per level', async () => {
    const r = await counting(async () => await gql('{ countries { code authors(order_by: {id: asc}) { name country { capital } } } }'));
    expect(r.result.data.countries).toEqual([
      {
        code: 'FR',
        authors: [
          { name: 'Ann', country: { capital: 'Paris' } },
          { name: 'Bob', country: { capital: 'Paris' } },
        ],
      },
      { code: 'DE', authors: [{ name: 'Cem', country: { capital: 'Berlin' } }] },
      { code: 'IT', authors: [] },
    ]);
    expect({ sql: r.sql, geo: r.geo, weather: r.weather }).toEqual({ sql: 1, geo: 2, weather: 0 });
  });

  it('refuse definitions that do not fit with 400, storing nothing', async () => {
    const before = (await md('export_metadata', {})).body;
    const bad: Array<[unknown, string]> = [
      [{ ...authorsRel, name: 'x', type_name: 'Nope' }, 'type "Nope" does not exist'],
      [
        { ...authorsRel, name: 'x', definition: { to_source: { ...authorsRel.definition.to_source, field_mapping: { nope: 'country_code' } } } },
        'field "nope"',
      ],
      [{ ...authorsRel, name: 'x', definition: { to_source: { ...authorsRel.definition.to_source, field_mapping: { code: 'nope' } } } }, 'column "nope"'],
      [{ ...authorsRel, name: 'x', definition: { to_source: { ...authorsRel.definition.to_source, table: 'nope' } } }, 'table "nope"'],
      [{ ...authorsRel, name: 'name' }, 'already exists'],
      [
        {
          ...weatherRel,
          name: 'x',
          definition: { to_remote_schema: { remote_schema: 'weather', lhs_fields: ['capital'], remote_field: { weather: { arguments: { city: '$code' } } } } },
        },
        '"$code" is not one of the join fields',
      ],
      [
        { ...weatherRel, name: 'x', definition: { to_remote_schema: { remote_schema: 'weather', lhs_fields: ['capital'], remote_field: { nope: {} } } } },
        'field "nope" does not exist',
      ],
    ];
    for (const [args, reason] of bad) {
      const r = await md('create_remote_schema_remote_relationship', args);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error).toContain(reason);
    }
    const badShape = await md('create_remote_schema_remote_relationship', {
      ...authorsRel,
      name: 'x',
      definition: { to_source: { ...authorsRel.definition.to_source, relationship_type: 'many' } },
    });
    expect(badShape.status).toBe(400);
    expect((await md('create_remote_schema_remote_relationship', authorsRel)).body.code).toBe('already-exists');
    expect((await md('update_remote_schema_remote_relationship', { ...authorsRel, name: 'nope' })).body.code).toBe('not-exists');
    expect((await md('delete_remote_schema_remote_relationship', { remote_schema: 'geo', type_name: 'Country', name: 'nope' })).status).toBe(400);
    expect((await md('export_metadata', {})).body).toEqual(before);
  });

  it('report dependents of what they use, and cascade', async () => {
    const untrack = await md('pg_untrack_table', { table: 'city' });
    expect(untrack.status).toBe(400);
    expect(untrack.body.code).toBe('dependency-error');
    expect(untrack.body.error).toContain('capitalInfo');
    const remove = await md('remove_remote_schema', { name: 'weather' });
    expect(remove.status).toBe(400);
    expect(remove.body.code).toBe('dependency-error');
    expect(remove.body.error).toContain('remote_schema_remote_relationship weather on type Country in remote schema geo');
    expect((await md('pg_untrack_table', { table: 'city', cascade: true })).status).toBe(200);
    const geoEntry = (await md('export_metadata', {})).body.remote_schemas.find((r: any) => r.name === 'geo');
    expect(geoEntry.remote_relationships[0].relationships.map((r: any) => r.name)).toEqual(['authors', 'weather']);
    expect((await md('pg_track_table', { table: 'city' })).status).toBe(200);
    expect((await md('create_remote_schema_remote_relationship', capitalRel)).status).toBe(200);
  });

  it('become inconsistent when the remote changes, and consistent again', async () => {
    geo.setSchema(GEO_SDL.replace('capital: String', ''), geoRoot);
    expect((await md('reload_remote_schema', { name: 'geo' })).status).toBe(200);
    const inc = (await md('get_inconsistent_metadata', {})).body;
    expect(inc.is_consistent).toBe(false);
    const mine = inc.inconsistent_objects.filter((o: any) => o.type === 'remote_schema_remote_relationship');
    expect(mine.map((o: any) => [o.definition.name, o.reason]).sort()).toEqual([
      ['capitalInfo', 'Inconsistent object: field "capital" does not exist in type "Country" of remote schema "geo"'],
      ['weather', 'Inconsistent object: field "capital" does not exist in type "Country" of remote schema "geo"'],
    ]);
    // The rest keeps working.
    expect((await gql('{ countries { code authors { id } } }')).data.countries).toHaveLength(3);
    geo.setSchema(GEO_SDL, geoRoot);
    expect((await md('reload_remote_schema', { name: 'geo' })).status).toBe(200);
    expect((await md('get_inconsistent_metadata', {})).body.is_consistent).toBe(true);
  });

  it('are exported in v2’s form, replaced, updated and deleted', async () => {
    const doc = (await md('export_metadata', {})).body;
    const geoEntry = doc.remote_schemas.find((r: any) => r.name === 'geo');
    expect(geoEntry.remote_relationships).toEqual([
      {
        type_name: 'Country',
        relationships: [
          { name: 'authors', definition: authorsRel.definition },
          { name: 'weather', definition: weatherRel.definition },
          { name: 'capitalInfo', definition: capitalRel.definition },
        ],
      },
    ]);
    const replaced = await md('replace_metadata', doc);
    expect(replaced.status, JSON.stringify(replaced.body)).toBe(200);
    expect((await gql('{ countries { code weather { celsius } } }')).data.countries[0]).toEqual({ code: 'FR', weather: { celsius: 5 } });
    const mapped = { ...capitalRel, definition: { to_source: { ...capitalRel.definition.to_source, relationship_type: 'array' } } };
    expect((await md('update_remote_schema_remote_relationship', mapped)).status).toBe(200);
    expect((await gql('{ countries { capitalInfo { population } } }')).data.countries[0]).toEqual({ capitalInfo: [{ population: 2100000 }] });
    expect((await md('delete_remote_schema_remote_relationship', { remote_schema: 'geo', type_name: 'Country', name: 'capitalInfo' })).status).toBe(200);
    expect((await gql('{ countries { capitalInfo { population } } }')).errors[0].extensions.code).toBe('validation-failed');
  });

  it('join under a mutation’s results: a table’s rows returned and a remote mutation’s answer', async () => {
    const ins = await gql('mutation { insert_author_one(object: {id: 9, name: "Eve", country_code: "IT"}) { name country { name authors { name } } } }');
    expect(ins).toEqual({ data: { insert_author_one: { name: 'Eve', country: { name: 'Italy', authors: [{ name: 'Eve' }] } } } });
    const ren = await counting(
      async () => await gql('mutation { renameCountry(code: "IT", name: "Italia") { name authors { id name } weather { celsius } } }'),
    );
    expect(ren.result).toEqual({ data: { renameCountry: { name: 'Italia', authors: [{ id: 9, name: 'Eve' }], weather: { celsius: 4 } } } });
    expect({ sql: ren.sql, geo: ren.geo, weather: ren.weather }).toEqual({ sql: 1, geo: 1, weather: 1 });
    expect((await gql('mutation { delete_author_by_pk(id: 9) { id } }')).data).toEqual({ delete_author_by_pk: { id: 9 } });
    await gql('mutation { renameCountry(code: "IT", name: "Italy") { name } }');
  });
});
