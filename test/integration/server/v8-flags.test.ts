/**
 * `engine serve` runs with the engine's V8 flags (Note [Engine V8 settings]
 * in engine/cli/v8-flags.ts): the entry point re-executes itself, keeping its
 * pid, unless the operator set the flag, and with NODE_ENV=production unless
 * the operator set NODE_ENV (Note [graphql-js production mode]).
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { spawnEngine, type EngineProcess } from '../../support/engine-process.ts';

let db: TestDatabase;
const running: EngineProcess[] = [];

/** The command line process `pid` runs now (after any execve). */
async function cmdline(pid: number | undefined): Promise<string[]> {
  if (pid === undefined) throw new Error('no pid');
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter((a) => a !== '');
}

/** The environment process `pid` was given by its last execve (Note [graphql-js production mode]). */
async function environ(pid: number | undefined): Promise<Record<string, string>> {
  if (pid === undefined) throw new Error('no pid');
  const entries = (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0').filter((a) => a !== '');
  return Object.fromEntries(entries.map((e) => [e.slice(0, e.indexOf('=')), e.slice(e.indexOf('=') + 1)]));
}

beforeAll(async () => {
  db = await createTestDatabase('v8flags');
  await db.sql('CREATE TABLE city (id serial PRIMARY KEY, name text NOT NULL); INSERT INTO city (name) VALUES ($$Lyon$$)');
});

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop('SIGKILL')));
  await db?.drop();
});

describe.skipIf(process.platform !== 'linux')('engine V8 flags', () => {
  it('serves from the spawned pid with --max-semi-space-size, and stops on SIGTERM', async () => {
    const p = await spawnEngine(['--database-url', db.url]);
    running.push(p);
    const args = await cmdline(p.child.pid);
    // node <flags> .../engine/main.ts serve ...: the flag comes before the script.
    const script = args.findIndex((a) => a.endsWith('engine/main.ts'));
    for (const flag of ['--max-semi-space-size=16', '--min-semi-space-size=16', '--no-memory-reducer']) {
      expect(args.indexOf(flag)).toBeGreaterThan(0);
      expect(args.indexOf(flag)).toBeLessThan(script);
    }
    expect(args[script + 1]).toBe('serve');
    await fetch(`${p.url}/v1/metadata`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'pg_track_table', args: { table: 'city' } }),
    });
    const res = await fetch(`${p.url}/v1/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ city { name } }' }),
    });
    expect(await res.json()).toEqual({ data: { city: [{ name: 'Lyon' }] } });
    // Signals reach the engine itself (same pid): a graceful close exits 0.
    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it("keeps the operator's own value from NODE_OPTIONS and adds only the other flag", async () => {
    // (Node refuses --min-semi-space-size in NODE_OPTIONS; an operator gives it on the command line.)
    const p = await spawnEngine(['--database-url', db.url], { NODE_OPTIONS: '--max-semi-space-size=4' });
    running.push(p);
    const args = await cmdline(p.child.pid);
    expect(args.filter((a) => a.includes('semi-space-size'))).toEqual(['--min-semi-space-size=16']);
    expect(args[args.indexOf('--no-memory-reducer') + 1]?.endsWith('engine/main.ts')).toBe(true);
  });

  it("serves with glibc's mmap threshold fixed unless the operator set it (Note [Engine malloc settings])", async () => {
    const unset = await spawnEngine(['--database-url', db.url]);
    running.push(unset);
    expect((await environ(unset.child.pid))['MALLOC_MMAP_THRESHOLD_']).toBe('131072');
    // The flag given, the variable not: the process is still re-executed for the variable.
    const own = await spawnEngine(['--database-url', db.url], { MALLOC_MMAP_THRESHOLD_: '65536', NODE_OPTIONS: '--max-semi-space-size=8' });
    running.push(own);
    expect((await environ(own.child.pid))['MALLOC_MMAP_THRESHOLD_']).toBe('65536');
    const flagOnly = await spawnEngine(['--database-url', db.url], { NODE_OPTIONS: '--max-semi-space-size=8' });
    running.push(flagOnly);
    expect((await environ(flagOnly.child.pid))['MALLOC_MMAP_THRESHOLD_']).toBe('131072');
    expect(await unset.stop('SIGTERM')).toBe(0);
    expect(await own.stop('SIGTERM')).toBe(0);
    expect(await flagOnly.stop('SIGTERM')).toBe(0);
  });

  it('serves with NODE_ENV=production unless the operator set NODE_ENV', async () => {
    const unset = await spawnEngine(['--database-url', db.url]);
    running.push(unset);
    expect((await environ(unset.child.pid))['NODE_ENV']).toBe('production');
    const own = await spawnEngine(['--database-url', db.url], { NODE_ENV: 'development' });
    running.push(own);
    expect((await environ(own.child.pid))['NODE_ENV']).toBe('development');
    expect(await unset.stop('SIGTERM')).toBe(0);
    expect(await own.stop('SIGTERM')).toBe(0);
  });
});
