/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Remote root fields through HTTP on real GraphQL servers: aliases,
 * fragments, variables, __typename, customization (type and field names,
 * namespace), header forwarding and the session as X-Engine-* headers,
 * remote errors as remote-schema-error (error answers, 500, garbage,
 * timeouts), mutations, database and remote root fields in one query run
 * concurrently, and plan-cache hits that send the same text without
 * introspecting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;
let geo: GraphqlTestServer;

const SDL = `
interface Node { id: ID! }
type Continent { code: String! name: String! }
type Country implements Node { id: ID! code: String! name: String! continent: Continent! }
enum Size { SMALL LARGE }
input CountryFilter { code: String size: Size }
type Query {
  countries(filter: CountryFilter, first: Int): [Country!]!
  country(code: String!): Country
  node(id: ID!): Node
  headers: [String!]!
  boom: Int
  waitForDatabase: Boolean
}
type Mutation { rename(code: String!, name: String!): Country }
`;

const EU = { code: 'EU', name: 'Europe' };
const data = [
  { id: '1', code: 'FR', name: 'France', size: 'LARGE', continent: EU },
  { id: '2', code: 'LU', name: 'Luxembourg', size: 'SMALL', continent: EU },
];
let sawDatabaseBusy = false;
const root = {
  countries: ({ filter, first }: { filter?: { code?: string; size?: string }; first?: number }) =>
    data.filter((c) => (filter?.code === undefined || c.code === filter.code) && (filter?.size === undefined || c.size === filter.size)).slice(0, first ?? 100),
  country: ({ code }: { code: string }) => data.find((c) => c.code === code) ?? null,
  node: ({ id }: { id: string }) => {
    const c = data.find((x) => x.id === id);
    return c === undefined ? null : { ...c, __typename: 'Country' };
  },
  headers: (_: unknown, ctx: { headers: Record<string, string> }) =>
    Object.entries(ctx.headers)
      .filter(([k]) => k.startsWith('x-'))
      .map(([k, v]) => `${k}=${v}`)
      .sort(),
  boom: () => {
    throw new Error('kaboom');
  },
  // Answers once the database is running the other root field's statement: proof the two run side by side.
  waitForDatabase: async () => {
    for (let i = 0; i < 60; i++) {
      const r = await db.sql(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%slow_authors%' AND state = 'active' AND pid <> pg_backend_pid()",
      );
      if ((r.rows[0] as { n: number }).n > 0) {
        sawDatabaseBusy = true;
        return true;
      }
      await new Promise((res) => setTimeout(res, 50));
    }
    return false;
  },
  rename: ({ code, name }: { code: string; name: string }) => {
    const c = data.find((x) => x.code === code);
    if (c !== undefined) c.name = name;
    return c ?? null;
  },
};

