/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Insert, update and delete permissions over HTTP: insert `check` on the new
 * rows inside the statement (failure = permission-error, nothing written),
 * `set` presets from static values or session variables the client cannot
 * override, `columns`; nested inserts checked per table; update `columns`,
 * `filter`, `check` on the new row, `set`; delete `filter`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPermissionFixture, type PermissionFixture } from '../../support/permission-schema.ts';

let f: PermissionFixture;
beforeAll(async () => {
  f = await startPermissionFixture('ALTER TABLE docs ADD COLUMN edited_at timestamptz;');
  const me = { owner_id: { _eq: 'X-Engine-User-Id' } };
  await f.setPermissions({
    docs: {
      select: [
        { role: 'author', permission: { columns: '*', filter: me } },
        { role: 'manager', permission: { columns: '*', filter: {} } },
      ],
      insert: [
        {
          role: 'author',
          permission: {
            check: { $and: [me, { owner: { org_id: { _eq: 'x-engine-org-id' } } }] },
            set: { status: 'draft', created_by: 'x-engine-user-id' },
            columns: ['title', 'body', 'owner_id', 'score'],
          },
        },
        { role: 'manager', permission: { check: { score: { _lt: 10 } }, columns: '*' } },
      ],
      update: [
        {
          role: 'author',
          permission: { columns: ['title', 'score'], filter: me, check: { score: { _lte: 10 } }, set: { approved_by: 'X-Engine-User-Id', edited_at: 'now()' } },
        },
      ],
      delete: [{ role: 'author', permission: { filter: { $and: [me, { status: 'draft' }] } } }],
    },
    users: {
      select: [{ role: 'manager', permission: { columns: '*', filter: {} } }],
      insert: [{ role: 'manager', permission: { check: { org_id: { _eq: 'x-engine-org-id' } }, columns: '*' } }],
    },
  });
});
afterAll(async () => {
  await f?.close();
});

