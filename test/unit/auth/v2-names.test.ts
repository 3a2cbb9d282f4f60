/**
 * v2's X-Hasura-* names (Note [v2 session names] in engine/auth/headers.ts):
 * request headers, JWT claims and namespace, auth webhook answers and the
 * session variables permissions name, all through the one alias module.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { Authenticator, type AuthSettings } from '../../../engine/auth/resolve-session.ts';
import { canonicalNames, sessionVariableOf } from '../../../engine/auth/headers.ts';
import { EngineError } from '../../../engine/errors/engine-error.ts';
import { silentLogger } from '../../../engine/logger.ts';
import { startTestServer, type TestServer } from '../../support/http-server.ts';

const base: AuthSettings = { adminSecret: 'sec', jwtSecret: null, authHook: null, authHookMode: 'GET', authHookTimeout: 10, unauthorizedRole: null };
const KEY = '0123456789abcdef0123456789abcdef';

async function refusal(p: Promise<unknown>): Promise<EngineError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof EngineError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('X-Hasura-* request headers', () => {
  it('checks X-Hasura-Admin-Secret and takes X-Hasura-Role and X-Hasura-* variables as the engine names', async () => {
    const auth = await Authenticator.create(base, silentLogger);
    const { session } = await auth.resolve({ 'x-hasura-admin-secret': 'sec', 'x-hasura-role': 'user', 'x-hasura-user-id': '7' }, undefined);
    expect([session.isAdmin, session.role]).toEqual([false, 'user']);
    expect(session.variables).toEqual({ 'x-engine-role': 'user', 'x-engine-user-id': '7' });
    const wrong = await refusal(auth.resolve({ 'x-hasura-admin-secret': 'nope', 'x-hasura-role': 'user' }, undefined));
    expect([wrong.code, wrong.status]).toEqual(['access-denied', 401]);
  });

  it("takes v2's deprecated X-Hasura-Access-Key as the admin secret, after X-Hasura-Admin-Secret", async () => {
    const auth = await Authenticator.create(base, silentLogger);
    expect((await auth.resolve({ 'x-hasura-access-key': 'sec' }, undefined)).session.isAdmin).toBe(true);
    const both = await refusal(auth.resolve({ 'x-hasura-access-key': 'sec', 'x-hasura-admin-secret': 'wrong' }, undefined));
    expect(both.status).toBe(401);
    expect((await auth.resolve({ 'x-hasura-admin-secret': 'sec', 'x-hasura-access-key': 'wrong' }, undefined)).session.isAdmin).toBe(true);
  });

  it('lets the X-Engine-* spelling win when both are sent, whatever their order', async () => {
    const auth = await Authenticator.create(base, silentLogger);
    for (const headers of [
      {
        'x-engine-admin-secret': 'sec',
        'x-hasura-admin-secret': 'wrong',
        'x-hasura-role': 'user',
        'x-engine-role': 'editor',
        'x-hasura-user-id': '1',
        'x-engine-user-id': '2',
      },
      {
        'x-hasura-admin-secret': 'wrong',
        'x-engine-admin-secret': 'sec',
        'x-engine-role': 'editor',
        'x-hasura-role': 'user',
        'x-engine-user-id': '2',
        'x-hasura-user-id': '1',
      },
    ]) {
      const { session } = await auth.resolve(headers, undefined);
      expect(session.variables).toEqual({ 'x-engine-role': 'editor', 'x-engine-user-id': '2' });
    }
  });

  it('runs an X-Hasura-Role request as that role without an admin secret too (it ran as admin)', async () => {
    const auth = await Authenticator.create({ ...base, adminSecret: null }, silentLogger);
    const { session } = await auth.resolve({ 'x-hasura-role': 'user', 'x-hasura-user-id': '3' }, undefined);
    expect([session.isAdmin, session.role, session.variables['x-engine-user-id']]).toEqual([false, 'user', '3']);
  });

  it('keeps X-Hasura-* headers out of the session of the unauthorized role', async () => {
    const auth = await Authenticator.create({ ...base, unauthorizedRole: 'anonymous' }, silentLogger);
    const { session } = await auth.resolve({ 'x-hasura-role': 'admin', 'x-hasura-user-id': '1' }, undefined);
    expect(session.variables).toEqual({ 'x-engine-role': 'anonymous' });
  });

  it('asks backend-only permissions with X-Hasura-Use-Backend-Only-Permissions', async () => {
    const auth = await Authenticator.create(base, silentLogger);
    const { session } = await auth.resolve(
      { 'x-hasura-admin-secret': 'sec', 'x-hasura-role': 'user', 'x-hasura-use-backend-only-permissions': 'true' },
      undefined,
    );
    expect(session.backendOnly).toBe(true);
  });
});

describe('JWTs made for v2', () => {
  const v2Claims = { 'x-hasura-allowed-roles': ['user', 'editor'], 'x-hasura-default-role': 'user', 'x-hasura-user-id': '42' };
  const sign = (payload: Record<string, unknown>): Promise<string> =>
    new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new TextEncoder().encode(KEY));

  it("reads v2's default namespace and x-hasura-* claim names when no namespace is configured", async () => {
    const auth = await Authenticator.create({ ...base, jwtSecret: JSON.stringify({ type: 'HS256', key: KEY }) }, silentLogger);
    const token = await sign({ 'https://hasura.io/jwt/claims': v2Claims });
    const { session } = await auth.resolve({ authorization: `Bearer ${token}` }, undefined);
    expect([session.role, session.variables['x-engine-user-id']]).toEqual(['user', '42']);
    const picked = await auth.resolve({ authorization: `Bearer ${token}`, 'x-hasura-role': 'editor' }, undefined);
    expect(picked.session.role).toBe('editor');
    const notAllowed = await refusal(auth.resolve({ authorization: `Bearer ${token}`, 'x-hasura-role': 'admin' }, undefined));
    expect(notAllowed.status).toBe(401);
  });

  it("prefers the engine's namespace, and reads only the configured one when one is configured", async () => {
    const auth = await Authenticator.create({ ...base, jwtSecret: JSON.stringify({ type: 'HS256', key: KEY }) }, silentLogger);
    const both = await sign({
      'https://hasura.io/jwt/claims': v2Claims,
      'https://engine.dev/jwt/claims': { 'x-engine-allowed-roles': ['engine-user'], 'x-engine-default-role': 'engine-user' },
    });
    expect((await auth.resolve({ authorization: `Bearer ${both}` }, undefined)).session.role).toBe('engine-user');
    const custom = await Authenticator.create({ ...base, jwtSecret: JSON.stringify({ type: 'HS256', key: KEY, claims_namespace: 'claims' }) }, silentLogger);
    const missing = await refusal(custom.resolve({ authorization: `Bearer ${await sign({ 'https://hasura.io/jwt/claims': v2Claims })}` }, undefined));
    expect([missing.code, missing.message]).toEqual(['jwt-invalid-claims', "claims key: 'claims' not found"]);
    expect((await custom.resolve({ authorization: `Bearer ${await sign({ claims: v2Claims })}` }, undefined)).session.role).toBe('user');
  });

  it('takes x-hasura-* names in claims_map', async () => {
    const claimsMap = { 'x-hasura-allowed-roles': { path: '$.roles' }, 'x-hasura-default-role': 'user', 'X-Hasura-User-Id': { path: '$.sub' } };
    const auth = await Authenticator.create({ ...base, jwtSecret: JSON.stringify({ type: 'HS256', key: KEY, claims_map: claimsMap }) }, silentLogger);
    const { session } = await auth.resolve({ authorization: `Bearer ${await sign({ roles: ['user'], sub: '9' })}` }, undefined);
    expect([session.role, session.variables['x-engine-user-id']]).toEqual(['user', '9']);
  });
});

describe('an auth webhook written for v2', () => {
  let hook: TestServer;
  beforeAll(async () => {
    hook = await startTestServer((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': '5', 'X-Engine-Org-Id': '8', 'X-Hasura-Org-Id': '9' }));
    });
  });
  afterAll(async () => hook.close());

  it('answers X-Hasura-Role and X-Hasura-* variables, and receives the client headers as sent', async () => {
    const auth = await Authenticator.create({ ...base, authHook: hook.url }, silentLogger);
    const { session } = await auth.resolve({ 'x-hasura-custom': 'c', authorization: 'Bearer t' }, undefined);
    expect(session.variables).toEqual({ 'x-engine-role': 'user', 'x-engine-user-id': '5', 'x-engine-org-id': '8' });
    expect(hook.requests.at(-1)?.headers['x-hasura-custom']).toBe('c');
  });
});

describe('session variable names in permissions', () => {
  it('reads X-Hasura-* as the X-Engine-* variable, any case, and leaves other text alone', () => {
    expect(sessionVariableOf('X-Hasura-User-Id')).toBe('x-engine-user-id');
    expect(sessionVariableOf('x-engine-User-Id')).toBe('x-engine-user-id');
    expect(sessionVariableOf('hasura')).toBeNull();
    expect(sessionVariableOf('X-Hasura')).toBeNull();
    expect(sessionVariableOf(7)).toBeNull();
    expect(canonicalNames({ 'X-Hasura-A': '1', 'x-engine-a': '2', 'X-HASURA-B': '3' })).toEqual({ 'x-engine-a': '2', 'x-engine-b': '3' });
  });
});
