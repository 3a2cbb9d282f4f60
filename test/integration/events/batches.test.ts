/* eslint-disable @typescript-eslint/no-explicit-any -- log rows and payloads are JSON, asserted structurally */
/**
 * Capture batches (Note [Capture batches]): a capturing statement writes one
 * batch row, which the log expands into one event per row before a take or a
 * read. What was captured is what is delivered, whatever happens to the
 * table in between; a multi-row UPDATE pairs each row's OLD with its NEW;
 * and a row that jsonb cannot hold neither fails the writer nor blocks the
 * other events.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendFor } from '../../../engine/backends/registry.ts';
import { connectPostgresSource } from '../../support/source-connection.ts';
import type { EventLog, LoggedEvent, SourceConnection } from '../../../engine/backends/backend.ts';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';
import { deliveredAttempts } from '../../support/event-log.ts';

const SCHEMA = `
CREATE TABLE t (id serial PRIMARY KEY, v int, w text);
CREATE TABLE u (id int PRIMARY KEY, v int, w text);
CREATE TABLE pt (id int PRIMARY KEY, v int) PARTITION BY RANGE (id);
CREATE TABLE pt_low PARTITION OF pt FOR VALUES FROM (0) TO (100);
CREATE TABLE pt_high PARTITION OF pt FOR VALUES FROM (100) TO (1000);
CREATE TABLE j (id serial PRIMARY KEY, doc json);
CREATE TABLE k (id int PRIMARY KEY, v int);
`;

const trigger = (name: string, table: string, ops: Record<string, unknown>): unknown => ({
  type: 'pg_create_event_trigger',
  args: { name, table, webhook: 'http://127.0.0.1:1/', ...ops },
});

describe('capture batches', () => {
  let s: SeededEngine;
  let conn: SourceConnection;
  let log: EventLog;

  beforeAll(async () => {
    s = await startSeededEngine({
      prefix: 'ev_batches',
      sql: SCHEMA,
      track: {
        type: 'bulk',
        args: [
          ...['t', 'u', 'pt', 'j', 'k'].map((table) => ({ type: 'pg_track_table', args: { table } })),
          trigger('t_all', 't', { insert: { columns: '*' }, update: { columns: ['v'] }, delete: { columns: '*' } }),
          trigger('u_v', 'u', { update: { columns: ['v'], payload: ['id', 'v'] } }),
          trigger('pt_upd', 'pt', { update: { columns: '*' } }),
          trigger('j_ins', 'j', { insert: { columns: '*' } }),
          trigger('k_all', 'k', { insert: { columns: '*' }, update: { columns: '*' } }),
        ],
      },
      settings: { eventsDelivery: false },
    });
    conn = connectPostgresSource(s.db.url);
    log = backendFor('postgres').eventTriggers!.eventLog(conn);
  });
  afterAll(async () => {
    await conn.close();
    await s.close();
  });

  const takeAll = async (name: string, limit = 1000): Promise<LoggedEvent[]> => await log.take([name], limit, 60_000, 'me');
  const batches = async (): Promise<number> => (await s.db.sql('SELECT count(*)::int AS n FROM engine_events.event_batch')).rows[0].n;

  it('delivers rows as they were captured when columns are added, dropped or retyped before the take', async () => {
    await s.db.sql(`INSERT INTO t (v, w) VALUES (1, 'a'), (2, 'b')`);
    await s.db.sql(`UPDATE t SET v = v + 10 WHERE id = 1`);
    await s.db.sql(`UPDATE t SET w = 'only w' WHERE id = 1`);
    await s.db.sql(`DELETE FROM t WHERE id = 2`);
    // Three batches (the update of w alone wrote none), and no event yet.
    expect(await batches()).toBe(3);
    expect((await s.db.sql(`SELECT count(*)::int AS n FROM engine_events.event_log WHERE trigger_name = 't_all'`)).rows[0].n).toBe(0);
    await s.db.sql(`ALTER TABLE t ADD COLUMN c int DEFAULT 7; ALTER TABLE t DROP COLUMN w; ALTER TABLE t ALTER COLUMN v TYPE text`);
    await s.db.sql(`INSERT INTO t (v) VALUES ('x')`);

    // Reading the log expands the batches; oldest first here.
    const logged: any[] = (await log.events({ triggerName: 't_all', status: 'all', limit: 100, offset: 0 })).reverse();
    expect(await batches()).toBe(0);
    expect(logged.map((e) => e.payload)).toEqual([
      { op: 'INSERT', data: { old: null, new: { id: 1, v: 1, w: 'a' } }, session_variables: null },
      { op: 'INSERT', data: { old: null, new: { id: 2, v: 2, w: 'b' } }, session_variables: null },
      { op: 'UPDATE', data: { old: { id: 1, v: 1, w: 'a' }, new: { id: 1, v: 11, w: 'a' } }, session_variables: null },
      { op: 'DELETE', data: { old: { id: 2, v: 2, w: 'b' }, new: null }, session_variables: null },
      { op: 'INSERT', data: { old: null, new: { id: 3, v: 'x', c: 7 } }, session_variables: null },
    ]);
    // Each row its own event: its own id, found by id, and taken one at a time per row, in capture order.
    expect(new Set(logged.map((e) => e.id)).size).toBe(5);
    const one = await log.eventById(logged[2].id, 10, 0);
    expect(one?.event).toMatchObject({ id: logged[2].id, trigger_name: 't_all', table_name: 't', delivered: false, tries: 0 });
    const taken = await takeAll('t_all');
    expect(taken.map((e) => e.id)).toEqual([logged[0].id, logged[1].id, logged[4].id]);
    const keys = await s.db.sql(`SELECT row_key FROM engine_events.event_log WHERE trigger_name = 't_all' ORDER BY seq`);
    expect(keys.rows.map((r: any) => r.row_key)).toEqual(['1', '2', '1', '2', '3']);
  });

  it('pairs the OLD and NEW of every row of a multi-row UPDATE, partition moves included, and fires only on the listed columns', async () => {
    await s.db.sql(`INSERT INTO u SELECT g, g, 'w' FROM generate_series(1, 100) g`);
    await s.db.sql(`UPDATE u SET v = CASE WHEN id % 2 = 0 THEN v + 1000 ELSE v END, w = 'changed'`);
    const taken = await takeAll('u_v');
    expect(taken).toHaveLength(50);
    for (const e of taken) {
      const { old, new: now } = e.payload.data as { old: { id: number; v: number }; new: { id: number; v: number } };
      expect(Object.keys(now).sort()).toEqual(['id', 'v']);
      expect(old.id % 2).toBe(0);
      expect([now.id, now.v]).toEqual([old.id, old.v + 1000]);
    }
    expect(taken.map((e) => (e.payload.data as any).new.id).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => (i + 1) * 2));

    await s.db.sql(`INSERT INTO pt SELECT g, g FROM generate_series(90, 110) g`);
    // Rows 90-99 move to the other partition; 100-110 stay; the no-op on 91 is no change.
    await s.db.sql(`UPDATE pt SET id = CASE WHEN id < 100 THEN id + 800 ELSE id END, v = CASE WHEN id = 91 THEN v ELSE -v END WHERE id <> 91`);
    const moved = await takeAll('pt_upd');
    expect(moved).toHaveLength(20);
    for (const e of moved) {
      const { old, new: now } = e.payload.data as { old: { id: number; v: number }; new: { id: number; v: number } };
      expect(now.v).toBe(-old.v);
      expect(now.id).toBe(old.id < 100 ? old.id + 800 : old.id);
    }
  });

  it('pairs a 100-row UPDATE with a hash or merge join even after the plan was cached on one-row statements', async () => {
    // Note [Update pairs]: a nested loop planned for one-row transition tables is quadratic on larger ones.
    const client = new pg.Client({ connectionString: s.db.url });
    await client.connect();
    try {
      const notices: string[] = [];
      client.on('notice', (n) => notices.push(n.message ?? ''));
      await client.query(`LOAD 'auto_explain'`);
      await client.query(`SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET auto_explain.log_level = notice`);
      for (let id = 1; id <= 8; id++) await client.query('UPDATE u SET v = v + 1 WHERE id = $1', [id]);
      notices.length = 0;
      await client.query('UPDATE u SET v = v + 1 WHERE id <= 100');
      const plan = notices.find((m) => m.includes('INSERT INTO engine_events.event_batch'));
      expect(plan).toMatch(/Hash Join|Merge Join/);
      expect(plan).not.toContain('Nested Loop');
    } finally {
      await client.end();
    }
    // Each row its event: the 50 of the test before, 8 single-row updates and 100.
    expect(await log.events({ triggerName: 'u_v', status: 'pending', limit: 1000, offset: 0 })).toHaveLength(158);
  });

  it("a take that expands batches leases the due new events after the log's own, within the limit, a row's events one at a time", async () => {
    // Note [Expanding take]. Three events already in the log, pending.
    await s.db.sql('INSERT INTO k VALUES (1, 1), (2, 2), (3, 3)');
    expect(await log.events({ triggerName: 'k_all', status: 'pending', limit: 10, offset: 0 })).toHaveLength(3);
    // Three batches: two new rows, and an update of row 1, whose insert is still pending.
    await s.db.sql('INSERT INTO k VALUES (4, 4), (5, 5)');
    await s.db.sql('UPDATE k SET v = 10 WHERE id = 1');
    const what = (es: LoggedEvent[]): string[] =>
      es.map((e) => `${e.payload.op} ${((e.payload.data as any).new as { id: number; v: number }).id}/${((e.payload.data as any).new as { v: number }).v}`);
    const first = await takeAll('k_all', 4);
    expect(await batches()).toBe(0);
    expect(what(first)).toEqual(['INSERT 1/1', 'INSERT 2/2', 'INSERT 3/3', 'INSERT 4/4']);
    expect(what(await takeAll('k_all'))).toEqual(['INSERT 5/5']);
    await log.record(deliveredAttempts(first.slice(0, 1), 'k_all'), 'me');
    expect(what(await takeAll('k_all'))).toEqual(['UPDATE 1/10']);
  });

  it('keeps a row jsonb cannot hold as text, in an event in error, without failing the writer or holding back other events', async () => {
    // json accepts \u0000 in a string; jsonb, the payload's type, does not.
    await s.db.sql(`INSERT INTO j (doc) VALUES ($1::json), ('{"ok": 1}')`, ['{"a": "\\u0000"}']);
    await s.db.sql(`INSERT INTO j (doc) VALUES ('{"ok": 2}')`);
    const all = await log.events({ triggerName: 'j_ins', status: 'all', limit: 10, offset: 0 });
    expect(all.map((e: any) => [e.error, e.payload.data.new])).toEqual([
      [false, { id: 3, doc: { ok: 2 } }],
      // The statement's rows share the batch the text stands in for.
      [true, '{"id":2,"doc":{"ok": 1}}'],
      [true, '{"id":1,"doc":{"a": "\\u0000"}}'],
    ]);
    expect(await batches()).toBe(0);
    const taken = await takeAll('j_ins');
    expect(taken.map((e) => e.payload.data)).toEqual([{ old: null, new: { id: 3, doc: { ok: 2 } } }]);
  });
});
