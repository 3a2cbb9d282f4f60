/**
 * Issue 29, point 1: subscriptions under the statement timeout and the pool
 * (Note [Live query limits] in subscriptions/live-queries.ts). A role's
 * `time_limit` and the global statement timeout cut every multiplexed fetch
 * (a live query, a stream, a live aggregate) with code `timeout`, sent as a
 * `next` message while the cohort keeps polling; a statement whose last
 * subscriber left is cancelled in PostgreSQL; slow subscriptions hold at most
 * their share of a source's pool, so plain queries still get a connection.
 *
 * The slow view waits on an advisory lock the test holds, so "slow" lasts
 * exactly as long as the test wants, whatever the load of the machine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';
import type { TestDatabase } from '../../support/pg.ts';
import { wsUrl } from '../../support/ws-client.ts';

const GATE = 4242;
const SQL = `
CREATE TABLE items (id int PRIMARY KEY, v int NOT NULL);
INSERT INTO items SELECT i, i FROM generate_series(1, 5) i;
-- Waits while the test holds the exclusive lock; the shared one ends with the statement.
CREATE FUNCTION gate() RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$ BEGIN PERFORM pg_advisory_xact_lock_shared(${GATE}); RETURN true; END $$;
CREATE VIEW slow_items AS SELECT * FROM items WHERE gate();
`;

function track(source: string): unknown[] {
  const perm = { columns: ['id', 'v'], filter: {}, allow_aggregations: true };
  return [
    { type: 'pg_track_table', args: { source, table: 'items' } },
    { type: 'pg_track_table', args: { source, table: 'slow_items' } },
    { type: 'pg_create_select_permission', args: { source, table: 'items', role: 'user', permission: perm } },
    { type: 'pg_create_select_permission', args: { source, table: 'slow_items', role: 'user', permission: perm } },
  ];
}

/** Per-role time limit only (no global statement timeout): admin statements may wait forever. */
let roleLimited: SeededEngine;
/** The global statement timeout of 1 s. */
let globalLimited: SeededEngine;
/** A source whose pool has 6 connections. */
let smallPool: SeededEngine;
const clients: Client[] = [];

beforeAll(async () => {
  [roleLimited, globalLimited, smallPool] = await Promise.all([
    startSeededEngine({
      prefix: 'ws_limits_role',
      sql: SQL,
      settings: { statementTimeout: 0 },
      track: { type: 'bulk', args: [...track('default'), { type: 'set_api_limits', args: { time_limit: { global: 600, per_role: { user: 1 } } } }] },
    }),
    startSeededEngine({ prefix: 'ws_limits_global', sql: SQL, settings: { statementTimeout: 1 }, track: { type: 'bulk', args: track('default') } }),
    startSeededEngine({
      prefix: 'ws_limits_pool',
      sql: SQL,
      // Generous: only the pool bound, not a timeout, may keep the plain query from waiting.
      settings: { statementTimeout: 600 },
    }),
  ]);
  const added = await smallPool.engine.metadata({
    type: 'bulk',
    args: [
      {
        type: 'pg_add_source',
        args: { name: 'small', configuration: { connection_info: { database_url: smallPool.db.url, pool_settings: { max_connections: 6 } } } },
      },
      ...track('small'),
    ],
  });
  expect(added.status).toBe(200);
}, 120_000);

afterAll(async () => {
  for (const c of clients) await c.dispose();
  await Promise.all([roleLimited?.close(), globalLimited?.close(), smallPool?.close()]);
});

function client(s: SeededEngine, headers?: Record<string, string>): Client {
  const c = createClient({ url: wsUrl(s.engine.url), webSocketImpl: WebSocket, connectionParams: headers === undefined ? {} : { headers }, retryAttempts: 0 });
  clients.push(c);
  return c;
}

type Result = { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: { code?: string } }[] };

interface Watched {
  readonly results: Result[];
  /** Terminal errors (the subscription ended). */
  readonly errors: unknown[];
  stop(): void;
}

function watch(c: Client, query: string): Watched {
  const out = { results: [] as Result[], errors: [] as unknown[], stop: () => {} };
  out.stop = c.subscribe({ query }, { next: (r) => out.results.push(r as Result), error: (e) => out.errors.push(e), complete: () => {} });
  return out;
}

const codes = (w: Watched): string[] => w.results.flatMap((r) => (r.errors ?? []).map((e) => e.extensions?.code ?? ''));

/** Holds the gate's exclusive lock on a connection of its own; `release` ends it. */
async function holdGate(db: TestDatabase): Promise<{ release(): Promise<void> }> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  await c.query('SELECT pg_advisory_lock($1)', [GATE]);
  return { release: async () => await c.end() };
}

/** Statements of `db` waiting at the gate for a subscription (the multiplexed text reads `slow_items`). */
async function waiting(db: TestDatabase): Promise<number> {
  const r = await db.sql(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'advisory' AND query LIKE '%slow_items%' AND query LIKE '%unnest%'",
  );
  return (r.rows[0] as { n: number }).n;
}

const USER = { 'x-engine-role': 'user' };
const LIVE = 'subscription { slow_items(order_by: {id: asc}) { id } }';
const STREAM = 'subscription { slow_items_stream(batch_size: 10, cursor: {initial_value: {id: 0}}) { id } }';
const AGGREGATE = 'subscription { slow_items_aggregate { aggregate { count } } }';
const ALL_IDS = [1, 2, 3, 4, 5].map((id) => ({ id }));