const md = async (type: string, args: unknown): Promise<any> => await engine.metadata({ type, args });
const gql = async (query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<any> =>
  (await engine.graphql(query, variables, headers)).body;

beforeAll(async () => {
  db = await createTestDatabase('rsx');
  await db.sql(`
    CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL);
    INSERT INTO author VALUES (1, 'Ann'), (2, 'Bob');
    CREATE FUNCTION slow_authors() RETURNS SETOF author AS $$ SELECT author.* FROM author, pg_sleep(1) $$ LANGUAGE sql STABLE;
  `);
  engine = await startTestEngine({ databaseUrl: db.url });
  expect((await md('pg_track_table', { table: 'author' })).status).toBe(200);
  expect((await md('pg_track_function', { function: 'slow_authors' })).status).toBe(200);
  expect((await md('pg_create_select_permission', { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: {} } })).status).toBe(200);
  geo = await startGraphqlServer(SDL, root);
  const r = await md('add_remote_schema', {
    name: 'geo',
    definition: { url: geo.url, headers: [{ name: 'X-Configured', value: 'yes' }], forward_client_headers: true, timeout_seconds: 5 },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
});

afterAll(async () => {
  await engine?.close();
  await geo?.close();
  await db?.drop();
});

describe('remote root fields', () => {
  it('answer with aliases, fragments, variables and __typename', async () => {
    const q = `
      query Q($f: CountryFilter, $code: String!, $withContinent: Boolean!) {
        fr: country(code: $code) { ...C }
        small: countries(filter: $f) { __typename name }
        node(id: "2") { id __typename ... on Country { code continent @include(if: $withContinent) { name } } }
      }
      fragment C on Country { code n: name }`;
    const r = await gql(q, { f: { size: 'SMALL' }, code: 'FR', withContinent: true });
    expect(r).toEqual({
      data: {
        fr: { code: 'FR', n: 'France' },
        small: [{ __typename: 'Country', name: 'Luxembourg' }],
        node: { id: '2', __typename: 'Country', code: 'LU', continent: { name: 'Europe' } },
      },
    });
  });

  it('sends the configured headers, the forwarded client headers and the session as X-Engine-* headers', async () => {
    const r = await gql('{ headers }', undefined, { 'X-Engine-Role': 'user', 'X-Engine-User-Id': '7', 'X-Custom': 'abc' });
    expect(r.data.headers).toEqual(expect.arrayContaining(['x-configured=yes', 'x-custom=abc', 'x-engine-role=user', 'x-engine-user-id=7']));
  });

  it('runs database and remote root fields of one query concurrently, in the query order', async () => {
    sawDatabaseBusy = false;
    const r = await gql('{ waitForDatabase slow_authors(order_by: {id: asc}) { name } author(where: {id: {_eq: 1}}) { name } }');
    expect(r).toEqual({ data: { waitForDatabase: true, slow_authors: [{ name: 'Ann' }, { name: 'Bob' }], author: [{ name: 'Ann' }] } });
    expect(sawDatabaseBusy).toBe(true);
  });

  it('reports remote errors as remote-schema-error with their path', async () => {
    const r = await gql('{ author { name } b: boom }', undefined, { 'X-Engine-Role': 'user' });
    expect(r.errors).toEqual([{ message: 'kaboom', extensions: { code: 'remote-schema-error', path: '$.b' } }]);
    // Admins also see what the remote answered.
    const admin = await gql('{ b: boom }');
    expect(admin.errors[0].extensions.internal.errors[0].path).toEqual(['r0']);
  });

  it('answers remote-schema-error when the remote answers 500, garbage, or too late', async () => {
    const slow = await startGraphqlServer('type Query { tick: Int }', { tick: () => 1 });
    expect((await md('add_remote_schema', { name: 'slow', definition: { url: slow.url, timeout_seconds: 1 } })).status).toBe(200);
    for (const [mode, message] of [
      ['status-500', 'the remote schema answered HTTP 500'],
      ['garbage', 'the remote schema answered with invalid JSON'],
      ['hang', 'the remote schema did not answer within 1 seconds'],
    ] as const) {
      slow.mode = mode;
      const r = await gql('{ tick }', undefined, { 'X-Engine-Role': 'user' });
      expect(r.errors, mode).toEqual([{ message, extensions: { code: 'remote-schema-error', path: '$' } }]);
    }
    slow.mode = 'ok';
    expect(await gql('{ tick }')).toEqual({ data: { tick: 1 } });
    expect((await md('remove_remote_schema', { name: 'slow' })).status).toBe(200);
    await slow.close();
  });

  it('runs remote mutations', async () => {
    const r = await gql('mutation { rename(code: "LU", name: "Lux") { name } }');
    expect(r).toEqual({ data: { rename: { name: 'Lux' } } });
    expect(data[1]?.name).toBe('Lux');
  });

  it('a plan-cache hit sends the same text and introspects nothing', async () => {
    const introspections = geo.requests.length - geo.queries().length;
    const q = 'query($c: String!) { country(code: $c) { name } }';
    expect((await gql(q, { c: 'FR' })).data.country.name).toBe('France');
    const first = geo.queries().at(-1)?.body.query;
    expect((await gql(q, { c: 'LU' })).data.country.name).toBe('Lux');
    expect(geo.queries().at(-1)?.body).toEqual({ query: first, variables: { c: 'LU' } });
    expect(geo.requests.length - geo.queries().length).toBe(introspections);
  });
});

describe('customization', () => {
  it('renames types and fields, under a namespace, and maps __typename back', async () => {
    const r = await md('add_remote_schema', {
      name: 'geo2',
      definition: {
        url: geo.url,
        customization: {
          root_fields_namespace: 'geo2',
          type_names: { prefix: 'G2_', mapping: { Continent: 'Landmass' } },
          field_names: [
            { parent_type: 'Country', mapping: { name: 'title' } },
            { parent_type: 'Query', prefix: 'g_' },
          ],
        },
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const q = `query($f: G2_CountryFilter) { geo2 { __typename list: g_countries(filter: $f) { __typename title ... on G2_Country { continent { __typename name } } } } }`;
    const res = await gql(q, { f: { code: 'FR' } });
    expect(res).toEqual({
      data: {
        geo2: { __typename: 'geo2_query', list: [{ __typename: 'G2_Country', title: 'France', continent: { __typename: 'Landmass', name: 'Europe' } }] },
      },
    });
    const sent = geo.queries().at(-1)?.body.query ?? '';
    expect(sent).toContain('countries(filter: $f)');
    expect(sent).toContain('$f: CountryFilter');
    expect((await md('remove_remote_schema', { name: 'geo2' })).status).toBe(200);
  });
});
