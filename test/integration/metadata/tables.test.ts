/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';

let f: MetadataFixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(async () => {
  await f.close();
});

describe('tracking tables', () => {
  it('starts with a default source at resource_version 1', async () => {
    const r = await f.md('export_metadata', {}, { version: 2 });
    expect(r.status).toBe(200);
    expect(r.body.resource_version).toBe(1);
    expect(r.body.metadata.version).toBe(3);
    expect(r.body.metadata.sources).toHaveLength(1);
    expect(r.body.metadata.sources[0]).toMatchObject({ name: 'default', kind: 'postgres', tables: [] });
    expect(r.body.metadata.sources[0].configuration.connection_info.database_url).toBe(f.db.url);
  });

  it('tracks tables by string and object name, and refuses tracking twice', async () => {
    expect((await f.md('pg_track_table', { table: 'authors' })).body).toEqual({ message: 'success' });
    expect((await f.md('pg_track_table', { source: 'default', table: { schema: 'public', name: 'articles' } })).status).toBe(200);
    const again = await f.md('pg_track_table', { table: 'authors' });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: 'already-tracked', path: '$.args' });
    const doc = await f.exported();
    expect(doc.sources[0].tables.map((t: any) => t.table)).toEqual([
      { name: 'authors', schema: 'public' },
      { name: 'articles', schema: 'public' },
    ]);
    const catalog = f.engine.engine.metadata.catalogRef.current;
    const authors = catalog.sources.get('default')?.tables.get('public.authors');
    expect(authors?.gqlName).toBe('authors');
    expect(authors?.rootFields.selectByPk).toBe('authors_by_pk');
    expect(authors?.description).toBe('people who write');
    expect(authors?.primaryKey).toEqual(['id']);
    expect(catalog.resourceVersion).toBe(3);
  });

  it('names tables outside public with a schema prefix, and views', async () => {
    expect((await f.md('pg_track_table', { table: { schema: 'shop', name: 'orders' } })).status).toBe(200);
    expect((await f.md('pg_track_table', { table: 'author_names' })).status).toBe(200);
    const tables = f.engine.engine.metadata.catalogRef.current.sources.get('default')?.tables;
    const orders = tables?.get('shop.orders');
    expect(orders?.gqlName).toBe('shop_orders');
    expect(orders?.rootFields.insertOne).toBe('insert_shop_orders_one');
    expect(orders?.columns.find((c) => c.name === 'tags')).toMatchObject({ dbType: '_text', elementType: 'text' });
    expect(tables?.get('public.author_names')).toMatchObject({ kind: 'view' });
  });

  it('refuses unknown tables, unknown sources and bad args without changing anything', async () => {
    const before = await f.md('export_metadata', {}, { version: 2 });
    const missing = await f.md('pg_track_table', { table: 'nope' });
    expect(missing.status).toBe(400);
    // v2 compat: refused by the schema build, as an inconsistent object.
    expect(missing.body).toMatchObject({
      code: 'invalid-configuration',
      path: '$.args',
      error: 'Inconsistent object: no such table/view exists in source: "nope"',
      internal: [{ type: 'table', name: 'table nope in source default', definition: { schema: 'public', name: 'nope' } }],
    });
    const noSource = await f.md('pg_track_table', { table: 'tags', source: 'elsewhere' });
    expect(noSource.body).toMatchObject({ code: 'not-exists', path: '$.args.source' });
    const badType = await f.md('pg_track_table', { table: 42 });
    expect(badType.status).toBe(400);
    expect(badType.body).toMatchObject({ code: 'parse-failed', path: '$.args.table' });
    const badConfig = await f.md('pg_track_table', { table: 'profiles', configuration: { custom_name: 7 } });
    expect(badConfig.body).toMatchObject({ code: 'parse-failed', path: '$.args.configuration.custom_name' });
    const noTable = await f.md('pg_track_table', {});
    expect(noTable.body).toMatchObject({ code: 'parse-failed', path: '$.args' });
    const after = await f.md('export_metadata', {}, { version: 2 });
    expect(after.body).toEqual(before.body);
  });

  it('refuses malformed bodies and unknown operations', async () => {
    const bad = await f.engine.post('/v1/metadata', '{"type": "export_metadata", ');
    expect(bad.status).toBe(400);
    expect(['invalid-json', 'parse-failed']).toContain((bad.body as any).code);
    const unknown = await f.md('pg_frobnicate', {});
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'parse-failed' });
    const citus = await f.md('citus_track_table', { table: 'x', source: 'nowhere' });
    expect(citus.body).toMatchObject({ code: 'not-supported' });
    const noType = await f.engine.post('/v1/metadata', { args: {} });
    expect(noType.body).toMatchObject({ code: 'parse-failed' });
  });

  it('customizes names and refuses clashing GraphQL names', async () => {
    const ok = await f.md('pg_track_table', {
      table: 'profiles',
      configuration: {
        custom_name: 'author_profile',
        custom_root_fields: { select: 'profiles_list' },
        custom_column_names: { website: 'url' },
      },
    });
    expect(ok.status).toBe(200);
    const p = f.engine.engine.metadata.catalogRef.current.sources.get('default')?.tables.get('public.profiles');
    expect(p?.gqlName).toBe('author_profile');
    expect(p?.rootFields.select).toBe('profiles_list');
    expect(p?.rootFields.selectByPk).toBe('author_profile_by_pk');
    expect(p?.columns.find((c) => c.name === 'website')?.gqlName).toBe('url');

    const before = await f.exported();
    const clash = await f.md('pg_set_table_customization', {
      table: 'profiles',
      configuration: { custom_name: 'authors' },
    });
    expect(clash.status).toBe(400);
    expect(clash.body.code).toBe('invalid-configuration');
    expect(clash.body.error).toContain('authors');
    const badColumn = await f.md('pg_set_table_customization', {
      table: 'profiles',
      configuration: { custom_column_names: { nope: 'x' } },
    });
    expect(badColumn.status).toBe(400);
    expect(badColumn.body.error).toContain('nope');
    expect(await f.exported()).toEqual(before);

    expect((await f.md('pg_set_table_customization', { table: 'profiles', configuration: {} })).status).toBe(200);
    const p2 = f.engine.engine.metadata.catalogRef.current.sources.get('default')?.tables.get('public.profiles');
    expect(p2?.gqlName).toBe('profiles');
  });

  it('tracks enum tables and links referencing columns', async () => {
    expect((await f.md('pg_track_table', { table: 'article_status', is_enum: true })).status).toBe(200);
    const tables = f.engine.engine.metadata.catalogRef.current.sources.get('default')?.tables;
    expect(tables?.get('public.article_status')?.enumValues).toEqual([
      { value: 'draft', comment: 'not yet' },
      { value: 'published', comment: 'out' },
    ]);
    expect(tables?.get('public.articles')?.columns.find((c) => c.name === 'status')?.enumTable).toEqual({
      schema: 'public',
      name: 'article_status',
    });
    expect((await f.md('pg_set_table_is_enum', { table: 'article_status', is_enum: false })).status).toBe(200);
    const notEnum = await f.md('pg_set_table_is_enum', { table: 'authors', is_enum: true });
    expect(notEnum.status).toBe(400);
    expect(notEnum.body.code).toBe('invalid-configuration');
    expect(notEnum.body.error).toContain('enum');
  });

  it('untracks tables; untracking twice is refused', async () => {
    expect((await f.md('pg_untrack_table', { table: 'author_names' })).status).toBe(200);
    const again = await f.md('pg_untrack_table', { table: 'author_names' });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('already-untracked');
  });

  it('speaks the legacy /v1/query table calls', async () => {
    expect((await f.q1('track_table', { schema: 'public', name: 'author_names' })).status).toBe(200);
    expect((await f.q1('set_table_custom_fields', { table: 'author_names', custom_root_fields: { select: 'names' } })).status).toBe(200);
    const t = f.engine.engine.metadata.catalogRef.current.sources.get('default')?.tables.get('public.author_names');
    expect(t?.rootFields.select).toBe('names');
    expect((await f.q1('untrack_table', { table: { schema: 'public', name: 'author_names' } })).status).toBe(200);
    expect((await f.q1('add_existing_table_or_view', { name: 'author_names' })).status).toBe(200);
    const legacyIncons = await f.q1('get_inconsistent_metadata', {});
    expect(legacyIncons.body).toEqual([]);
  });
});
