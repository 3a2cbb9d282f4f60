/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Several sources on two real PostgreSQL databases: pg_add_source with
 * `{from_env}` and pool settings, each source with its own tables and
 * functions, requests touching both (one statement per source, results
 * merged in request order), mutations and permissions per source, one
 * source failing while the other keeps serving, pg_drop_source with cascade.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let main: TestDatabase;
let library: TestDatabase;
let engine: TestEngine;
const VAR = 'ENGINE_TEST_LIBRARY_DATABASE_URL';

const md = async (type: string, args: unknown): Promise<any> => await engine.metadata({ type, args });
const gql = async (query: string, headers?: Record<string, string>): Promise<any> => (await engine.graphql(query, undefined, headers)).body;

beforeAll(async () => {
  main = await createTestDatabase('srcmain');
  library = await createTestDatabase('srclib');
  await main.sql(`CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL);
    INSERT INTO author VALUES (1, 'Ann'), (2, 'Bob');`);
  await library.sql(`CREATE TABLE book (id int PRIMARY KEY, title text NOT NULL, author_id int NOT NULL);
    INSERT INTO book VALUES (1, 'Dune', 1), (2, 'Emma', 2), (3, 'Ubik', 1);
    CREATE FUNCTION search_books(q text) RETURNS SETOF book AS $$ SELECT * FROM book WHERE title ILIKE q || '%' $$ LANGUAGE sql STABLE;`);
  process.env[VAR] = library.url;
  engine = await startTestEngine({ databaseUrl: main.url });
  const r = await md('pg_track_table', { table: 'author' });
  if (r.status !== 200) throw new Error(r.text);
});
afterAll(async () => {
  await engine?.close();
  delete process.env[VAR];
  await main?.drop();
  await library?.drop();
});

describe('a second database as a source', () => {
  it('is added from an environment variable with pool settings', async () => {
    const r = await md('pg_add_source', {
      name: 'library',
      configuration: { connection_info: { database_url: { from_env: VAR }, pool_settings: { max_connections: 3, idle_timeout: 30 } } },
    });
    expect(r.body).toEqual({ message: 'success' });
    // The table exists only in the second database.
    const wrong = await md('pg_track_table', { table: 'book' });
    expect(wrong.body.code).toBe('invalid-configuration');
    expect((await md('pg_track_table', { source: 'library', table: 'book' })).status).toBe(200);
    expect((await md('pg_track_function', { source: 'library', function: 'search_books' })).status).toBe(200);
    const src = (await md('export_metadata', {})).body.sources.find((s: any) => s.name === 'library');
    expect(src.configuration).toEqual({
      connection_info: { database_url: { from_env: VAR }, pool_settings: { max_connections: 3, idle_timeout: 30 } },
    });
    expect(src.tables).toEqual([{ table: { schema: 'public', name: 'book' } }]);
    expect(src.functions).toEqual([{ function: { schema: 'public', name: 'search_books' } }]);
  });

  it('answers a request touching both sources, in request order', async () => {
    const r = await engine.graphql(
      '{ b: book(order_by: {id: asc}, limit: 2) { title } a: author(order_by: {id: asc}) { name } s: search_books(args: {q: "u"}) { id } n: author_aggregate { aggregate { count } } }',
    );
    expect(r.text).toBe('{"data":{"b":[{"title":"Dune"},{"title":"Emma"}],"a":[{"name":"Ann"},{"name":"Bob"}],"s":[{"id":3}],"n":{"aggregate":{"count":2}}}}');
    const explain = await engine.post('/v1/graphql/explain', { query: { query: '{ book { id } author { id } }' } });
    expect(explain.status).toBe(200);
  });

  it('writes to each source in its own database', async () => {
    const m = await gql(
      'mutation { insert_book_one(object: {id: 4, title: "Kim", author_id: 2}) { id } insert_author_one(object: {id: 3, name: "Cid"}) { id } }',
    );
    expect(m).toEqual({ data: { insert_book_one: { id: 4 }, insert_author_one: { id: 3 } } });
    expect((await library.sql('SELECT count(*)::int AS n FROM book')).rows[0].n).toBe(4);
    expect((await main.sql('SELECT count(*)::int AS n FROM author')).rows[0].n).toBe(3);
  });

  it('applies permissions per source', async () => {
    const doc = (await md('export_metadata', {})).body;
    const book = doc.sources.find((s: any) => s.name === 'library').tables[0];
    book.select_permissions = [{ role: 'reader', permission: { columns: ['id', 'title'], filter: { author_id: { _eq: 'X-Engine-User-Id' } } } }];
    expect((await md('replace_metadata', doc)).status).toBe(200);
    const r = await gql('{ book(order_by: {id: asc}) { title } }', { 'x-engine-role': 'reader', 'x-engine-user-id': '1' });
    expect(r).toEqual({ data: { book: [{ title: 'Dune' }, { title: 'Ubik' }] } });
    // Inferred function permission: the same filter applies to the function's rows.
    const f = await gql('{ search_books(args: {q: "e"}) { title } }', { 'x-engine-role': 'reader', 'x-engine-user-id': '1' });
    expect(f).toEqual({ data: { search_books: [] } });
  });

  it('a relationship cannot reach a table of another source', async () => {
    const r = await md('pg_create_array_relationship', {
      table: 'author',
      name: 'books',
      using: { manual_configuration: { remote_table: 'book', column_mapping: { id: 'author_id' } } },
    });
    expect(r.status).toBe(400);
  });
});

describe('one source failing', () => {
  it('leaves the other serving and is reported inconsistent, then recovers', async () => {
    const saved = process.env[VAR];
    process.env[VAR] = 'postgres://nobody:x@127.0.0.1:1/none';
    expect((await md('reload_metadata', {})).status).toBe(200);
    const inc = (await md('get_inconsistent_metadata', {})).body;
    expect(inc.is_consistent).toBe(false);
    expect(inc.inconsistent_objects).toContainEqual(expect.objectContaining({ type: 'source', name: 'source library' }));
    expect((await gql('{ author(order_by: {id: asc}, limit: 1) { name } }')).data.author).toEqual([{ name: 'Ann' }]);
    expect((await gql('{ book { id } }')).errors[0].extensions.code).toBe('validation-failed');
    process.env[VAR] = saved;
    await md('reload_metadata', {});
    expect((await md('get_inconsistent_metadata', {})).body.is_consistent).toBe(true);
    expect((await gql('{ book(order_by: {id: asc}, limit: 1) { id } }')).data.book).toEqual([{ id: 1 }]);
  });
});

describe('pg_drop_source', () => {
  it('reports tables and functions as dependents unless cascaded', async () => {
    const r = await md('pg_drop_source', { name: 'library' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('dependency-error');
    expect(r.body.error).toContain('table book in source library');
    expect(r.body.error).toContain('function search_books in source library');
    expect((await md('pg_drop_source', { name: 'library', cascade: true })).status).toBe(200);
    expect((await gql('{ book { id } }')).errors[0].extensions.code).toBe('validation-failed');
    expect((await md('export_metadata', {})).body.sources.map((s: any) => s.name)).toEqual(['default']);
    expect((await gql('{ author_aggregate { aggregate { count } } }')).data.author_aggregate.aggregate.count).toBe(3);
  });
});
