/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { startGraphqlServer } from '../../support/graphql-server.ts';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';
import { chinookSql, chinookTrackRelationships, chinookTrackTables } from '../../support/chinook.ts';

describe('bulk', () => {
  let f: MetadataFixture;
  beforeAll(async () => {
    f = await startFixture();
  });
  afterAll(async () => {
    await f.close();
  });

  it('applies every call and answers each', async () => {
    const r = await f.md('bulk', [
      { type: 'pg_track_table', args: { table: 'authors' } },
      { type: 'pg_track_table', args: { table: 'articles' } },
      { type: 'pg_create_object_relationship', args: { table: 'articles', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      { type: 'export_metadata', args: {} },
    ]);
    expect(r.status).toBe(200);
    expect(r.body.slice(0, 3)).toEqual([{ message: 'success' }, { message: 'success' }, { message: 'success' }]);
    expect(r.body[3].sources[0].tables).toHaveLength(2);
    const v = await f.md('export_metadata', {}, { version: 2 });
    expect(v.body.resource_version).toBe(2);
  });

  it('stores nothing when the third call fails, and names it in the path', async () => {
    const before = await f.md('export_metadata', {}, { version: 2 });
    const r = await f.md('bulk', [
      { type: 'pg_track_table', args: { table: 'profiles' } },
      { type: 'pg_create_object_relationship', args: { table: 'profiles', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      { type: 'pg_track_table', args: { table: 42 } },
    ]);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'parse-failed', path: '$.args[2].args.table' });
    const r2 = await f.md('bulk', [
      { type: 'pg_track_table', args: { table: 'profiles' } },
      { type: 'pg_track_table', args: { table: 'profiles' } },
    ]);
    expect(r2.body).toMatchObject({ code: 'already-tracked', path: '$.args[1].args' });
    const after = await f.md('export_metadata', {}, { version: 2 });
    expect(after.body).toEqual(before.body);
    expect(f.engine.engine.metadata.catalogRef.current.sources.get('default')?.tables.has('public.profiles')).toBe(false);
  });

  it('blames the call whose object became inconsistent', async () => {
    const before = await f.exported();
    const r = await f.md('bulk', [
      { type: 'pg_track_table', args: { table: 'profiles' } },
      { type: 'pg_track_table', args: { table: 'author_names' } },
      { type: 'pg_create_object_relationship', args: { table: 'profiles', name: 'bad', using: { foreign_key_constraint_on: 'website' } } },
      { type: 'pg_track_table', args: { table: 'article_status' } },
    ]);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid-configuration', path: '$.args[2].args' });
    expect(r.body.error).toContain('no foreign constraint');
    const clash = await f.md('bulk', [{ type: 'pg_track_table', args: { table: 'profiles', configuration: { custom_name: 'authors' } } }]);
    expect(clash.body).toMatchObject({ code: 'invalid-configuration', path: '$.args[0].args' });
    expect(await f.exported()).toEqual(before);
  });

  it('refuses a stale resource_version with 409', async () => {
    const cur = (await f.md('export_metadata', {}, { version: 2 })).body.resource_version;
    const r = await f.engine.metadata({ type: 'bulk', resource_version: cur - 1, args: [{ type: 'pg_track_table', args: { table: 'profiles' } }] });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'conflict' });
    const ok = await f.engine.metadata({ type: 'bulk', resource_version: cur, args: [{ type: 'pg_track_table', args: { table: 'profiles' } }] });
    expect(ok.status).toBe(200);
  });
});

