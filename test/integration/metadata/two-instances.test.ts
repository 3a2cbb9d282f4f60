/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { BASE_SCHEMA } from '../../support/metadata-schema.ts';

let db: TestDatabase;
let a: TestEngine;
let b: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase('md2');
  await db.sql(BASE_SCHEMA);
  // Both start at once on a fresh metadata database: schema creation must not race.
  [a, b] = await Promise.all([startTestEngine({ databaseUrl: db.url }), startTestEngine({ databaseUrl: db.url })]);
});
afterAll(async () => {
  await a?.close();
  await b?.close();
  await db?.drop();
});

async function waitFor(check: () => boolean, ms = 1500): Promise<number> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`not seen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - start;
}

const tablesOf = (e: TestEngine) => e.engine.metadata.catalogRef.current.sources.get('default')?.tables;

describe('two engine instances on one metadata database', () => {
  it('a change in one is visible in the other within a second', async () => {
    expect((await a.metadata({ type: 'pg_track_table', args: { table: 'authors' } })).status).toBe(200);
    await waitFor(() => tablesOf(b)?.has('public.authors') === true, 1000);
    const exported = await b.metadata({ type: 'export_metadata', version: 2, args: {} });
    expect((exported.body as any).resource_version).toBe(2);
    expect((await b.metadata({ type: 'pg_track_table', args: { table: 'articles' } })).status).toBe(200);
    await waitFor(() => tablesOf(a)?.has('public.articles') === true, 1000);
  });

  it('run_sql DDL in one makes the other introspect again', async () => {
    expect((await a.post('/v2/query', { type: 'run_sql', args: { sql: 'CREATE TABLE shared_new (id int PRIMARY KEY)' } })).status).toBe(200);
    await waitFor(() => a.engine.metadata.catalogRef.current.resourceVersion === b.engine.metadata.catalogRef.current.resourceVersion);
    const r = await b.metadata({ type: 'pg_track_table', args: { table: 'shared_new' } });
    expect(r.status).toBe(200);
  });

  it('a stale instance cannot overwrite a newer version', async () => {
    // Both must have caught up with the previous test's change before racing.
    await waitFor(() => a.engine.metadata.catalogRef.current.resourceVersion === b.engine.metadata.catalogRef.current.resourceVersion);
    const v = (await a.metadata({ type: 'export_metadata', version: 2, args: {} })).body as any;
    const first = a.metadata({ type: 'replace_metadata', version: 2, resource_version: v.resource_version, args: { metadata: v.metadata } });
    const second = b.metadata({ type: 'replace_metadata', version: 2, resource_version: v.resource_version, args: { metadata: v.metadata } });
    const statuses = [(await first).status, (await second).status].sort();
    expect(statuses).toEqual([200, 409]);
  });
});

describe('when the LISTEN connection is lost', () => {
  it('polling still picks up changes, and LISTEN comes back', async () => {
    await db.sql(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()",
    );
    await new Promise((r) => setTimeout(r, 100));
    expect((await a.metadata({ type: 'pg_track_table', args: { table: 'profiles' } })).status).toBe(200);
    await waitFor(() => tablesOf(b)?.has('public.profiles') === true, 2500);
    // After a poll the listener is back: the next change arrives by NOTIFY again.
    await new Promise((r) => setTimeout(r, 1200));
    const listening = await db.sql("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'");
    expect(listening.rows[0].n).toBeGreaterThanOrEqual(2);
    expect((await a.metadata({ type: 'pg_untrack_table', args: { table: 'profiles' } })).status).toBe(200);
    await waitFor(() => tablesOf(b)?.has('public.profiles') === false, 1000);
  });
});
