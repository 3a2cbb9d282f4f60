/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * The graphql-default naming convention through HTTP on real PostgreSQL:
 * PascalCase types, camelCase fields, arguments and operators, UPPERCASE
 * generated enum values; variables, mutations, functions, introspection and
 * `__typename` in client names; refused unless every source uses it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;

const gql = async (query: string, variables?: Record<string, unknown>): Promise<any> => (await engine.graphql(query, variables)).body;

beforeAll(async () => {
  db = await createTestDatabase('naming');
  await db.sql(`CREATE TABLE profile_status (value text PRIMARY KEY);
    INSERT INTO profile_status VALUES ('active'), ('away');
    CREATE TABLE author_profile (id int PRIMARY KEY, first_name text NOT NULL, last_name text, status text NOT NULL REFERENCES profile_status(value));
    INSERT INTO author_profile VALUES (1, 'Ann', 'Lee', 'active'), (2, 'Bob', NULL, 'away'), (3, 'Cid', 'Moe', 'active');
    CREATE FUNCTION search_profiles(q text) RETURNS SETOF author_profile AS $$ SELECT * FROM author_profile WHERE first_name ILIKE q || '%' $$ LANGUAGE sql STABLE;`);
  engine = await startTestEngine({ databaseUrl: db.url });
  const r = await engine.metadata({
    type: 'bulk',
    args: [
      {
        type: 'pg_add_source',
        args: {
          name: 'default',
          replace_configuration: true,
          configuration: { connection_info: { database_url: db.url } },
          customization: { naming_convention: 'graphql-default' },
        },
      },
      { type: 'pg_track_table', args: { table: 'profile_status', is_enum: true } },
      { type: 'pg_track_table', args: { table: 'author_profile' } },
      { type: 'pg_track_function', args: { function: 'search_profiles' } },
    ],
  });
  if (r.status !== 200) throw new Error(r.text);
});
afterAll(async () => {
  await engine?.close();
  await db?.drop();
});

describe('graphql-default', () => {
  it('camelCases fields, arguments and operators; PascalCases types; uppercases generated enums', async () => {
    const r = await gql(`{
      authorProfile(orderBy: {firstName: DESC}, where: {lastName: {_isNull: false}}, limit: 2) { __typename id firstName status }
      authorProfileByPk(id: 2) { lastName }
      authorProfileAggregate(distinctOn: [STATUS], orderBy: [{status: ASC}]) { aggregate { count } }
    }`);
    expect(r).toEqual({
      data: {
        authorProfile: [
          { __typename: 'AuthorProfile', id: 3, firstName: 'Cid', status: 'active' },
          { __typename: 'AuthorProfile', id: 1, firstName: 'Ann', status: 'active' },
        ],
        authorProfileByPk: { lastName: null },
        authorProfileAggregate: { aggregate: { count: 2 } },
      },
    });
  });

  it('takes variables in client names, including input objects and enum table values', async () => {
    const r = await gql('query ($w: AuthorProfileBoolExp, $o: [AuthorProfileOrderBy!]) { authorProfile(where: $w, orderBy: $o) { id } }', {
      w: { _or: [{ firstName: { _eq: 'Bob' } }, { status: { _eq: 'active' }, lastName: { _like: 'M%' } }] },
      o: [{ id: 'DESC' }],
    });
    expect(r).toEqual({ data: { authorProfile: [{ id: 3 }, { id: 2 }] } });
  });

  it('mutations and functions follow the convention', async () => {
    const m = await gql(
      'mutation ($o: AuthorProfileInsertInput!) { insertAuthorProfileOne(object: $o) { id firstName } updateAuthorProfileByPk(pkColumns: {id: 2}, _set: {lastName: "Rex"}) { lastName } }',
      {
        o: { id: 4, firstName: 'Dan', status: 'away' },
      },
    );
    expect(m).toEqual({ data: { insertAuthorProfileOne: { id: 4, firstName: 'Dan' }, updateAuthorProfileByPk: { lastName: 'Rex' } } });
    const f = await gql('{ searchProfiles(args: {q: "d"}) { id } searchProfilesAggregate(args: {q: "a"}) { aggregate { count } } }');
    expect(f).toEqual({ data: { searchProfiles: [{ id: 4 }], searchProfilesAggregate: { aggregate: { count: 1 } } } });
  });

  it('introspection shows the client names', async () => {
    const t = await gql(
      '{ __type(name: "AuthorProfileBoolExp") { inputFields { name } } s: __type(name: "StringComparisonExp") { inputFields { name } } e: __type(name: "ProfileStatusEnum") { enumValues { name } } }',
    );
    expect(t.data.__type.inputFields.map((f: any) => f.name)).toEqual(expect.arrayContaining(['_and', 'firstName', 'lastName', 'status']));
    expect(t.data.s.inputFields.map((f: any) => f.name)).toEqual(expect.arrayContaining(['_eq', '_isNull', '_nilike']));
    expect(t.data.e.enumValues.map((v: any) => v.name)).toEqual(['active', 'away']);
    const q = await gql('{ __schema { queryType { fields { name } } } }');
    expect(q.data.__schema.queryType.fields.map((f: any) => f.name)).toEqual(
      expect.arrayContaining(['authorProfile', 'authorProfileByPk', 'authorProfileAggregate', 'searchProfiles']),
    );
  });

  it('is refused while another source keeps the default convention', async () => {
    const other = await createTestDatabase('naming2');
    try {
      const r = await engine.metadata({ type: 'pg_add_source', args: { name: 'other', configuration: { connection_info: { database_url: other.url } } } });
      expect(r.status).toBe(400);
      expect(r.text).toContain('graphql-default naming_convention must be set on every source');
    } finally {
      await other.drop();
    }
  });
});
