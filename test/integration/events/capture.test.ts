/* eslint-disable @typescript-eslint/no-explicit-any -- API answers and log rows are JSON, asserted structurally */
/**
 * Event trigger metadata and capture: the triggers in the source database,
 * the event log rows they write in the writing transaction, and the session
 * of the GraphQL mutation. Delivery is off here (delivery.test.ts sends).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandBatches } from '../../../engine/backends/postgres/event-log.ts';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';

const SCHEMA = `
CREATE TABLE authors (id serial PRIMARY KEY, name text NOT NULL, bio text, meta json);
CREATE TABLE books (id serial PRIMARY KEY, title text NOT NULL, author_id int REFERENCES authors(id));
CREATE VIEW author_names AS SELECT id, name FROM authors;
`;

const TRACK = {
  type: 'bulk',
  args: ['authors', 'books', 'author_names'].map((t) => ({ type: 'pg_track_table', args: { table: t } })),
};

describe('event trigger capture', () => {
  let s: SeededEngine;
  let pool: pg.Pool;
  const md = async (type: string, args: unknown): Promise<any> => await s.engine.metadata({ type, args });
  // With delivery off, captured batches become events when something expands them (Note [Capture batches]).
  const events = async (trigger: string): Promise<any[]> => {
    await expandBatches(pool);
    return (await s.db.sql(`SELECT trigger_name, payload FROM engine_events.event_log WHERE trigger_name = $1 ORDER BY seq`, [trigger])).rows;
  };
  const dbTriggers = async (): Promise<string[]> =>
    (await s.db.sql(`SELECT tgname FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname`)).rows.map((r: any) => r.tgname);

  beforeAll(async () => {
    s = await startSeededEngine({ prefix: 'ev_capture', sql: SCHEMA, track: TRACK, settings: { eventsDelivery: false } });
    pool = new pg.Pool({ connectionString: s.db.url, max: 1 });
  });
  afterAll(async () => {
    await pool.end();
    await s.close();
  });

  it('creates the database triggers only when stored, and captures each operation with its session', async () => {
    const r = await md('pg_create_event_trigger', {
      name: 'author_changes',
      table: 'authors',
      webhook: 'http://127.0.0.1:1/hook',
      insert: { columns: '*' },
      update: { columns: ['name'], payload: ['id', 'name'] },
      delete: { columns: '*' },
    });
    expect(r.status, r.text).toBe(200);
    expect(await dbTriggers()).toEqual(['notify_engine_author_changes_DELETE', 'notify_engine_author_changes_INSERT', 'notify_engine_author_changes_UPDATE']);

    const ins = await s.engine.graphql(
      'mutation ($m: json) { insert_authors_one(object: {name: "Ann", meta: $m}) { id } }',
      { m: { a: 1 } },
      {
        'x-engine-role': 'admin',
        'x-engine-user-id': '42',
      },
    );
    expect(ins.body).toEqual({ data: { insert_authors_one: { id: 1 } } });
    // A change outside the engine carries no session.
    await s.db.sql(`UPDATE authors SET bio = 'only bio' WHERE id = 1`);
    await s.db.sql(`UPDATE authors SET name = 'Anne' WHERE id = 1`);
    const del = await s.engine.graphql('mutation { delete_authors(where: {}) { affected_rows } }');
    expect(del.body).toEqual({ data: { delete_authors: { affected_rows: 1 } } });

    const log = await events('author_changes');
    expect(log.map((e) => e.payload.op)).toEqual(['INSERT', 'UPDATE', 'DELETE']);
    expect(log[0].payload).toEqual({
      op: 'INSERT',
      data: { old: null, new: { id: 1, name: 'Ann', bio: null, meta: { a: 1 } } },
      session_variables: { 'x-engine-role': 'admin', 'x-engine-user-id': '42' },
    });
    // The update of bio alone did not fire; the payload has the listed columns only.
    expect(log[1].payload).toEqual({ op: 'UPDATE', data: { old: { id: 1, name: 'Ann' }, new: { id: 1, name: 'Anne' } }, session_variables: null });
    expect(log[2].payload.data.old.name).toBe('Anne');
    expect(log[2].payload.session_variables).toEqual({ 'x-engine-role': 'admin' });
  });

  it('captures each row of a multi-row statement in order, columns named like the capture aliases included', async () => {
    // `r` and `x` are the aliases the capture SQL gives rows and payload lists (Note [Capture triggers]).
    await s.db.sql(`CREATE TABLE IF NOT EXISTS alias_cols (id int PRIMARY KEY, r int, x text)`);
    expect((await md('pg_track_table', { table: 'alias_cols' })).status).toBe(200);
    const r = await md('pg_create_event_trigger', {
      name: 'alias_cols_all',
      table: 'alias_cols',
      webhook: 'http://127.0.0.1:1/hook',
      insert: { columns: '*', payload: ['id', 'x', 'r'] },
      delete: { columns: '*' },
    });
    expect(r.status, r.text).toBe(200);
    const ins = await s.engine.graphql(
      'mutation { insert_alias_cols(objects: [{id: 3, r: 30, x: "c"}, {id: 1, r: 10, x: "a"}, {id: 2, r: 20, x: "b"}]) { affected_rows } }',
      undefined,
      {
        'x-engine-role': 'admin',
        'x-engine-user-id': '7',
      },
    );
    expect(ins.body).toEqual({ data: { insert_alias_cols: { affected_rows: 3 } } });
    await s.db.sql(`DELETE FROM alias_cols WHERE id IN (1, 3)`);
    // An insert of no rows writes no event.
    await s.db.sql(`INSERT INTO alias_cols SELECT 9, 9, 'z' WHERE false`);
    const log = await events('alias_cols_all');
    const session = { 'x-engine-role': 'admin', 'x-engine-user-id': '7' };
    // Inserts in the statement's order; deletes in the order the statement met the rows.
    expect(log.slice(0, 3).map((e) => e.payload)).toEqual([
      { op: 'INSERT', data: { old: null, new: { id: 3, r: 30, x: 'c' } }, session_variables: session },
      { op: 'INSERT', data: { old: null, new: { id: 1, r: 10, x: 'a' } }, session_variables: session },
      { op: 'INSERT', data: { old: null, new: { id: 2, r: 20, x: 'b' } }, session_variables: session },
    ]);
    expect(
      log
        .slice(3)
        .map((e) => e.payload)
        .sort((a, b) => a.data.old.id - b.data.old.id),
    ).toEqual([
      { op: 'DELETE', data: { old: { id: 1, r: 10, x: 'a' }, new: null }, session_variables: null },
      { op: 'DELETE', data: { old: { id: 3, r: 30, x: 'c' }, new: null }, session_variables: null },
    ]);
    const keys = await s.db.sql(`SELECT row_key FROM engine_events.event_log WHERE trigger_name = 'alias_cols_all' ORDER BY seq`);
    expect(keys.rows.map((k: any) => k.row_key).slice(0, 3)).toEqual(['3', '1', '2']);
    expect(log.slice(3).map((e) => String(e.payload.data.old.id))).toEqual(keys.rows.slice(3).map((k: any) => k.row_key));
    // Leave the database's triggers as the other cases expect them.
    expect((await md('pg_delete_event_trigger', { name: 'alias_cols_all' })).status).toBe(200);
    expect((await md('pg_untrack_table', { table: 'alias_cols' })).status).toBe(200);
    await s.db.sql(`DROP TABLE alias_cols`);
  });

  it('writes no event for a rolled-back change', async () => {
    const before = (await events('author_changes')).length;
    const r = await s.engine.graphql<any>(
      'mutation { a: insert_authors_one(object: {name: "Bo"}) { id } b: insert_books_one(object: {title: "x", author_id: 999}) { id } }',
    );
    expect(r.body.errors?.[0]?.extensions?.code).toBe('constraint-violation');
    expect(await events('author_changes')).toHaveLength(before);
  });

  it('an update with columns "*" fires on any changed column, json ones included, and not on a no-op update', async () => {
    expect((await md('pg_create_event_trigger', { name: 'any_update', table: 'authors', webhook: 'http://x/', update: { columns: '*' } })).status).toBe(200);
    await s.db.sql(`INSERT INTO authors (name, meta) VALUES ('Cy', '{"k": 1}')`);
    await s.db.sql(`UPDATE authors SET name = name WHERE name = 'Cy'`);
    await s.db.sql(`UPDATE authors SET meta = '{"k": 2}' WHERE name = 'Cy'`);
    const log = await events('any_update');
    expect(log.map((e) => [e.payload.data.old.meta, e.payload.data.new.meta])).toEqual([[{ k: 1 }, { k: 2 }]]);
    expect((await md('pg_delete_event_trigger', { name: 'any_update' })).status).toBe(200);
    await s.db.sql(`DELETE FROM authors WHERE name = 'Cy'`);
  });

  it('refuses bad definitions with v2 errors and changes nothing', async () => {
    const base = { name: 'bad', table: 'authors', webhook: 'http://x/', insert: { columns: '*' } };
    const cases: Array<[unknown, number, string, string]> = [
      [{ ...base, name: 'author_changes' }, 400, 'already-exists', '$.args.name'],
      [{ ...base, table: 'nope' }, 400, 'not-exists', '$.args.table'],
      [{ ...base, webhook_from_env: 'X' }, 400, 'parse-failed', '$.args'],
      [{ name: 'bad', table: 'authors', insert: { columns: '*' } }, 400, 'parse-failed', '$.args'],
      [{ name: 'bad', table: 'authors', webhook: 'http://x/' }, 400, 'parse-failed', '$.args'],
      [{ ...base, name: 'has space' }, 400, 'parse-failed', '$.args.name'],
      [{ ...base, name: 'x'.repeat(43) }, 400, 'parse-failed', '$.args.name'],
      [{ ...base, update: { columns: ['nope'] } }, 400, 'invalid-configuration', '$.args'],
      [{ ...base, table: 'author_names' }, 400, 'invalid-configuration', '$.args'],
      [{ ...base, webhook: undefined, webhook_from_env: 'ENGINE_TEST_UNSET_HOOK' }, 400, 'invalid-configuration', '$.args'],
      [{ ...base, headers: [{ name: 'x', value_from_env: 'ENGINE_TEST_UNSET_HEADER' }] }, 400, 'invalid-configuration', '$.args'],
      [{ ...base, retry_conf: { num_retries: -1 } }, 400, 'parse-failed', '$.args.retry_conf.num_retries'],
      [{ ...base, cleanup_config: { schedule: '61 * * * *', clear_older_than: 1 } }, 400, 'parse-failed', '$.args.cleanup_config.schedule'],
    ];
    const before = await dbTriggers();
    for (const [args, status, code, path] of cases) {
      const r = await md('pg_create_event_trigger', args);
      expect({ args, status: r.status, code: r.body.code, path: r.body.path }).toEqual({ args, status, code, path });
    }
    expect(await dbTriggers()).toEqual(before);
    const exported = await md('export_metadata', {});
    expect(exported.body.sources[0].tables.find((t: any) => t.table.name === 'authors').event_triggers.map((e: any) => e.name)).toEqual(['author_changes']);
  });

  it('replaces a trigger, moving it to another table, and deletes it with its database objects', async () => {
    const r = await md('pg_create_event_trigger', { name: 'author_changes', table: 'books', webhook: 'http://x/', insert: { columns: '*' }, replace: true });
    expect(r.status, r.text).toBe(200);
    expect(await dbTriggers()).toEqual(['notify_engine_author_changes_INSERT']);
    const on = await s.db.sql(`SELECT tgrelid::regclass::text AS t FROM pg_trigger WHERE tgname = 'notify_engine_author_changes_INSERT'`);
    expect(on.rows[0].t).toBe('books');
    const d = await md('pg_delete_event_trigger', { name: 'author_changes' });
    expect(d.status, d.text).toBe(200);
    expect(await dbTriggers()).toEqual([]);
    const fns = await s.db.sql(`SELECT proname FROM pg_proc WHERE pronamespace = 'engine_events'::regnamespace`);
    expect(fns.rows).toEqual([]);
    expect((await md('pg_delete_event_trigger', { name: 'author_changes' })).body).toMatchObject({ code: 'not-exists', path: '$.args.name' });
  });

  it('untracking the table needs cascade, and removes the triggers with it', async () => {
    expect((await md('pg_create_event_trigger', { name: 'books_ins', table: 'books', webhook: 'http://x/', insert: { columns: '*' } })).status).toBe(200);
    const refused = await md('pg_untrack_table', { table: 'books' });
    expect(refused.body).toMatchObject({ code: 'dependency-error' });
    expect(await dbTriggers()).toEqual(['notify_engine_books_ins_INSERT']);
    expect((await md('pg_untrack_table', { table: 'books', cascade: true })).status).toBe(200);
    expect(await dbTriggers()).toEqual([]);
  });

  it('rolls the DDL back with the rest of a failing bulk, and sees a table made by run_sql in the same bulk', async () => {
    const failing = await s.engine.post('/v1/query', {
      type: 'bulk',
      args: [
        { type: 'run_sql', args: { sql: 'CREATE TABLE notes (id serial PRIMARY KEY, body text)' } },
        { type: 'track_table', args: { table: 'notes' } },
        { type: 'create_event_trigger', args: { name: 'notes_ins', table: 'notes', webhook: 'http://x/', insert: { columns: '*' } } },
        { type: 'track_table', args: { table: 'nope' } },
      ],
    });
    expect(failing.status).toBe(400);
    expect(await dbTriggers()).toEqual([]);
    const ok = await s.engine.post('/v1/query', {
      type: 'bulk',
      args: [
        { type: 'run_sql', args: { sql: 'CREATE TABLE notes (id serial PRIMARY KEY, body text)' } },
        { type: 'track_table', args: { table: 'notes' } },
        { type: 'create_event_trigger', args: { name: 'notes_ins', table: 'notes', webhook: 'http://x/', insert: { columns: '*' } } },
      ],
    });
    expect(ok.status, ok.text).toBe(200);
    expect(await dbTriggers()).toEqual(['notify_engine_notes_ins_INSERT']);
    await s.db.sql(`INSERT INTO notes (body) VALUES ('n')`);
    expect((await events('notes_ins')).map((e) => e.payload.data.new.body)).toEqual(['n']);
  });

  it('reload_metadata with recreate_event_triggers puts back capture dropped outside the engine', async () => {
    await s.db.sql(`DROP TRIGGER "notify_engine_notes_ins_INSERT" ON notes`);
    expect(await dbTriggers()).toEqual([]);
    expect((await md('reload_metadata', {})).status).toBe(200);
    expect(await dbTriggers()).toEqual([]);
    expect((await md('reload_metadata', { recreate_event_triggers: true })).status).toBe(200);
    expect(await dbTriggers()).toEqual(['notify_engine_notes_ins_INSERT']);
  });

  it('a dropped table makes its trigger inconsistent and keeps its events', async () => {
    await s.db.sql(`INSERT INTO notes (body) VALUES ('before drop')`);
    await s.db.sql(`DROP TABLE notes`);
    const inc = await md('get_inconsistent_metadata', {});
    expect(inc.body.inconsistent_objects.map((o: any) => o.type).sort()).toEqual(['event_trigger', 'table']);
    expect((await events('notes_ins')).map((e) => e.payload.data.new.body)).toEqual(['n', 'before drop']);
    const logs = await md('pg_get_event_logs', { name: 'notes_ins', status: 'pending' });
    expect(logs.status, logs.text).toBe(200);
    expect(logs.body.map((e: any) => e.payload.data.new.body)).toEqual(['before drop', 'n']);
    expect((await md('drop_inconsistent_metadata', {})).status).toBe(200);
  });

  it('dropping the source with cascade removes the capture functions', async () => {
    expect((await md('pg_create_event_trigger', { name: 'a_ins', table: 'authors', webhook: 'http://x/', insert: { columns: '*' } })).status).toBe(200);
    expect(await dbTriggers()).toEqual(['notify_engine_a_ins_INSERT']);
    expect((await md('pg_drop_source', { name: 'default', cascade: true })).status).toBe(200);
    expect(await dbTriggers()).toEqual([]);
  });
});
