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
