/**
 * SSL of a postgres source: v2's `connection_info.ssl_configuration`
 * (PGCertSettings) merged with the SSL parameters of the database URL, and
 * the TLS options node-postgres connects with. See Note [Source SSL].
 */
import { createHash, createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ConnectionOptions } from 'node:tls';
import type { ResolveOptions } from '../backend.ts';
import type { JsonSchema } from '../../model/schemas/validate.ts';

/**
 * Note [Source SSL]
 * v2 (libpq underneath) reads `ssl_configuration` as PGCertSettings:
 * `sslmode` (required) and `sslrootcert`, `sslcert`, `sslkey`,
 * `sslpassword`, each `{from_env: VAR}` whose variable holds the PEM text
 * itself, not a path (v2's rfcs/pg-client-certs.md: the data is written to
 * files and the paths merged into the connection string; its
 * test-manual/postgres-replicas README passes `"$(cat client.crt)"`). The
 * engine keeps the PEM in memory and gives it to node-postgres's `ssl`
 * option, with libpq's meaning of each mode:
 * - disable, allow: no SSL (allow does not retry with SSL when the server
 *   asks for it, as libpq would);
 * - prefer, require: SSL without certificate checks, or, with a root
 *   certificate, the chain checked as verify-ca (libpq does so whenever a
 *   root certificate is there); prefer does not fall back to plain TCP
 *   when the server has no SSL, as libpq would;
 * - verify-ca: the chain checked against the root certificate, not the host
 *   name (`checkServerIdentity` answering nothing);
 * - verify-full: the chain and the host name (node's check: the
 *   certificate's DNS or IP names, else its CN).
 * verify-ca and verify-full need a root certificate, as libpq does (it has
 * no other trust store), except the URL's `sslrootcert=system` (libpq 16),
 * which uses node's CA store and implies verify-full.
 * The database URL may carry libpq's own `sslmode`, `sslrootcert`,
 * `sslcert`, `sslkey` (file paths) and `sslpassword`. When both give a
 * mode, the stricter one holds: v2's SSLMode is a semigroup by Max
 * (`deriving via (Max SSLMode) instance Semigroup SSLMode`). A certificate
 * in `ssl_configuration` replaces the URL's. Whenever SSL is asked for in
 * either place, the pool gets the URL without those parameters and this
 * `ssl` option: node-postgres lets the URL's `sslmode` replace an `ssl`
 * option, and reads `require` and `verify-ca` as verify-full (its non-libpq
 * default). A URL without any of them and no `ssl_configuration` connects
 * as before, without SSL (libpq's default would be prefer).
 * With disable or allow no certificate is read (nor does libpq read one),
 * so an unset variable does not matter there. Otherwise every certificate
 * and key is checked when the source is resolved (PEM that parses, a key
 * the password opens, a key that is the certificate's), so a bad one makes
 * the source inconsistent with a reason instead of failing in the middle of
 * a connection. The pool key carries a digest of the whole TLS setting, so
 * a changed certificate opens a new pool.
 *
 * A libpq program (pg_dump) gets the same setting as libpq's environment:
 * PGSSLMODE, and the PEM texts written to files (as v2 writes them) in a
 * folder only the engine's user can read, removed when the program ends.
 * libpq has no environment variable for sslpassword and a password on the
 * command line is visible to every user, so an encrypted key is written
 * opened (decrypted), under the same file mode.
 */

/** libpq's SSL modes, weakest first (v2's `Ord SSLMode`). */
export const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** v2's `CertVar`: `{from_env: VAR}`. */
export interface CertVar {
  readonly from_env: string;
}

/** v2's PGCertSettings (`connection_info.ssl_configuration`). */
export interface SslConfiguration {
  readonly sslmode: SslMode;
  readonly sslrootcert?: CertVar | null;
  readonly sslcert?: CertVar | null;
  readonly sslkey?: CertVar | null;
  readonly sslpassword?: CertVar | null;
}

const certVarSchema: JsonSchema = {
  type: ['object', 'null'],
  required: ['from_env'],
  properties: { from_env: { type: 'string' } },
  additionalProperties: false,
};

