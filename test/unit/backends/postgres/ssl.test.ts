/**
 * The parts of Note [Source SSL] that need no server: which sslmode holds when the database URL
 * and `ssl_configuration` both give one, what each mode becomes in node-postgres's `ssl` option,
 * which URL parameters the pool never sees, the libpq environment pg_dump gets and that the pool
 * key changes with any part of the setting. The connections themselves are tested against a real
 * server in test/integration/sources/ssl.test.ts.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { libpqSslEnvironment, pgConnectionConfig, pgSslOption, resolveTls, tlsDigest, type PostgresTls } from '../../../../engine/backends/postgres/ssl.ts';

const URL_BASE = 'postgres://u:p@db.example:5432/app';
const noEnv = (): string | undefined => undefined;

/** The mode resolveTls settles on, or its reason. */
function modeOf(query: string, sslmode?: string): string {
  const r = resolveTls(`${URL_BASE}${query}`, sslmode === undefined ? undefined : ({ sslmode } as never), noEnv);
  if ('reason' in r) return `reason: ${r.reason}`;
  return r.tls === null ? 'none' : r.tls.mode;
}

describe('the sslmode that holds', () => {
  it('is the stricter of the URL and ssl_configuration (v2: Max)', () => {
    expect(modeOf('?sslmode=disable', 'require')).toBe('require');
    expect(modeOf('?sslmode=require', 'disable')).toBe('require');
    expect(modeOf('?sslmode=prefer', 'allow')).toBe('prefer');
    expect(modeOf('', 'allow')).toBe('allow');
    expect(modeOf('?sslmode=require')).toBe('require');
  });

  it("is libpq's default, prefer, when only a certificate parameter is given; none without any", () => {
    expect(modeOf('?sslpassword=x')).toBe('prefer');
    expect(modeOf('')).toBe('none');
    expect(modeOf('?application_name=x')).toBe('none');
  });

  it("is verify-full with the URL's sslrootcert=system (libpq 16), which reads no file", () => {
    const r = resolveTls(`${URL_BASE}?sslmode=require&sslrootcert=system`, undefined, noEnv);
    expect(r).toEqual({ tls: { mode: 'verify-full', systemCa: true } });
  });

  it('refuses a mode libpq does not know, and verify-* without a root certificate', () => {
    expect(modeOf('?sslmode=sometimes')).toBe('reason: invalid sslmode value in the database URL: "sometimes"');
    expect(modeOf('', 'verify-ca')).toBe('reason: sslmode "verify-ca" needs a root certificate: set ssl_configuration.sslrootcert');
  });

  it('reads no certificate for disable or allow', () => {
    const unset = { sslmode: 'disable', sslrootcert: { from_env: 'UNSET' }, sslcert: { from_env: 'UNSET' } } as const;
    expect(resolveTls(URL_BASE, unset, noEnv)).toEqual({ tls: { mode: 'disable' } });
    expect(resolveTls(`${URL_BASE}?sslrootcert=/nowhere/ca.crt`, { ...unset, sslmode: 'allow' }, noEnv)).toEqual({ tls: { mode: 'allow' } });
  });

  it('says which variable is unset and which file cannot be read', () => {
    expect(resolveTls(URL_BASE, { sslmode: 'require', sslcert: { from_env: 'NO_CERT' } }, noEnv)).toEqual({
      reason: 'environment variable "NO_CERT" of ssl_configuration.sslcert is not set',
    });
    const r = resolveTls(`${URL_BASE}?sslmode=require&sslrootcert=/nowhere/ca.crt`, undefined, noEnv);
    expect(r).toMatchObject({ reason: expect.stringContaining(`could not read the database URL's sslrootcert file "/nowhere/ca.crt"`) });
  });
});

