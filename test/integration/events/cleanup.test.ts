/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
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

describe('event log cleanup calls (cleanup_event_trigger_logs, pause/resume_event_trigger_cleanups)', () => {
  let s: SeededEngine;
  const md = async (type: string, args: unknown): Promise<{ status: number; body: any }> => {
    const r = await s.engine.metadata({ type, args });
    return { status: r.status, body: r.body };
  };
  const cleanupOf = async (name: string): Promise<unknown> => {
    const doc = (await md('export_metadata', {})).body;
    for (const t of doc.sources[0].tables) for (const e of t.event_triggers ?? []) if (e.name === name) return e.cleanup_config;
    return undefined;
  };

  beforeAll(async () => {
    s = await startSeededEngine({
      prefix: 'ev_cleanup_calls',
      sql: 'CREATE TABLE t (id serial PRIMARY KEY, v int); CREATE TABLE u (id serial PRIMARY KEY)',
      track: {
        type: 'bulk',
        args: [
          { type: 'pg_track_table', args: { table: 't' } },
          { type: 'pg_track_table', args: { table: 'u' } },
          {
            type: 'pg_create_event_trigger',
            args: {
              name: 'tidy',
              table: 't',
              webhook: 'http://127.0.0.1:1/',
              insert: { columns: '*' },
              cleanup_config: { schedule: '0 0 1 1 *', clear_older_than: 24 },
            },
          },
          { type: 'pg_create_event_trigger', args: { name: 'plain', table: 'u', webhook: 'http://127.0.0.1:1/', insert: { columns: '*' } } },
        ],
      },
      settings: { eventsDelivery: false },
    });
  });
  afterAll(async () => {
    await s.close();
  });

  it('deletes every old processed event now, a batch at a time, and keeps the rest', async () => {
    await s.db.sql('INSERT INTO t (v) SELECT g FROM generate_series(1, 6) g');
    // Reading the log expands the statement's batch into its six events (Note [Capture batches]).
    expect((await md('pg_get_event_logs', { name: 'tidy', status: 'pending' })).body).toHaveLength(6);
    await s.db.sql(`UPDATE engine_events.event_log SET created_at = now() - interval '48 hours', delivered = (payload->'data'->'new'->>'v')::int <= 3,
      error = (payload->'data'->'new'->>'v')::int = 4 WHERE (payload->'data'->'new'->>'v')::int <> 5`);
    await s.db.sql(`UPDATE engine_events.event_log SET delivered = true WHERE (payload->'data'->'new'->>'v')::int = 5`);
    await s.db.sql(
      `INSERT INTO engine_events.event_invocation_logs (event_id, trigger_name, status) SELECT id, trigger_name, 200 FROM engine_events.event_log`,
    );

    const r = await md('cleanup_event_trigger_logs', { event_trigger_name: 'tidy', clear_older_than: 24, batch_size: 1, clean_invocation_logs: true });
    expect(r).toEqual({ status: 200, body: { message: 'success', deleted_event_logs: 4 } });
    const left = await s.db.sql(`SELECT (payload->'data'->'new'->>'v')::int AS v FROM engine_events.event_log ORDER BY 1`);
    expect(left.rows.map((row: { v: number }) => row.v)).toEqual([5, 6]);
    expect((await s.db.sql('SELECT count(*)::int AS n FROM engine_events.event_invocation_logs')).rows[0].n).toBe(2);
    expect((await md('cleanup_event_trigger_logs', { event_trigger_name: 'tidy', clear_older_than: 0 })).body).toEqual({
      message: 'success',
      deleted_event_logs: 1,
    });
  });

  it('pauses and resumes scheduled cleanups in the metadata, by trigger or by source', async () => {
    expect((await md('pause_event_trigger_cleanups', { event_triggers: [{ source_name: 'default', event_triggers: ['tidy'] }] })).body).toEqual({
      message: 'success',
    });
    expect(await cleanupOf('tidy')).toMatchObject({ schedule: '0 0 1 1 *', clear_older_than: 24, paused: true });
    expect(s.engine.engine.metadata.catalogRef.current.sources.get('default')?.eventTriggers?.get('tidy')?.cleanup?.paused).toBe(true);
    expect((await md('resume_event_trigger_cleanups', { event_triggers: { sources: '*' } })).status).toBe(200);
    expect(await cleanupOf('tidy')).toMatchObject({ paused: false });
    expect((await md('pause_event_trigger_cleanups', { event_triggers: { sources: ['default'] } })).status).toBe(200);
    expect(await cleanupOf('tidy')).toMatchObject({ paused: true });
    // A trigger without a cleanup config is left as it is.
    expect(await cleanupOf('plain')).toBeUndefined();
  });

  it('refuses unknown triggers and sources, a trigger without a cleanup config, and bad args, changing nothing', async () => {
    const before = (await md('export_metadata', {})).body;
    expect(await md('cleanup_event_trigger_logs', { event_trigger_name: 'nope', clear_older_than: 1 })).toMatchObject({
      status: 400,
      body: { code: 'not-exists' },
    });
    expect(await md('cleanup_event_trigger_logs', { event_trigger_name: 'tidy', source: 'elsewhere', clear_older_than: 1 })).toMatchObject({
      status: 400,
      body: { code: 'not-exists', error: 'source with name "elsewhere" does not exist' },
    });
    expect(await md('cleanup_event_trigger_logs', { event_trigger_name: 'tidy' })).toMatchObject({ status: 400, body: { code: 'parse-failed' } });
    expect(await md('resume_event_trigger_cleanups', { event_triggers: [{ event_triggers: ['tidy', 'plain'] }] })).toMatchObject({
      status: 400,
      body: { code: 'not-exists', error: 'cleanup config does not exist for plain' },
    });
    expect(await md('pause_event_trigger_cleanups', { event_triggers: [{ event_triggers: ['ghost'] }] })).toMatchObject({
      status: 400,
      body: { code: 'not-exists' },
    });
    expect(await md('pause_event_trigger_cleanups', { event_triggers: { sources: ['elsewhere'] } })).toMatchObject({
      status: 400,
      body: { code: 'not-exists' },
    });
    expect(await md('pause_event_trigger_cleanups', { event_triggers: [] })).toMatchObject({ status: 400, body: { code: 'parse-failed' } });
    expect((await md('export_metadata', {})).body).toEqual(before);
  });
});
