import { describe, expect, it } from 'vitest';
import { resolveSession } from '../../../engine/auth/resolve-session.ts';
import { EngineError } from '../../../engine/errors/engine-error.ts';

function denied(fn: () => unknown): EngineError {
  try {
    fn();
  } catch (e) {
    if (e instanceof EngineError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('resolveSession', () => {
  it('is admin without an admin secret', () => {
    const s = resolveSession({ adminSecret: null }, {});
    expect(s.isAdmin).toBe(true);
    expect(s.role).toBe('admin');
  });

  it('lets X-Engine-Role pick a role and keeps X-Engine-* headers as lower-cased variables', () => {
    const s = resolveSession({ adminSecret: 'sec' }, { 'x-engine-admin-secret': 'sec', 'x-engine-role': 'user', 'x-engine-user-id': '7', other: 'x' });
    expect(s.isAdmin).toBe(false);
    expect(s.role).toBe('user');
    expect(s.variables).toEqual({ 'x-engine-role': 'user', 'x-engine-user-id': '7' });
  });

  it('refuses a missing or wrong admin secret with 401 access-denied', () => {
    const missing = denied(() => resolveSession({ adminSecret: 'sec' }, {}));
    expect([missing.code, missing.status]).toEqual(['access-denied', 401]);
    const wrong = denied(() => resolveSession({ adminSecret: 'sec' }, { 'x-engine-admin-secret': 'nope' }));
    expect([wrong.code, wrong.status]).toEqual(['access-denied', 401]);
  });
});
