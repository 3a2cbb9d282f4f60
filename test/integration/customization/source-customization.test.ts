/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Source customization through HTTP on two real databases: root field
 * namespace, prefix and suffix; type name prefix and suffix (tables, enum
 * tables, functions, mutations); the same table name in two sources; and
 * table customization (`identifier`, `custom_column_names`, `custom_root_fields`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let main: TestDatabase;
let lib: TestDatabase;
let engine: TestEngine;

const md = async (type: string, args: unknown): Promise<any> => await engine.metadata({ type, args });
const gql = async (query: string): Promise<any> => (await engine.graphql(query)).body;

const LIB_CUSTOMIZATION = {
  root_fields: { namespace: 'lib', prefix: 'p_', suffix: '_s' },
  type_names: { prefix: 'Lib_', suffix: '_T' },
};

beforeAll(async () => {
  main = await createTestDatabase('custmain');
  lib = await createTestDatabase('custlib');
  await main.sql(`CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL);
    INSERT INTO author VALUES (1, 'Main Ann');
    CREATE TABLE profile (id int PRIMARY KEY, full_name text NOT NULL);
    INSERT INTO profile VALUES (1, 'Pat');`);
  await lib.sql(`CREATE TABLE status (value text PRIMARY KEY);
    INSERT INTO status VALUES ('active'), ('retired');
    CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL, status text NOT NULL REFERENCES status(value));
    INSERT INTO author VALUES (1, 'Lib Ann', 'active'), (2, 'Lib Bob', 'retired');
    CREATE FUNCTION search_authors(q text) RETURNS SETOF author AS $$ SELECT * FROM author WHERE name ILIKE '%' || q || '%' $$ LANGUAGE sql STABLE;`);
  engine = await startTestEngine({ databaseUrl: main.url });
  const r = await engine.metadata({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { table: 'author' } },
      { type: 'pg_add_source', args: { name: 'lib', configuration: { connection_info: { database_url: lib.url } }, customization: LIB_CUSTOMIZATION } },
      { type: 'pg_track_table', args: { source: 'lib', table: 'status', is_enum: true } },
      { type: 'pg_track_table', args: { source: 'lib', table: 'author' } },
      { type: 'pg_track_function', args: { source: 'lib', function: 'search_authors' } },
    ],
  });
  if (r.status !== 200) throw new Error(r.text);
});
afterAll(async () => {
  await engine?.close();
  await main?.drop();
  await lib?.drop();
});

describe('source customization', () => {
  it('puts the source under its namespace with prefixed and suffixed root fields', async () => {
    const r = await gql(`{
      author { name }
      lib { __typename p_author_s(order_by: {id: asc}) { __typename name status } p_author_aggregate_s { aggregate { count } }
            p_author_by_pk_s(id: 2) { name } p_search_authors_s(args: {q: "bob"}) { id } }
    }`);
    expect(r).toEqual({
      data: {
        author: [{ name: 'Main Ann' }],
        lib: {
          __typename: 'Lib_lib_query_T',
          p_author_s: [
            { __typename: 'Lib_author_T', name: 'Lib Ann', status: 'active' },
            { __typename: 'Lib_author_T', name: 'Lib Bob', status: 'retired' },
          ],
          p_author_aggregate_s: { aggregate: { count: 2 } },
          p_author_by_pk_s: { name: 'Lib Bob' },
          p_search_authors_s: [{ id: 2 }],
        },
      },
    });
  });

  it('prefixes and suffixes the generated type names of the source', async () => {
    const names = (await gql('{ __schema { types { name } } }')).data.__schema.types.map((t: any) => t.name);
    for (const n of [
      'Lib_author_T',
      'Lib_author_bool_exp_T',
      'Lib_author_order_by_T',
      'Lib_status_enum_T',
      'Lib_search_authors_args_T',
      'Lib_author_insert_input_T',
      'Lib_lib_mutation_frontend_T',
    ]) {
      expect(names).toContain(n);
    }
    // The subscription root's namespace type, and the stream cursor inputs, customized like the others.
    expect(names).toContain('Lib_lib_subscription_T');
    expect(names).toContain('Lib_author_stream_cursor_input_T');
    expect(names).toContain('author_bool_exp');
    const q = await gql('{ lib { p_author_s(where: {status: {_eq: retired}}) { id } } }');
    expect(q.data.lib.p_author_s).toEqual([{ id: 2 }]);
  });

  it('namespaces mutations too', async () => {
    const m = await gql(
      'mutation { lib { p_insert_author_one_s(object: {id: 3, name: "Lib Cid", status: active}) { id } } insert_author_one(object: {id: 2, name: "Main Bob"}) { id } }',
    );
    expect(m).toEqual({ data: { lib: { p_insert_author_one_s: { id: 3 } }, insert_author_one: { id: 2 } } });
    expect((await lib.sql('SELECT count(*)::int AS n FROM author')).rows[0].n).toBe(3);
  });

  it('is exported with the source and can be replaced', async () => {
    const src = (await md('export_metadata', {})).body.sources.find((s: any) => s.name === 'lib');
    expect(src.customization).toEqual(LIB_CUSTOMIZATION);
    const r = await md('pg_add_source', {
      name: 'lib',
      replace_configuration: true,
      configuration: { connection_info: { database_url: lib.url } },
      customization: { root_fields: { prefix: 'lib_' }, type_names: { prefix: 'L' } },
    });
    expect(r.status).toBe(200);
    const q = await gql('{ lib_author(order_by: {id: asc}, limit: 1) { __typename name } }');
    expect(q).toEqual({ data: { lib_author: [{ __typename: 'Lauthor', name: 'Lib Ann' }] } });
  });

  it('refuses names that clash, and the graphql-default naming convention', async () => {
    // Without customization the two `author` tables share a type name and root fields.
    const clash = await md('pg_add_source', {
      name: 'lib',
      replace_configuration: true,
      configuration: { connection_info: { database_url: lib.url } },
      customization: {},
    });
    expect(clash.status).toBe(400);
    expect(JSON.stringify(clash.body)).toContain('conflicts');
    const bad = await md('pg_add_source', {
      name: 'lib',
      replace_configuration: true,
      configuration: { connection_info: { database_url: lib.url } },
      customization: { naming_convention: 'graphql-default' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('naming_convention');
    const invalid = await md('pg_add_source', {
      name: 'lib',
      replace_configuration: true,
      configuration: { connection_info: { database_url: lib.url } },
      customization: { root_fields: { namespace: 'not valid' } },
    });
    expect(invalid.status).toBe(400);
  });
});

describe('table customization', () => {
  it('identifier, custom_column_names and custom_root_fields rename exactly what they name', async () => {
    const r = await md('pg_track_table', {
      table: 'profile',
      configuration: { identifier: 'person', custom_column_names: { full_name: 'fullName' }, custom_root_fields: { select_by_pk: 'personById' } },
    });
    expect(r.status).toBe(200);
    const q = await gql('{ person { id fullName } personById(id: 1) { fullName } person_aggregate { aggregate { count } } }');
    expect(q).toEqual({ data: { person: [{ id: 1, fullName: 'Pat' }], personById: { fullName: 'Pat' }, person_aggregate: { aggregate: { count: 1 } } } });
    const t = await gql('{ __type(name: "person") { name } }');
    expect(t.data.__type.name).toBe('person');
  });
});
