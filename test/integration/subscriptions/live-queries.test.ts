/**
 * Live queries refetched on change (Note [Refetch on change]): idle
 * subscriptions run no SQL, a change through plain SQL reaches subscribers
 * without waiting for a poll, polling when asked; cohorts shared by
 * subscribers of one query; subscriptions planned again when metadata changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { wsUrl } from '../../support/ws-client.ts';

const SQL = `
CREATE TABLE counters (id int PRIMARY KEY, value int NOT NULL);
INSERT INTO counters SELECT i, 0 FROM generate_series(1, 20) i;
CREATE VIEW even_counters AS SELECT * FROM counters WHERE id % 2 = 0;
`;
const TRACK = {
  type: 'bulk',
  args: [
    { type: 'pg_track_table', args: { source: 'default', table: 'counters' } },
    { type: 'pg_track_table', args: { source: 'default', table: 'even_counters' } },
    { type: 'pg_create_select_permission', args: { source: 'default', table: 'counters', role: 'user', permission: { columns: ['id', 'value'], filter: {} } } },
  ],
};

let s: SeededEngine;
let polling: TestEngine;
const clients: Client[] = [];

beforeAll(async () => {
  // An interval far longer than the test waits: only a change notification explains a prompt update.
  s = await startSeededEngine({ prefix: 'ws_live', sql: SQL, track: TRACK, settings: { liveQueriesMultiplexedRefetchInterval: 30_000 } });
  polling = await startTestEngine({ databaseUrl: s.db.url, liveQueriesMultiplexedRefetchInterval: 100, liveQueriesRefetchOnChange: false });
});

afterAll(async () => {
  for (const c of clients) await c.dispose();
  await polling?.close();
  await s?.close();
});

function client(url: string, connectionParams?: Record<string, unknown>): Client {
  const c = createClient({ url: wsUrl(url), webSocketImpl: WebSocket, connectionParams, retryAttempts: 0 });
  clients.push(c);
  return c;
}

type Result = { data?: Record<string, unknown>; errors?: { message: string; extensions: { code: string } }[] };

function watch(c: Client, query: string, variables?: Record<string, unknown>): { results: Result[]; errors: unknown[] } {
  const out = { results: [] as Result[], errors: [] as unknown[] };
  c.subscribe({ query, variables }, { next: (r) => out.results.push(r as Result), error: (e) => out.errors.push(e), complete: () => {} });
  return out;
}

const BY_PK = 'subscription($id: Int!) { counters_by_pk(id: $id) { id value } }';
const value = (r: Result | undefined): unknown => (r?.data?.['counters_by_pk'] as { value: number } | undefined)?.value;

describe('refetch on change', () => {
  it('runs no SQL while idle and delivers a plain-SQL change without waiting for the interval', async () => {
    const c = client(s.engine.url);
    const subs = [1, 2, 3, 1, 2, 3].map((id) => watch(c, BY_PK, { id }));
    await expect.poll(() => subs.every((x) => x.results.length === 1)).toBe(true);
    const live = s.engine.engine.socket.live;
    // One cohort (one query and variable shape), one group per distinct value.
    expect(live.stats).toEqual({ cohorts: 1, groups: 3, tracked: 1 });
    const before = live.statements;
    // The idle window is paced by the polling engine's own refetches (100 ms apart), not by a
    // fixed sleep: on busy cores both engines slow down together.
    const pacer = watch(client(polling.url), BY_PK, { id: 1 });
    await expect.poll(() => pacer.results.length).toBe(1);
    const paced = polling.engine.socket.live.statements;
    await expect.poll(() => polling.engine.socket.live.statements - paced, { timeout: 15_000 }).toBeGreaterThanOrEqual(5);
    expect(live.statements).toBe(before);
    await s.db.sql('UPDATE counters SET value = 7 WHERE id = 2');
    await expect.poll(() => value(subs[1]?.results.at(-1)), { timeout: 5000 }).toBe(7);
    expect(value(subs[4]?.results.at(-1))).toBe(7);
    // Groups whose result did not change got no message.
    expect(subs[0]?.results).toHaveLength(1);
    expect(subs[2]?.results).toHaveLength(1);
    // Aggregates are live too.
    const agg = watch(c, 'subscription { counters_aggregate(where: {id: {_lte: 3}}) { aggregate { sum { value } } } }');
    await expect.poll(() => agg.results.length).toBe(1);
    await s.db.sql('UPDATE counters SET value = value + 1 WHERE id = 3');
    await expect.poll(() => JSON.stringify(agg.results.at(-1)), { timeout: 5000 }).toBe('{"data":{"counters_aggregate":{"aggregate":{"sum":{"value":8}}}}}');
    // A view's base table is watched too.
    const v = watch(c, 'subscription { even_counters(where: {id: {_eq: 4}}) { value } }');
    await expect.poll(() => v.results.length).toBe(1);
    await s.db.sql('UPDATE counters SET value = 9 WHERE id = 4');
    await expect.poll(() => JSON.stringify(v.results.at(-1)), { timeout: 5000 }).toBe('{"data":{"even_counters":[{"value":9}]}}');
  });

  it('refetches two changes in a row at once, and holds a third for the interval (Note [Refetch on change])', async () => {
    const c = client(s.engine.url);
    // A cohort of its own (another selection), on rows no other test writes.
    const q = 'subscription($id: Int!) { counters_by_pk(id: $id) { value id } }';
    const subs = [7, 8, 9].map((id) => watch(c, q, { id }));
    await expect.poll(() => subs.every((x) => x.results.length === 1)).toBe(true);
    await s.db.sql('UPDATE counters SET value = 70 WHERE id = 7');
    await expect.poll(() => value(subs[0]?.results.at(-1)), { timeout: 5000 }).toBe(70);
    // Before, this one waited for the 30 s interval after the first refetch began.
    await s.db.sql('UPDATE counters SET value = 80 WHERE id = 8');
    await expect.poll(() => value(subs[1]?.results.at(-1)), { timeout: 5000 }).toBe(80);
    await s.db.sql('UPDATE counters SET value = 90 WHERE id = 9');
    // Paced by the polling engine's refetches (100 ms apart), not a fixed sleep.
    const pacer = watch(client(polling.url), BY_PK, { id: 1 });
    await expect.poll(() => pacer.results.length).toBe(1);
    const paced = polling.engine.socket.live.statements;
    await expect.poll(() => polling.engine.socket.live.statements - paced, { timeout: 15_000 }).toBeGreaterThanOrEqual(5);
    expect(subs[2]?.results).toHaveLength(1);
  });

  it('polls every interval when refetch-on-change is off, as v2', async () => {
    const c = client(polling.url);
    const sub = watch(c, BY_PK, { id: 5 });
    await expect.poll(() => sub.results.length).toBe(1);
    const live = polling.engine.socket.live;
    expect(live.stats.tracked).toBe(0);
    const before = live.statements;
    await expect.poll(() => live.statements - before, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
    await s.db.sql('UPDATE counters SET value = 11 WHERE id = 5');
    await expect.poll(() => value(sub.results.at(-1)), { timeout: 5000 }).toBe(11);
  });

  it('plans running subscriptions again when metadata changes: a dropped permission ends them', async () => {
    const c = client(s.engine.url, { headers: { 'x-engine-role': 'user' } });
    const sub = watch(c, BY_PK, { id: 6 });
    await expect.poll(() => sub.results.length).toBe(1);
    const r = await s.engine.metadata({ type: 'pg_drop_select_permission', args: { source: 'default', table: 'counters', role: 'user' } });
    expect(r.status).toBe(200);
    await expect.poll(() => sub.errors.length, { timeout: 10_000 }).toBe(1);
    expect(sub.errors[0]).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'validation-failed' }) })]);
  });
});
