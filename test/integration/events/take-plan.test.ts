/**
 * The take's plan right after a burst (Note [Statistics after a burst]): once
 * a statement's 2,000 rows are expanded into a new log, before autoanalyze
 * could run, `take` still walks `event_log_due` in capture order and stops
 * at its limit, instead of reading every pending event and sorting them.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendFor } from '../../../engine/backends/registry.ts';
import { connectPostgresSource } from '../../support/source-connection.ts';
import type { SourceConnection } from '../../../engine/backends/backend.ts';
import { PLANNED_STATEMENTS } from '../../../engine/backends/postgres/event-log.ts';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';

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
});
