/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Select permissions and per-role schemas over HTTP: columns (`*` or a list),
 * limit (also on nested array fields), allow_aggregations, relationships only
 * to readable tables, introspection per role, admin sees all, placeholder.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPermissionFixture, type PermissionFixture } from '../../support/permission-schema.ts';
import { startTestEngine } from '../../support/engine.ts';

let f: PermissionFixture;
beforeAll(async () => {
  f = await startPermissionFixture();
  await f.setPermissions({
    docs: {
      select: [
        { role: 'reader', permission: { columns: ['id', 'title', 'owner_id'], filter: { status: 'published' }, limit: 2 } },
        { role: 'all', permission: { columns: '*', filter: {}, allow_aggregations: true } },
      ],
    },
    users: {
      select: [
        { role: 'reader', permission: { columns: ['id', 'name'], filter: {} } },
        { role: 'all', permission: { columns: '*', filter: {}, limit: 1 } },
      ],
    },
    orgs: { select: [{ role: 'all', permission: { columns: ['id', 'name'], filter: {} } }] },
  });
});
afterAll(async () => {
  await f?.close();
});

const typeFields = async (role: string | undefined, type: string): Promise<string[] | null> => {
  const r = await f.as(role, `{ __type(name: "${type}") { fields { name } } }`);
  return r.data.__type === null ? null : r.data.__type.fields.map((x: any) => x.name);
};

describe('columns', () => {
  it('a column list hides the others from the type and from where/order_by', async () => {
    expect(await typeFields('reader', 'docs')).toEqual(['id', 'owner', 'owner_id', 'title']);
    const r = await f.as('reader', '{ docs { body } }');
    expect(r.errors[0].extensions.code).toBe('validation-failed');
    const w = await f.as('reader', '{ docs(where: {score: {_gt: 1}}) { id } }');
    expect(w.errors[0].extensions.code).toBe('validation-failed');
    const o = await f.as('reader', '{ docs(order_by: {score: asc}) { id } }');
    expect(o.errors[0].extensions.code).toBe('validation-failed');
  });

  it('"*" grants every column', async () => {
    expect(await typeFields('all', 'docs')).toEqual(
      expect.arrayContaining(['id', 'owner_id', 'title', 'body', 'status', 'score', 'meta', 'created_by', 'approved_by']),
    );
  });
});

describe('limit', () => {
  it('caps root fields, also below a larger client limit', async () => {
    const r = await f.as('reader', '{ a: docs(order_by: {id: asc}) { id } b: docs(limit: 10, order_by: {id: desc}) { id } c: docs(limit: 1) { id } }');
    expect(r.data.a).toEqual([{ id: 1 }, { id: 3 }]);
    expect(r.data.b).toEqual([{ id: 5 }, { id: 3 }]);
    expect(r.data.c).toHaveLength(1);
  });

  it('caps nested array relationship fields of the limited table', async () => {
    const r = await f.as('all', '{ orgs(order_by: {id: asc}) { id users(order_by: {id: asc}) { id docs(order_by: {id: asc}) { id } } } }');
    expect(r.errors).toBeUndefined();
    // users is capped at 1 for role "all", at the root and nested alike; docs is not capped.
    expect(r.data.orgs).toEqual([
      { id: 1, users: [{ id: 1, docs: [{ id: 1 }, { id: 2 }] }] },
      { id: 2, users: [{ id: 3, docs: [{ id: 4 }, { id: 5 }] }] },
    ]);
    expect((await f.as('all', '{ users { id } }')).data.users).toHaveLength(1);
  });
});

describe('aggregations', () => {
  it('no _aggregate fields without allow_aggregations, root or nested', async () => {
    const fields = (await f.as('reader', '{ __type(name: "query_root") { fields { name } } }')).data.__type.fields.map((x: any) => x.name);
    expect(fields).toEqual(expect.arrayContaining(['docs', 'docs_by_pk', 'users']));
    expect(fields).not.toContain('docs_aggregate');
    expect(await typeFields('all', 'users')).toContain('docs_aggregate');
    expect(await typeFields('reader', 'users')).not.toContain('docs_aggregate');
  });

  it('aggregates respect the filter', async () => {
    const r = await f.as('all', '{ docs_aggregate { aggregate { count max { score } } } }');
    expect(r.data.docs_aggregate.aggregate).toEqual({ count: 6, max: { score: 9 } });
  });
});

