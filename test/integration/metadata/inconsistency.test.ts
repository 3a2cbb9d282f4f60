/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';

let f: MetadataFixture;
beforeAll(async () => {
  f = await startFixture();
  const r = await f.md('bulk', [
    { type: 'pg_track_table', args: { table: 'authors' } },
    { type: 'pg_track_table', args: { table: 'articles' } },
    { type: 'pg_track_table', args: { table: 'profiles' } },
    { type: 'pg_create_object_relationship', args: { table: 'articles', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    {
      type: 'pg_create_array_relationship',
      args: { table: 'authors', name: 'articles', using: { foreign_key_constraint_on: { table: 'articles', columns: ['author_id'] } } },
    },
    {
      type: 'pg_create_object_relationship',
      args: { table: 'authors', name: 'profile', using: { foreign_key_constraint_on: { table: 'profiles', columns: ['author_id'] } } },
    },
  ]);
  expect(r.status).toBe(200);
});
afterAll(async () => {
  await f.close();
});

const tables = () => f.engine.engine.metadata.catalogRef.current.sources.get('default')?.tables;

describe('run_sql', () => {
  it('answers TuplesOk with a header row and text cells, nulls as null', async () => {
    const r = await f.sql('SELECT id, name, bio, 1.5::numeric AS n FROM authors ORDER BY id');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      result_type: 'TuplesOk',
      result: [
        ['id', 'name', 'bio', 'n'],
        ['1', 'Ann', null, '1.5'],
        ['2', 'Bob', null, '1.5'],
      ],
    });
  });

  it('answers CommandOk for commands, and runs on the legacy /v1/query too', async () => {
    const r = await f.sql('CREATE TABLE notes (id int PRIMARY KEY, body text)');
    expect(r.body).toEqual({ result_type: 'CommandOk', result: null });
    const v1 = await f.q1('run_sql', { sql: "INSERT INTO notes VALUES (1, 'x')" });
    expect(v1.body).toEqual({ result_type: 'CommandOk', result: null });
    // The new table is known without a reload: it can be tracked at once.
    expect((await f.md('pg_track_table', { table: 'notes' })).status).toBe(200);
  });

  it('legacy bulk of run_sql and track_table, as old migrations send it', async () => {
    const r = await f.q1('bulk', [
      { type: 'run_sql', args: { sql: 'CREATE TABLE migrated (id int PRIMARY KEY)' } },
      { type: 'track_table', args: { schema: 'public', name: 'migrated' } },
    ]);
    expect(r.status).toBe(200);
    expect(tables()?.has('public.migrated')).toBe(true);
    // A failing later call keeps nothing: neither the metadata nor the SQL (issue 12.5).
    const bad = await f.q1('bulk', [
      { type: 'run_sql', args: { sql: 'CREATE TABLE migrated2 (id int PRIMARY KEY)' } },
      { type: 'track_table', args: { table: 'nope' } },
    ]);
    expect(bad.body).toMatchObject({ code: 'invalid-configuration', path: '$.args[1].args' });
    expect((await f.md('pg_track_table', { table: 'migrated2' })).body).toMatchObject({ code: 'invalid-configuration' });
    expect((await f.db.sql("SELECT to_regclass('public.migrated2') AS t")).rows).toEqual([{ t: null }]);
    expect((await f.md('pg_untrack_table', { table: 'migrated' })).status).toBe(200);
  });

  it('refuses writes in read_only mode and reports SQL errors as postgres-error', async () => {
    const ro = await f.sql("INSERT INTO notes VALUES (2, 'y')", { read_only: true });
    expect(ro.status).toBe(400);
    expect(ro.body.code).toBe('postgres-error');
    expect(ro.body.internal.error.message).toContain('read-only');
    const bad = await f.sql('SELEC 1');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'postgres-error', error: 'query execution failed' });
    expect(bad.body.internal.error.status_code).toBe('42601');
    const count = await f.sql('SELECT count(*) FROM notes', { read_only: true });
    expect(count.body.result[1]).toEqual(['1']);
  });

  it('refuses DDL that breaks tracked objects unless cascade, and rolls it back', async () => {
    const before = await f.exported();
    const r = await f.sql('DROP TABLE notes');
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('dependency-error');
    expect(r.body.error).toContain('table notes');
    const still = await f.sql('SELECT count(*) FROM notes');
    expect(still.body.result[1]).toEqual(['1']);
    expect(await f.exported()).toEqual(before);

    const c = await f.sql('DROP TABLE notes', { cascade: true });
    expect(c.status).toBe(200);
    expect(tables()?.has('public.notes')).toBe(false);
    const doc = await f.exported();
    expect(doc.sources[0].tables.map((t: any) => t.table.name)).toEqual(['authors', 'articles', 'profiles']);
  });

  it('follows table and column renames in the metadata', async () => {
    const r = await f.sql('ALTER TABLE profiles RENAME COLUMN author_id TO writer_id; ALTER TABLE profiles RENAME TO author_profiles');
    expect(r.status).toBe(200);
    expect(f.engine.engine.metadata.isConsistent()).toBe(true);
    let doc = await f.exported();
    expect(doc.sources[0].tables.map((t: any) => t.table.name)).toEqual(['authors', 'articles', 'author_profiles']);
    const authors = doc.sources[0].tables.find((t: any) => t.table.name === 'authors');
    expect(authors.object_relationships[0].using).toEqual({
      foreign_key_constraint_on: { table: { schema: 'public', name: 'author_profiles' }, columns: ['writer_id'] },
    });
    expect(
      tables()
        ?.get('public.authors')
        ?.relationships.find((x) => x.name === 'profile')?.columnMapping,
    ).toEqual([['id', 'writer_id']]);
    expect((await f.sql('ALTER TABLE author_profiles RENAME TO profiles; ALTER TABLE profiles RENAME COLUMN writer_id TO author_id')).status).toBe(200);
    doc = await f.exported();
    expect(doc.sources[0].tables.map((t: any) => t.table.name)).toEqual(['authors', 'articles', 'profiles']);
    expect(f.engine.engine.metadata.isConsistent()).toBe(true);
  });
});

