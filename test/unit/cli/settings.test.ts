import { describe, expect, it } from 'vitest';
import { envNamesOf, envNamesRead, parseSettings, SETTING_SPECS } from '../../../engine/cli/settings.ts';

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
      expect(spec.flag).toMatch(/^--[a-z0-9-]+$/);
      expect(spec.env).toMatch(/^ENGINE_GRAPHQL_[A-Z0-9_]+$/);
    }
  });
});

describe("v2's HASURA_GRAPHQL_* names (Note [v2 setting names])", () => {
  it('reads HASURA_GRAPHQL_* alone, for every setting', () => {
    const s = parseSettings([], {
      HASURA_GRAPHQL_ADMIN_SECRET: 'v2-secret',
      HASURA_GRAPHQL_SERVER_PORT: '9001',
      HASURA_GRAPHQL_UNAUTHORIZED_ROLE: 'anonymous',
      HASURA_GRAPHQL_ENABLE_CONSOLE: 'true',
      HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL: '250',
    });
    expect([s.adminSecret, s.serverPort, s.unauthorizedRole, s.enableConsole, s.eventsFetchInterval]).toEqual(['v2-secret', 9001, 'anonymous', true, 250]);
    for (const spec of SETTING_SPECS) expect(envNamesOf(spec)[1]).toBe(spec.env.replace('ENGINE_GRAPHQL_', 'HASURA_GRAPHQL_'));
  });

  it('lets the ENGINE_ name win when both are set, and flags win over both', () => {
    const env = {
      ENGINE_GRAPHQL_ADMIN_SECRET: 'engine',
      HASURA_GRAPHQL_ADMIN_SECRET: 'hasura',
      HASURA_GRAPHQL_SERVER_PORT: '9002',
      ENGINE_GRAPHQL_SERVER_PORT: '9003',
    };
    const s = parseSettings([], env);
    expect([s.adminSecret, s.serverPort]).toEqual(['engine', 9003]);
    expect(parseSettings(['--admin-secret', 'flag'], env).adminSecret).toBe('flag');
    expect(envNamesRead(env)).toEqual({
      read: ['ENGINE_GRAPHQL_ADMIN_SECRET', 'ENGINE_GRAPHQL_SERVER_PORT'],
      shadowed: ['HASURA_GRAPHQL_ADMIN_SECRET', 'HASURA_GRAPHQL_SERVER_PORT'],
    });
  });

  it("reads v2's HASURA_GRAPHQL_PRESERVE_401_ERRORS (default false)", () => {
    expect(parseSettings([], {}).preserve401Errors).toBe(false);
    expect(parseSettings([], { HASURA_GRAPHQL_PRESERVE_401_ERRORS: 'true' }).preserve401Errors).toBe(true);
    expect(parseSettings([], { ENGINE_GRAPHQL_PRESERVE_401_ERRORS: 'true' }).preserve401Errors).toBe(true);
  });

  it("reads v2's deprecated HASURA_GRAPHQL_ACCESS_KEY as the admin secret, after HASURA_GRAPHQL_ADMIN_SECRET", () => {
    expect(parseSettings([], { HASURA_GRAPHQL_ACCESS_KEY: 'old' }).adminSecret).toBe('old');
    expect(parseSettings([], { HASURA_GRAPHQL_ACCESS_KEY: 'old', HASURA_GRAPHQL_ADMIN_SECRET: 'new' }).adminSecret).toBe('new');
  });

  it('names the variable in a bad value', () => {
    expect(() => parseSettings([], { HASURA_GRAPHQL_SERVER_PORT: 'eighty' })).toThrow(/^HASURA_GRAPHQL_SERVER_PORT: expected a whole number/);
  });

  it('refuses to start when an admin secret of any name, or the flag, is set but empty or blank', () => {
    for (const env of [
      { HASURA_GRAPHQL_ADMIN_SECRET: '' },
      { ENGINE_GRAPHQL_ADMIN_SECRET: '   ' },
      { HASURA_GRAPHQL_ACCESS_KEY: '\t' },
      // The ENGINE_ name would win, but a blank secret of another name is a mistake all the same.
      { ENGINE_GRAPHQL_ADMIN_SECRET: 'engine', HASURA_GRAPHQL_ADMIN_SECRET: '' },
      { ENGINE_GRAPHQL_ADMIN_SECRET: '', HASURA_GRAPHQL_ADMIN_SECRET: 'hasura' },
    ]) {
      const name = Object.entries(env).find(([, v]) => v.trim() === '')?.[0] ?? '';
      expect(() => parseSettings([], env), JSON.stringify(env)).toThrow(new RegExp(`^${name} is set but empty`));
    }
    expect(() => parseSettings(['--admin-secret='], {})).toThrow(/^--admin-secret is set but empty/);
    expect(() => parseSettings(['--admin-secret', ' '], {})).toThrow(/^--admin-secret is set but empty/);
    // Other settings keep treating an empty variable as unset.
    expect(parseSettings([], { HASURA_GRAPHQL_JWT_SECRET: '', ENGINE_GRAPHQL_SERVER_PORT: '' }).serverPort).toBe(8080);
  });
});
