/**
 * The PostgreSQL DDL stamp (Note [DDL stamp]) on a real server: every
 * kind of DDL that changes what introspection reports moves it; data changes,
 * maintenance and temporary tables do not. And the stamp taken with an
 * introspection equals the one asked for afterwards when nothing changed.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ddlStamp } from '../../../engine/backends/postgres/ddl-stamp.ts';
import { introspectPostgres } from '../../../engine/backends/postgres/introspect.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let client: pg.Client;

beforeAll(async () => {
  db = await createTestDatabase('stamp');
  await db.sql(`
    CREATE TYPE mood AS ENUM ('sad', 'ok');
    CREATE TABLE a (id int PRIMARY KEY, name text, m mood);
    CREATE TABLE b (id int PRIMARY KEY, a_id int);
    CREATE VIEW av AS SELECT id, name FROM a;
    CREATE FUNCTION f(x int) RETURNS int IMMUTABLE LANGUAGE sql AS $$ SELECT x $$;
    CREATE SCHEMA s;
  `);
  client = new pg.Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await db?.drop();
});

async function moves(sql: string): Promise<boolean> {
  const before = await ddlStamp(client);
  await db.sql(sql);
  const after = await ddlStamp(client);
  return after !== before;
}

describe('DDL stamp', () => {
  it('equals the stamp taken with an introspection while nothing changes', async () => {
    const intro = await introspectPostgres(client);
    expect(intro.ddlStamp).not.toBe('');
    expect(await ddlStamp(client)).toBe(intro.ddlStamp);
  });

  it.each([
    ['a new table', 'CREATE TABLE c (id int)'],
    ['a new table in another schema', 'CREATE TABLE s.t (id int)'],
    ['a new column', 'ALTER TABLE a ADD COLUMN extra int'],
    ['a renamed column', 'ALTER TABLE a RENAME COLUMN extra TO extra2'],
    ['a dropped column', 'ALTER TABLE a DROP COLUMN extra2'],
    ['a NOT NULL', 'ALTER TABLE a ALTER COLUMN name SET NOT NULL'],
    ['a default', "ALTER TABLE a ALTER COLUMN name SET DEFAULT 'x'"],
    ['a foreign key', 'ALTER TABLE b ADD CONSTRAINT b_a FOREIGN KEY (a_id) REFERENCES a(id)'],
    ['a dropped foreign key', 'ALTER TABLE b DROP CONSTRAINT b_a'],
    ['a unique constraint', 'ALTER TABLE b ADD CONSTRAINT b_u UNIQUE (a_id)'],
    ['a renamed table', 'ALTER TABLE c RENAME TO c2'],
    ['a dropped table', 'DROP TABLE c2'],
    ['a replaced view', 'CREATE OR REPLACE VIEW av AS SELECT id, name, m FROM a'],
    ['a new function', 'CREATE FUNCTION g() RETURNS int STABLE LANGUAGE sql AS $$ SELECT 1 $$'],
    ['a replaced function', 'CREATE OR REPLACE FUNCTION g() RETURNS int VOLATILE LANGUAGE sql AS $$ SELECT 2 $$'],
    ['a dropped function', 'DROP FUNCTION g()'],
    ['a new enum label', "ALTER TYPE mood ADD VALUE 'happy'"],
    ['a table comment', "COMMENT ON TABLE a IS 'letters'"],
    ['a column comment', "COMMENT ON COLUMN a.name IS 'a name'"],
    ['a renamed schema', 'ALTER SCHEMA s RENAME TO s2'],
    [
      'an INSTEAD OF trigger on a view',
      `
      CREATE FUNCTION av_ins() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
      CREATE TRIGGER av_ins INSTEAD OF INSERT ON av FOR EACH ROW EXECUTE FUNCTION av_ins()`,
    ],
  ])('moves with %s', async (_what, sql) => {
    expect(await moves(sql)).toBe(true);
  });

  it.each([
    ['rows written', "INSERT INTO a (id, name) VALUES (1, 'x'); UPDATE a SET name = 'y'; DELETE FROM b"],
    ['ANALYZE', 'ANALYZE a'],
    ['VACUUM', 'VACUUM b'],
    ['a temporary table', 'CREATE TEMP TABLE scratch (id int); DROP TABLE scratch'],
    ['a rolled back DDL', 'BEGIN; CREATE TABLE gone (id int); ROLLBACK'],
  ])('stays with %s', async (_what, sql) => {
    expect(await moves(sql)).toBe(false);
  });
});
