/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * v2's `bulk_keep_going` (every call runs; what succeeded is kept and stored
 * once, each failure answered in its place: Note [Bulk that keeps going] in
 * metadata/operations/manage/bulk.ts) and `bulk_atomic` (all or nothing, one
 * success).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';

describe('bulk_keep_going and bulk_atomic', () => {
  let f: MetadataFixture;
  beforeAll(async () => {
    f = await startFixture();
  });
  afterAll(async () => {
    await f.close();
  });

  const tables = async (): Promise<string[]> => ((await f.exported()).sources[0]?.tables ?? []).map((t: any) => t.table.name).sort();

  it('keeps going past failures, keeps what succeeded and answers each call in its place', async () => {
    const version = (await f.md('export_metadata', {}, { version: 2 })).body.resource_version as number;
    const r = await f.md('bulk_keep_going', [
      { type: 'pg_track_table', args: { table: 'authors' } },
      { type: 'pg_track_table', args: { table: 42 } },
      { type: 'pg_track_table', args: { table: 'authors' } },
      { type: 'pg_track_table', args: { table: 'articles' } },
      { type: 'pg_create_object_relationship', args: { table: 'articles', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      { type: 'pg_create_object_relationship', args: { table: 'articles', name: 'bad', using: { foreign_key_constraint_on: 'no_such_column' } } },
      { type: 'no_such_operation', args: {} },
      { type: 'export_metadata', args: {} },
    ]);
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(8);
    expect(r.body[0]).toEqual({ message: 'success' });
    // Paths are within the call, as v2 answers them.
    expect(r.body[1]).toMatchObject({ code: 'parse-failed', path: '$.args.table' });
    expect(r.body[2]).toMatchObject({ code: 'already-tracked', path: '$.args' });
    expect(r.body[3]).toEqual({ message: 'success' });
    expect(r.body[4]).toEqual({ message: 'success' });
    expect(r.body[5]).toMatchObject({ path: '$.args' });
    expect(typeof r.body[5].error).toBe('string');
    expect(r.body[6]).toMatchObject({ code: 'parse-failed', path: '$.type' });
    // A later call sees what the earlier ones stored.
    expect(r.body[7].sources[0].tables.map((t: any) => t.table.name).sort()).toEqual(['articles', 'authors']);

    expect(await tables()).toEqual(['articles', 'authors']);
    // Stored once, as v2 does.
    expect((await f.md('export_metadata', {}, { version: 2 })).body.resource_version).toBe(version + 1);
    const articles = (await f.exported()).sources[0].tables.find((t: any) => t.table.name === 'articles');
    expect(articles.object_relationships.map((rel: any) => rel.name)).toEqual(['author']);
    const q = await f.engine.graphql('{ articles(limit: 1) { author { name } } }');
    expect(q.body).not.toHaveProperty('errors');
  });

  it('refuses a list that is not one of calls, and a stale resource_version, before running any', async () => {
    const before = await f.md('export_metadata', {}, { version: 2 });
    const notList = await f.md('bulk_keep_going', { type: 'pg_track_table' });
    expect(notList.status).toBe(400);
    expect(notList.body).toMatchObject({ code: 'parse-failed', path: '$.args' });
    const badItem = await f.md('bulk_keep_going', [{ type: 'pg_track_table', args: { table: 'profiles' } }, 5]);
    expect(badItem.status).toBe(400);
    expect(badItem.body).toMatchObject({ code: 'parse-failed', path: '$.args[1]' });
    const stale = await f.md('bulk_keep_going', [{ type: 'pg_track_table', args: { table: 'profiles' } }], {
      resource_version: before.body.resource_version - 1,
    });
    expect(stale.status).toBe(409);
    expect(await f.md('export_metadata', {}, { version: 2 })).toMatchObject({ body: before.body });
    // Not a call of the legacy API, as in v2.
    expect((await f.q1('bulk_keep_going', [])).status).toBe(400);
  });

  it('bulk_atomic applies every call or none, and answers one success', async () => {
    // A drop and a re-add of the same relationship, with another definition: an edit in one go.
    const edit = await f.md('bulk_atomic', [
      { type: 'pg_drop_relationship', args: { table: 'articles', relationship: 'author' } },
      {
        type: 'pg_create_object_relationship',
        args: {
          table: 'articles',
          name: 'author',
          using: { manual_configuration: { remote_table: 'authors', column_mapping: { author_id: 'id' } } },
        },
      },
    ]);
    expect(edit.status).toBe(200);
    expect(edit.body).toEqual({ message: 'success' });
    const articles = (await f.exported()).sources[0].tables.find((t: any) => t.table.name === 'articles');
    expect(articles.object_relationships).toHaveLength(1);
    expect(articles.object_relationships[0]).toMatchObject({ name: 'author', using: { manual_configuration: { column_mapping: { author_id: 'id' } } } });

    const before = await f.exported();
    const failed = await f.md('bulk_atomic', [
      { type: 'pg_track_table', args: { table: 'profiles' } },
      { type: 'pg_drop_relationship', args: { table: 'articles', relationship: 'no_such_relationship' } },
    ]);
    expect(failed.status).toBe(400);
    expect(failed.body).toMatchObject({ path: '$.args[1].args.relationship' });
    expect(await f.exported()).toEqual(before);
  });
});
