/**
 * Deployment traps (issue 29, point 8), with real processes: `engine serve`
 * on a port another process holds, and `npm start` stopped by a SIGTERM sent
 * to npm's own process (what a process manager or a CI job does).
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/engine-process.ts';
import { eventually } from '../../support/eventually.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const cleanups: Array<() => Promise<void>> = [];

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** Whether something accepts connections on 127.0.0.1:`port`. */
async function listening(port: number): Promise<boolean> {
  return await new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

describe('engine serve on a port in use', () => {
  let db: TestDatabase;

  it('exits non-zero with one line saying what to do, and no stack trace or listener warning', async () => {
    db = await createTestDatabase('portinuse');
    cleanups.push(() => db.drop());
    const port = await freePort();
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
    const r = spawnSync(process.execPath, ['engine/main.ts', 'serve', '--server-host', '127.0.0.1'], {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '', ENGINE_GRAPHQL_DATABASE_URL: db.url, ENGINE_GRAPHQL_SERVER_PORT: String(port) },
      timeout: 60_000,
    });
    expect(r.status, r.stdout + r.stderr).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      `engine failed to start: port ${port} on 127.0.0.1 is already in use: stop the other process, or pick another port with --server-port or ENGINE_GRAPHQL_SERVER_PORT`,
    ]);
    expect(r.stdout + r.stderr).not.toContain('listener lost');
    expect(r.stdout + r.stderr).not.toContain('EADDRINUSE');
    expect(r.stdout + r.stderr).not.toMatch(/"stack"|at .*\.ts:\d+/);
  }, 90_000);
});

describe('npm start stopped by SIGTERM to npm itself', () => {
  it('stops the engine and its PostgreSQL: both ports close', async () => {
    const data = await mkdtemp(path.join(tmpdir(), 'engine-npm-sigterm-'));
    // As root, PostgreSQL runs as the postgres user, which must reach the folder.
    await chmod(data, 0o777);
    cleanups.push(() => rm(data, { recursive: true, force: true }));
    const [pgPort, httpPort] = [await freePort(), await freePort()];
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: root,
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? tmpdir(),
        ENGINE_DEV_DATA_DIR: data,
        ENGINE_DEV_PG_PORT: String(pgPort),
        ENGINE_GRAPHQL_SERVER_PORT: String(httpPort),
        ENGINE_GRAPHQL_ENABLE_CONSOLE: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    npm.stdout.on('data', (c: Buffer) => (out += c.toString()));
    npm.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    // Whatever happens, nothing of this start outlives the test: the processes whose command line or
    // environment names its data folder (the engine, PostgreSQL) are killed by their ids.
    cleanups.push(async () => {
      for (const pid of await readdir('/proc').catch(() => [] as string[])) {
        if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
        const named = await Promise.all(['cmdline', 'environ'].map((f) => readFile(`/proc/${pid}/${f}`, 'utf8').catch(() => '')));
        if (named.some((t) => t.includes(data))) {
          try {
            process.kill(Number(pid), 'SIGKILL');
          } catch {
            // already gone
          }
        }
      }
    });
    const output = (): string => out;
    await eventually(() => out.includes(`GraphQL: http://127.0.0.1:${httpPort}/v1/graphql`), {
      what: 'npm start to serve',
      timeoutMs: 180_000,
      intervalMs: 100,
      context: output,
    });
    expect(await listening(pgPort)).toBe(true);
    expect(npm.pid).toBeDefined();
    process.kill(npm.pid as number, 'SIGTERM');
    await eventually(async () => !(await listening(httpPort)), { what: 'the engine port to close', timeoutMs: 30_000, intervalMs: 100, context: output });
    await eventually(async () => !(await listening(pgPort)), { what: 'the PostgreSQL port to close', timeoutMs: 30_000, intervalMs: 100, context: output });
    await exited;
  }, 240_000);
});
