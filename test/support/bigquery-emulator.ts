/**
 * A real BigQuery API emulator for the BigQuery backend's tests: bqemulator
 * (PyPI; REST API over DuckDB, GoogleSQL translated by SQLGlot), installed
 * by the test itself into a venv under ~/.cache/engine-tools (pinned
 * versions, so a clean clone and CI get the same one), started on a free
 * loopback port, stopped with the test file.
 *
 * Note [BigQuery emulator]
 * bqemulator loads DuckDB's `spatial` extension at start (GEOGRAPHY) and
 * downloads it when missing; no such download is possible here, so the
 * launcher skips that step: GEOGRAPHY columns and ST_* functions are then
 * unavailable, nothing else changes. It also needs numpy, which it does not
 * declare. Known differences from BigQuery that the tests work around: an
 * unquoted column named like a DuckDB keyword (`at`) fails, a REPEATED field
 * that was never set reads as null (BigQuery: []), and jobs.query answers a
 * failed query with HTTP 200 and `errors` (the backend uses jobs.insert),
 * `SELECT AS STRUCT *` from a table-valued function fails (`_f.*` answers no
 * rows; the backend selects the row alias), a `RETURNS TABLE<...>` function
 * reads back with `returnType: {typeKind: "TABLE<...>"}` and no
 * `returnTableType` (so it looks declared without one), and
 * a job is done before jobs.insert answers, so jobs.cancel never cancels
 * anything (Note [Cancelling BigQuery jobs on the emulator]).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';

const PINS = ['bqemulator==1.4.0', 'duckdb==2.0.1', 'numpy==2.4.6', 'sqlglot==30.11.0'];
const DIR = path.join(homedir(), '.cache', 'engine-tools', 'bqemulator-1.4.0');

const LAUNCHER = `import sys
from bqemulator.storage import engine
# Note [BigQuery emulator]: the spatial extension cannot be downloaded here.
engine.DuckDBEngine._load_spatial = lambda self: None
from bqemulator.cli import main
sys.argv = ["bqemulator", *sys.argv[1:]]
main()
`;

/** A running emulator. */
export interface BigQueryEmulator {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  stop(): Promise<void>;
}

/** Why the emulator cannot run here (no python3), or null. */
export function emulatorUnavailable(): string | null {
  const r = spawnSync('python3', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? null : 'python3 is not installed: the BigQuery emulator (bqemulator, PyPI) cannot run';
}

function install(): string {
  const python = path.join(DIR, 'venv', 'bin', 'python');
  const stamp = path.join(DIR, `installed-${PINS.join('_')}`);
  if (!existsSync(stamp)) {
    mkdirSync(DIR, { recursive: true });
    const venv = spawnSync('python3', ['-m', 'venv', path.join(DIR, 'venv')], { encoding: 'utf8' });
    if (venv.status !== 0) throw new Error(`python3 -m venv failed: ${venv.stderr}`);
    const pip = spawnSync(python, ['-m', 'pip', 'install', '--quiet', ...PINS], { encoding: 'utf8', timeout: 900_000 });
    if (pip.status !== 0) throw new Error(`pip install ${PINS.join(' ')} failed: ${pip.stderr}`);
    writeFileSync(stamp, '');
  }
  writeFileSync(path.join(DIR, 'launch.py'), LAUNCHER);
  return python;
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a !== null ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Installs (once) and starts an emulator whose default project is `project`. */
export async function startBigQueryEmulator(project: string): Promise<BigQueryEmulator> {
  const python = install();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child: ChildProcess = spawn(
    python,
    [path.join(DIR, 'launch.py'), 'start', '--rest-port', String(port), '--grpc-port', '0', '--project', project, '--log-level', 'error'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the BigQuery emulator exited (${child.exitCode}): ${output}`);
    try {
      const r = await fetch(`${url}/bigquery/v2/projects/${project}/datasets`);
      if (r.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the BigQuery emulator did not start in 120 s: ${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * An HTTP proxy in front of an emulator that logs every request (`METHOD /path`) and can hold the
 * answer of one job's results (jobs.getQueryResults) until that job is cancelled.
 *
 * Note [Cancelling BigQuery jobs on the emulator]
 * bqemulator runs a job inside jobs.insert: the job is DONE before a client could cancel it, and
 * its jobs.cancel only answers the job's state. A job that is still running is therefore made by
 * holding the emulator's real answer to the results poll here; what the engine does meanwhile (a
 * jobs.cancel of that job when its request is cancelled) is then what the proxy logs.
 */
export interface EmulatorProxy {
  /** `http://127.0.0.1:<port>`, to use as BIGQUERY_EMULATOR_HOST. */
  readonly url: string;
  /** Requests so far, as `METHOD /path` (no query string). */
  readonly log: readonly string[];
  /** Holds the results of the next job polled, until it is cancelled; resolves to its job id once held. */
  holdNextResults(): Promise<string>;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Starts an {@link EmulatorProxy} in front of `emulatorUrl`. */
export async function startEmulatorProxy(emulatorUrl: string): Promise<EmulatorProxy> {
  const log: string[] = [];
  let hold: { readonly held: (jobId: string) => void } | null = null;
  const cancelled = new Map<string, () => void>();
  const server = createHttpServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const url = req.url ?? '/';
      const pathname = url.split('?')[0] ?? url;
      log.push(`${req.method ?? 'GET'} ${pathname}`);
      const cancel = /\/jobs\/([^/]+)\/cancel$/.exec(pathname);
      if (cancel?.[1] !== undefined) cancelled.get(cancel[1])?.();
      const upstream = await fetch(emulatorUrl + url, {
        method: req.method ?? 'GET',
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        ...(body.length > 0 ? { body } : {}),
      });
      const answer = Buffer.from(await upstream.arrayBuffer());
      const results = req.method === 'GET' ? /\/queries\/([^/]+)$/.exec(pathname) : null;
      const jobId = results?.[1];
      if (jobId !== undefined && hold !== null) {
        const { held } = hold;
        hold = null;
        await new Promise<void>((release) => {
          cancelled.set(jobId, release);
          held(jobId);
        });
      }
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(answer);
    })().catch((e: unknown) => {
      res.writeHead(502);
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const a = server.address();
  const port = typeof a === 'object' && a !== null ? a.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    holdNextResults: () => new Promise<string>((held) => (hold = { held })),
    close: async () => {
      for (const release of cancelled.values()) release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
