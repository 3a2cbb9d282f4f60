/**
 * The committed console build without build tools (Note [Committed console
 * build]): a copy of the engine's console folder and lock file outside any
 * node_modules, as `npm ci --omit=dev` leaves it (no esbuild, React or
 * GraphiQL to resolve). Its postinstall step keeps the committed dist/, says
 * so when the sources moved on, `--check` (CI's) refuses a stale one, and the
 * server's loader reads the copy's files.
 */
import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildConsole, consoleBuildIsStale } from '../../../engine/console/build.ts';
import { loadConsoleAssets } from '../../../engine/console/assets.ts';
import { CONSOLE_DIST, CONSOLE_SRC } from '../../../engine/console/paths.ts';

const run = promisify(execFile);
const REPO = path.resolve(CONSOLE_SRC, '..', '..', '..');
let root: string;
let consoleDir: string;

/** Runs the copy's build.ts with `args`: exit code and output. */
async function build(...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(consoleDir, 'build.ts'), ...args], { cwd: root, timeout: 60_000 });
    return { code: 0, out: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : -1, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
  }
}

beforeAll(async () => {
  if (consoleBuildIsStale()) await buildConsole();
  root = mkdtempSync(path.join(tmpdir(), 'engine-console-'));
  // Nothing above the copy may hold the build tools, or the copy would find them.
  for (let dir = root; dir !== path.dirname(dir); dir = path.dirname(dir)) expect(existsSync(path.join(dir, 'node_modules', 'esbuild'))).toBe(false);
  consoleDir = path.join(root, 'engine', 'console');
  cpSync(path.join(REPO, 'package-lock.json'), path.join(root, 'package-lock.json'));
  for (const f of ['build.ts', 'paths.ts', 'assets.ts']) cpSync(path.join(CONSOLE_SRC, '..', f), path.join(consoleDir, f));
  cpSync(CONSOLE_SRC, path.join(consoleDir, 'src'), { recursive: true });
  cpSync(CONSOLE_DIST, path.join(consoleDir, 'dist'), { recursive: true });
}, 180_000);

afterAll(() => {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe('the committed console build without build tools', () => {
  it('is kept as is by the postinstall step and passes the check', async () => {
    const index = readFileSync(path.join(consoleDir, 'dist', 'index.html'), 'utf8');
    const postinstall = await build('--if-tools');
    expect(postinstall).toEqual({ code: 0, out: '' });
    expect(readFileSync(path.join(consoleDir, 'dist', 'index.html'), 'utf8')).toBe(index);
    expect(await build('--check')).toEqual({ code: 0, out: expect.stringContaining('is current') });
  });

  it('is what the server loads: the page and every asset it names, precompressed', () => {
    const assets = loadConsoleAssets(path.join(consoleDir, 'dist'));
    const page = assets.get('')?.body.toString('utf8') ?? '';
    const named = [...page.matchAll(/assets\/[\w.-]+/g)].map((m) => m[0]);
    expect(named.length).toBeGreaterThanOrEqual(2);
    for (const name of named) {
      const file = assets.get(name);
      expect(file, name).toBeDefined();
      expect(file?.br, name).not.toBeNull();
      expect(file?.gzip, name).not.toBeNull();
    }
  });

  it('once its sources changed: the postinstall step says so and keeps the old build, the check fails', async () => {
    appendFileSync(path.join(consoleDir, 'src', 'main.tsx'), '\n// an edit\n');
    const postinstall = await build('--if-tools');
    expect(postinstall.code).toBe(0);
    expect(postinstall.out).toMatch(/older than the console's sources and the build tools are not installed/);
    expect(existsSync(path.join(consoleDir, 'dist', 'index.html'))).toBe(true);
    const check = await build('--check');
    expect(check.code).toBe(1);
    expect(check.out).toMatch(/was not built from the current sources: run `npm run build:console`/);
  });
});
