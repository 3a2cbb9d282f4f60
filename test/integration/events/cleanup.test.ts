/**
 * cleanup_config's removal of old processed events, on a real event log:
 * what `EventLog.cleanup` deletes (processed and older than the bound, at
 * most a batch, invocation logs when asked) and what it keeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendFor } from '../../../engine/backends/registry.ts';
import type { SourceConnection } from '../../../engine/backends/backend.ts';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';

describe('event log cleanup', () => {
  let s: SeededEngine;
  let conn: SourceConnection;

  beforeAll(async () => {
    s = await startSeededEngine({
      prefix: 'ev_cleanup',
      sql: 'CREATE TABLE t (id serial PRIMARY KEY, v int)',
      track: {
        type: 'bulk',
        args: [
          { type: 'pg_track_table', args: { table: 't' } },
          {
            type: 'pg_create_event_trigger',
            args: {
              name: 'tidy',
              table: 't',
              webhook: 'http://127.0.0.1:1/',
              insert: { columns: '*' },
              cleanup_config: { schedule: '0 * * * *', clear_older_than: 24, clean_invocation_logs: true },
            },
          },
        ],
      },
      settings: { eventsDelivery: false },
    });
    const pg = backendFor('postgres');
    const resolved = pg.configuration.resolve({ connection_info: { database_url: s.db.url } }, { env: () => undefined, statementTimeoutMs: 0 });
    if ('reason' in resolved) throw new Error(resolved.reason);
    conn = pg.connect(resolved);
  });
  afterAll(async () => {
    await conn.close();
    await s.close();
  });

  it('deletes processed events older than the bound, a batch at a time, with their invocations', async () => {
    await s.db.sql('INSERT INTO t (v) SELECT g FROM generate_series(1, 6) g');
    const log = backendFor('postgres').eventTriggers!.eventLog(conn);
    // Reading the log expands the statement's batch into its six events (Note [Capture batches]).
    expect(await log.events({ triggerName: 'tidy', status: 'pending', limit: 10, offset: 0 })).toHaveLength(6);
    // 1-3 delivered two days ago, 4 errored two days ago, 5 delivered now, 6 pending two days ago.
    await s.db.sql(`UPDATE engine_events.event_log SET created_at = now() - interval '48 hours', delivered = (payload->'data'->'new'->>'v')::int <= 3,
      error = (payload->'data'->'new'->>'v')::int = 4 WHERE (payload->'data'->'new'->>'v')::int <> 5`);
    await s.db.sql(`UPDATE engine_events.event_log SET delivered = true WHERE (payload->'data'->'new'->>'v')::int = 5`);
    await s.db.sql(
      `INSERT INTO engine_events.event_invocation_logs (event_id, trigger_name, status) SELECT id, trigger_name, 200 FROM engine_events.event_log`,
    );
    expect(await log.cleanup('tidy', 24, 3, true)).toBe(3);
    expect(await log.cleanup('tidy', 24, 3, true)).toBe(1);
    expect(await log.cleanup('tidy', 24, 3, true)).toBe(0);
    const left = await s.db.sql(`SELECT (payload->'data'->'new'->>'v')::int AS v FROM engine_events.event_log ORDER BY 1`);
    expect(left.rows.map((r: { v: number }) => r.v)).toEqual([5, 6]);
    const inv = await s.db.sql('SELECT count(*)::int AS n FROM engine_events.event_invocation_logs');
    expect(inv.rows[0].n).toBe(2);
  });
});
