/**
 * `EventLog.take` on a real event log (Note [Take limits]): the limit is
 * written into the statement, exact up to 16 and a multiple of 16 plus a
 * second statement above, so every limit still takes exactly that many due
 * events, in capture order, and each event once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendFor } from '../../../engine/backends/registry.ts';
import type { EventLog, SourceConnection } from '../../../engine/backends/backend.ts';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';

describe('event log take', () => {
  let s: SeededEngine;
  let conn: SourceConnection;
  let log: EventLog;

  beforeAll(async () => {
    s = await startSeededEngine({
      prefix: 'ev_take',
      sql: 'CREATE TABLE t (id serial PRIMARY KEY, v int)',
      track: {
        type: 'bulk',
        args: [
          { type: 'pg_track_table', args: { table: 't' } },
          { type: 'pg_create_event_trigger', args: { name: 'took', table: 't', webhook: 'http://127.0.0.1:1/', insert: { columns: '*' } } },
        ],
      },
      settings: { eventsDelivery: false },
    });
    const pg = backendFor('postgres');
    const resolved = pg.configuration.resolve({ connection_info: { database_url: s.db.url } }, { env: () => undefined, statementTimeoutMs: 0 });
    if ('reason' in resolved) throw new Error(resolved.reason);
    conn = pg.connect(resolved);
    log = backendFor('postgres').eventTriggers!.eventLog(conn);
  });
  afterAll(async () => {
    await conn.close();
    await s.close();
  });

  it('takes exactly the limit, in capture order, for limits below, at and above the literal ones', async () => {
    await s.db.sql('INSERT INTO t (v) SELECT g FROM generate_series(1, 100) g');
    const seen: number[] = [];
    for (const limit of [1, 7, 16, 37, 32, 5]) {
      const taken = await log.take(['took'], limit, 60_000, 'me');
      const vs = taken.map((e) => (e.payload.data as { new: { v: number } }).new.v);
      expect(vs).toHaveLength(limit);
      expect(vs).toEqual([...vs].sort((a, b) => a - b));
      seen.push(...vs);
    }
    // Each event once, the earliest first; fewer due than the limit gives what is due.
    expect(seen).toEqual(Array.from({ length: 98 }, (_, i) => i + 1));
    const rest = await log.take(['took'], 40, 60_000, 'me');
    expect(rest.map((e) => (e.payload.data as { new: { v: number } }).new.v)).toEqual([99, 100]);
    expect(await log.take(['took'], 40, 60_000, 'me')).toEqual([]);
    const leased = await s.db.sql(`SELECT count(*)::int AS n FROM engine_events.event_log WHERE locked_by = 'me' AND locked > now()`);
    expect(leased.rows[0].n).toBe(100);
  });
});
