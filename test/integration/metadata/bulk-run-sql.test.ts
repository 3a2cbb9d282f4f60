/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * `bulk` with `run_sql` is all or nothing (issue 12.5): the SQL runs in a
 * transaction held until the request's metadata is stored. On the metadata
 * database (the default set-up) SQL and metadata commit in one transaction;
 * with a separate metadata database the SQL commits right after the metadata
 * is stored, and any failure before that rolls it back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { BASE_SCHEMA, startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';

async function exists(db: TestDatabase, name: string): Promise<boolean> {
  return (await db.sql('SELECT to_regclass($1) IS NOT NULL AS e', [name])).rows[0].e as boolean;
}

describe('bulk with run_sql, metadata in the source database', () => {
  let f: MetadataFixture;
  beforeAll(async () => {
    f = await startFixture();
    await f.md('pg_track_table', { table: 'authors' });
  });
  afterAll(async () => {
    await f.close();
  });

  it('a failing third step leaves neither the CREATE TABLE of the first nor any metadata', async () => {
    const before = await f.md('export_metadata', {}, { version: 2 });
    const r = await f.q1('bulk', [
      { type: 'run_sql', args: { sql: 'CREATE TABLE staged (id int PRIMARY KEY); INSERT INTO authors (name) VALUES ($$Zed$$)' } },
      { type: 'track_table', args: { table: 'staged' } },
      { type: 'track_table', args: { table: 'nope' } },
    ]);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid-configuration', path: '$.args[2].args' });
    expect(await exists(f.db, 'public.staged')).toBe(false);
    expect((await f.db.sql("SELECT count(*)::int AS n FROM authors WHERE name = 'Zed'")).rows[0].n).toBe(0);
    expect((await f.md('export_metadata', {}, { version: 2 })).body).toEqual(before.body);
    expect(f.engine.engine.metadata.catalogRef.current.sources.get('default')?.tables.has('public.staged')).toBe(false);
    // The engine keeps working on the same database afterwards (no lock or connection left behind).
    const ok = await f.q1('bulk', [
      { type: 'run_sql', args: { sql: 'CREATE TABLE staged (id int PRIMARY KEY)' } },
      { type: 'track_table', args: { table: 'staged' } },
    ]);
    expect(ok.status).toBe(200);
    const gql = await f.engine.graphql('{ staged { id } }');
    expect(gql.body).toEqual({ data: { staged: [] } });
  });

  it('SQL and metadata commit in one transaction', async () => {
    const r = await f.q1('bulk', [
      { type: 'run_sql', args: { sql: 'CREATE TABLE together (id int PRIMARY KEY)' } },
      { type: 'track_table', args: { table: 'together' } },
    ]);
    expect(r.status).toBe(200);
    // The row versions written by one transaction carry its id as xmin.
    const x = await f.db.sql(
      `SELECT (SELECT xmin::text FROM pg_class WHERE oid = 'public.together'::regclass) AS tab,
              (SELECT xmin::text FROM engine_metadata.metadata WHERE id = 1) AS md`,
    );
    expect(x.rows[0].tab).toBe(x.rows[0].md);
  });

  it('later steps see the uncommitted SQL of earlier ones, read_only included', async () => {
    const r = await f.q1('bulk', [
      { type: 'run_sql', args: { sql: 'CREATE TABLE chain (id int PRIMARY KEY)' } },
      { type: 'run_sql', args: { sql: 'ALTER TABLE chain ADD COLUMN label text; INSERT INTO chain VALUES (1, $$one$$)' } },
      { type: 'track_table', args: { table: 'chain' } },
      { type: 'run_sql', args: { sql: 'SELECT label FROM chain', read_only: true } },
      { type: 'run_sql', args: { sql: 'INSERT INTO chain VALUES (2, $$two$$)' } },
    ]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body[3]).toEqual({ result_type: 'TuplesOk', result: [['label'], ['one']] });
    const gql = await f.engine.graphql('{ chain(order_by: {id: asc}) { id label } }');
    expect(gql.body).toEqual({
      data: {
        chain: [
          { id: 1, label: 'one' },
          { id: 2, label: 'two' },
        ],
      },
    });
  });

  it('a read_only step cannot write, even inside a bulk that already wrote', async () => {
    const r = await f.q1('bulk', [
      { type: 'run_sql', args: { sql: 'CREATE TABLE ro_probe (id int)' } },
      { type: 'run_sql', args: { sql: 'INSERT INTO ro_probe VALUES (1)', read_only: true } },
    ]);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('postgres-error');
    expect(r.body.internal.error.message).toContain('read-only');
    expect(await exists(f.db, 'public.ro_probe')).toBe(false);
  });

  it('a deferred constraint that fails at commit refuses the whole bulk', async () => {
    const r = await f.q1('bulk', [
      {
        type: 'run_sql',
        args: {
          sql: `CREATE TABLE dparent (id int PRIMARY KEY);
                CREATE TABLE dchild (pid int REFERENCES dparent DEFERRABLE INITIALLY DEFERRED);
                INSERT INTO dchild VALUES (1)`,
        },
      },
      { type: 'track_table', args: { table: 'dchild' } },
    ]);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('postgres-error');
    expect(r.body.internal.error.status_code).toBe('23503');
    expect(await exists(f.db, 'public.dchild')).toBe(false);
    expect(f.engine.engine.metadata.catalogRef.current.sources.get('default')?.tables.has('public.dchild')).toBe(false);
  });
});

describe('bulk with run_sql, metadata in a separate database', () => {
  let source: TestDatabase;
  let meta: TestDatabase;
  let engine: TestEngine;
  beforeAll(async () => {
    [source, meta] = await Promise.all([createTestDatabase('bulksrc'), createTestDatabase('bulkmeta')]);
    await source.sql(BASE_SCHEMA);
    engine = await startTestEngine({ databaseUrl: source.url, metadataDatabaseUrl: meta.url });
  });
  afterAll(async () => {
    await engine.close();
    await Promise.all([source.drop(), meta.drop()]);
  });

  it('a failing step rolls back the SQL of earlier ones; success commits both', async () => {
    const bad = await engine.post<any>('/v1/query', {
      type: 'bulk',
      args: [
        { type: 'run_sql', args: { sql: 'CREATE TABLE staged (id int PRIMARY KEY)' } },
        { type: 'track_table', args: { table: 'staged' } },
        { type: 'track_table', args: { table: 'nope' } },
      ],
    });
    expect(bad.body).toMatchObject({ code: 'invalid-configuration', path: '$.args[2].args' });
    expect(await exists(source, 'public.staged')).toBe(false);
    const ok = await engine.post<any>('/v1/query', {
      type: 'bulk',
      args: [
        { type: 'run_sql', args: { sql: 'CREATE TABLE staged (id int PRIMARY KEY)' } },
        { type: 'track_table', args: { table: 'staged' } },
      ],
    });
    expect(ok.status).toBe(200);
    expect(await exists(source, 'public.staged')).toBe(true);
    const stored = await meta.sql('SELECT metadata FROM engine_metadata.metadata WHERE id = 1');
    expect(JSON.stringify(stored.rows[0].metadata)).toContain('"staged"');
  });
});
