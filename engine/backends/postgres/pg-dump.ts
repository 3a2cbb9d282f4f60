/**
 * `pg_dump` of a postgres source, for `POST /v1alpha1/pg_dump` (v2's Hasura.Server.API.PGDump):
 * runs the `pg_dump` program on the source's database and answers its SQL text, cleaned when asked.
 *
 * Note [pg_dump arguments]
 * v2 passes the client's `opts` to pg_dump unchanged, so an admin could make the server write
 * files (`-f /path`, `--file`), run parallel jobs into a directory (`-j`), or point pg_dump at
 * another server (`-h`, `-d`, `--role`). The engine admits only the flags of an allow-list
 * ({@link ALLOWED_FLAGS}): what to dump (schemas, tables, data or schema only) and how the plain
 * SQL reads (no owner, no privileges, inserts, ...). Every other flag, and any bare argument, is
 * refused with `bad-request` at `$.opts[i]`. The connection is always the source's (`--dbname`
 * first, the password in `PGPASSWORD` rather than on the command line), the output always plain
 * SQL on stdout in UTF-8.
 *
 * Note [Which pg_dump]
 * pg_dump refuses a server of a newer major version than its own ("aborting because of server
 * version mismatch"), and the embedded PostgreSQL packages ship only initdb, pg_ctl and postgres.
 * So the candidates are `ENGINE_PG_DUMP_PATH` (when set, the only one), Debian's
 * `/usr/lib/postgresql/<major>/bin/pg_dump`, and `pg_dump` on PATH; each says its version
 * (`--version`, asked once per path), and the oldest whose major is at least the server's is run.
 * None: a 500 naming the server's version and the versions found.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { libpqSslEnvironment, pgConnectionConfig, withoutSslParameters, type PostgresTls } from './ssl.ts';

/** Flags without a value. */
const PLAIN_FLAGS: ReadonlySet<string> = new Set([
  '-a',
  '--data-only',
  '-s',
  '--schema-only',
  '-c',
  '--clean',
  '--if-exists',
  '-C',
  '--create',
  '-O',
  '--no-owner',
  '-x',
  '--no-privileges',
  '--no-acl',
  '--inserts',
  '--column-inserts',
  '--disable-triggers',
  '--disable-dollar-quoting',
  '--no-comments',
  '--no-publications',
  '--no-subscriptions',
  '--no-security-labels',
  '--no-tablespaces',
  '--no-table-access-method',
  '--no-unlogged-table-data',
  '--no-toast-compression',
  '--quote-all-identifiers',
  '--on-conflict-do-nothing',
  '--use-set-session-authorization',
  '--load-via-partition-root',
  '--enable-row-security',
  '--strict-names',
  '-b',
  '--blobs',
  '-B',
  '--no-blobs',
  '--large-objects',
  '--no-large-objects',
  '--serializable-deferrable',
]);

/** Flags that take a value (`--flag value`, `--flag=value`, `-nvalue`). */
const VALUE_FLAGS: ReadonlySet<string> = new Set([
  '-n',
  '--schema',
  '-N',
  '--exclude-schema',
  '-t',
  '--table',
  '-T',
  '--exclude-table',
  '--exclude-table-data',
  '--table-and-children',
  '--exclude-table-and-children',
  '--exclude-table-data-and-children',
  '-e',
  '--extension',
  '--exclude-extension',
  '--rows-per-insert',
  '--section',
  '--lock-wait-timeout',
]);

/** Every admitted flag (Note [pg_dump arguments]); exported for the README's list. */
export const ALLOWED_FLAGS: readonly string[] = [...PLAIN_FLAGS, ...VALUE_FLAGS];

/** The engine's own schemas (and v2's), left out of a cleaned dump. */
const OWN_SCHEMAS = ['engine_metadata', 'engine_events', 'engine_live', 'hdb_catalog'] as const;

/** Checks `opts` against the allow-list; answers them unchanged. */
export function checkDumpOptions(opts: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < opts.length; i++) {
    const o = opts[i] ?? '';
    const refuse = (why: string): never => {
      throw new EngineError(ErrorCode.BadRequest, why, { path: `$.opts[${i}]` });
    };
    const eq = o.startsWith('--') ? o.indexOf('=') : -1;
    const flag = eq > 0 ? o.slice(0, eq) : o;
    if (PLAIN_FLAGS.has(flag) && eq < 0) out.push(o);
    else if (VALUE_FLAGS.has(flag)) {
      out.push(o);
      if (eq < 0) {
        if (i + 1 >= opts.length) refuse(`pg_dump option "${o}" needs a value`);
        out.push(opts[++i] ?? '');
      }
    } else if (/^-[nNtTe]./.test(o)) out.push(o);
    else if (!o.startsWith('-')) refuse(`pg_dump argument "${o}" is not an option: the database is the source's`);
    else refuse(`pg_dump option "${flag}" is not allowed; allowed: ${ALLOWED_FLAGS.join(' ')}`);
  }
  return out;
}

