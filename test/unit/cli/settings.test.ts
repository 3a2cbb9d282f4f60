import { describe, expect, it } from 'vitest';
import { parseSettings, SETTING_SPECS } from '../../../engine/cli/settings.ts';

describe('parseSettings', () => {
  it('has the documented defaults', () => {
    const s = parseSettings([], {});
    expect(s.serverPort).toBe(8080);
    expect(s.authHookMode).toBe('GET');
    expect(s.inferFunctionPermissions).toBe(true);
    expect(s.stringifyNumericTypes).toBe(false);
    expect(s.databaseUrl).toBeNull();
  });

  it('reads ENGINE_GRAPHQL_* and lets flags win', () => {
    const env = { ENGINE_GRAPHQL_SERVER_PORT: '9000', ENGINE_GRAPHQL_ADMIN_SECRET: 'env', ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES: 'true' };
    const s = parseSettings(['--admin-secret', 'flag', '--server-port=9100'], env);
    expect(s.adminSecret).toBe('flag');
    expect(s.serverPort).toBe(9100);
    expect(s.stringifyNumericTypes).toBe(true);
  });

  it('takes a bare boolean flag as true and enum values case-insensitively', () => {
    const s = parseSettings(['--stringify-numeric-types', '--auth-hook-mode', 'post', '--log-level', 'DEBUG'], {});
    expect(s.stringifyNumericTypes).toBe(true);
    expect(s.authHookMode).toBe('POST');
    expect(s.logLevel).toBe('debug');
  });

  it('refuses unknown flags, bad ports and bad booleans with a clear message', () => {
    expect(() => parseSettings(['--nope'], {})).toThrow(/unknown flag "--nope"/);
    expect(() => parseSettings([], { ENGINE_GRAPHQL_SERVER_PORT: 'eighty' })).toThrow(/ENGINE_GRAPHQL_SERVER_PORT: expected a whole number/);
    expect(() => parseSettings(['--enable-console', 'maybe'], {})).toThrow(/expected true or false/);
    expect(() => parseSettings(['--database-url'], {})).toThrow(/needs a value/);
  });

  it('gives every setting a flag and an ENGINE_GRAPHQL_ variable', () => {
    for (const spec of SETTING_SPECS) {
      expect(spec.flag).toMatch(/^--[a-z-]+$/);
      expect(spec.env).toMatch(/^ENGINE_GRAPHQL_[A-Z_]+$/);
    }
  });
});
