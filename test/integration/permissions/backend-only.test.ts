/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * `backend_only` mutation permissions over HTTP (v2 semantics): they apply
 * only to requests authorized by the admin secret that send
 * `X-Engine-Use-Backend-Only-Permissions: true`; for every other request
 * (no header, a JWT, the unauthorized role) the role simply lacks them, so
 * their root fields are absent. The role's ordinary permissions work either
 * way, and neither kind of request reuses the other's schema or cached plan.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { startPermissionFixture, type PermissionFixture } from '../../support/permission-schema.ts';

const SECRET = 'backend-only-test-secret';
const HS_KEY = 'an-hmac-key-of-at-least-thirty-two-characters';
const NS = 'https://engine.dev/jwt/claims';

let f: PermissionFixture;
beforeAll(async () => {
  f = await startPermissionFixture('', { adminSecret: SECRET, jwtSecret: JSON.stringify({ type: 'HS256', key: HS_KEY }), unauthorizedRole: 'user' });
  await f.setPermissions({
    docs: {
      select: [{ role: 'user', permission: { columns: '*', filter: {} } }],
      insert: [{ role: 'user', permission: { check: {}, columns: ['title', 'owner_id'], set: { status: 'backend' }, backend_only: true } }],
      update: [{ role: 'user', permission: { columns: ['score'], filter: {}, check: null } }],
      delete: [{ role: 'user', permission: { filter: { status: { _eq: 'backend' } }, backend_only: true } }],
    },
  });
});
afterAll(async () => {
  await f?.close();
});

const asUser = (extra: Record<string, string> = {}): Record<string, string> => ({ 'x-engine-admin-secret': SECRET, 'x-engine-role': 'user', ...extra });
const BACKEND = { 'x-engine-use-backend-only-permissions': 'true' };
const gql = async (query: string, headers: Record<string, string>): Promise<any> => (await f.engine.graphql(query, undefined, headers)).body;
const INSERT = 'mutation { insert_docs_one(object: {title: "from backend", owner_id: 1}) { title status } }';

async function jwt(): Promise<string> {
  return await new SignJWT({ [NS]: { 'x-engine-allowed-roles': ['user'], 'x-engine-default-role': 'user', 'x-engine-user-id': '1' } })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(HS_KEY));
}

function expectAbsent(r: any, field: string): void {
  expect(r.errors?.[0]?.extensions?.code).toBe('validation-failed');
  expect(r.errors[0].message).toContain(field);
}

describe('backend_only permissions', () => {
  it('an admin-secret request with the header gets the backend-only insert (the header value is case-insensitive)', async () => {
    const r = await gql(INSERT, asUser(BACKEND));
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_docs_one).toEqual({ title: 'from backend', status: 'backend' });
    const upper = await gql(INSERT, asUser({ 'x-engine-use-backend-only-permissions': 'TRUE' }));
    expect(upper.errors).toBeUndefined();
  });

  it('without the header (or with another value) the fields are absent, even for a query cached by a backend request', async () => {
    // Same query text as the backend request above: its cached plan must not serve this one.
    expectAbsent(await gql(INSERT, asUser()), 'insert_docs_one');
    expectAbsent(await gql(INSERT, asUser({ 'x-engine-use-backend-only-permissions': 'false' })), 'insert_docs_one');
    expectAbsent(await gql('mutation { delete_docs(where: {}) { affected_rows } }', asUser()), 'delete_docs');
    const roots = await gql('{ __schema { mutationType { fields { name } } } }', asUser());
    expect(roots.data.__schema.mutationType.fields.map((x: any) => x.name).sort()).toEqual(['update_docs', 'update_docs_by_pk', 'update_docs_many']);
  });

  it('a plain request first does not keep a backend request from its fields', async () => {
    const q = 'mutation { insert_docs(objects: [{title: "second", owner_id: 2}]) { affected_rows } }';
    expectAbsent(await gql(q, asUser()), 'insert_docs');
    const r = await gql(q, asUser(BACKEND));
    expect(r.errors).toBeUndefined();
    expect(r.data.insert_docs.affected_rows).toBe(1);
  });

  it('JWT and unauthorized-role sessions never get backend-only permissions, header or not', async () => {
    expectAbsent(await gql(INSERT, { authorization: `Bearer ${await jwt()}`, ...BACKEND }), 'insert_docs_one');
    expectAbsent(await gql(INSERT, { ...BACKEND }), 'insert_docs_one');
    expectAbsent(await gql(INSERT, { ...BACKEND, 'x-engine-role': 'user' }), 'insert_docs_one');
  });

  it('the role keeps its ordinary update permission with and without the header', async () => {
    for (const [i, headers] of [asUser(), asUser(BACKEND), { authorization: `Bearer ${await jwt()}`, ...BACKEND }, {}].entries()) {
      const r = await gql(`mutation { update_docs(where: {title: {_eq: "Alpha"}}, _set: {score: ${20 + i}}) { returning { score } } }`, headers);
      expect(r.errors).toBeUndefined();
      expect(r.data.update_docs.returning).toEqual([{ score: 20 + i }]);
    }
  });

  it('a backend request may also use the backend-only delete, filter included', async () => {
    const r = await gql('mutation { delete_docs(where: {}) { affected_rows } }', asUser(BACKEND));
    expect(r.errors).toBeUndefined();
    expect(r.data.delete_docs.affected_rows).toBe(3);
    expect((await f.db.sql("SELECT count(*)::int AS n FROM docs WHERE status = 'backend'")).rows[0].n).toBe(0);
  });
});