const ann = { 'x-engine-user-id': '1', 'x-engine-org-id': '1' };
const count = async (table: string): Promise<number> => (await f.db.sql(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n;

describe('insert', () => {
  it('presets are applied from static values and session variables', async () => {
    const r = await f.as('author', 'mutation { insert_docs_one(object: {title: "Mine", owner_id: 1, score: 2}) { title status created_by owner_id } }', ann);
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_docs_one).toEqual({ title: 'Mine', status: 'draft', created_by: 1, owner_id: 1 });
  });

  it('preset and unlisted columns are not in the input type, so the client cannot override them', async () => {
    const fields = (await f.as('author', '{ __type(name: "docs_insert_input") { inputFields { name } } }', ann)).data.__type.inputFields.map(
      (x: any) => x.name,
    );
    expect(fields.sort()).toEqual(['body', 'owner', 'owner_id', 'score', 'title'].filter((n) => n !== 'owner').sort());
    const r = await f.as('author', 'mutation { insert_docs_one(object: {title: "X", owner_id: 1, status: "published"}) { id } }', ann);
    expect(r.errors[0].extensions.code).toBe('validation-failed');
  });

  it('a failing check is a permission-error and writes nothing, even for one bad row among good ones', async () => {
    const before = await count('docs');
    const bad = await f.as(
      'author',
      'mutation { insert_docs(objects: [{title: "ok", owner_id: 1}, {title: "not mine", owner_id: 2}]) { affected_rows } }',
      ann,
    );
    expect(bad.errors[0].extensions.code).toBe('permission-error');
    expect(bad.data ?? null).toBeNull();
    expect(await count('docs')).toBe(before);
    // The check goes through a relationship too: user 3 is in org 2, not the session's org 1.
    const rel = await f.as('author', 'mutation { insert_docs_one(object: {title: "x", owner_id: 3}) { id } }', {
      'x-engine-user-id': '3',
      'x-engine-org-id': '1',
    });
    expect(rel.errors[0].extensions.code).toBe('permission-error');
    expect(await count('docs')).toBe(before);
  });

  it('nested inserts check each table with its own rule', async () => {
    const before = [await count('users'), await count('docs')];
    const q = (score: number, org: number): string =>
      `mutation { insert_users_one(object: {id: ${100 + score}, name: "N", org_id: ${org}, docs: {data: [{title: "d", score: ${score}}]}}) { id docs { score } } }`;
    const ok = await f.as('manager', q(5, 1), ann);
    expect(ok.errors).toBeUndefined();
    expect(ok.data.insert_users_one).toEqual({ id: 105, docs: [{ score: 5 }] });
    const badChild = await f.as('manager', q(50, 1), ann);
    expect(badChild.errors[0].extensions.code).toBe('permission-error');
    const badParent = await f.as('manager', q(6, 2), ann);
    expect(badParent.errors[0].extensions.code).toBe('permission-error');
    expect([await count('users'), await count('docs')]).toEqual([before[0]! + 1, before[1]! + 1]);
  });

  it('a role without insert permission has no insert field', async () => {
    const fields = (await f.as('author', '{ __schema { mutationType { fields { name } } } }', ann)).data.__schema.mutationType.fields.map((x: any) => x.name);
    expect(fields).toContain('insert_docs');
    expect(fields).not.toContain('insert_users');
    expect(fields).not.toContain('delete_users');
  });
});

describe('update', () => {
  it('filter limits the rows; set presets the session value; only listed columns are settable', async () => {
    const r = await f.as(
      'author',
      'mutation { update_docs(where: {}, _set: {title: "Edited"}) { affected_rows returning { id approved_by edited_at } } }',
      ann,
    );
    expect(r.errors).toBeUndefined();
    // "now()" presets the current time.
    for (const row of r.data.update_docs.returning) expect(Math.abs(Date.parse(row.edited_at) - Date.now())).toBeLessThan(60_000);
    const ids = (await f.db.sql('SELECT id FROM docs WHERE owner_id = 1 ORDER BY id')).rows.map((x: any) => x.id);
    expect(r.data.update_docs.affected_rows).toBe(ids.length);
    expect(r.data.update_docs.returning.every((x: any) => x.approved_by === 1)).toBe(true);
    expect((await f.db.sql("SELECT count(*)::int AS n FROM docs WHERE title = 'Edited' AND owner_id <> 1")).rows[0].n).toBe(0);
    const body = await f.as('author', 'mutation { update_docs(where: {}, _set: {body: "x"}) { affected_rows } }', ann);
    expect(body.errors[0].extensions.code).toBe('validation-failed');
    const other = await f.as('author', 'mutation { update_docs_by_pk(pk_columns: {id: 3}, _set: {title: "Hijack"}) { id } }', ann);
    expect(other.data.update_docs_by_pk).toBeNull();
    expect((await f.db.sql('SELECT title FROM docs WHERE id = 3')).rows[0].title).toBe('Gamma');
  });

  it('check is evaluated on the new row: failure is a permission-error and nothing changes', async () => {
    const before = (await f.db.sql('SELECT id, score FROM docs ORDER BY id')).rows;
    const r = await f.as('author', 'mutation { update_docs(where: {}, _inc: {score: 5}) { affected_rows } }', ann);
    // Doc 1 has score 9: 14 breaks the check, so no row changes.
    expect(r.errors[0].extensions.code).toBe('permission-error');
    expect((await f.db.sql('SELECT id, score FROM docs ORDER BY id')).rows).toEqual(before);
    const ok = await f.as('author', 'mutation { update_docs_by_pk(pk_columns: {id: 2}, _set: {score: 10}) { score } }', ann);
    expect(ok.data.update_docs_by_pk).toEqual({ score: 10 });
  });
});

describe('delete', () => {
  it('filter limits which rows go', async () => {
    const r = await f.as('author', 'mutation { delete_docs(where: {}) { affected_rows returning { id status owner_id } } }', ann);
    expect(r.errors).toBeUndefined();
    expect(r.data.delete_docs.returning.every((x: any) => x.status === 'draft' && x.owner_id === 1)).toBe(true);
    expect((await f.db.sql("SELECT count(*)::int AS n FROM docs WHERE owner_id = 1 AND status = 'draft'")).rows[0].n).toBe(0);
    expect((await f.db.sql("SELECT count(*)::int AS n FROM docs WHERE status = 'published' AND owner_id = 1")).rows[0].n).toBe(1);
    const pk = await f.as('author', 'mutation { delete_docs_by_pk(id: 3) { id } }', ann);
    expect(pk.data.delete_docs_by_pk).toBeNull();
    expect((await f.db.sql('SELECT count(*)::int AS n FROM docs WHERE id = 3')).rows[0].n).toBe(1);
  });
});

describe('backend_only', () => {
  it('a backend_only mutation permission is validated but grants nothing to client sessions', async () => {
    const bad = await f.md('pg_create_insert_permission', { table: 'flags', role: 'author', permission: { check: {}, columns: ['nope'], backend_only: true } });
    expect(bad.body.code).toBe('invalid-configuration');
    const ok = await f.md('pg_create_insert_permission', { table: 'flags', role: 'author', permission: { check: {}, columns: '*', backend_only: true } });
    expect(ok.status, ok.text).toBe(200);
    const fields = (await f.as('author', '{ __schema { mutationType { fields { name } } } }', ann)).data.__schema.mutationType.fields.map((x: any) => x.name);
    expect(fields).not.toContain('insert_flags');
  });
});