describe("node-postgres's ssl option", () => {
  const client = { cert: 'C', key: 'K', passphrase: 'P' };
  const checksHost = (o: ReturnType<typeof pgSslOption>): boolean => o !== false && o.checkServerIdentity === undefined;

  it('is no SSL for disable and allow', () => {
    expect(pgSslOption({ mode: 'disable' })).toBe(false);
    expect(pgSslOption({ mode: 'allow', ca: 'CA' })).toBe(false);
  });

  it('checks nothing for prefer and require without a root certificate, and carries the client certificate', () => {
    expect(pgSslOption({ mode: 'require', ...client })).toEqual({ rejectUnauthorized: false, ...client });
    expect(pgSslOption({ mode: 'prefer' })).toEqual({ rejectUnauthorized: false });
  });

  it('checks the chain but not the host for verify-ca, and require or prefer with a root certificate', () => {
    for (const mode of ['verify-ca', 'require', 'prefer'] as const) {
      const o = pgSslOption({ mode, ca: 'CA' });
      expect(o).toMatchObject({ rejectUnauthorized: true, ca: 'CA' });
      expect(checksHost(o)).toBe(false);
      expect(o !== false && o.checkServerIdentity?.('db.example', {} as never)).toBeUndefined();
    }
  });

  it("checks the chain and the host for verify-full, with node's CA store for sslrootcert=system", () => {
    expect(checksHost(pgSslOption({ mode: 'verify-full', ca: 'CA' }))).toBe(true);
    expect(pgSslOption({ mode: 'verify-full', systemCa: true })).toEqual({ rejectUnauthorized: true });
  });
});

describe('the URL the pool connects with', () => {
  it('has no SSL parameter when a TLS setting applies, and stays as it is otherwise', () => {
    const url = `${URL_BASE}?sslmode=require&application_name=engine&sslrootcert=%2Fx&ssl=true&uselibpqcompat=true`;
    expect(pgConnectionConfig(url, { mode: 'require' })).toEqual({
      connectionString: `${URL_BASE}?application_name=engine`,
      ssl: { rejectUnauthorized: false },
    });
    expect(pgConnectionConfig(url, null)).toEqual({ connectionString: url });
  });

  it('keeps the rest as written (a %20 stays one: libpq reads + as itself)', () => {
    expect(pgConnectionConfig(`${URL_BASE}?options=-c%20search_path%3Dx&sslmode=require`, { mode: 'require' }).connectionString).toBe(
      `${URL_BASE}?options=-c%20search_path%3Dx`,
    );
    expect(pgConnectionConfig(`${URL_BASE}?sslmode=require`, { mode: 'require' }).connectionString).toBe(URL_BASE);
  });
});

describe('the pool key digest', () => {
  it('changes with every part of the setting', () => {
    const base: PostgresTls = { mode: 'verify-ca', ca: 'A', cert: 'C', key: 'K', passphrase: 'P' };
    const digests = [
      base,
      { ...base, mode: 'verify-full' },
      { ...base, ca: 'B' },
      { ...base, cert: 'D' },
      { ...base, key: 'L' },
      { ...base, passphrase: 'Q' },
    ].map((t) => tlsDigest(t as PostgresTls));
    expect(new Set(digests).size).toBe(digests.length);
    expect(tlsDigest({ ...base })).toBe(digests[0]);
    expect(tlsDigest(null)).toBeNull();
  });
});

describe("pg_dump's libpq environment", () => {
  it('writes the certificates to files only their owner reads, and removes them', async () => {
    const { env, cleanup } = await libpqSslEnvironment({ mode: 'verify-ca', ca: 'CA-PEM' });
    try {
      expect(env['PGSSLMODE']).toBe('verify-ca');
      const file = env['PGSSLROOTCERT']!;
      expect(readFileSync(file, 'utf8')).toBe('CA-PEM');
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      await cleanup();
    }
    expect(existsSync(env['PGSSLROOTCERT']!)).toBe(false);
  });

  it('is the mode alone for disable', async () => {
    const { env, cleanup } = await libpqSslEnvironment({ mode: 'disable', ca: 'CA' });
    await cleanup();
    expect(env).toEqual({ PGSSLMODE: 'disable' });
  });
});