/** The schema of `ssl_configuration` (v2's codec: `sslmode` required, the rest optional or null). */
export const sslConfigurationSchema: JsonSchema = {
  type: 'object',
  required: ['sslmode'],
  properties: {
    sslmode: { enum: [...SSL_MODES] },
    sslrootcert: certVarSchema,
    sslcert: certVarSchema,
    sslkey: certVarSchema,
    sslpassword: certVarSchema,
  },
  additionalProperties: false,
};

/** A source's TLS setting, resolved: the mode and the PEM texts. */
export interface PostgresTls {
  readonly mode: SslMode;
  /** Trusted certificate authorities (PEM). */
  readonly ca?: string;
  /** The URL's `sslrootcert=system`: node's CA store. */
  readonly systemCa?: boolean;
  readonly cert?: string;
  readonly key?: string;
  readonly passphrase?: string;
}

/** The URL parameters this module takes over from node-postgres (libpq's, and node-postgres's own `ssl`, `uselibpqcompat`). */
const URL_SSL_PARAMETERS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'sslpassword', 'ssl', 'uselibpqcompat'];
/** The ones that ask for SSL handling (libpq's). */
const LIBPQ_SSL_PARAMETERS = ['sslmode', 'sslrootcert', 'sslcert', 'sslkey', 'sslpassword'];

