/**
 * The take's plan right after a burst (Note [Statistics after a burst]): once
 * a statement's 2,000 rows are expanded into a new log, before autoanalyze
 * could run, `take` still walks `event_log_due` in capture order and stops
 * at its limit, instead of reading every pending event and sorting them.
 * And the record's plan on an analyzed log of thousands of events (Note
 * [Record by key]): it finds the events through the primary key, not a scan
 * of the log; and a log that more than doubled through small statements is
 * analyzed (Note [Statistics of a growing log]).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendFor } from '../../../engine/backends/registry.ts';
import { connectPostgresSource } from '../../support/source-connection.ts';
import type { SourceConnection } from '../../../engine/backends/backend.ts';
import { PLANNED_STATEMENTS } from '../../../engine/backends/postgres/event-log.ts';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';
import { eventually } from '../../support/eventually.ts';
import { deliveredAttempts } from '../../support/event-log.ts';

describe('the take after a burst', () => {
  let s: SeededEngine;
  let conn: SourceConnection;

  beforeAll(async () => {
    s = await startSeededEngine({
      prefix: 'ev_burst',
      sql: 'CREATE TABLE t (id serial PRIMARY KEY, v int)',
      track: {
        type: 'bulk',
        args: [
          { type: 'pg_track_table', args: { table: 't' } },
          { type: 'pg_create_event_trigger', args: { name: 'burst', table: 't', webhook: 'http://127.0.0.1:1/', insert: { columns: '*' } } },
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

  it('walks the due index in order and stops at the limit, with no sort of every pending event', async () => {
    await s.db.sql('INSERT INTO t (v) SELECT g FROM generate_series(1, 2000) g');
    const log = backendFor('postgres').eventTriggers!.eventLog(conn);
    // The first take expands the statement's batch and takes the oldest events.
    const first = await log.take(['burst'], 16, 60_000, 'me');
    expect(first.map((e) => (e.payload.data as { new: { v: number } }).new.v)).toEqual(Array.from({ length: 16 }, (_, i) => i + 1));
    const client = new pg.Client({ connectionString: s.db.url });
    await client.connect();
    try {
      const explain = await client.query({ text: `EXPLAIN (FORMAT JSON) ${PLANNED_STATEMENTS.take}`, values: [['burst'], 60_000, 'me'] });
      const plan = JSON.stringify(explain.rows[0]);
      expect(plan).toMatch(/"Node Type":"Index Scan"[^}]*"Index Name":"event_log_due"/);
      expect(plan).not.toContain('"Node Type":"Sort"');
      expect(plan).not.toContain('Bitmap');
    } finally {
      await client.end();
    }
    const next = await log.take(['burst'], 16, 60_000, 'me');
    expect(next.map((e) => (e.payload.data as { new: { v: number } }).new.v)).toEqual(Array.from({ length: 16 }, (_, i) => i + 17));
  });

  /** Takes and records as delivered every due event of `on`'s log; how many. */
  const deliverAll = async (on: SourceConnection): Promise<number> => {
    const log = backendFor('postgres').eventTriggers!.eventLog(on);
    let n = 0;
    for (;;) {
      const taken = await log.take(['burst'], 100, 60_000, 'me');
      if (taken.length === 0) return n;
      n += taken.length;
      await log.record(deliveredAttempts(taken, 'burst'), 'me');
    }
  };

  it('records through the primary key on an analyzed log of thousands of events', async () => {
    await deliverAll(conn);
    await s.db.sql('INSERT INTO t (v) SELECT g FROM generate_series(1, 1000) g');
    await deliverAll(conn);
    await s.db.sql('ANALYZE engine_events.event_log');
    expect((await s.db.sql('SELECT count(*)::int AS n FROM engine_events.event_log')).rows[0].n).toBe(3000);
    // The plan a pool connection keeps for the record once its first executions are past.
    const client = new pg.Client({ connectionString: s.db.url });
    await client.connect();
    try {
      await client.query('SET plan_cache_mode = force_generic_plan');
      await client.query(`PREPARE rec AS ${PLANNED_STATEMENTS.record}`);
      const plan = JSON.stringify((await client.query(`EXPLAIN (FORMAT JSON) EXECUTE rec('[]', 'me', '{}')`)).rows[0]);
      expect(plan).toMatch(/"Index Name":"event_log_pkey"/);
      expect(plan).not.toMatch(/"Node Type":"Seq Scan"[^}]*"Relation Name":"event_log"/);
    } finally {
      await client.end();
    }
  });

  it('analyzes a log that more than doubled through statements too small to be a burst', async () => {
    await deliverAll(conn);
    // An empty log as its statistics know it (a vacuum, so that no analyze of the setup is counted).
    await s.db.sql('DELETE FROM engine_events.event_log');
    await s.db.sql('VACUUM engine_events.event_log');
    const t0: string = (await s.db.sql('SELECT clock_timestamp()::text AS t')).rows[0].t;
    // A pool of its own: its count of expanded events starts at zero, as an engine's after a start.
    const fresh = connectPostgresSource(s.db.url);
    try {
      for (let i = 0; i < 12; i++) {
        await s.db.sql('INSERT INTO t (v) SELECT g FROM generate_series(1, 100) g');
        expect(await deliverAll(fresh)).toBe(100);
      }
    } finally {
      // Closing its backend also reports its statistics.
      await fresh.close();
    }
    await eventually(
      async () =>
        (await s.db.sql(`SELECT last_analyze > $1::timestamptz AS ok FROM pg_stat_user_tables WHERE relid = 'engine_events.event_log'::regclass`, [t0])).rows[0]
          .ok === true,
      { what: 'an analyze of the log once it passed 1,000 events', timeoutMs: 15_000 },
    );
  });
});
