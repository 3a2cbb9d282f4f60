/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Permission and inherited-role metadata operations over HTTP: create, drop,
 * comment, legacy names, refusals with path and code (nothing stored),
 * dependency reports and cascade, inconsistency after a database change.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';

let f: MetadataFixture;
beforeAll(async () => {
  f = await startFixture();
  const r = await f.md('bulk', [
    { type: 'pg_track_table', args: { table: 'authors' } },
    { type: 'pg_track_table', args: { table: 'articles' } },
    { type: 'pg_track_table', args: { table: { schema: 'shop', name: 'orders' } } },
    { type: 'pg_create_object_relationship', args: { table: 'articles', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
  ]);
  if (r.status !== 200) throw new Error(r.text);
});
afterAll(async () => {
  await f?.close();
});

const tableOf = (doc: any, name: string): any => doc.sources[0].tables.find((t: any) => t.table.name === name);

describe('create, comment and drop', () => {
  it('pg_create_*_permission stores each kind; export shows them; duplicates are refused', async () => {
    const calls = [
      ['pg_create_select_permission', { columns: ['id', 'title'], filter: { author_id: { _eq: 'X-Engine-User-Id' } }, limit: 5, allow_aggregations: true }],
      ['pg_create_insert_permission', { check: { author_id: 'x-engine-user-id' }, set: { status: 'draft' }, columns: ['title', 'author_id'] }],
      ['pg_create_update_permission', { columns: ['title'], filter: { author_id: 'x-engine-user-id' }, check: { title: { _neq: '' } } }],
      ['pg_create_delete_permission', { filter: { author_id: 'x-engine-user-id' } }],
    ] as const;
    for (const [type, permission] of calls) {
      const r = await f.md(type, { table: 'articles', role: 'user', permission, comment: `${type} comment` });
      expect(r.status, r.text).toBe(200);
      expect(r.body).toEqual({ message: 'success' });
    }
    const t = tableOf(await f.exported(), 'articles');
    expect(t.select_permissions).toEqual([{ role: 'user', permission: calls[0][1], comment: 'pg_create_select_permission comment' }]);
    expect(t.insert_permissions[0].permission).toEqual(calls[1][1]);
    expect(t.update_permissions[0].permission).toEqual(calls[2][1]);
    expect(t.delete_permissions[0].permission).toEqual(calls[3][1]);
    const dup = await f.md('pg_create_select_permission', { table: 'articles', role: 'user', permission: { columns: '*' } });
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({ code: 'already-exists', path: '$.args' });
  });

  it('pg_set_permission_comment sets and removes a comment', async () => {
    expect((await f.md('pg_set_permission_comment', { table: 'articles', role: 'user', type: 'update', comment: 'edits' })).status).toBe(200);
    expect(tableOf(await f.exported(), 'articles').update_permissions[0].comment).toBe('edits');
    expect((await f.md('pg_set_permission_comment', { table: 'articles', role: 'user', type: 'update', comment: null })).status).toBe(200);
    expect(tableOf(await f.exported(), 'articles').update_permissions[0].comment).toBeUndefined();
    const missing = await f.md('pg_set_permission_comment', { table: 'articles', role: 'ghost', type: 'select', comment: 'x' });
    expect(missing.body).toMatchObject({ code: 'not-exists', path: '$.args.role' });
  });

  it('pg_drop_*_permission removes each kind; dropping a missing one is not-exists', async () => {
    for (const kind of ['insert', 'update', 'delete']) {
      const r = await f.md(`pg_drop_${kind}_permission`, { table: 'articles', role: 'user' });
      expect(r.status, r.text).toBe(200);
    }
    const t = tableOf(await f.exported(), 'articles');
    expect(t.insert_permissions).toBeUndefined();
    expect(t.update_permissions).toBeUndefined();
    expect(t.delete_permissions).toBeUndefined();
    expect(t.select_permissions).toHaveLength(1);
    const again = await f.md('pg_drop_delete_permission', { table: 'articles', role: 'user' });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: 'not-exists', path: '$.args.role' });
    const noTable = await f.md('pg_drop_select_permission', { table: 'nope', role: 'user' });
    expect(noTable.body).toMatchObject({ code: 'not-exists', path: '$.args.table' });
  });

  it('legacy /v1/query names work with the same args, without source', async () => {
    const c = await f.q1('create_select_permission', { table: { schema: 'shop', name: 'orders' }, role: 'clerk', permission: { columns: '*', filter: {} } });
    expect(c.status, c.text).toBe(200);
    expect((await f.q1('create_insert_permission', { table: 'authors', role: 'clerk', permission: { check: {}, columns: '*' } })).status).toBe(200);
    expect((await f.q1('create_update_permission', { table: 'authors', role: 'clerk', permission: { columns: ['name'], filter: {} } })).status).toBe(200);
    expect((await f.q1('create_delete_permission', { table: 'authors', role: 'clerk', permission: { filter: { id: { _gt: 100 } } } })).status).toBe(200);
    expect((await f.q1('set_permission_comment', { table: 'authors', role: 'clerk', type: 'delete', comment: 'rarely' })).status).toBe(200);
    const doc = await f.exported();
    expect(tableOf(doc, 'orders').select_permissions[0].role).toBe('clerk');
    expect(tableOf(doc, 'authors').delete_permissions[0]).toEqual({ role: 'clerk', permission: { filter: { id: { _gt: 100 } } }, comment: 'rarely' });
    for (const kind of ['select', 'insert', 'update', 'delete']) {
      const table = kind === 'select' ? { schema: 'shop', name: 'orders' } : 'authors';
      expect((await f.q1(`drop_${kind}_permission`, { table, role: 'clerk' })).status).toBe(200);
    }
    const after = await f.exported();
    expect(tableOf(after, 'orders').select_permissions).toBeUndefined();
    expect(tableOf(after, 'authors').delete_permissions).toBeUndefined();
  });
});