describe('relationships and schemas per role', () => {
  it('relationships appear only when the role may select the target', async () => {
    // reader cannot read orgs: users.org and orgs.users are absent; users.docs is there.
    expect(await typeFields('reader', 'users')).toEqual(['docs', 'id', 'name']);
    expect(await typeFields('reader', 'orgs')).toBeNull();
    expect(await typeFields('all', 'users')).toEqual(expect.arrayContaining(['org', 'docs', 'docs_aggregate']));
  });

  it('a relationship target is filtered by its own rule', async () => {
    const r = await f.as('reader', '{ users(order_by: {id: asc}) { id docs(order_by: {id: asc}) { id } } }');
    expect(r.data.users).toEqual([
      { id: 1, docs: [{ id: 1 }] },
      { id: 2, docs: [{ id: 3 }] },
      { id: 3, docs: [{ id: 5 }] },
    ]);
  });

  it('introspection shows only what the role may read; admin sees every table and column', async () => {
    const types = async (role: string | undefined): Promise<string[]> =>
      (await f.as(role, '{ __schema { types { name } } }')).data.__schema.types.map((t: any) => t.name);
    const reader = await types('reader');
    expect(reader).not.toContain('orgs');
    expect(reader).not.toContain('flags');
    expect(reader).toContain('docs');
    const admin = await types(undefined);
    expect(admin).toEqual(expect.arrayContaining(['orgs', 'flags', 'docs', 'users', 'docs_aggregate']));
    expect(await typeFields(undefined, 'orgs')).toEqual(expect.arrayContaining(['id', 'name', 'secret', 'users']));
    const a = await f.as(undefined, '{ docs(order_by: {id: asc}) { id } }');
    expect(a.data.docs).toHaveLength(6);
  });

  it('a role with no permission gets a placeholder query field, never an empty schema', async () => {
    const fields = (await f.as('nobody', '{ __schema { queryType { fields { name } } mutationType { name } } }')).data.__schema;
    expect(fields.queryType.fields.map((x: any) => x.name)).toEqual(['no_queries_available']);
    expect(fields.mutationType).toBeNull();
    expect((await f.as('nobody', '{ docs { id } }')).errors[0].extensions.code).toBe('validation-failed');
  });

  it('permission changes through the metadata API take effect on the next request', async () => {
    expect((await f.md('pg_create_select_permission', { table: 'flags', role: 'reader', permission: { columns: ['name'] } })).status).toBe(200);
    expect((await f.as('reader', '{ flags(order_by: {name: asc}) { name } }')).data.flags).toEqual([{ name: 'closed' }, { name: 'open' }]);
    expect((await f.md('pg_drop_select_permission', { table: 'flags', role: 'reader' })).status).toBe(200);
    expect((await f.as('reader', '{ flags { name } }')).errors[0].extensions.code).toBe('validation-failed');
  });
});

describe('session variables from headers under an admin secret', () => {
  it('the admin secret authorizes the request; x-engine-role and x-engine-* headers become the session', async () => {
    const secured = await startTestEngine({ databaseUrl: f.db.url, adminSecret: 's3cret' });
    try {
      await f.md('pg_create_select_permission', {
        table: 'docs',
        role: 'owner',
        permission: { columns: ['id'], filter: { owner_id: { _eq: 'X-Engine-User-Id' } } },
      });
      // The second engine reads the same metadata database; wait for it to see the new permission.
      const q = '{ docs(order_by: {id: asc}) { id } }';
      const headers = { 'x-engine-admin-secret': 's3cret', 'x-engine-role': 'owner', 'X-Engine-User-Id': '3' };
      let body: any = null;
      for (let i = 0; i < 50; i++) {
        body = (await secured.graphql(q, undefined, headers)).body;
        if (body.data !== undefined) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(body.data.docs).toEqual([{ id: 4 }, { id: 5 }]);
      const noSecret = await secured.graphql(q, undefined, { 'x-engine-role': 'owner', 'x-engine-user-id': '3' });
      expect((noSecret.body as any).errors[0].extensions.code).toBe('access-denied');
      const admin = await secured.graphql(q, undefined, { 'x-engine-admin-secret': 's3cret' });
      expect((admin.body as any).data.docs).toHaveLength(6);
    } finally {
      await secured.close();
    }
  });
});
