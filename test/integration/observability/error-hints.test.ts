/**
 * Errors that say what to do: the closest operation for a misspelled one, the
 * other endpoint's name for a legacy or prefixed one, the closest key for a
 * misspelled key, and `cascade` in dependency errors; over real HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';

let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase('hints');
  await db.sql(`CREATE TABLE author (id int PRIMARY KEY); CREATE TABLE book (id int PRIMARY KEY, author_id int REFERENCES author(id));`);
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
