/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Inherited roles over HTTP: the union of the parents' rows; per row only the
 * cells some parent admitting that row may read (others null, and not usable
 * to filter or sort); aggregations if any parent allows; nesting; an own
 * permission of the inherited role wins; mutations only when parents agree.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPermissionFixture, type PermissionFixture } from '../../support/permission-schema.ts';

let f: PermissionFixture;
beforeAll(async () => {
  f = await startPermissionFixture();
  await f.setPermissions(
    {
      docs: {
        select: [
          { role: 'ra', permission: { columns: ['id', 'title', 'owner_id'], filter: { owner_id: { _eq: 'x-engine-user-id' } }, limit: 1 } },
          { role: 'rb', permission: { columns: ['id', 'title', 'body', 'score'], filter: { status: 'published' }, allow_aggregations: true, limit: 10 } },
          { role: 'rc', permission: { columns: ['id', 'status'], filter: { owner_id: 3 } } },
        ],
        delete: [
          { role: 'ra', permission: { filter: { owner_id: 1 } } },
          { role: 'rb', permission: { filter: { owner_id: 1 } } },
        ],
        update: [
          { role: 'ra', permission: { columns: ['title'], filter: { owner_id: 1 } } },
          { role: 'rb', permission: { columns: ['body'], filter: {} } },
        ],
      },
      users: {
        select: [
          { role: 'ra', permission: { columns: ['id', 'name'], filter: {} } },
          { role: 'own', permission: { columns: ['id'], filter: { id: 1 } } },
        ],
      },
    },
    [
      { role_name: 'ab', role_set: ['ra', 'rb'] },
      { role_name: 'abc', role_set: ['ab', 'rc'] },
      { role_name: 'own', role_set: ['ra'] },
    ],
  );
});
afterAll(async () => {
  await f?.close();
});

const user1 = { 'x-engine-user-id': '1' };
const DOCS = '{ docs(order_by: {id: asc}) { id title owner_id body score } }';

describe('inherited select', () => {
  it('union of rows; each cell only where a parent granting it admits the row', async () => {
    const r = await f.as('ab', DOCS, user1);
    expect(r.errors).toBeUndefined();
    expect(r.data.docs).toEqual([
      { id: 1, title: 'Alpha', owner_id: 1, body: 'a body', score: 9 },
      { id: 2, title: 'beta', owner_id: 1, body: null, score: null },
      { id: 3, title: 'Gamma', owner_id: null, body: null, score: 5 },
      { id: 5, title: 'Epsilon', owner_id: null, body: 'e body', score: 7 },
    ]);
  });

  it('a redacted non-null column is nullable in the inherited role schema', async () => {
    const t = (await f.as('abc', '{ __type(name: "docs") { fields { name type { kind } } } }', user1)).data.__type.fields;
    const kind = (n: string): string => t.find((x: any) => x.name === n).type.kind;
    // id is granted by every parent: stays non-null; title is not granted by rc.
    expect(kind('id')).toBe('NON_NULL');
    expect(kind('title')).toBe('SCALAR');
  });

  it('nested inherited roles: abc = ab ∪ rc', async () => {
    const r = await f.as('abc', '{ docs(order_by: {id: asc}) { id title status score } }', user1);
    expect(r.errors).toBeUndefined();
    expect(r.data.docs).toEqual([
      { id: 1, title: 'Alpha', status: null, score: 9 },
      { id: 2, title: 'beta', status: null, score: null },
      { id: 3, title: 'Gamma', status: null, score: 5 },
      { id: 4, title: null, status: 'archived', score: null },
      { id: 5, title: 'Epsilon', status: 'published', score: 7 },
    ]);
  });

  it('hidden cells cannot be used to filter or sort', async () => {
    // Row 2's body is hidden (only ra admits it, and ra does not grant body).
    const w = await f.as('ab', '{ docs(where: {body: {_eq: "b body"}}) { id } }', user1);
    expect(w.data.docs).toEqual([]);
    // Row 3's owner_id is hidden (rb admits it but does not grant owner_id): filtering through `owner` must not match it.
    const rel = await f.as('ab', '{ docs(where: {owner: {name: {_eq: "Bob"}}}) { id } }', user1);
    expect(rel.errors).toBeUndefined();
    expect(rel.data.docs).toEqual([]);
    const n = await f.as('ab', '{ docs(where: {score: {_is_null: false}}, order_by: {id: asc}) { id } }', user1);
    expect(n.data.docs).toEqual([{ id: 1 }, { id: 3 }, { id: 5 }]);
    // Sorting by score: hidden scores sort as nulls (last), not by their real value.
    const s = await f.as('ab', '{ docs(order_by: [{score: asc_nulls_last}, {id: asc}]) { id } }', user1);
    expect(s.data.docs.map((d: any) => d.id)).toEqual([3, 5, 1, 2]);
    // distinct_on a hidden cell groups it with the other nulls.
    const d = await f.as('ab', '{ docs(distinct_on: body, order_by: [{body: asc}, {id: asc}]) { id body } }', user1);
    expect(d.errors).toBeUndefined();
    expect(d.data.docs).toEqual([
      { id: 1, body: 'a body' },
      { id: 5, body: 'e body' },
      { id: 2, body: null },
    ]);
  });

  it('order_by through an object relationship reads the hidden join column as null (issue 12.6)', async () => {
    // Rows 3 and 5 are admitted only by rb, which does not grant owner_id: owner_id and owner read as null,
    // so sorting by the owner's name must sort them as nulls too, not by the hidden owner (Bob, Cid).
    const q = '{ docs(order_by: [{owner: {name: desc}}, {id: asc}]) { id owner_id owner { name } } }';
    const r = await f.as('ab', q, user1);
    expect(r.errors).toBeUndefined();
    expect(r.data.docs).toEqual([
      { id: 3, owner_id: null, owner: null },
      { id: 5, owner_id: null, owner: null },
      { id: 1, owner_id: 1, owner: { name: 'Ann' } },
      { id: 2, owner_id: 1, owner: { name: 'Ann' } },
    ]);
    // The hidden owners' ids do not order rows 3 and 5 either (ascending by owner id, they would be 3, 5).
    const asc = await f.as('ab', '{ docs(order_by: [{owner: {id: asc_nulls_first}}, {id: desc}]) { id } }', user1);
    expect(asc.data.docs.map((d: any) => d.id)).toEqual([5, 3, 2, 1]);
  });

  it('array relationships, their aggregates and filters do not join through a hidden remote column', async () => {
    // users → docs joins on docs.owner_id, hidden in rows 3 and 5: those docs belong to no user the role can see.
    const r = await f.as('ab', '{ users(order_by: {id: asc}) { id docs(order_by: {id: asc}) { id } docs_aggregate { aggregate { count } } } }', user1);
    expect(r.errors).toBeUndefined();
    expect(r.data.users).toEqual([
      { id: 1, docs: [{ id: 1 }, { id: 2 }], docs_aggregate: { aggregate: { count: 2 } } },
      { id: 2, docs: [], docs_aggregate: { aggregate: { count: 0 } } },
      { id: 3, docs: [], docs_aggregate: { aggregate: { count: 0 } } },
    ]);
    const w = await f.as('ab', '{ users(where: {docs: {id: {_in: [3, 5]}}}) { id } }', user1);
    expect(w.errors).toBeUndefined();
    expect(w.data.users).toEqual([]);
    const o = await f.as('ab', '{ users(order_by: [{docs_aggregate: {count: asc}}, {id: desc}]) { id } }', user1);
    expect(o.data.users.map((u: any) => u.id)).toEqual([3, 2, 1]);
    const m = await f.as('ab', '{ users(order_by: [{docs_aggregate: {max: {score: desc_nulls_last}}}, {id: asc}]) { id } }', user1);
    // Ann's docs are 1 (score 9, visible) and 2 (score hidden): Ann first, then the users with none.
    expect(m.data.users.map((u: any) => u.id)).toEqual([1, 2, 3]);
  });

  it('limit is the largest of the parents; aggregations when some parent allows them', async () => {
    expect((await f.as('ra', '{ docs { id } }', user1)).data.docs).toHaveLength(1);
    const agg = await f.as('ab', '{ docs_aggregate { aggregate { count sum { score } } } }', user1);
    expect(agg.errors).toBeUndefined();
    // ab's limit is 10 (the larger of 1 and 10); the hidden score of row 2 does not count in the sum.
    expect(agg.data.docs_aggregate.aggregate).toEqual({ count: 4, sum: { score: 21 } });
    expect((await f.as('ab', '{ docs { id } }', user1)).data.docs).toHaveLength(4);
    expect((await f.as('ra', '{ docs_aggregate { aggregate { count } } }', user1)).errors[0].extensions.code).toBe('validation-failed');
  });

  it('tables only one parent reads are readable as that parent reads them', async () => {
    const r = await f.as('ab', '{ users(order_by: {id: asc}) { id name } }', user1);
    expect(r.data.users).toEqual([
      { id: 1, name: 'Ann' },
      { id: 2, name: 'Bob' },
      { id: 3, name: 'Cid' },
    ]);
  });

  it("the inherited role's own permission wins over the derived one", async () => {
    const r = await f.as('own', '{ users { id } }', user1);
    expect(r.data.users).toEqual([{ id: 1 }]);
    expect((await f.as('own', '{ users { name } }', user1)).errors[0].extensions.code).toBe('validation-failed');
  });
});

