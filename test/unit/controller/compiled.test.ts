/**
 * Note [Compiled controller]: the image runs the controller compiled by
 * controller/tsconfig.build.json. This builds it into a scratch directory of the checkout (so
 * node_modules resolves) and starts the compiled entry point with type stripping turned off: every
 * module of its graph must be JavaScript with rewritten imports, and it must get as far as looking
 * for credentials.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const out = path.join(root, '.test-data', `controller-js-${process.pid}`);

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? jsFiles(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe('the compiled controller', () => {
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('builds with controller/tsconfig.build.json and starts without type stripping', { timeout: 120_000 }, () => {
    mkdirSync(out, { recursive: true });
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const build = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'controller', 'tsconfig.build.json'), '--outDir', out], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(build.stdout + build.stderr).toBe('');
    expect(build.status).toBe(0);
    const files = jsFiles(out);
    expect(files.every((f) => f.endsWith('.js'))).toBe(true);
    expect(files.some((f) => f.endsWith(path.join('engine', 'model', 'document.js')))).toBe(true);
    for (const f of files) expect(readFileSync(f, 'utf8')).not.toMatch(/from '\.{1,2}\/[^']*\.ts'/);

    const main = path.join(out, 'controller', 'main.js');
    expect(existsSync(main)).toBe(true);
    const home = path.join(out, 'home');
    mkdirSync(home);
    const run = spawnSync(process.execPath, ['--no-experimental-strip-types', main], {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '', HOME: home },
      timeout: 30_000,
    });
    expect(run.stderr).toContain('no Kubernetes credentials');
    expect(run.status).toBe(1);
  });
});
