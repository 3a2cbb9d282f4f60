/**
 * Issue 12, point 1: a name from the database that is not a GraphQL name (a
 * `"t-pk"` primary key, the `<table>_pkey` of a quoted table name, a column
 * `a-b`) never takes the engine down: tracking it is refused with v2's
 * reason, the same change made by `run_sql` or behind the engine's back
 * leaves the table inconsistent, and a second process on the same metadata
 * starts and answers. Real `engine serve` processes, so a crash is a crash.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnEngine, type EngineProcess } from '../../support/engine-process.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: EngineProcess;
const running: EngineProcess[] = [];

interface Answer {
  readonly status: number;
  readonly body: unknown;
}

async function post(url: string, body: unknown): Promise<Answer> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as unknown };
}

const metadata = (p: EngineProcess, body: unknown): Promise<Answer> => post(`${p.url}/v1/metadata`, body);
const graphql = (p: EngineProcess, query: string): Promise<Answer> => post(`${p.url}/v1/graphql`, { query });

/** The process is running and answers a query on the table that was always fine. */
async function expectServing(p: EngineProcess): Promise<void> {
  expect(p.child.exitCode).toBeNull();
  expect((await fetch(`${p.url}/healthz`)).status).toBe(200);
  expect(await graphql(p, '{ fine(order_by: {id: asc}) { id } }')).toEqual({ status: 200, body: { data: { fine: [{ id: 1 }] } } });
}

/** Inconsistent objects reported by get_inconsistent_metadata, as `name: reason`. */
async function inconsistent(p: EngineProcess): Promise<string[]> {
  const r = await metadata(p, { type: 'get_inconsistent_metadata', args: {} });
  const list = (r.body as { inconsistent_objects: Array<{ name: string; reason: string }> }).inconsistent_objects;
  return list.map((o) => `${o.name}: ${o.reason}`);
}

beforeAll(async () => {
  db = await createTestDatabase('hostile');
  await db.sql(`
    CREATE TABLE fine (id int PRIMARY KEY); INSERT INTO fine VALUES (1);
    CREATE TABLE t (id int, CONSTRAINT "t-pk" PRIMARY KEY (id));
    CREATE TABLE "my table" (id int PRIMARY KEY);
    CREATE TABLE dashed ("a-b" int PRIMARY KEY);
    CREATE TABLE uniq (id int PRIMARY KEY, code text, CONSTRAINT "code unique" UNIQUE (code));
    CREATE TABLE later (id int PRIMARY KEY);
    CREATE TABLE behind (id int PRIMARY KEY);
    CREATE TABLE "String" (id int PRIMARY KEY);
    CREATE TABLE order_by (id int PRIMARY KEY);
    CREATE TABLE uuid (id uuid PRIMARY KEY);
    CREATE TABLE "__typename" (id int PRIMARY KEY);`);
  engine = await spawnEngine(['--database-url', db.url]);
  running.push(engine);
  expect((await metadata(engine, { type: 'pg_track_table', args: { table: 'fine' } })).body).toEqual({ message: 'success' });
});

afterAll(async () => {
  await Promise.all(running.map((p) => p.stop('SIGKILL')));
  await db?.drop();
});

describe('names from the database that are not GraphQL names', () => {
  it.each([
    ['a primary key named "t-pk"', { table: 't' }, 't-pk'],
    ['the default "my table_pkey" of a quoted table name', { table: 'my table', configuration: { custom_name: 'my_table' } }, 'my table_pkey'],
    ['a column named "a-b"', { table: 'dashed' }, 'a-b'],
    ['a unique constraint named "code unique"', { table: 'uniq' }, 'code unique'],
  ])('refuses to track a table with %s, and the engine stays up', async (_what, args, name) => {
    const r = await metadata(engine, { type: 'pg_track_table', args });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      path: '$.args',
      error: expect.stringContaining(`cannot include "${name}" in the GraphQL schema because it is not a valid GraphQL identifier`),
    });
    await expectServing(engine);
  });

  it.each([
    ['String', 'the GraphQL schema itself'],
    ['order_by', 'the GraphQL schema itself'],
    ['uuid', 'the scalar of database type "uuid"'],
  ])('refuses a table named %s, which would give the schema two types of one name', async (table, owner) => {
    const r = await metadata(engine, { type: 'pg_track_table', args: { table } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      error: expect.stringContaining(`the type name "${table}" of table "${table}" in source "default" conflicts with the one of ${owner}`),
    });
    await expectServing(engine);
  });

  it('refuses a table named __typename (names starting with __ are reserved for introspection)', async () => {
    const r = await metadata(engine, { type: 'pg_track_table', args: { table: '__typename' } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: expect.stringContaining('"__typename" is not a valid GraphQL name') });
    await expectServing(engine);
  });

  it('a custom column name makes a table with a non-GraphQL column trackable', async () => {
    const r = await metadata(engine, {
      type: 'pg_track_table',
      args: { table: 'dashed', configuration: { column_config: { 'a-b': { custom_name: 'a_b' } } } },
    });
    expect(r.body).toEqual({ message: 'success' });
    expect(await graphql(engine, '{ dashed { a_b } }')).toEqual({ status: 200, body: { data: { dashed: [] } } });
  });

  it("renaming a tracked table's constraint through run_sql never crashes the engine", async () => {
    expect((await metadata(engine, { type: 'pg_track_table', args: { table: 'later' } })).body).toEqual({ message: 'success' });
    const r = await post(`${engine.url}/v2/query`, { type: 'run_sql', args: { sql: 'ALTER TABLE later RENAME CONSTRAINT later_pkey TO "later-pk"' } });
    // Either refused (the table would become inconsistent) or accepted with the table inconsistent; never a 5xx.
    expect(r.status).toBeLessThan(500);
    await expectServing(engine);
    if (r.status === 200) {
      expect(await inconsistent(engine)).toEqual([expect.stringContaining('cannot include "later-pk" in the GraphQL schema')]);
      await db.sql('ALTER TABLE later RENAME CONSTRAINT "later-pk" TO later_pkey');
      expect((await metadata(engine, { type: 'reload_metadata', args: {} })).status).toBe(200);
    }
    expect(await inconsistent(engine)).toEqual([]);
  });

  it("a constraint renamed behind the engine's back leaves the table inconsistent, and a second process starts", async () => {
    expect((await metadata(engine, { type: 'pg_track_table', args: { table: 'behind' } })).body).toEqual({ message: 'success' });
    await db.sql('ALTER TABLE behind RENAME CONSTRAINT behind_pkey TO "behind-pk"');
    expect((await metadata(engine, { type: 'reload_metadata', args: {} })).status).toBe(200);
    await expectServing(engine);
    expect(await inconsistent(engine)).toEqual([expect.stringContaining('cannot include "behind-pk" in the GraphQL schema')]);
    // A restart: a second process on the same metadata database comes up and serves.
    const second = await spawnEngine(['--database-url', db.url]);
    running.push(second);
    await expectServing(second);
    expect(await (await fetch(`${second.url}/healthz`)).text()).toContain('inconsistent');
    expect(engine.child.exitCode).toBeNull();
  });
});
