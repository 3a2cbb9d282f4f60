import { describe, expect, it } from 'vitest';
import { Authenticator, type AuthSettings } from '../../../engine/auth/resolve-session.ts';
import { EngineError } from '../../../engine/errors/engine-error.ts';
import { silentLogger } from '../../../engine/logger.ts';

const base: AuthSettings = { adminSecret: null, jwtSecret: null, authHook: null, authHookMode: 'GET', authHookTimeout: 10, unauthorizedRole: null };

async function refusal(p: Promise<unknown>): Promise<EngineError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof EngineError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('Authenticator (admin secret)', () => {
  it('is admin without an admin secret', async () => {
    const auth = await Authenticator.create(base, silentLogger);
    const { session } = await auth.resolve({}, undefined);
    expect([session.isAdmin, session.role]).toEqual([true, 'admin']);
  });

  it('gives every admin request without session headers one frozen session, and one of its own to a request with them', async () => {
    const auth = await Authenticator.create(base, silentLogger);
    const a = auth.resolveAtOnce({ 'content-type': 'application/json' });
    const b = auth.resolveAtOnce({});
    expect(a?.session).toBe(b?.session);
    expect(a?.session).toEqual({ role: 'admin', isAdmin: true, variables: { 'x-engine-role': 'admin' }, backendOnly: false });
    expect(Object.isFrozen(a?.session) && Object.isFrozen(a?.session.variables) && Object.isFrozen(a?.setCookies)).toBe(true);
    const withVars = auth.resolveAtOnce({ 'x-engine-user-id': '7' })?.session;
    expect(withVars).not.toBe(a?.session);
    expect(withVars?.variables).toEqual({ 'x-engine-role': 'admin', 'x-engine-user-id': '7' });
    expect(auth.resolveAtOnce({ 'x-engine-use-backend-only-permissions': 'true' })?.session.backendOnly).toBe(true);
    // With the secret presented (which is not a session variable), the same session.
    const secured = await Authenticator.create({ ...base, adminSecret: 'sec' }, silentLogger);
    expect(secured.resolveAtOnce({ 'x-engine-admin-secret': 'sec' })?.session).toBe(a?.session);
  });

  it('lets X-Engine-Role pick a role and keeps X-Engine-* headers as lower-cased variables', async () => {
    const auth = await Authenticator.create({ ...base, adminSecret: 'sec' }, silentLogger);
    const { session } = await auth.resolve({ 'x-engine-admin-secret': 'sec', 'x-engine-role': 'user', 'x-engine-user-id': '7', other: 'x' }, undefined);
    expect(session.isAdmin).toBe(false);
    expect(session.role).toBe('user');
    expect(session.variables).toEqual({ 'x-engine-role': 'user', 'x-engine-user-id': '7' });
  });

  it('refuses a missing or wrong admin secret with 401 access-denied', async () => {
    const auth = await Authenticator.create({ ...base, adminSecret: 'sec' }, silentLogger);
    const missing = await refusal(auth.resolve({}, undefined));
    expect([missing.code, missing.status]).toEqual(['access-denied', 401]);
    const wrong = await refusal(auth.resolve({ 'x-engine-admin-secret': 'nope' }, undefined));
    expect([wrong.code, wrong.status]).toEqual(['access-denied', 401]);
  });

  it('serves requests without credentials with the unauthorized role, without client session variables', async () => {
    const auth = await Authenticator.create({ ...base, adminSecret: 'sec', unauthorizedRole: 'anonymous' }, silentLogger);
    const { session } = await auth.resolve({ 'x-engine-user-id': '1', 'x-engine-role': 'admin' }, undefined);
    expect(session.role).toBe('anonymous');
    expect(session.variables).toEqual({ 'x-engine-role': 'anonymous' });
  });

  it('refuses JWT or webhook mode without an admin secret, and both at once', async () => {
    const noSecret = await refusal(Authenticator.create({ ...base, authHook: 'http://127.0.0.1:1/' }, silentLogger));
    expect(noSecret.code).toBe('invalid-configuration');
    const both = await refusal(
      Authenticator.create(
        { ...base, adminSecret: 's', authHook: 'http://127.0.0.1:1/', jwtSecret: '{"type":"HS256","key":"0123456789abcdef0123456789abcdef"}' },
        silentLogger,
      ),
    );
    expect(both.message).toMatch(/cannot both be set/);
  });
});
