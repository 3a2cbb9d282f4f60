/**
 * Streaming subscriptions (`<t>_stream`) over graphql-ws on a real
 * PostgreSQL: rows in cursor order, without loss or duplicates while rows
 * keep arriving, batches of at most batch_size, permissions per subscriber.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';
import { wsUrl } from '../../support/ws-client.ts';

const SQL = `
CREATE TABLE events (id serial PRIMARY KEY, room text NOT NULL, body text NOT NULL);
INSERT INTO events (room, body) SELECT CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END, 'old ' || i FROM generate_series(1, 6) i;
`;
const TRACK = {
  type: 'bulk',
  args: [
    { type: 'pg_track_table', args: { source: 'default', table: 'events' } },
    {
      type: 'pg_create_select_permission',
      args: { source: 'default', table: 'events', role: 'member', permission: { columns: ['id', 'room', 'body'], filter: { room: { _eq: 'X-Engine-Room' } } } },
    },
  ],
};

let s: SeededEngine;
const clients: Client[] = [];

beforeAll(async () => {
  s = await startSeededEngine({ prefix: 'ws_streams', sql: SQL, track: TRACK, settings: { streamingQueriesMultiplexedRefetchInterval: 200 } });
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

type Batch = { data?: { events_stream: { id: number; room: string; body: string }[] }; errors?: unknown[] };

function stream(c: Client, query: string, variables?: Record<string, unknown>): { batches: Batch[]; errors: unknown[]; ids(): number[] } {
  const out = { batches: [] as Batch[], errors: [] as unknown[], ids: () => out.batches.flatMap((b) => b.data?.events_stream.map((r) => r.id) ?? []) };
  c.subscribe({ query, variables }, { next: (r) => out.batches.push(r as Batch), error: (e) => out.errors.push(e), complete: () => {} });
  return out;
}

describe('<t>_stream', () => {
  it('delivers every row once, in cursor order, in batches of at most batch_size, while rows keep arriving', async () => {
    const st = stream(
      client(),
      'subscription($after: Int!) { events_stream(batch_size: 4, cursor: {initial_value: {id: $after}, ordering: ASC}) { id body } }',
      { after: 2 },
    );
    await expect.poll(() => st.ids().length, { timeout: 10_000 }).toBe(4);
    expect(st.ids()).toEqual([3, 4, 5, 6]);
    // Rows keep arriving: through the engine and through plain SQL, in several transactions.
    for (let i = 0; i < 10; i++) {
      if (i % 2 === 0)
        await s.engine.graphql(`mutation { insert_events(objects: [{room: "a", body: "new ${i}"}, {room: "b", body: "new ${i}b"}]) { affected_rows } }`);
      else await s.db.sql(`INSERT INTO events (room, body) VALUES ('a', 'sql ${i}'), ('b', 'sql ${i}b'), ('a', 'sql ${i}c')`);
    }
    const expected = (await s.db.sql('SELECT id FROM events WHERE id > 2 ORDER BY id')).rows.map((r) => Number((r as { id: number }).id));
    await expect.poll(() => st.ids().length, { timeout: 15_000 }).toBe(expected.length);
    expect(st.ids()).toEqual(expected);
    expect(st.batches.every((b) => (b.data?.events_stream.length ?? 0) >= 1 && (b.data?.events_stream.length ?? 0) <= 4)).toBe(true);
    // The cursor column is not sent unless selected.
    expect(Object.keys(st.batches[0]?.data?.events_stream[0] ?? {})).toEqual(['id', 'body']);
    expect(st.errors).toEqual([]);
  });

  it('descending cursors and per-subscriber permissions', async () => {
    const a = stream(
      client({ headers: { 'x-engine-role': 'member', 'x-engine-room': 'a' } }),
      'subscription { events_stream(batch_size: 100, cursor: {initial_value: {id: 5}, ordering: DESC}) { id room } }',
    );
    const b = stream(
      client({ headers: { 'x-engine-role': 'member', 'x-engine-room': 'b' } }),
      'subscription { events_stream(batch_size: 100, cursor: {initial_value: {id: 5}, ordering: DESC}) { id room } }',
    );
    await expect.poll(() => a.ids().length, { timeout: 10_000 }).toBe(2);
    await expect.poll(() => b.ids().length, { timeout: 10_000 }).toBe(2);
    expect(a.ids()).toEqual([4, 2]);
    expect(b.ids()).toEqual([3, 1]);
  });

  it('refuses cursors v2 refuses', async () => {
    const c = client();
    const bad = stream(c, 'subscription { events_stream(batch_size: 1, cursor: [{initial_value: {id: 1}}, {initial_value: {id: 2}}]) { id } }');
    const two = stream(c, 'subscription { events_stream(batch_size: 1, cursor: {initial_value: {id: 1, room: "a"}}) { id } }');
    await expect.poll(() => bad.errors.length + two.errors.length).toBe(2);
    expect(bad.errors[0]).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'validation-failed' }) })]);
  });
});