describe('statement timeouts of subscriptions', () => {
  it("cuts a live query, a stream and a live aggregate at the role's time_limit with code timeout, keeps polling, and recovers", async () => {
    const live = roleLimited.engine.engine.socket.live;
    const gate = await holdGate(roleLimited.db);
    let subs: Watched[];
    try {
      const c = client(roleLimited, USER);
      subs = [watch(c, LIVE), watch(c, STREAM), watch(c, AGGREGATE)];
      for (const w of subs) await expect.poll(() => codes(w), { timeout: 20_000 }).toContain('timeout');
      for (const w of subs) {
        expect(w.errors).toEqual([]);
        expect(w.results[0]).toEqual({ errors: [{ message: 'canceling statement due to statement timeout', extensions: { path: '$', code: 'timeout' } }] });
      }
      // It keeps polling, but a fetch starts no sooner than an interval after the previous one timed
      // out, so starts of one cohort are at least (time limit + interval) = 2 s apart: in a window of
      // E ms each of the three cohorts starts at most floor(E / 2000) + 1 statements. Polling an
      // interval after each start instead would run them back to back, 9 in about 2 s.
      const started = Date.now();
      const before = live.statements;
      await expect.poll(() => live.statements - before, { timeout: 30_000 }).toBeGreaterThanOrEqual(9);
      expect(live.statements - before).toBeLessThanOrEqual(3 * (Math.floor((Date.now() - started) / 2000) + 1));
    } finally {
      await gate.release();
    }
    const [l, st, agg] = subs;
    await expect.poll(() => l?.results.at(-1), { timeout: 20_000 }).toEqual({ data: { slow_items: ALL_IDS } });
    await expect.poll(() => st?.results.at(-1), { timeout: 20_000 }).toEqual({ data: { slow_items_stream: ALL_IDS } });
    await expect.poll(() => agg?.results.at(-1), { timeout: 20_000 }).toEqual({ data: { slow_items_aggregate: { aggregate: { count: 5 } } } });
  }, 120_000);

  it('cuts them at the global statement timeout alike', async () => {
    const gate = await holdGate(globalLimited.db);
    let subs: Watched[];
    try {
      const c = client(globalLimited);
      subs = [watch(c, LIVE), watch(c, STREAM), watch(c, AGGREGATE)];
      for (const w of subs) await expect.poll(() => codes(w), { timeout: 20_000 }).toContain('timeout');
      for (const w of subs) expect(w.errors).toEqual([]);
    } finally {
      await gate.release();
    }
    const [l, st, agg] = subs;
    await expect.poll(() => l?.results.at(-1), { timeout: 20_000 }).toEqual({ data: { slow_items: ALL_IDS } });
    await expect.poll(() => st?.results.at(-1), { timeout: 20_000 }).toEqual({ data: { slow_items_stream: ALL_IDS } });
    await expect.poll(() => agg?.results.at(-1), { timeout: 20_000 }).toEqual({ data: { slow_items_aggregate: { aggregate: { count: 5 } } } });
  }, 120_000);
});

describe('cancellation of subscriptions nobody waits for', () => {
  it('cancels the running statement when its last subscriber sends complete, or closes its socket', async () => {
    // Admin: no time limit and no global timeout, so only a cancel ends the statement.
    const db = roleLimited.db;
    const gate = await holdGate(db);
    try {
      const a = client(roleLimited);
      const sub = watch(a, 'subscription { slow_items { id v } }');
      await expect.poll(() => waiting(db), { timeout: 20_000 }).toBe(1);
      sub.stop();
      await expect.poll(() => waiting(db), { timeout: 10_000 }).toBe(0);

      const b = client(roleLimited);
      watch(b, 'subscription { slow_items_stream(batch_size: 2, cursor: {initial_value: {id: 0}}) { id v } }');
      watch(b, 'subscription { slow_items_aggregate { aggregate { max { v } } } }');
      await expect.poll(() => waiting(db), { timeout: 20_000 }).toBe(2);
      await b.dispose();
      await expect.poll(() => waiting(db), { timeout: 10_000 }).toBe(0);
    } finally {
      await gate.release();
    }
    // The pool lost the cancelled connections, not its use.
    expect((await roleLimited.engine.graphql('{ slow_items_aggregate { aggregate { count } } }')).body).toEqual({
      data: { slow_items_aggregate: { aggregate: { count: 5 } } },
    });
  }, 60_000);
});

describe('the pool share of live queries', () => {
  it("keeps another user's plain query answering while many slow subscriptions wait", async () => {
    const db = smallPool.db;
    const gate = await holdGate(db);
    const c = client(smallPool);
    const subs: Watched[] = [];
    try {
      // Twelve cohorts (one per query text), twice the source's pool.
      for (let i = 0; i < 12; i++) subs.push(watch(c, `subscription { s${i}: slow_items(order_by: {id: asc}) { id } }`));
      // Half of the pool of 6 (the default share) waits at the gate, no more.
      await expect.poll(() => waiting(db), { timeout: 20_000 }).toBeGreaterThanOrEqual(3);
      const plain = await smallPool.engine.graphql('{ items(order_by: {id: asc}) { id } }', undefined, USER);
      expect(plain.body).toEqual({ data: { items: ALL_IDS } });
      expect(await waiting(db)).toBe(3);
    } finally {
      await gate.release();
    }
    // Every subscription is answered once the gate opens: waiting for a connection lost none.
    for (const [i, w] of subs.entries()) await expect.poll(() => w.results.at(-1), { timeout: 30_000 }).toEqual({ data: { [`s${i}`]: ALL_IDS } });
  }, 90_000);
});