describe('inconsistency after out-of-band changes', () => {
  it('reload_metadata reports a dropped table and a renamed column; the rest keeps working', async () => {
    await f.db.sql('ALTER TABLE profiles RENAME COLUMN author_id TO writer_id');
    await f.db.sql('CREATE TABLE extra (id int PRIMARY KEY)');
    await f.db.sql('ALTER TABLE articles DROP CONSTRAINT articles_author_id_fkey');
    const r = await f.md('reload_metadata', { reload_sources: true });
    expect(r.status).toBe(200);
    expect(r.body.message).toBe('success');
    expect(r.body.is_consistent).toBe(false);
    const types = r.body.inconsistent_objects.map((o: any) => `${o.type}:${o.definition.name}`).sort();
    expect(types).toEqual(['array_relation:articles', 'object_relation:author', 'object_relation:profile']);
    expect(tables()?.get('public.authors')?.relationships).toEqual([]);
    expect(tables()?.has('public.articles')).toBe(true);
    expect(f.engine.engine.metadata.isConsistent()).toBe(false);
    const health = await f.engine.get('/healthz');
    expect(health.status).toBe(200);
    // Other calls still work while metadata is inconsistent.
    expect((await f.md('pg_track_table', { table: 'extra' })).status).toBe(200);
  });

  it('a dropped table makes the table and the relationships pointing to it inconsistent', async () => {
    await f.db.sql('ALTER TABLE articles ADD CONSTRAINT articles_author_id_fkey FOREIGN KEY (author_id) REFERENCES authors(id)');
    await f.db.sql('ALTER TABLE profiles RENAME COLUMN writer_id TO author_id');
    await f.md('reload_metadata');
    expect(f.engine.engine.metadata.isConsistent()).toBe(true);
    await f.db.sql('DROP TABLE profiles');
    const r = await f.md('reload_metadata', { reload_sources: ['default'] });
    const got = r.body.inconsistent_objects.map((o: any) => ({ type: o.type, name: o.name }));
    expect(got).toEqual(
      expect.arrayContaining([
        { type: 'table', name: 'table profiles in source default' },
        { type: 'object_relation', name: 'relationship profile in table authors in source default' },
      ]),
    );
    const incons = await f.md('get_inconsistent_metadata');
    expect(incons.body.is_consistent).toBe(false);
    expect(incons.body.inconsistent_objects[0]).toMatchObject({ reason: expect.stringContaining('Inconsistent object: ') });
    expect(tables()?.has('public.profiles')).toBe(false);
    expect(
      tables()
        ?.get('public.authors')
        ?.relationships.map((x) => x.name),
    ).toEqual(['articles']);
  });

  it('a call that makes another object newly inconsistent is refused', async () => {
    const before = await f.exported();
    // Renaming the column `name` to `articles` collides with the relationship `articles`.
    const r = await f.md('pg_set_table_customization', { table: 'authors', configuration: { custom_column_names: { name: 'articles' } } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'unexpected', error: 'cannot continue due to new inconsistent metadata' });
    expect(r.body.internal).toEqual([expect.objectContaining({ type: 'array_relation', name: expect.stringContaining('articles') })]);
    expect(await f.exported()).toEqual(before);
  });

  it('drop_inconsistent_metadata removes them', async () => {
    expect((await f.md('drop_inconsistent_metadata')).body).toEqual({ message: 'success' });
    expect((await f.md('get_inconsistent_metadata')).body).toEqual({ is_consistent: true, inconsistent_objects: [] });
    const doc = await f.exported();
    const authors = doc.sources[0].tables.find((t: any) => t.table.name === 'authors');
    expect(authors.object_relationships).toBeUndefined();
    expect(doc.sources[0].tables.map((t: any) => t.table.name)).toEqual(['authors', 'articles', 'extra']);
  });
});

