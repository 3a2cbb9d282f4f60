/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Upserts under permissions: the row an `on_conflict` updates is governed by
 * the role's update permission (its filter, its `set` presets and its
 * `check`), while a row it inserts is governed by the insert permission.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPermissionFixture, type PermissionFixture } from '../../support/permission-schema.ts';

let f: PermissionFixture;
const me = { owner_id: { _eq: 'X-Engine-User-Id' } };
const ann = { 'x-engine-user-id': '1' };

beforeAll(async () => {
  f = await startPermissionFixture();
  await f.setPermissions({
    docs: {
      select: [{ role: 'author', permission: { columns: '*', filter: me } }],
      insert: [{ role: 'author', permission: { check: me, columns: ['id', 'title', 'body', 'owner_id', 'score'] } }],
      update: [
        { role: 'author', permission: { columns: ['title', 'score'], filter: me, check: { score: { _lte: 10 } }, set: { approved_by: 'X-Engine-User-Id' } } },
      ],
    },
    // No update permission: v2 still offers on_conflict, with nothing to update (do nothing on conflict).
    flags: {
      select: [{ role: 'inserter', permission: { columns: '*', filter: {} } }],
      insert: [{ role: 'inserter', permission: { check: {}, columns: '*' } }],
    },
  });
});
afterAll(async () => {
  await f?.close();
});

const row = async (id: number): Promise<any> => (await f.db.sql('SELECT title, score, approved_by, owner_id FROM docs WHERE id = $1', [id])).rows[0];

describe('upsert under permissions', () => {
  it('applies the update presets to the row it updates', async () => {
    await f.db.sql('UPDATE docs SET approved_by = NULL WHERE id = 2');
    const r = await f.as(
      'author',
      'mutation { insert_docs_one(object: {id: 2, title: "beta v2", owner_id: 1, score: 4}, on_conflict: {constraint: docs_pkey, update_columns: [title, score]}) { id title approved_by } }',
      ann,
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_docs_one).toEqual({ id: 2, title: 'beta v2', approved_by: 1 });
  });

  it('refuses an update that breaks the update check, and changes nothing', async () => {
    const before = await row(2);
    const r = await f.as(
      'author',
      'mutation { insert_docs_one(object: {id: 2, title: "too high", owner_id: 1, score: 50}, on_conflict: {constraint: docs_pkey, update_columns: [title, score]}) { id } }',
      ann,
    );
    expect(r.errors?.[0]?.extensions?.code).toBe('permission-error');
    expect(r.errors?.[0]?.message).toMatch(/update permission/);
    expect(await row(2)).toEqual(before);
  });

  it('applies only the insert check to a row it inserts', async () => {
    const r = await f.as(
      'author',
      'mutation { insert_docs_one(object: {id: 100, title: "new", owner_id: 1, score: 50}, on_conflict: {constraint: docs_pkey, update_columns: [score]}) { id score approved_by } }',
      ann,
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_docs_one).toEqual({ id: 100, score: 50, approved_by: null });
  });

  it('does not update a row outside the update filter', async () => {
    const before = await row(3);
    const r = await f.as(
      'author',
      'mutation { insert_docs(objects: [{id: 3, title: "stolen", owner_id: 1}], on_conflict: {constraint: docs_pkey, update_columns: [title]}) { affected_rows } }',
      ann,
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_docs.affected_rows).toBe(0);
    expect(await row(3)).toEqual(before);
  });

  it('still refuses an inserted row that breaks the insert check', async () => {
    const r = await f.as(
      'author',
      'mutation { insert_docs_one(object: {id: 101, title: "not mine", owner_id: 2}, on_conflict: {constraint: docs_pkey, update_columns: [title]}) { id } }',
      ann,
    );
    expect(r.errors?.[0]?.extensions?.code).toBe('permission-error');
    expect(await row(101)).toBeUndefined();
  });
});

describe('upsert with an insert permission and no update permission (v2: do nothing on conflict)', () => {
  it('offers on_conflict whose update_columns can only be empty', async () => {
    const r = await f.as(
      'inserter',
      `{ oc: __type(name: "flags_on_conflict") { inputFields { name } }
      uc: __type(name: "flags_update_column") { enumValues { name } }
      m: __type(name: "mutation_root") { fields { name args { name } } } }`,
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.oc.inputFields.map((x: any) => x.name)).toEqual(['constraint', 'update_columns', 'where']);
    expect(r.data.uc.enumValues.map((x: any) => x.name)).toEqual(['_PLACEHOLDER']);
    const insert = r.data.m.fields.find((x: any) => x.name === 'insert_flags');
    expect(insert.args.map((a: any) => a.name)).toEqual(['objects', 'on_conflict']);
    expect(r.data.m.fields.some((x: any) => x.name === 'update_flags')).toBe(false);
  });

  it('inserts new rows and leaves conflicting rows untouched', async () => {
    await f.db.sql("INSERT INTO flags (name, enabled) VALUES ('kept', false)");
    const r = await f.as(
      'inserter',
      `mutation { insert_flags(objects: [{name: "kept", enabled: true}, {name: "new", enabled: true}],
        on_conflict: {constraint: flags_pkey, update_columns: []}) { affected_rows returning { name enabled } } }`,
    );
    expect(r).toEqual({ data: { insert_flags: { affected_rows: 1, returning: [{ name: 'new', enabled: true }] } } });
    const rows = (await f.db.sql("SELECT name, enabled FROM flags WHERE name IN ('kept', 'new') ORDER BY name")).rows;
    expect(rows).toEqual([
      { name: 'kept', enabled: false },
      { name: 'new', enabled: true },
    ]);
    const one = await f.as('inserter', 'mutation { insert_flags_one(object: {name: "kept", enabled: true}, on_conflict: {constraint: flags_pkey}) { name } }');
    expect(one).toEqual({ data: { insert_flags_one: null } });
  });

  it('refuses a column in update_columns, as the enum has none', async () => {
    const r = await f.as(
      'inserter',
      'mutation { insert_flags(objects: [{name: "x", enabled: true}], on_conflict: {constraint: flags_pkey, update_columns: [enabled]}) { affected_rows } }',
    );
    expect(r.errors?.[0]?.extensions?.code).toBe('validation-failed');
    expect((await f.db.sql("SELECT count(*)::int AS n FROM flags WHERE name = 'x'")).rows[0].n).toBe(0);
  });
});
