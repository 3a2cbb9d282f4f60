/**
 * Issue 12, point 2: distinct big queries must not exhaust the engine's memory
 * through the plan cache (it was bounded by entries, not bytes).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { spawnEngine, type EngineProcess } from '../../support/engine-process.ts';

let db: TestDatabase;
let engine: EngineProcess | undefined;

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) / 1024;
}

async function post(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as unknown };
}

/** A distinct query of `aliases` root fields (about 13 bytes each). */
function bigQuery(n: number, aliases: number): string {
  let q = `query Q${n} {`;
  for (let i = 0; i < aliases; i++) q += ` a${i}:city{id}`;
  return `${q} }`;
}

beforeAll(async () => {
  db = await createTestDatabase('pcm');
  await db.sql('CREATE TABLE city (id serial PRIMARY KEY, name text NOT NULL); INSERT INTO city (name) VALUES ($$Lyon$$)');
});

afterAll(async () => {
  await engine?.stop('SIGKILL');
  await db?.drop();
});

describe('plan cache memory', () => {
  it('stays up with bounded RSS under many distinct big queries', async () => {
    // A small heap, so that an unbounded cache would kill the process within the test
    // (on the entry-bounded cache it died at the 11th 4,000-alias query with this heap).
    engine = await spawnEngine(['--database-url', db.url, '--plan-cache-size-mb', '4'], { NODE_OPTIONS: '--max-old-space-size=256' });
    const url = `${engine.url}/v1/graphql`;
    expect((await post(`${engine.url}/v1/metadata`, { type: 'pg_track_table', args: { table: 'city' } })).body).toEqual({ message: 'success' });
    const pid = engine.child.pid ?? 0;
    const before = rssMiB(pid);
    // The attack of issue 12: distinct 4,000-alias queries (8,000 fields), refused before planning.
    for (let i = 0; i < 60; i++) {
      const r = await post(url, { query: bigQuery(i, 4000) });
      expect(r).toEqual({ status: 200, body: { errors: [{ message: 'field limit of 5000 exceeded', extensions: { path: '$', code: 'validation-failed' } }] } });
    }
    // Distinct big queries that succeed are cached within the byte budget (4 MiB: about 25 of these).
    for (let i = 0; i < 60; i++) {
      const r = await post(url, { query: bigQuery(i, 100) });
      expect(r.status).toBe(200);
      expect(r.body).toHaveProperty(['data', 'a99'], [{ id: 1 }]);
    }
    const after = rssMiB(pid);
    expect(engine.child.exitCode).toBeNull();
    expect((await post(url, { query: '{ city { name } }' })).body).toEqual({ data: { city: [{ name: 'Lyon' }] } });
    // Generous: the engine's own RSS is about 130 MiB; a retained 4,000-alias query cost 3.8 MB or more.
    expect(after - before).toBeLessThan(150);
  }, 120_000);
});