/** v2's clean_output: no empty lines, comments, front-matter SETs, or event-trigger triggers. */
export function cleanDump(sql: string): string {
  const trigger =
    /^CREATE TRIGGER "?notify_(hasura|engine)_.+"? AFTER [A-Za-z0-9]+ ON .+ FOR EACH (ROW|STATEMENT) EXECUTE (FUNCTION|PROCEDURE) "?(hdb_views|engine_events)"?\."?notify_.+"?\(\);$/;
  const keep = (line: string): boolean =>
    line.trim() !== '' &&
    !line.startsWith('--') &&
    !/^SET [a-z_]+ = .*;$/.test(line) &&
    line !== "SELECT pg_catalog.set_config('search_path', '', false);" &&
    line !== 'CREATE SCHEMA public;' &&
    line !== "COMMENT ON SCHEMA public IS 'standard public schema';" &&
    !line.startsWith('\\restrict ') &&
    !line.startsWith('\\unrestrict ') &&
    !trigger.test(line);
  return sql
    .split('\n')
    .filter(keep)
    .map((l) => `${l}\n`)
    .join('');
}

/** The engine's environment (the caller's `resolveEnv`). */
export type Env = (name: string) => string | undefined;

const versions = new Map<string, Promise<number | null>>();

/** The major version `pg_dump --version` prints; null when it does not run. */
function majorOf(bin: string): Promise<number | null> {
  let v = versions.get(bin);
  if (v === undefined) {
    v = new Promise((resolve) => {
      execFile(bin, ['--version'], { timeout: 10_000 }, (err, stdout) => {
        const m = /\(PostgreSQL\)\s+(\d+)/.exec(String(stdout));
        resolve(err === null && m !== null ? Number(m[1]) : null);
      });
    });
    versions.set(bin, v);
  }
  return v;
}

/** The pg_dump programs to choose from (Note [Which pg_dump]). */
function candidates(env: Env): string[] {
  const given = env('ENGINE_PG_DUMP_PATH');
  if (given !== undefined && given !== '') return [given];
  const out: string[] = [];
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    for (const d of readdirSync(debian)) {
      const p = path.join(debian, d, 'bin', 'pg_dump');
      if (existsSync(p)) out.push(p);
    }
  }
  for (const dir of (env('PATH') ?? '').split(path.delimiter)) {
    const p = path.join(dir, 'pg_dump');
    if (dir !== '' && existsSync(p)) out.push(p);
  }
  return out;
}

/** The pg_dump for a server of major version `server`. */
export async function choosePgDump(server: number, env: Env): Promise<{ bin: string; major: number }> {
  const found: Array<{ bin: string; major: number }> = [];
  for (const bin of candidates(env)) {
    const major = await majorOf(bin);
    if (major !== null) found.push({ bin, major });
  }
  const fit = found.filter((f) => f.major >= server).sort((a, b) => a.major - b.major)[0];
  if (fit !== undefined) return fit;
  const have = found.length === 0 ? 'none was found' : `found: ${[...new Set(found.map((f) => f.major))].join(', ')}`;
  throw new EngineError(
    ErrorCode.Unexpected,
    `error while executing pg_dump: the database is PostgreSQL ${server} and needs a pg_dump of version ${server} or newer (${have}); install it, or set ENGINE_PG_DUMP_PATH`,
    { status: 500 },
  );
}

/** The server's major version. */
async function serverMajor(url: string, tls: PostgresTls | null): Promise<number> {
  const client = new pg.Client({ ...pgConnectionConfig(url, tls), connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    const r = await client.query<{ v: string }>("SELECT current_setting('server_version_num') AS v");
    return Math.floor(Number(r.rows[0]?.v ?? '0') / 10_000);
  } catch (e) {
    throw new EngineError(ErrorCode.Unexpected, `error while executing pg_dump: cannot reach the database: ${(e as Error).message}`, { status: 500 });
  } finally {
    await client.end().catch(() => {});
  }
}

/** The URL without its password, and the password (given to pg_dump in its environment). */
function splitPassword(url: string): { url: string; password: string | undefined } {
  try {
    const u = new URL(url);
    if (u.password === '') return { url, password: undefined };
    const password = decodeURIComponent(u.password);
    u.password = '';
    return { url: u.toString(), password };
  } catch {
    return { url, password: undefined };
  }
}

/**
 * Runs pg_dump on the database at `url` with checked `opts`; answers its SQL text. With a TLS
 * setting (`tls`), pg_dump gets it as libpq's environment (Note [Source SSL] in ssl.ts).
 */
export async function pgDump(url: string, opts: readonly string[], clean: boolean, envOf: Env, tls: PostgresTls | null = null): Promise<string> {
  const args = checkDumpOptions(opts);
  const { bin } = await choosePgDump(await serverMajor(url, tls), envOf);
  const conn = splitPassword(tls === null ? url : withoutSslParameters(url));
  const own = clean ? OWN_SCHEMAS.map((s) => `--exclude-schema=${s}`) : [];
  const ssl = tls === null ? null : await libpqSslEnvironment(tls);
  const env: NodeJS.ProcessEnv = { PATH: envOf('PATH') ?? '', ...(conn.password === undefined ? {} : { PGPASSWORD: conn.password }), ...ssl?.env };
  const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(bin, [`--dbname=${conn.url}`, '--encoding=utf8', '--no-password', ...args, ...own], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.once('error', reject);
    child.once('close', (c) => resolve({ code: c, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  })
    .catch((e: unknown) => {
      throw new EngineError(ErrorCode.Unexpected, `internal exception while executing pg_dump: ${(e as Error).message}`, { status: 500 });
    })
    .finally(() => ssl?.cleanup());
  if (code !== 0) throw new EngineError(ErrorCode.Unexpected, `error while executing pg_dump: ${stderr.trim()}`, { status: 500 });
  return clean ? cleanDump(stdout) : stdout;
}
