/**
 * The session flag for backend-only permissions: set only for requests the
 * admin secret authorizes (or any request without an admin secret) that send
 * `X-Engine-Use-Backend-Only-Permissions: true`; never for JWT or
 * unauthorized-role sessions.
 */
import { describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { Authenticator, type AuthSettings } from '../../../engine/auth/resolve-session.ts';
import { buildSession, roleViewKey } from '../../../engine/auth/session.ts';
import { silentLogger } from '../../../engine/logger.ts';

const base: AuthSettings = { adminSecret: null, jwtSecret: null, authHook: null, authHookMode: 'GET', authHookTimeout: 10, unauthorizedRole: null };
const HS_KEY = 'an-hmac-key-of-at-least-thirty-two-characters';
const HEADER = 'x-engine-use-backend-only-permissions';

describe('Session.backendOnly', () => {
  it('is false by default', () => {
    expect(buildSession('user', {}).backendOnly).toBe(false);
  });

  it('is set for an admin-secret request with the header true, in any case', async () => {
    const auth = await Authenticator.create({ ...base, adminSecret: 'sec' }, silentLogger);
    const on = await auth.resolve({ 'x-engine-admin-secret': 'sec', 'x-engine-role': 'user', [HEADER]: 'True' }, undefined);
    expect([on.session.role, on.session.backendOnly]).toEqual(['user', true]);
    const off = await auth.resolve({ 'x-engine-admin-secret': 'sec', 'x-engine-role': 'user', [HEADER]: 'false' }, undefined);
    expect(off.session.backendOnly).toBe(false);
    const none = await auth.resolve({ 'x-engine-admin-secret': 'sec', 'x-engine-role': 'user' }, undefined);
    expect(none.session.backendOnly).toBe(false);
  });

  it('is set for any request with the header when no admin secret is configured', async () => {
    const auth = await Authenticator.create(base, silentLogger);
    const { session } = await auth.resolve({ 'x-engine-role': 'user', [HEADER]: 'true' }, undefined);
    expect(session.backendOnly).toBe(true);
  });

  it('is never set for JWT or unauthorized-role sessions', async () => {
    const auth = await Authenticator.create(
      { ...base, adminSecret: 'sec', jwtSecret: JSON.stringify({ type: 'HS256', key: HS_KEY }), unauthorizedRole: 'guest' },
      silentLogger,
    );
    const token = await new SignJWT({ 'https://engine.dev/jwt/claims': { 'x-engine-allowed-roles': ['user'], 'x-engine-default-role': 'user' } })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode(HS_KEY));
    const viaJwt = await auth.resolve({ authorization: `Bearer ${token}`, [HEADER]: 'true' }, undefined);
    expect([viaJwt.session.role, viaJwt.session.backendOnly]).toEqual(['user', false]);
    const guest = await auth.resolve({ [HEADER]: 'true' }, undefined);
    expect([guest.session.role, guest.session.backendOnly]).toEqual(['guest', false]);
  });

  it('keys a backend session apart from its role, except for admin', () => {
    expect(roleViewKey(buildSession('user', {}, true))).not.toBe(roleViewKey(buildSession('user', {})));
    expect(roleViewKey(buildSession('user', {}))).toBe('user');
    expect(roleViewKey(buildSession('admin', {}, true))).toBe('admin');
  });
});