describe('replace_metadata', () => {
  let f: MetadataFixture;
  beforeAll(async () => {
    f = await startFixture();
    await f.md('pg_track_table', { table: 'authors' });
    await f.md('pg_track_table', { table: 'articles' });
  });
  afterAll(async () => {
    await f.close();
  });

  it('round-trips an export, keeping the keys of later issues', async () => {
    const doc = await f.exported();
    const t = doc.sources[0].tables[0];
    t.insert_permissions = [{ role: 'editor', permission: { check: {}, columns: ['name'], set: {} }, comment: 'c' }];
    t.update_permissions = [{ role: 'editor', permission: { columns: '*', filter: { id: { _eq: 'X-Engine-User-Id' } }, check: null } }];
    t.delete_permissions = [{ role: 'editor', permission: { filter: {} } }];
    // Remote schemas are introspected (issue 16): a real server on loopback.
    const remote = await startGraphqlServer('type Query { hello: String }', { hello: () => 'hi' });
    onTestFinished(() => remote.close());
    doc.remote_schemas = [{ name: 'rs', definition: { url: remote.url, timeout_seconds: 60 } }];
    doc.query_collections = [{ name: 'allowed', definition: { queries: [{ name: 'q', query: '{ authors { id } }' }] } }];
    doc.allowlist = [{ collection: 'allowed', scope: { global: true } }];
    doc.actions = [{ name: 'act', definition: { kind: 'synchronous', handler: 'http://example.invalid', arguments: [], output_type: 'Out' } }];
    doc.custom_types = { objects: [{ name: 'Out', fields: [{ name: 'ok', type: 'Boolean' }] }] };
    doc.cron_triggers = [{ name: 'c', webhook: 'http://example.invalid', schedule: '* * * * *', include_in_metadata: true, payload: {} }];
    doc.rest_endpoints = [{ name: 'r', url: 'authors', methods: ['GET'], definition: { query: { query_name: 'q', collection_name: 'allowed' } } }];
    doc.inherited_roles = [{ role_name: 'super', role_set: ['editor'] }];
    const r = await f.md('replace_metadata', doc);
    expect(r.body).toEqual({ message: 'success' });
    expect(await f.exported()).toEqual(doc);
    const catalog = f.engine.engine.metadata.catalogRef.current;
    expect(catalog.roles).toEqual(['editor', 'super']);
    const perms = catalog.sources.get('default')?.tables.get('public.authors')?.permissions.get('editor');
    expect(perms?.insert?.columns).toEqual(['name']);
    expect(perms?.update?.columns).toEqual(['id', 'name', 'bio']);
    expect(perms?.delete?.filter).toEqual({});
  });

  it('version 2: 409 on a stale resource_version, success on the current one', async () => {
    const cur = await f.md('export_metadata', {}, { version: 2 });
    const stale = await f.engine.metadata<any>({
      type: 'replace_metadata',
      version: 2,
      resource_version: cur.body.resource_version - 1,
      args: { metadata: cur.body.metadata },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('conflict');
    const ok = await f.engine.metadata<any>({
      type: 'replace_metadata',
      version: 2,
      resource_version: cur.body.resource_version,
      args: { metadata: cur.body.metadata },
    });
    expect(ok.status).toBe(200);
    const next = await f.md('export_metadata', {}, { version: 2 });
    expect(next.body.resource_version).toBe(cur.body.resource_version + 1);
  });

  it('inconsistent metadata: 400 with internal, or 200 with allow_inconsistent_metadata (version inferred)', async () => {
    const cur = await f.exported();
    const bad = structuredClone(cur);
    bad.sources[0].tables.push({ table: { schema: 'public', name: 'ghost' } });
    const before = await f.md('export_metadata', {}, { version: 2 });
    const refused = await f.md('replace_metadata', { metadata: bad });
    expect(refused.status).toBe(400);
    expect(refused.body.internal).toEqual([
      expect.objectContaining({ type: 'table', definition: { schema: 'public', name: 'ghost' }, reason: expect.stringContaining('ghost') }),
    ]);
    expect((await f.md('export_metadata', {}, { version: 2 })).body).toEqual(before.body);
    const allowed = await f.md('replace_metadata', { metadata: bad, allow_inconsistent_metadata: true });
    expect(allowed.status).toBe(200);
    expect(allowed.body.is_consistent).toBe(false);
    expect(allowed.body.inconsistent_objects).toHaveLength(1);
    expect(f.engine.engine.metadata.isConsistent()).toBe(false);
    const incons = await f.md('get_inconsistent_metadata');
    expect(incons.body).toMatchObject({ is_consistent: false, inconsistent_objects: [{ type: 'table', name: 'table ghost in source default' }] });
    expect((await f.md('drop_inconsistent_metadata')).body).toEqual({ message: 'success' });
    expect(f.engine.engine.metadata.isConsistent()).toBe(true);
    expect(await f.exported()).toEqual(cur);
  });

  it('refuses documents of the wrong shape with a path', async () => {
    const r = await f.md('replace_metadata', { version: 3, sources: [{ name: 'default', tables: [{ table: 5 }], configuration: {} }] });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('parse-failed');
    expect(r.body.path).toMatch(/^\$\.args\.sources\[0\]/);
  });

  it('clear_metadata keeps the default source', async () => {
    expect((await f.md('clear_metadata')).status).toBe(200);
    const doc = await f.exported();
    expect(doc.sources).toEqual([{ name: 'default', kind: 'postgres', tables: [], configuration: { connection_info: { database_url: f.db.url } } }]);
    expect(doc.remote_schemas).toBeUndefined();
  });
});

describe('the Chinook-shaped sample tracked by two bulks', () => {
  let f: MetadataFixture;
  beforeAll(async () => {
    f = await startFixture(chinookSql());
  }, 120_000);
  afterAll(async () => {
    await f?.close();
  });

  it('tracks the tables (resource_version 1) then the relationships (2)', async () => {
    const tables = { ...chinookTrackTables(), resource_version: 1 };
    const rels = { ...chinookTrackRelationships(), resource_version: 2 };
    const a = await f.engine.metadata(tables);
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    const b = await f.engine.metadata(rels);
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    const catalog = f.engine.engine.metadata.catalogRef.current;
    expect(catalog.inconsistencies).toEqual([]);
    expect(catalog.resourceVersion).toBe(3);
    const src = catalog.sources.get('default');
    expect(src?.tables.size).toBe(tables.args.length);
    expect(
      src?.tables
        .get('public.albums')
        ?.relationships.map((r) => r.name)
        .sort(),
    ).toEqual(['artist', 'tracks']);
    expect(src?.tables.get('public.tracks')?.relationships.find((r) => r.name === 'invoice_lines')).toMatchObject({
      kind: 'array',
      columnMapping: [['id', 'track_id']],
    });
  });
});
