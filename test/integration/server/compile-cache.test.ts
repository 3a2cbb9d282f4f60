/**
 * `engine serve` keeps a module compile cache (Note [Module compile cache] in
 * engine/cli/compile-cache.ts): written once serving, in the operator's
 * NODE_COMPILE_CACHE when set, never in a directory others may write; a
 * directory that cannot be made, or damaged entries, never stop a start.
 */
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { spawnEngine, type EngineProcess } from '../../support/engine-process.ts';
import { eventually } from '../../support/eventually.ts';

let db: TestDatabase;
let work: string;
const running: EngineProcess[] = [];

/** The files under `dir` (none when it does not exist). */
async function filesIn(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

/** The engine answers a query on the tracked table. */
async function serves(p: EngineProcess): Promise<void> {
  const res = await fetch(`${p.url}/v1/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ city { name } }' }),
  });
  expect(await res.json()).toEqual({ data: { city: [{ name: 'Lyon' }] } });
}

async function start(env: Record<string, string>): Promise<EngineProcess> {
  const p = await spawnEngine(['--database-url', db.url], env);
  running.push(p);
  return p;
}

beforeAll(async () => {
  db = await createTestDatabase('compilecache');
  await db.sql('CREATE TABLE city (id serial PRIMARY KEY, name text NOT NULL); INSERT INTO city (name) VALUES ($$Lyon$$)');
  work = await mkdtemp(path.join(tmpdir(), 'engine-compile-cache-test-'));
  const p = await start({ XDG_CACHE_HOME: path.join(work, 'first') });
  await fetch(`${p.url}/v1/metadata`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'pg_track_table', args: { table: 'city' } }),
  });
  await p.stop('SIGTERM');
});

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop('SIGKILL')));
  await db?.drop();
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe('engine serve compile cache', () => {
  it("writes the cache in the user's cache directory once serving", async () => {
    const dir = path.join(work, 'xdg', 'engine', 'compile-cache');
    const p = await start({ XDG_CACHE_HOME: path.join(work, 'xdg') });
    await serves(p);
    // Still serving: the entries were written when the start was over, not only at exit.
    const files = await eventually(async () => (await filesIn(dir)).length > 100 && (await filesIn(dir)), {
      what: `compile cache entries in ${dir}`,
      context: () => p.stdout(),
    });
    expect(files.length).toBeGreaterThan(100);
    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it('serves from a damaged cache, and writes its entries again', async () => {
    const dir = path.join(work, 'xdg', 'engine', 'compile-cache');
    const files = await filesIn(dir);
    expect(files.length).toBeGreaterThan(100);
    // What a full disk or a crash mid-write could leave: Node checks each entry and compiles afresh.
    await Promise.all(files.map((f) => writeFile(f, 'damaged')));
    const p = await start({ XDG_CACHE_HOME: path.join(work, 'xdg') });
    await serves(p);
    expect(await p.stop('SIGTERM')).toBe(0);
    const rewritten = await Promise.all(files.map(async (f) => (await readFile(f, 'latin1')) !== 'damaged'));
    expect(rewritten.filter((r) => r).length).toBeGreaterThan(100);
  });

  it("uses the operator's NODE_COMPILE_CACHE instead", async () => {
    const own = path.join(work, 'operator-cache');
    const xdg = path.join(work, 'unused-xdg');
    const p = await start({ NODE_COMPILE_CACHE: own, XDG_CACHE_HOME: xdg });
    await serves(p);
    expect(await p.stop('SIGTERM')).toBe(0);
    expect((await filesIn(own)).length).toBeGreaterThan(100);
    expect(await filesIn(xdg)).toEqual([]);
  });

  it('serves without a cache when its directory cannot be made', async () => {
    // The temporary directory is a file: nothing can be made under it (as on a read-only filesystem).
    const notADir = path.join(work, 'a-file');
    await writeFile(notADir, 'not a directory');
    const p = await start({ TMPDIR: notADir });
    await serves(p);
    expect(await p.stop('SIGTERM')).toBe(0);
  });

  it('writes nothing in a cache directory other users may write', async () => {
    const dir = path.join(work, 'shared', 'engine', 'compile-cache');
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o777);
    const p = await start({ XDG_CACHE_HOME: path.join(work, 'shared') });
    await serves(p);
    // Exiting writes what a cache in use holds: nothing may be there after it.
    expect(await p.stop('SIGTERM')).toBe(0);
    expect(await filesIn(dir)).toEqual([]);
  });
});
