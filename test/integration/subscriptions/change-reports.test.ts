/**
 * The change reports of PostgreSQL's live-query triggers (Note [Change reports with rows] in
 * engine/backends/postgres/live-query.ts), read from a real LISTEN connection: the key values of the
 * rows a statement changed (old and new), in the text keyText gives a bound value; the table alone
 * past the row bound or when a key column is gone (the write still succeeds); one function per table
 * with its columns written in, which replaces the generic functions of older engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { keyText, postgresLiveQueries, rowsFunction } from '../../../engine/backends/postgres/live-query.ts';
import { PostgresConnection } from '../../../engine/backends/postgres/connection.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { eventually } from '../../support/eventually.ts';

let db: TestDatabase;
let conn: PostgresConnection;
let listener: pg.Client;
const reports: unknown[] = [];

beforeAll(async () => {
  db = await createTestDatabase('live_reports');
  await db.sql(`
    CREATE TABLE t (id int PRIMARY KEY, grp int, note text);
    INSERT INTO t SELECT i, i % 3, 'x' FROM generate_series(1, 200) i;
    CREATE TABLE u (k uuid PRIMARY KEY, flag bool NOT NULL, "we""ird$f$" text NOT NULL);
    CREATE TABLE r (id int PRIMARY KEY, grp int);
    INSERT INTO r VALUES (1, 1);
  `);
  conn = new PostgresConnection(db.url, {});
  listener = new pg.Client({ connectionString: db.url });
  await listener.connect();
  listener.on('notification', (m) => reports.push(JSON.parse(m.payload ?? 'null')));
  await listener.query('LISTEN engine_live_change');
  await postgresLiveQueries.watchTables?.(conn, [
    { table: { schema: 'public', name: 't' }, columns: ['grp', 'id'] },
    { table: { schema: 'public', name: 'u' }, columns: ['k', 'flag', 'we"ird$f$'] },
    { table: { schema: 'public', name: 'r' }, columns: ['grp'] },
  ]);
});

afterAll(async () => {
  await listener?.end();
  await conn?.close();
  await db?.drop();
});

/** Runs `sql`, then a marker write, and returns the reports that came before the marker's. */
async function reportsOf(sql: string): Promise<unknown[]> {
  reports.length = 0;
  await db.sql(sql);
  await db.sql('INSERT INTO t VALUES (100000, 0) ON CONFLICT (id) DO UPDATE SET note = NULL');
  const marker = (x: unknown): boolean => JSON.stringify(x).includes('"100000"');
  await eventually(() => reports.some(marker), { what: 'the marker write reported' });
  return reports.slice(0, reports.findIndex(marker));
}

/** A report's keys as a sorted, duplicate-free list (duplicates are the reader's to fold). */
const keysOf = (report: unknown): string[] => [...new Set(((report as unknown[])[3] as unknown[][]).map((k) => JSON.stringify(k)))].sort();