describe('inherited mutations', () => {
  it('a kind every parent defines the same way is inherited; differing ones are not', async () => {
    const fields = (await f.as('ab', '{ __schema { mutationType { fields { name } } } }', user1)).data.__schema.mutationType.fields.map((x: any) => x.name);
    expect(fields).toContain('delete_docs');
    expect(fields).not.toContain('update_docs');
    const d = await f.as('ab', 'mutation { delete_docs(where: {id: {_eq: 4}}) { affected_rows } }', user1);
    expect(d.data.delete_docs.affected_rows).toBe(0);
  });
});

describe('inherited function permissions', () => {
  it('an inherited role may call a function some parent may call', async () => {
    const g = await startPermissionFixture(
      "CREATE FUNCTION published_docs() RETURNS SETOF docs AS $$ SELECT * FROM docs WHERE status = 'published' $$ LANGUAGE sql STABLE;",
      { inferFunctionPermissions: false },
    );
    try {
      await g.setPermissions(
        {
          docs: {
            select: [
              { role: 'ra', permission: { columns: ['id'], filter: {} } },
              { role: 'rb', permission: { columns: ['id'], filter: {} } },
            ],
          },
        },
        [{ role_name: 'ab', role_set: ['ra', 'rb'] }],
      );
      expect((await g.md('pg_track_function', { function: 'published_docs' })).status).toBe(200);
      const p = await g.md('pg_create_function_permission', { function: 'published_docs', role: 'rb' });
      expect(p.status, p.text).toBe(200);
      const q = '{ published_docs(order_by: {id: asc}) { id } }';
      expect((await g.as('ra', q)).errors[0].extensions.code).toBe('validation-failed');
      expect((await g.as('rb', q)).data.published_docs).toEqual([{ id: 1 }, { id: 3 }, { id: 5 }]);
      expect((await g.as('ab', q)).data.published_docs).toEqual([{ id: 1 }, { id: 3 }, { id: 5 }]);
    } finally {
      await g.close();
    }
  });
});
