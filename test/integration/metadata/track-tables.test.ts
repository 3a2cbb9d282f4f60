/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * v2's `pg_track_tables` / `pg_untrack_tables` (Note [Tracking many tables]):
 * every table that can be is tracked, the others come back as warnings in
 * v2's shape; `allow_warnings: false`, a table named twice, or no table at all
 * tracked fail the call and change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';

describe('pg_track_tables and pg_untrack_tables', () => {
  let f: MetadataFixture;
  beforeAll(async () => {
    f = await startFixture();
  });
  afterAll(async () => {
    await f.close();
  });

  const tracked = async (): Promise<string[]> =>
    ((await f.exported()).sources[0]?.tables ?? []).map((t: any) => (t.table.schema === 'public' ? t.table.name : `${t.table.schema}.${t.table.name}`)).sort();

  it('tracks many tables in one call', async () => {
    const r = await f.md('pg_track_tables', {
      tables: [{ table: 'authors' }, { table: 'articles', configuration: { custom_name: 'posts' } }, { table: { schema: 'shop', name: 'orders' } }],
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: 'success' });
    expect(await tracked()).toEqual(['articles', 'authors', 'shop.orders']);
    const q = await f.engine.graphql('{ posts { id } authors { id } shop_orders { id } }');
    expect(q.body).not.toHaveProperty('errors');
  });

  it('keeps what it can track and warns, in v2 shape, about the rest', async () => {
    const r = await f.md('pg_track_tables', {
      tables: [{ table: 'profiles' }, { table: 'authors' }, { table: 'no_such_table' }, { table: 'article_status' }],
    });
    expect(r.status).toBe(200);
    expect(r.body.message).toBe('success');
    expect(r.body.warnings).toEqual([
      { message: 'view/table already tracked: "authors"', type: 'table', name: 'authors in source default', code: 'track-table-failed' },
      { message: expect.stringContaining('no_such_table'), type: 'table', name: 'no_such_table in source default', code: 'track-table-failed' },
    ]);
    expect(await tracked()).toEqual(['article_status', 'articles', 'authors', 'profiles', 'shop.orders']);
  });

  it('fails whole, changing nothing, with allow_warnings false, a table named twice, or nothing tracked', async () => {
    const before = await f.md('export_metadata', {}, { version: 2 });
    await f.sql('CREATE TABLE extra_one (id int PRIMARY KEY); CREATE TABLE extra_two (id int PRIMARY KEY)');
    const strict = await f.md('pg_track_tables', { allow_warnings: false, tables: [{ table: 'extra_one' }, { table: 'authors' }] });
    expect(strict.status).toBe(400);
    expect(strict.body).toMatchObject({ code: 'metadata-warnings', error: 'failed due to metadata warnings' });
    const twice = await f.md('pg_track_tables', {
      tables: [{ table: 'extra_one' }, { table: 'extra_two' }, { table: { schema: 'public', name: 'extra_one' } }],
    });
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({
      code: 'bad-request',
      error: 'The following tables occur more than once in the request: default.extra_one',
      path: '$.args.tables',
    });
    const none = await f.md('pg_track_tables', { tables: [{ table: 'authors' }, { table: 'nope' }] });
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({ code: 'invalid-configuration', error: 'all tables failed to track' });
    expect((await f.md('pg_track_tables', { tables: 'authors' })).status).toBe(400);
    const after = await f.md('export_metadata', {}, { version: 2 });
    expect(after.body.metadata).toEqual(before.body.metadata);
  });

  it('untracks many tables, warning about those it cannot', async () => {
    const r = await f.md('pg_untrack_tables', { tables: [{ table: 'profiles' }, { table: 'never_tracked' }, { table: 'article_status', cascade: true }] });
    expect(r.status).toBe(200);
    expect(r.body.warnings).toEqual([{ message: expect.any(String), type: 'table', name: 'never_tracked in source default', code: 'untrack-table-failed' }]);
    expect(await tracked()).toEqual(['articles', 'authors', 'shop.orders']);
  });
});
