/**
 * Row-level refetch (Note [Row-level refetch] in engine/subscriptions/live-queries.ts): a
 * write refetches only the groups whose variables or session values select the changed
 * rows (old and new), others stay untouched and still get their own changes; a write past
 * the report's bound refetches every group. Statements are counted with a batch size of
 * one, so each refetched group is one statement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';
import { wsUrl } from '../../support/ws-client.ts';

const SQL = `
CREATE TABLE counters (id int PRIMARY KEY, value int NOT NULL);
INSERT INTO counters SELECT i, 0 FROM generate_series(1, 10) i;
CREATE TABLE items (id int PRIMARY KEY, grp int NOT NULL, owner uuid NOT NULL, value int NOT NULL DEFAULT 0);
INSERT INTO items SELECT i, 1 + i % 3, CASE WHEN i % 2 = 0 THEN 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid ELSE 'b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12'::uuid END, 0
  FROM generate_series(1, 150) i;
`;
const OWNER_A = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11';
const OWNER_B = 'b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12';
const TRACK = {
  type: 'bulk',
  args: [
    { type: 'pg_track_table', args: { source: 'default', table: 'counters' } },
    { type: 'pg_track_table', args: { source: 'default', table: 'items' } },
    {
      type: 'pg_create_select_permission',
      args: { source: 'default', table: 'items', role: 'user', permission: { columns: ['id', 'value'], filter: { owner: { _eq: 'X-Engine-User-Id' } } } },
    },
  ],
};

let s: SeededEngine;
const clients: Client[] = [];

beforeAll(async () => {
  s = await startSeededEngine({ prefix: 'ws_rows', sql: SQL, track: TRACK, settings: { liveQueriesMultiplexedBatchSize: 1 } });
});

afterAll(async () => {
  for (const c of clients) await c.dispose();
  await s?.close();
});

function client(connectionParams?: Record<string, unknown>): Client {
  const c = createClient({ url: wsUrl(s.engine.url), webSocketImpl: WebSocket, connectionParams, retryAttempts: 0 });
  clients.push(c);
  return c;
}

type Result = { data?: Record<string, unknown>; errors?: unknown[] };

function watch(c: Client, query: string, variables?: Record<string, unknown>): { results: Result[]; errors: unknown[] } {
  const out = { results: [] as Result[], errors: [] as unknown[] };
  c.subscribe({ query, variables }, { next: (r) => out.results.push(r as Result), error: (e) => out.errors.push(e), complete: () => {} });
  return out;
}

const last = (x: { results: Result[] }): string => JSON.stringify(x.results.at(-1)?.data);

describe('row-level refetch', () => {
  it('refetches the group whose variables select the changed row, not the others', async () => {
    const c = client();
    const byPk = 'subscription($id: Int!) { counters_by_pk(id: $id) { id value } }';
    const a = watch(c, byPk, { id: 1 });
    const b = watch(c, byPk, { id: 2 });
    // Another cohort (another query) on the same table.
    const other = watch(c, 'subscription($id: Int!) { counters(where: {id: {_eq: $id}}) { value } }', { id: 3 });
    await expect.poll(() => [a, b, other].every((x) => x.results.length === 1)).toBe(true);
    const live = s.engine.engine.socket.live;
    const before = live.statements;
    await s.db.sql('UPDATE counters SET value = 5 WHERE id = 1');
    await expect.poll(() => last(a), { timeout: 5000 }).toBe('{"counters_by_pk":{"id":1,"value":5}}');
    // Only A's group ran (batch size 1: one statement per group).
    expect(live.statements - before).toBe(1);
    await s.db.sql('UPDATE counters SET value = 6 WHERE id = 2');
    await expect.poll(() => last(b), { timeout: 5000 }).toBe('{"counters_by_pk":{"id":2,"value":6}}');
    expect(live.statements - before).toBe(2);
    await s.db.sql('UPDATE counters SET value = 7 WHERE id = 3');
    await expect.poll(() => last(other), { timeout: 5000 }).toBe('{"counters":[{"value":7}]}');
    expect(live.statements - before).toBe(3);
    // A write that changes no row refetches nothing; nobody got a message twice.
    await s.db.sql('UPDATE counters SET value = 0 WHERE id = 99');
    await s.db.sql('UPDATE counters SET value = 8 WHERE id = 1');
    await expect.poll(() => last(a), { timeout: 5000 }).toBe('{"counters_by_pk":{"id":1,"value":8}}');
    expect(live.statements - before).toBe(4);
    expect([a.results.length, b.results.length, other.results.length]).toEqual([3, 2, 2]);
    // Its cohorts leave: the next tests count their own statements only.
    await c.dispose();
  });

  it('refetches both groups a row moves between, and the group of an inserted or deleted row', async () => {
    const c = client();
    const q = 'subscription($g: Int!) { items_aggregate(where: {grp: {_eq: $g}}) { aggregate { count } } }';
    const g1 = watch(c, q, { g: 1 });
    const g2 = watch(c, q, { g: 2 });
    const g3 = watch(c, q, { g: 3 });
    await expect.poll(() => [g1, g2, g3].every((x) => x.results.length === 1)).toBe(true);
    const count = (x: { results: Result[] }): unknown => (x.results.at(-1)?.data?.['items_aggregate'] as { aggregate: { count: number } }).aggregate.count;
    expect([count(g1), count(g2), count(g3)]).toEqual([50, 50, 50]);
    const live = s.engine.engine.socket.live;
    const before = live.statements;
    // Row 3 has grp 1 (3 % 3 = 0): it moves to group 2.
    await s.db.sql('UPDATE items SET grp = 2 WHERE id = 3');
    await expect.poll(() => [count(g1), count(g2)], { timeout: 5000 }).toEqual([49, 51]);
    expect(live.statements - before).toBe(2);
    expect(g3.results).toHaveLength(1);
    await s.db.sql("INSERT INTO items (id, grp, owner) VALUES (1000, 3, 'b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12')");
    await expect.poll(() => count(g3), { timeout: 5000 }).toBe(51);
    expect(live.statements - before).toBe(3);
    await s.db.sql('DELETE FROM items WHERE id = 1000');
    await expect.poll(() => count(g3), { timeout: 5000 }).toBe(50);
    expect(live.statements - before).toBe(4);
    expect([g1.results.length, g2.results.length]).toEqual([2, 2]);
    // Past the report's bound (100 rows) every group is refetched.
    await s.db.sql('UPDATE items SET value = value + 1');
    await expect.poll(() => live.statements - before, { timeout: 5000 }).toBe(7);
    await c.dispose();
    await expect.poll(() => live.stats.cohorts).toBe(0);
  });

  it("refetches the subscriber whose session variable selects the changed row (a permission filter's equality)", async () => {
    const q = 'subscription { items(where: {id: {_lte: 4}}, order_by: {id: asc}) { id value } }';
    // Session values compare as PostgreSQL compares them: a uuid in capitals is the same uuid.
    const ca = client({ headers: { 'x-engine-role': 'user', 'x-engine-user-id': OWNER_A } });
    const cb = client({ headers: { 'x-engine-role': 'user', 'x-engine-user-id': OWNER_B } });
    const a = watch(ca, q);
    const b = watch(cb, q);
    await expect.poll(() => [a, b].every((x) => x.results.length === 1)).toBe(true);
    expect(last(a)).toBe('{"items":[{"id":2,"value":1},{"id":4,"value":1}]}');
    const live = s.engine.engine.socket.live;
    const before = live.statements;
    await s.db.sql('UPDATE items SET value = 9 WHERE id = 4');
    await expect.poll(() => last(a), { timeout: 5000 }).toBe('{"items":[{"id":2,"value":1},{"id":4,"value":9}]}');
    expect(live.statements - before).toBe(1);
    await s.db.sql('UPDATE items SET value = 9 WHERE id = 1');
    await expect.poll(() => last(b), { timeout: 5000 }).toBe('{"items":[{"id":1,"value":9},{"id":3,"value":1}]}');
    expect(live.statements - before).toBe(2);
    expect([a.results.length, b.results.length]).toEqual([2, 2]);
    await ca.dispose();
    await cb.dispose();
    await expect.poll(() => live.stats.cohorts).toBe(0);
  });

  it('with two key columns, refetches only the group both of whose values the changed row has', async () => {
    const c = client();
    const q = 'subscription($g: Int!, $o: uuid!) { items_aggregate(where: {grp: {_eq: $g}, owner: {_eq: $o}}) { aggregate { sum { value } } } }';
    // Rows 6 and 9 are both in grp 1; 6 is owner A's, 9 owner B's.
    const a = watch(c, q, { g: 1, o: OWNER_A });
    const b = watch(c, q, { g: 1, o: OWNER_B });
    await expect.poll(() => [a, b].every((x) => x.results.length === 1)).toBe(true);
    const sum = (x: { results: Result[] }): unknown =>
      (x.results.at(-1)?.data?.['items_aggregate'] as { aggregate: { sum: { value: number } } }).aggregate.sum.value;
    const [sa, sb] = [sum(a), sum(b)] as [number, number];
    const live = s.engine.engine.socket.live;
    const before = live.statements;
    await s.db.sql('UPDATE items SET value = value + 100 WHERE id = 6');
    await expect.poll(() => sum(a), { timeout: 5000 }).toBe(sa + 100);
    expect(live.statements - before).toBe(1);
    await s.db.sql('UPDATE items SET value = value + 100 WHERE id = 9');
    await expect.poll(() => sum(b), { timeout: 5000 }).toBe(sb + 100);
    expect(live.statements - before).toBe(2);
    expect([a.results.length, b.results.length]).toEqual([2, 2]);
  });
});
