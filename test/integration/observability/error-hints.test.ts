/**
 * Errors that say what to do: the closest operation for a misspelled one, the
 * other endpoint's name for a legacy or prefixed one, the closest key for a
 * misspelled key, the nearest field, argument, operator or table for a GraphQL
 * or metadata mistake (Note [GraphQL hints]), and `cascade` in dependency
 * errors; over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';

let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase('hints');
  await db.sql(
    `CREATE TABLE author (id int PRIMARY KEY); CREATE TABLE book (id int PRIMARY KEY, title text, author_id int REFERENCES author(id)); CREATE TABLE publisher (id int PRIMARY KEY);`,
  );
  engine = await startTestEngine({ databaseUrl: db.url });
  for (const table of ['author', 'book']) expect((await engine.metadata({ type: 'pg_track_table', args: { table } })).status).toBe(200);
});

afterAll(async () => {
  await engine?.close();
  await db?.drop();
});

describe('unknown operations', () => {
  it('suggests the closest operation on /v1/metadata', async () => {
    const r = await engine.metadata({ type: 'pg_trak_table', args: { table: 'author' } });
    expect([r.status, r.body]).toEqual([
      400,
      { path: '$.type', code: 'parse-failed', error: 'unknown metadata operation "pg_trak_table"; did you mean "pg_track_table"?' },
    ]);
    const far = await engine.metadata({ type: 'make_coffee', args: {} });
    expect(far.body).toMatchObject({ error: 'unknown metadata operation "make_coffee"' });
  });

  it('names the prefixed or legacy name of the other endpoint', async () => {
    const legacy = await engine.metadata({ type: 'track_table', args: { table: 'author' } });
    expect(legacy.body).toMatchObject({
      code: 'parse-failed',
      error: 'unknown metadata operation "track_table"; on /v1/metadata it is "pg_track_table" ("track_table" is its legacy name on /v1/query)',
    });
    const sql = await engine.metadata({ type: 'run_sql', args: { sql: 'select 1' } });
    expect(sql.body).toMatchObject({ error: 'unknown metadata operation "run_sql"; run_sql is served on /v2/query (and /v1/query)' });
    const prefixed = await engine.post('/v1/query', { type: 'pg_track_table', args: { table: 'author' } });
    expect(prefixed.body).toMatchObject({
      code: 'parse-failed',
      error: 'unknown query type "pg_track_table"; on /v1/query it is "track_table" ("pg_track_table" is the /v1/metadata name)',
    });
    const role = await engine.post('/v1/query', { type: 'add_inherited_role', args: {} });
    expect(role.body).toMatchObject({ error: 'unknown query type "add_inherited_role"; "add_inherited_role" is a /v1/metadata operation' });
    const typo = await engine.post('/v2/query', { type: 'run_sqll', args: { sql: 'select 1' } });
    expect(typo.body).toMatchObject({ error: 'unknown query type "run_sqll"; did you mean "run_sql"?' });
  });
});

describe('misspelled keys', () => {
  it('names the key and the closest valid one', async () => {
    const r = await engine.metadata({
      type: 'pg_create_select_permission',
      args: { table: 'author', role: 'user', permission: { colums: ['id'], filter: {} } },
    });
    expect([r.status, r.body]).toEqual([
      400,
      { path: '$.args.permission.colums', code: 'parse-failed', error: 'unexpected key "colums"; did you mean "columns"?' },
    ]);
  });
});

describe('GraphQL mistakes', () => {
  // v2's wording stays the prefix (clients match on it); the hint follows in the metadata API's style.
  const gqlError = async (query: string): Promise<unknown> => ((await engine.graphql(query)).body as { errors: unknown[] }).errors[0];

  it('suggests the nearest root field, field and argument', async () => {
    expect(await gqlError('{ bok { id } }')).toEqual({
      message: `field 'bok' not found in type: 'query_root'; did you mean "book"?`,
      extensions: { path: '$.selectionSet.bok', code: 'validation-failed' },
    });
    expect(await gqlError('{ book { titel } }')).toMatchObject({ message: `field 'titel' not found in type: 'book'; did you mean "title"?` });
    expect(await gqlError('{ book(wher: {}) { id } }')).toMatchObject({ message: `'book' has no argument named 'wher'; did you mean "where"?` });
    // Nothing near: v2's message alone.
    expect(await gqlError('{ zzzzzz { id } }')).toMatchObject({ message: `field 'zzzzzz' not found in type: 'query_root'` });
  });

  it('suggests the operator a filter spelt out, and the column it misspelt', async () => {
    expect(await gqlError('{ book(where: {title: {_equal: "x"}}) { id } }')).toEqual({
      message: `field '_equal' not found in type: 'String_comparison_exp'; did you mean "_eq"?`,
      extensions: { path: '$.selectionSet.book.args.where.title._equal', code: 'validation-failed' },
    });
    expect(await gqlError('{ book(where: {titel: {_eq: "x"}}) { id } }')).toMatchObject({
      message: `field 'titel' not found in type: 'book_bool_exp'; did you mean "title"?`,
    });
  });

  it('uses one style for the other suggestions of graphql-js', async () => {
    expect(await gqlError('{ book(order_by: {title: ascc}) { id } }')).toMatchObject({
      message: 'Value "ascc" does not exist in "order_by" enum; did you mean "asc"?',
    });
  });
});

describe('misspelled tables and operators in metadata', () => {
  it('pg_track_table of a table the database lacks names the nearest one', async () => {
    const r = await engine.metadata({ type: 'pg_track_table', args: { table: 'publsher' } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      path: '$.args',
      code: 'invalid-configuration',
      error: 'Inconsistent object: no such table/view exists in source: "publsher"; did you mean "publisher"?',
    });
  });

  it('a permission filter with an unknown operator names the nearest one', async () => {
    const r = await engine.metadata({
      type: 'pg_create_select_permission',
      args: { table: 'book', role: 'user', permission: { columns: ['id'], filter: { id: { _equal: 1 } } } },
    });
    expect(r.status).toBe(400);
    expect((r.body as { error: string }).error).toContain('"_equal" is not a known operator (on column "id"); did you mean "_eq"?');
  });
});

describe('dependency errors', () => {
  it('say that cascade exists, and cascade works', async () => {
    const rel = await engine.metadata({
      type: 'pg_create_object_relationship',
      args: { table: 'book', name: 'author', using: { foreign_key_constraint_on: 'author_id' } },
    });
    expect(rel.status).toBe(200);
    const r = await engine.metadata({ type: 'pg_untrack_table', args: { table: 'author' } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'dependency-error' });
    expect((r.body as { error: string }).error).toMatch(
      /^cannot drop due to the following dependent objects: .*author.*; add "cascade": true to the args to drop them too$/,
    );
    expect((await engine.metadata({ type: 'pg_untrack_table', args: { table: 'author', cascade: true } })).status).toBe(200);
  });
});
