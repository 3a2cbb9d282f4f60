/**
 * The event log's layout (Note [Lean event log]): a capture writes the
 * primary key and the two partial indexes of pending events only; the reads
 * of `get_event_logs`, cleanup and `take` are still served by indexes; and a
 * log of the earlier layout (a full `event_log_trigger` index, no batch table:
 * Note [Capture batches]) is upgraded by the first take of an engine's
 * delivery, which then delivers the events that were pending.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendFor } from '../../../engine/backends/registry.ts';
import { connectPostgresSource } from '../../support/source-connection.ts';
import type { EventLog, SourceConnection } from '../../../engine/backends/backend.ts';
import { expandBatches, PLANNED_STATEMENTS } from '../../../engine/backends/postgres/event-log.ts';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';
import { deliveredAttempts } from '../../support/event-log.ts';

describe('event log layout', () => {
  let s: SeededEngine;
  let conn: SourceConnection;

  beforeAll(async () => {
    s = await startSeededEngine({
      prefix: 'ev_layout',
      sql: 'CREATE TABLE t (id serial PRIMARY KEY, v int)',
      track: {
        type: 'bulk',
        args: [
          { type: 'pg_track_table', args: { table: 't' } },
          { type: 'pg_create_event_trigger', args: { name: 'lay', table: 't', webhook: 'http://127.0.0.1:1/', insert: { columns: '*' } } },
        ],
      },
      settings: { eventsDelivery: false },
    });
    conn = connectPostgresSource(s.db.url);
  });
  afterAll(async () => {
    await conn.close();
    await s.close();
  });

  const newLog = (): EventLog => backendFor('postgres').eventTriggers!.eventLog(conn);
  const indexes = async (): Promise<string[]> =>
    (await s.db.sql(`SELECT indexname FROM pg_indexes WHERE schemaname = 'engine_events' AND tablename = 'event_log' ORDER BY 1`)).rows.map(
      (r: { indexname: string }) => r.indexname,
    );

  it('indexes a new log by trigger only for processed events', async () => {
    expect(await indexes()).toEqual(['event_log_done', 'event_log_due', 'event_log_pkey', 'event_log_row']);
  });

  it('serves take, get_event_logs and cleanup from indexes', async () => {
    const client = new pg.Client({ connectionString: s.db.url });
    await client.connect();
    try {
      await client.query('SET enable_seqscan = off');
      const plan = async (text: string, values: unknown[]): Promise<string> =>
        JSON.stringify((await client.query({ text: `EXPLAIN (FORMAT JSON) ${text}`, values })).rows[0]);
      const take = await plan(PLANNED_STATEMENTS.take, [['lay'], 60_000, 'me']);
      const all = await plan(PLANNED_STATEMENTS.events, ['lay', 'all', 10, 0]);
      const processed = await plan(PLANNED_STATEMENTS.events, ['lay', 'processed', 10, 0]);
      const cleanup = await plan(PLANNED_STATEMENTS.cleanup, ['lay', 1, 100, true]);
      for (const p of [take, all, processed, cleanup])
        expect(p).not.toMatch(/"Relation Name":"event_log"[^}]*"Node Type":"Seq Scan"|"Node Type":"Seq Scan","[^}]*"Relation Name":"event_log"/);
      expect(take).toContain('event_log_due');
      // Pending events through either partial index of pending events, as the planner prefers.
      expect(all).toMatch(/event_log_due|event_log_row/);
      expect(all).toContain('event_log_done');
      expect(processed).toContain('event_log_done');
      expect(cleanup).toContain('event_log_done');
    } finally {
      await client.end();
    }
  });

  it('upgrades a log of the earlier layout at the first take and delivers what was pending', async () => {
    await s.db.sql('INSERT INTO t (v) SELECT g FROM generate_series(1, 5) g');
    // Events written as the earlier capture wrote them: straight into the log.
    const pool = new pg.Pool({ connectionString: s.db.url, max: 1 });
    await expandBatches(pool);
    await pool.end();
    // The layout before Note [Lean event log]: a full index by trigger, no partial one; and no batch table.
    await s.db.sql(`DROP INDEX engine_events.event_log_done;
      CREATE INDEX event_log_trigger ON engine_events.event_log (trigger_name, created_at);
      DROP TABLE engine_events.event_batch`);
    expect(await indexes()).toContain('event_log_trigger');
    const log = newLog();
    const taken = await log.take(['lay'], 3, 60_000, 'me');
    expect(await indexes()).toEqual(['event_log_done', 'event_log_due', 'event_log_pkey', 'event_log_row']);
    expect((await s.db.sql(`SELECT to_regclass('engine_events.event_batch') IS NOT NULL AS ok`)).rows[0].ok).toBe(true);
    expect(taken.map((e) => (e.payload.data as { new: { v: number } }).new.v)).toEqual([1, 2, 3]);
    await log.record(deliveredAttempts(taken, 'lay'), 'me');
    const rest = await log.take(['lay'], 10, 60_000, 'me');
    expect(rest.map((e) => (e.payload.data as { new: { v: number } }).new.v)).toEqual([4, 5]);
    // get_event_logs reads both indexes: pending (leased) events and processed ones, newest first.
    const vs = (rows: unknown[]): number[] => rows.map((r) => (r as { payload: { data: { new: { v: number } } } }).payload.data.new.v);
    expect(vs(await log.events({ triggerName: 'lay', status: 'all', limit: 10, offset: 0 }))).toEqual([5, 4, 3, 2, 1]);
    expect(vs(await log.events({ triggerName: 'lay', status: 'pending', limit: 10, offset: 0 }))).toEqual([5, 4]);
    expect(vs(await log.events({ triggerName: 'lay', status: 'processed', limit: 10, offset: 0 }))).toEqual([3, 2, 1]);
    expect(vs(await log.events({ triggerName: 'lay', status: 'all', limit: 2, offset: 1 }))).toEqual([4, 3]);
    // The capture writes batches again, which the next take expands after the leased 4 and 5.
    await s.db.sql('INSERT INTO t (v) VALUES (6), (7)');
    const after = await log.take(['lay'], 10, 60_000, 'me');
    expect(after.map((e) => (e.payload.data as { new: { v: number } }).new.v)).toEqual([6, 7]);
  });
});
