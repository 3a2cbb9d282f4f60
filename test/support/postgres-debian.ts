/**
 * A PostgreSQL server from the system's packages (Debian's postgresql-<major>, installed by
 * .ci/run), for tests that need a server the system's client programs (pg_dump) accept: pg_dump
 * refuses a server newer than itself, and the run's embedded server is newer than Debian's
 * client. Runs as the `postgres` user when the tests run as root (PostgreSQL refuses root).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './engine-process.ts';

const ROOT = '/usr/lib/postgresql';

/** The newest installed server's bin folder and major version; null when none is installed. */
export function systemPostgres(): { bin: string; major: number } | null {
  if (!existsSync(ROOT)) return null;
  const majors = readdirSync(ROOT)
    .filter((d) => /^\d+$/.test(d) && ['postgres', 'initdb', 'pg_dump'].every((b) => existsSync(path.join(ROOT, d, 'bin', b))))
    .map(Number)
    .sort((a, b) => b - a);
  const major = majors[0];
  return major === undefined ? null : { bin: path.join(ROOT, String(major), 'bin'), major };
}

/** A running system server. */
export interface SystemServer {
  readonly major: number;
  /** postgres://… of the superuser on the `postgres` database. */
  readonly adminUrl: string;
  stop(): Promise<void>;
}

/** Starts the newest system PostgreSQL on a free port with a throw-away data folder. */
export async function startSystemPostgres(): Promise<SystemServer> {
  const found = systemPostgres();
  if (found === null) throw new Error(`no PostgreSQL server under ${ROOT}: install Debian's postgresql package (.ci/run does)`);
  const dir = await mkdtemp(path.join(tmpdir(), 'engine-test-syspg-'));
  await chmod(dir, 0o777);
  const asRoot = process.getuid?.() === 0;
  const ids = asRoot ? { uid: Number(execFileSync('id', ['-u', 'postgres']).toString()), gid: Number(execFileSync('id', ['-g', 'postgres']).toString()) } : {};
  const password = 'engine-test';
  const pwfile = path.join(dir, 'pw');
  await writeFile(pwfile, password);
  if (ids.uid !== undefined) await chown(pwfile, ids.uid, ids.gid ?? 0);
  const data = path.join(dir, 'data');
  execFileSync(path.join(found.bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'scram-sha-256', `--pwfile=${pwfile}`, '--no-sync'], {
    ...ids,
    stdio: 'ignore',
  });
  const port = await freePort();
  const child: ChildProcess = spawn(
    path.join(found.bin, 'postgres'),
    ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off'],
    { ...ids, stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const adminUrl = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const c = new pg.Client({ connectionString: adminUrl });
    try {
      await c.connect();
      await c.end();
      break;
    } catch (e) {
      await c.end().catch(() => {});
      if (child.exitCode !== null || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`PostgreSQL ${found.major} did not start: ${(e as Error).message}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    major: found.major,
    adminUrl,
    async stop() {
      if (child.exitCode === null) child.kill('SIGINT');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