describe('bad input is refused with path and code, nothing stored', () => {
  const cases: Array<[string, string, Record<string, unknown>, string, string]> = [
    ['unknown column in columns', 'pg_create_select_permission', { columns: ['id', 'nope'] }, 'invalid-configuration', '"nope"'],
    [
      'unknown column in filter',
      'pg_create_select_permission',
      { columns: '*', filter: { nope: { _eq: 1 } } },
      'invalid-configuration',
      '"nope" is not a column or relationship',
    ],
    ['unknown column through a relationship', 'pg_create_delete_permission', { filter: { author: { nope: { _eq: 1 } } } }, 'invalid-configuration', '"nope"'],
    [
      'unknown operator',
      'pg_create_select_permission',
      { columns: '*', filter: { id: { _equals: 1 } } },
      'invalid-configuration',
      '"_equals" is not a known operator',
    ],
    [
      'json operator on a text column',
      'pg_create_select_permission',
      { columns: '*', filter: { title: { _has_key: 'a' } } },
      'invalid-configuration',
      'not defined for column "title"',
    ],
    [
      'unknown _exists table',
      'pg_create_select_permission',
      { columns: '*', filter: { _exists: { _table: 'nope', _where: {} } } },
      'invalid-configuration',
      'table "nope"',
    ],
    [
      'column comparison with an unknown column',
      'pg_create_select_permission',
      { columns: '*', filter: { author_id: { _ceq: 'nope' } } },
      'invalid-configuration',
      '"_ceq"',
    ],
    ['unknown column in set', 'pg_create_insert_permission', { check: {}, set: { nope: 1 } }, 'invalid-configuration', '"nope"'],
    ['unknown key in the permission', 'pg_create_select_permission', { columns: '*', filterz: {} }, 'parse-failed', ''],
  ];
  for (const [name, type, permission, code, message] of cases) {
    it(name, async () => {
      const before = await f.exported();
      const r = await f.md(type, { table: 'articles', role: 'other', permission });
      expect(r.status, r.text).toBe(400);
      expect(r.body.code).toBe(code);
      expect(r.body.path).toMatch(/^\$\.args/);
      expect(r.body.error).toContain(message);
      expect(await f.exported()).toEqual(before);
    });
  }

  it('a permission for admin is refused', async () => {
    const r = await f.md('pg_create_select_permission', { table: 'articles', role: 'admin', permission: { columns: '*' } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid-configuration', path: '$.args.role' });
  });

  it('inside a bulk the failing call is named by its path', async () => {
    const r = await f.md('bulk', [
      { type: 'pg_create_select_permission', args: { table: 'authors', role: 'b', permission: { columns: '*' } } },
      { type: 'pg_create_select_permission', args: { table: 'authors', role: 'c', permission: { columns: ['ghost'] } } },
    ]);
    expect(r.status).toBe(400);
    expect(r.body.path).toMatch(/^\$\.args\[1\]/);
    expect(tableOf(await f.exported(), 'authors').select_permissions).toBeUndefined();
  });
});

describe('dependencies', () => {
  it('dropping a relationship a permission uses: dependency-error, then cascade drops the permission', async () => {
    expect(
      (
        await f.md('pg_create_select_permission', {
          table: 'articles',
          role: 'dep',
          permission: { columns: '*', filter: { author: { name: { _eq: 'Ann' } } } },
        })
      ).status,
    ).toBe(200);
    const r = await f.md('pg_drop_relationship', { table: 'articles', relationship: 'author' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('dependency-error');
    expect(r.body.error).toContain('permission articles.dep.select');
    expect((await f.md('pg_drop_relationship', { table: 'articles', relationship: 'author', cascade: true })).status).toBe(200);
    const t = tableOf(await f.exported(), 'articles');
    expect(t.select_permissions.map((p: any) => p.role)).toEqual(['user']);
    expect((await f.md('pg_create_object_relationship', { table: 'articles', name: 'author', using: { foreign_key_constraint_on: 'author_id' } })).status).toBe(
      200,
    );
  });

  it('dropping a column a permission uses through run_sql: dependency-error unless cascade', async () => {
    expect((await f.md('pg_create_update_permission', { table: 'authors', role: 'dep', permission: { columns: ['name', 'bio'], filter: {} } })).status).toBe(
      200,
    );
    const r = await f.sql('ALTER TABLE authors DROP COLUMN bio');
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('dependency-error');
    expect(r.body.error).toContain('permission authors.dep.update');
    expect((await f.db.sql("SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'authors' AND column_name = 'bio'")).rows[0].n).toBe(
      1,
    );
    const c = await f.sql('ALTER TABLE authors DROP COLUMN bio', { cascade: true });
    expect(c.status, c.text).toBe(200);
    expect(tableOf(await f.exported(), 'authors').update_permissions).toBeUndefined();
  });

  it('untracking a table that an _exists uses: dependency-error unless cascade', async () => {
    const filter = { _exists: { _table: { schema: 'shop', name: 'orders' }, _where: { total: { _gt: 0 } } } };
    expect((await f.md('pg_create_select_permission', { table: 'authors', role: 'ex', permission: { columns: '*', filter } })).status).toBe(200);
    const r = await f.md('pg_untrack_table', { table: { schema: 'shop', name: 'orders' } });
    expect(r.body.code).toBe('dependency-error');
    expect(r.body.error).toContain('permission authors.ex.select');
    expect((await f.md('pg_untrack_table', { table: { schema: 'shop', name: 'orders' }, cascade: true })).status).toBe(200);
    expect(tableOf(await f.exported(), 'authors').select_permissions).toBeUndefined();
    expect((await f.md('pg_track_table', { table: { schema: 'shop', name: 'orders' } })).status).toBe(200);
  });

  it('a database change that breaks a permission makes it inconsistent (select_permission)', async () => {
    expect(
      (await f.md('pg_create_select_permission', { table: 'articles', role: 'brk', permission: { columns: ['id', 'editor_id'], filter: {} } })).status,
    ).toBe(200);
    await f.db.sql('ALTER TABLE articles DROP COLUMN editor_id');
    expect((await f.md('reload_metadata', {})).status).toBe(200);
    const inc = (await f.md('get_inconsistent_metadata')).body;
    expect(inc.is_consistent).toBe(false);
    const obj = inc.inconsistent_objects.find((o: any) => o.type === 'select_permission');
    expect(obj.definition).toMatchObject({ role: 'brk', table: { schema: 'public', name: 'articles' } });
    expect(obj.reason).toContain('editor_id');
    expect((await f.md('drop_inconsistent_metadata')).status).toBe(200);
    expect(tableOf(await f.exported(), 'articles').select_permissions.map((p: any) => p.role)).toEqual(['user']);
  });
});

describe('inherited roles', () => {
  it('add, export, refuse duplicates, unknown members and cycles, drop', async () => {
    expect((await f.md('pg_create_select_permission', { table: 'authors', role: 'r1', permission: { columns: ['id'] } })).status).toBe(200);
    expect((await f.md('pg_create_select_permission', { table: 'authors', role: 'r2', permission: { columns: ['name'] } })).status).toBe(200);
    const a = await f.md('add_inherited_role', { role_name: 'both', role_set: ['r1', 'r2'] });
    expect(a.status, a.text).toBe(200);
    expect((await f.exported()).inherited_roles).toEqual([{ role_name: 'both', role_set: ['r1', 'r2'] }]);
    expect((await f.md('add_inherited_role', { role_name: 'both', role_set: ['r1'] })).body).toMatchObject({
      code: 'already-exists',
      path: '$.args.role_name',
    });
    expect((await f.md('add_inherited_role', { role_name: 'x', role_set: ['r1', 'ghost'] })).body).toMatchObject({
      code: 'not-exists',
      path: '$.args.role_set[1]',
    });
    expect((await f.md('add_inherited_role', { role_name: 'x', role_set: [] })).body.code).toBe('parse-failed');
    expect((await f.md('add_inherited_role', { role_name: 'top', role_set: ['both', 'r1'] })).status).toBe(200);
    expect((await f.exported()).inherited_roles).toHaveLength(2);
    expect(f.engine.engine.metadata.catalogRef.current.roles).toEqual(expect.arrayContaining(['both', 'top', 'r1', 'r2']));
    expect((await f.md('drop_inherited_role', { role_name: 'top' })).status).toBe(200);
    expect((await f.md('drop_inherited_role', { role_name: 'top' })).body).toMatchObject({ code: 'not-exists', path: '$.args.role_name' });
  });

  it('a cycle through replace_metadata is inconsistent; add_inherited_role refuses it', async () => {
    const doc = await f.exported();
    doc.inherited_roles = [...doc.inherited_roles, { role_name: 'c1', role_set: ['c2'] }, { role_name: 'c2', role_set: ['c1'] }];
    const r = await f.md('replace_metadata', { allow_inconsistent_metadata: true, metadata: doc }, { version: 2 });
    expect(r.status, r.text).toBe(200);
    expect(r.body.inconsistent_objects.filter((o: any) => o.type === 'inherited_role').length).toBe(2);
    expect((await f.md('drop_inconsistent_metadata')).status).toBe(200);
    expect((await f.exported()).inherited_roles).toEqual([{ role_name: 'both', role_set: ['r1', 'r2'] }]);
    expect((await f.md('add_inherited_role', { role_name: 'r3', role_set: ['both'] })).status).toBe(200);
    // `both` cannot now inherit from r3 (r3 already inherits from both): drop and re-add both to try.
    expect((await f.md('drop_inherited_role', { role_name: 'both' })).status).toBe(200);
    const cyc = await f.md('add_inherited_role', { role_name: 'both', role_set: ['r1', 'r3'] });
    expect(cyc.status).toBe(400);
    expect(cyc.body).toMatchObject({ code: 'invalid-configuration', path: '$.args.role_set' });
  });
});
