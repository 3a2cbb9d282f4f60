/**
 * Packages only some engines use load on first use, not with the engine's
 * module graph (Note [HTTP client on first use] in engine/undici.ts; jose
 * with JWT mode in engine/auth/resolve-session.ts): importing what `engine
 * serve` imports before it starts loads neither.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The package names of every module a fresh Node process loads while importing engine/run-cli.ts. */
async function packagesLoadedByImport(): Promise<Set<string>> {
  const hook = `
    import { registerHooks } from 'node:module';
    const seen = new Set();
    registerHooks({ load(url, ctx, next) { const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(url); if (m) seen.add(m[1]); return next(url, ctx); } });
    process.on('exit', () => process.stdout.write(JSON.stringify([...seen])));
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', `data:text/javascript,${encodeURIComponent(hook)}`, '--input-type=module', '-e', "await import('./engine/run-cli.ts');"],
    { cwd: root, env: { PATH: process.env['PATH'] ?? '' } },
  );
  return new Set(JSON.parse(stdout) as string[]);
}

describe('engine start-up modules', () => {
  // A whole engine module graph loads in a child process: seconds on a busy machine.
  it('loads neither undici nor jose with the engine, and does load its server and GraphQL packages', { timeout: 60_000 }, async () => {
    const loaded = await packagesLoadedByImport();
    // The hook sees the engine's graph: a check that it works at all.
    expect(loaded.has('fastify')).toBe(true);
    expect(loaded.has('graphql')).toBe(true);
    expect(loaded.has('undici')).toBe(false);
    expect(loaded.has('jose')).toBe(false);
  });
});