function urlOf(text: string): URL | null {
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/**
 * The URL without its SSL parameters (what the pool connects with when {@link PostgresTls}
 * applies). The rest of the text stays as written: URLSearchParams would write a space as `+`,
 * which libpq (pg_dump) does not read back as a space.
 */
export function withoutSslParameters(databaseUrl: string): string {
  const q = databaseUrl.indexOf('?');
  if (q < 0 || urlOf(databaseUrl) === null) return databaseUrl;
  const hash = databaseUrl.indexOf('#', q);
  const query = databaseUrl.slice(q + 1, hash < 0 ? undefined : hash);
  const keyOf = (pair: string): string => {
    const k = pair.split('=', 1)[0] ?? '';
    try {
      return decodeURIComponent(k);
    } catch {
      return k;
    }
  };
  const kept = query.split('&').filter((pair) => pair !== '' && !URL_SSL_PARAMETERS.includes(keyOf(pair)));
  return databaseUrl.slice(0, q) + (kept.length === 0 ? '' : `?${kept.join('&')}`) + (hash < 0 ? '' : databaseUrl.slice(hash));
}

const stricter = (a: SslMode, b: SslMode): SslMode => (SSL_MODES.indexOf(a) >= SSL_MODES.indexOf(b) ? a : b);

type Field = 'sslrootcert' | 'sslcert' | 'sslkey' | 'sslpassword';

/** One PEM (or password) with where it came from, for messages. */
interface Material {
  readonly text: string;
  readonly origin: string;
}

function fromEnv(field: Field, v: CertVar, env: ResolveOptions['env']): Material | { reason: string } {
  const text = env(v.from_env);
  const origin = `ssl_configuration.${field} (environment variable "${v.from_env}")`;
  if (text === undefined || text === '') return { reason: `environment variable "${v.from_env}" of ssl_configuration.${field} is not set` };
  return { text, origin };
}

function fromFile(field: Field, path: string): Material | { reason: string } {
  const origin = `the database URL's ${field} file "${path}"`;
  try {
    return { text: readFileSync(path, 'utf8'), origin };
  } catch (e) {
    return { reason: `could not read ${origin}: ${(e as Error).message}` };
  }
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** Each certificate of a PEM text, parsed; a reason when there is none or one does not parse. */
function certificates(m: Material): X509Certificate[] | { reason: string } {
  const blocks = m.text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) return { reason: `${m.origin} is not a PEM certificate (no "BEGIN CERTIFICATE" block)` };
  try {
    return blocks.map((b) => new X509Certificate(b));
  } catch (e) {
    return { reason: `${m.origin} is not a valid PEM certificate: ${(e as Error).message}` };
  }
}

function privateKey(m: Material, passphrase: Material | undefined): KeyObject | { reason: string } {
  try {
    return createPrivateKey(passphrase === undefined ? m.text : { key: m.text, passphrase: passphrase.text });
  } catch (e) {
    const msg = (e as Error).message;
    // OpenSSL's words for an encrypted key opened without (or with the wrong) password.
    if (/passphrase|bad decrypt|interrupted or cancelled/i.test(msg))
      return { reason: `${m.origin} is encrypted and ${passphrase === undefined ? 'no sslpassword was given' : `${passphrase.origin} does not open it`}` };
    return { reason: `${m.origin} is not a valid PEM private key: ${msg}` };
  }
}

type Resolved = { readonly tls: PostgresTls | null } | { readonly reason: string };

/**
 * The TLS setting of a source: its URL's SSL parameters merged with its
 * `ssl_configuration` (Note [Source SSL]); null when neither asks for SSL
 * handling (the URL is then used as it is), a reason when it cannot be used.
 */
export function resolveTls(databaseUrl: string, config: SslConfiguration | null | undefined, env: ResolveOptions['env']): Resolved {
  const url = urlOf(databaseUrl);
  const param = (name: string): string | undefined => url?.searchParams.get(name) ?? undefined;
  const fromUrl = url !== null && LIBPQ_SSL_PARAMETERS.some((p) => url.searchParams.has(p));
  if (!fromUrl && (config === null || config === undefined)) return { tls: null };

  const urlMode = param('sslmode');
  if (urlMode !== undefined && !(SSL_MODES as readonly string[]).includes(urlMode))
    return { reason: `invalid sslmode value in the database URL: "${urlMode}"` };
  const modes = [urlMode as SslMode | undefined, config?.sslmode].filter((m): m is SslMode => m !== undefined);
  // libpq's default mode is prefer.
  let mode: SslMode = modes.reduce<SslMode | undefined>((a, b) => (a === undefined ? b : stricter(a, b)), undefined) ?? 'prefer';
  // No SSL, so no certificate is read (neither does libpq).
  if (mode === 'disable' || mode === 'allow') return { tls: { mode } };

  const pick = (field: Field): Material | { reason: string } | undefined => {
    const v = config?.[field];
    if (v !== null && v !== undefined) return fromEnv(field, v, env);
    const p = param(field);
    if (p === undefined || p === '') return undefined;
    if (field === 'sslpassword') return { text: p, origin: "the database URL's sslpassword" };
    return fromFile(field, p);
  };
  const got: Partial<Record<Field, Material>> = {};
  let systemCa = false;
  for (const field of ['sslrootcert', 'sslcert', 'sslkey', 'sslpassword'] as const) {
    if (field === 'sslrootcert' && config?.sslrootcert == null && param('sslrootcert') === 'system') {
      // libpq 16: the system's trust store, and nothing weaker than verify-full.
      mode = 'verify-full';
      systemCa = true;
      continue;
    }
    const m = pick(field);
    if (m === undefined) continue;
    if ('reason' in m) return m;
    got[field] = m;
  }

  if (got.sslrootcert !== undefined) {
    const cas = certificates(got.sslrootcert);
    if ('reason' in cas) return cas;
  } else if (!systemCa && (mode === 'verify-ca' || mode === 'verify-full')) {
    return { reason: `sslmode "${mode}" needs a root certificate: set ssl_configuration.sslrootcert` };
  }
  if ((got.sslcert === undefined) !== (got.sslkey === undefined)) {
    return {
      reason: got.sslcert === undefined ? 'a client key (sslkey) needs its certificate (sslcert)' : 'a client certificate (sslcert) needs its key (sslkey)',
    };
  }
  if (got.sslcert !== undefined && got.sslkey !== undefined) {
    const certs = certificates(got.sslcert);
    if ('reason' in certs) return certs;
    const key = privateKey(got.sslkey, got.sslpassword);
    if ('reason' in key) return key;
    if (!certs[0]!.checkPrivateKey(key)) return { reason: `${got.sslkey.origin} is not the key of ${got.sslcert.origin}` };
  }
  return {
    tls: {
      mode,
      ...(got.sslrootcert === undefined ? {} : { ca: got.sslrootcert.text }),
      ...(systemCa ? { systemCa } : {}),
      ...(got.sslcert === undefined ? {} : { cert: got.sslcert.text }),
      ...(got.sslkey === undefined ? {} : { key: got.sslkey.text }),
      ...(got.sslpassword === undefined || got.sslkey === undefined ? {} : { passphrase: got.sslpassword.text }),
    },
  };
}

/** A digest of a TLS setting, for the pool key (the PEM texts and password stay out of it). */
export function tlsDigest(tls: PostgresTls | null): string | null {
  if (tls === null) return null;
  return createHash('sha256')
    .update(JSON.stringify([tls.mode, tls.ca, tls.systemCa, tls.cert, tls.key, tls.passphrase]))
    .digest('hex');
}

/**
 * What a node-postgres client or pool connects to `databaseUrl` with: the URL as it is without a
 * TLS setting; else the URL without its SSL parameters (node-postgres would let them replace
 * `ssl`) and the setting's `ssl` option.
 */
export function pgConnectionConfig(databaseUrl: string, tls: PostgresTls | null): { connectionString: string; ssl?: false | ConnectionOptions } {
  return tls === null ? { connectionString: databaseUrl } : { connectionString: withoutSslParameters(databaseUrl), ssl: pgSslOption(tls) };
}

/** node-postgres's `ssl` option for a TLS setting (Note [Source SSL]). */
export function pgSslOption(tls: PostgresTls): false | ConnectionOptions {
  if (tls.mode === 'disable' || tls.mode === 'allow') return false;
  const client: ConnectionOptions = {
    ...(tls.cert === undefined ? {} : { cert: tls.cert }),
    ...(tls.key === undefined ? {} : { key: tls.key }),
    ...(tls.passphrase === undefined ? {} : { passphrase: tls.passphrase }),
  };
  const trusted = tls.ca !== undefined || tls.systemCa === true;
  if ((tls.mode === 'prefer' || tls.mode === 'require') && !trusted) return { ...client, rejectUnauthorized: false };
  return {
    ...client,
    rejectUnauthorized: true,
    ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    // Only verify-full checks the host name; with a root certificate, prefer and require check as verify-ca.
    ...(tls.mode === 'verify-full' ? {} : { checkServerIdentity: () => undefined }),
  };
}

/** libpq's environment for a TLS setting (Note [Source SSL]), and the removal of its files. */
export async function libpqSslEnvironment(tls: PostgresTls): Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }> {
  const env: Record<string, string> = { PGSSLMODE: tls.mode };
  if (tls.mode === 'disable' || tls.mode === 'allow') return { env, cleanup: async () => {} };
  const dir = await mkdtemp(path.join(tmpdir(), 'engine-ssl-'));
  const cleanup = async (): Promise<void> => await rm(dir, { recursive: true, force: true });
  try {
    await chmod(dir, 0o700);
    const put = async (name: string, text: string): Promise<string> => {
      const file = path.join(dir, name);
      await writeFile(file, text, { mode: 0o600 });
      return file;
    };
    if (tls.ca !== undefined) env['PGSSLROOTCERT'] = await put('root.crt', tls.ca);
    else if (tls.systemCa === true) env['PGSSLROOTCERT'] = 'system';
    if (tls.cert !== undefined && tls.key !== undefined) {
      env['PGSSLCERT'] = await put('client.crt', tls.cert);
      const key =
        tls.passphrase === undefined
          ? tls.key
          : createPrivateKey({ key: tls.key, passphrase: tls.passphrase }).export({ type: 'pkcs8', format: 'pem' }).toString();
      env['PGSSLKEY'] = await put('client.key', key);
    }
    return { env, cleanup };
  } catch (e) {
    await cleanup();
    throw e;
  }
}

/**
 * What a client of the engine's own metadata database connects with: its
 * URL's libpq SSL parameters read as a source's are (`sslmode=require`
 * checks no certificate, as libpq and v2), never node-postgres's reading.
 * An invalid one throws, with the reason.
 */
export function metadataClientConfig(databaseUrl: string): { connectionString: string; ssl?: false | ConnectionOptions } {
  const r = resolveTls(databaseUrl, null, () => undefined);
  if ('reason' in r) throw new Error(`the metadata database URL: ${r.reason}`);
  return pgConnectionConfig(databaseUrl, r.tls);
}