describe('change reports with rows', () => {
  it('reports the key values of an inserted, updated (old and new) and deleted row; a statement that changed nothing reports nothing', async () => {
    const ins = await reportsOf("INSERT INTO t VALUES (500, 7, 'n')");
    expect(ins).toHaveLength(1);
    expect((ins[0] as unknown[]).slice(0, 3)).toEqual(['public', 't', ['grp', 'id']]);
    expect(keysOf(ins[0])).toEqual(['["7","500"]']);
    const moved = await reportsOf('UPDATE t SET grp = 8 WHERE id = 500');
    expect(moved.map(keysOf)).toEqual([['["7","500"]', '["8","500"]']]);
    const del = await reportsOf('DELETE FROM t WHERE id = 500');
    expect(del.map(keysOf)).toEqual([['["8","500"]']]);
    expect(await reportsOf('UPDATE t SET grp = 1 WHERE id = -1')).toEqual([]);
    const three = await reportsOf('UPDATE t SET note = note WHERE id IN (1, 2, 3)');
    expect(three.map(keysOf)).toEqual([['["1","1"]', '["0","3"]', '["2","2"]'].sort()]);
  });

  it('gives each value in the text keyText gives a bound value of its type, whatever the column is called', async () => {
    const [report] = await reportsOf(`INSERT INTO u VALUES ('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', true, 'x')`);
    const [columns, keys] = (report as unknown[]).slice(2) as [string[], string[][]];
    expect(columns).toEqual(['flag', 'k', 'we"ird$f$']);
    expect(keys[0]).toEqual([keyText('bool', true), keyText('uuid', 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'), 'x']);
  });

  it('reports the table alone past 100 rows', async () => {
    expect(await reportsOf('UPDATE t SET note = note WHERE id <= 100')).toHaveLength(1);
    expect(await reportsOf('UPDATE t SET note = note WHERE id <= 101')).toEqual([['public', 't']]);
  });

  it('reports the table alone, and lets the write through, once a key column is renamed or dropped', async () => {
    await db.sql('ALTER TABLE r RENAME COLUMN grp TO grp2');
    expect(await reportsOf('UPDATE r SET grp2 = 2 WHERE id = 1')).toEqual([['public', 'r']]);
    await db.sql('ALTER TABLE r DROP COLUMN grp2');
    expect(await reportsOf('INSERT INTO r VALUES (2)')).toEqual([['public', 'r']]);
    expect((await db.sql('SELECT count(*)::int AS n FROM r')).rows[0]).toEqual({ n: 2 });
  });

  it("calls the table's own function, and replaces the row triggers of an older engine's generic function", async () => {
    const fnOf = async (table: string): Promise<string[]> =>
      (
        await db.sql(
          `SELECT DISTINCT pn.nspname || '.' || p.proname AS f FROM pg_trigger g JOIN pg_proc p ON p.oid = g.tgfoid JOIN pg_namespace pn ON pn.oid = p.pronamespace
           WHERE g.tgrelid = $1::regclass AND g.tgname LIKE 'engine\\_live\\_rows\\_%'`,
          [table],
        )
      ).rows.map((x: { f: string }) => x.f);
    const own = rowsFunction({ schema: 'public', name: 't' });
    expect(await fnOf('t')).toEqual([`${own.schema}.${own.name}`]);
    // What an older engine left: the same trigger names on one function shared by every table.
    await db.sql(`
      CREATE TABLE old (id int PRIMARY KEY);
      CREATE FUNCTION engine_live.notify_rows_1() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
      CREATE TRIGGER engine_live_rows_insert AFTER INSERT ON old REFERENCING NEW TABLE AS engine_new FOR EACH STATEMENT EXECUTE PROCEDURE engine_live.notify_rows_1('id');
      CREATE TRIGGER engine_live_rows_update AFTER UPDATE ON old REFERENCING OLD TABLE AS engine_old NEW TABLE AS engine_new FOR EACH STATEMENT EXECUTE PROCEDURE engine_live.notify_rows_1('id');
      CREATE TRIGGER engine_live_rows_delete AFTER DELETE ON old REFERENCING OLD TABLE AS engine_old FOR EACH STATEMENT EXECUTE PROCEDURE engine_live.notify_rows_1('id');
      CREATE TRIGGER engine_live_truncate AFTER TRUNCATE ON old FOR EACH STATEMENT EXECUTE PROCEDURE engine_live.notify_change();
    `);
    await postgresLiveQueries.watchTables?.(conn, [{ table: { schema: 'public', name: 'old' }, columns: ['id'] }]);
    const mine = rowsFunction({ schema: 'public', name: 'old' });
    expect(await fnOf('old')).toEqual([`${mine.schema}.${mine.name}`]);
    const [report] = await reportsOf('INSERT INTO old VALUES (9)');
    expect(report).toEqual(['public', 'old', ['id'], [['9']]]);
  });
});