describe('sources', () => {
  it('adds, refuses duplicates and unreachable databases, and drops sources', async () => {
    const add = await f.md('pg_add_source', { name: 'second', configuration: { connection_info: { database_url: f.db.url } } });
    expect(add.body).toEqual({ message: 'success' });
    const dup = await f.md('pg_add_source', { name: 'second', configuration: { connection_info: { database_url: f.db.url } } });
    expect(dup.body).toMatchObject({ code: 'already-exists', path: '$.args' });
    // Same table in two sources: the GraphQL names clash unless customized.
    const clash = await f.md('pg_track_table', { source: 'second', table: 'authors' });
    expect(clash.status).toBe(400);
    expect(clash.body.error).toContain('conflicts');
    const ok = await f.md('pg_track_table', { source: 'second', table: 'authors', configuration: { custom_name: 'authors2' } });
    expect(ok.status).toBe(200);
    const unreachable = await f.md('pg_add_source', {
      name: 'down',
      configuration: { connection_info: { database_url: 'postgres://nobody:x@127.0.0.1:1/none', pool_settings: { pool_timeout: 2 } } },
    });
    expect(unreachable.status).toBe(400);
    expect(unreachable.body.code).toBe('invalid-configuration');
    const fromEnv = await f.md('pg_add_source', {
      name: 'env',
      configuration: { connection_info: { database_url: { from_env: 'ENGINE_TEST_SURELY_UNSET_VAR' } } },
    });
    expect(fromEnv.body.code).toBe('invalid-configuration');
    expect(fromEnv.body.error).toContain('ENGINE_TEST_SURELY_UNSET_VAR');
    const replaced = await f.md('pg_add_source', {
      name: 'second',
      replace_configuration: true,
      configuration: { connection_info: { database_url: f.db.url, pool_settings: { max_connections: 5 } } },
    });
    expect(replaced.status).toBe(200);
    const second = (await f.exported()).sources.find((s: any) => s.name === 'second');
    expect(second.configuration.connection_info.pool_settings).toEqual({ max_connections: 5 });
    expect(second.tables).toHaveLength(1);
    expect(f.engine.engine.metadata.catalogRef.current.sources.get('second')?.tables.has('public.authors')).toBe(true);
    const dep = await f.md('pg_drop_source', { name: 'second' });
    expect(dep.body.code).toBe('dependency-error');
    expect((await f.md('pg_drop_source', { name: 'second', cascade: true })).status).toBe(200);
    const missing = await f.md('pg_drop_source', { name: 'second' });
    expect(missing.body).toMatchObject({ code: 'not-exists', path: '$.args' });
    const doc = await f.exported();
    expect(doc.sources.map((s: any) => s.name)).toEqual(['default']);
  });

  it('an unreachable source is inconsistent but the rest keeps serving', async () => {
    const doc = await f.exported();
    doc.sources.push({
      name: 'down',
      kind: 'postgres',
      tables: [{ table: { schema: 'public', name: 'x' } }],
      configuration: { connection_info: { database_url: 'postgres://nobody:x@127.0.0.1:1/none', pool_settings: { pool_timeout: 2 } } },
    });
    const r = await f.md('replace_metadata', { allow_inconsistent_metadata: true, metadata: doc });
    expect(r.status).toBe(200);
    expect(r.body.inconsistent_objects).toEqual([expect.objectContaining({ type: 'source', name: 'source down' })]);
    expect(f.engine.engine.metadata.catalogRef.current.sources.has('down')).toBe(false);
    expect(tables()?.has('public.authors')).toBe(true);
    expect((await f.md('drop_inconsistent_metadata')).status).toBe(200);
    expect((await f.exported()).sources.map((s: any) => s.name)).toEqual(['default']);
  });
});
