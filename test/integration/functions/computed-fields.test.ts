/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Computed fields through HTTP on real PostgreSQL: scalar ones selected,
 * filtered and sorted like columns; table-returning ones selected like an
 * array relationship with arguments; session argument; descriptions; select
 * permission `computed_fields`; drop with dependents; inconsistency when the
 * function changes under the engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;

const SETUP = `
CREATE TABLE author (id int PRIMARY KEY, first_name text NOT NULL, last_name text NOT NULL);
CREATE TABLE article (id int PRIMARY KEY, author_id int NOT NULL REFERENCES author(id), title text NOT NULL, rating int NOT NULL);
INSERT INTO author VALUES (1, 'Ann', 'Lee'), (2, 'Bob', 'Stone'), (3, 'Cid', 'Moe');
INSERT INTO article VALUES (1, 1, 'A1', 5), (2, 1, 'A2', 2), (3, 2, 'B1', 4);
CREATE FUNCTION author_full_name(author_row author) RETURNS text AS $$
  SELECT author_row.first_name || ' ' || author_row.last_name $$ LANGUAGE sql STABLE;
COMMENT ON FUNCTION author_full_name(author) IS 'first and last name';
CREATE FUNCTION author_articles(author_row author, min_rating int DEFAULT 0) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE author_id = author_row.id AND rating >= min_rating $$ LANGUAGE sql STABLE;
CREATE FUNCTION author_greeting(author_row author, greeting text) RETURNS text AS $$
  SELECT greeting || ', ' || author_row.first_name $$ LANGUAGE sql STABLE;
CREATE FUNCTION author_is_me(author_row author, engine_session json) RETURNS boolean AS $$
  SELECT author_row.id = (engine_session->>'x-engine-user-id')::int $$ LANGUAGE sql STABLE;
CREATE FUNCTION not_a_row(x int) RETURNS text AS $$ SELECT 'x' $$ LANGUAGE sql STABLE;
`;

const md = async (type: string, args: unknown): Promise<any> => await engine.metadata({ type, args });
const gql = async (query: string, headers?: Record<string, string>): Promise<any> => (await engine.graphql(query, undefined, headers)).body;
const add = async (name: string, fn: string, extra: Record<string, unknown> = {}): Promise<any> =>
  await md('pg_add_computed_field', { table: 'author', name, definition: { function: fn, ...extra } });

beforeAll(async () => {
  db = await createTestDatabase('cf');
  await db.sql(SETUP);
  engine = await startTestEngine({ databaseUrl: db.url });
  const r = await engine.metadata({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { table: 'author' } },
      { type: 'pg_track_table', args: { table: 'article' } },
    ],
  });
  if (r.status !== 200) throw new Error(r.text);
});
afterAll(async () => {
  await engine?.close();
  await db?.drop();
});

describe('scalar computed fields', () => {
  it('are selected, filtered and sorted like columns', async () => {
    expect((await add('full_name', 'author_full_name')).status).toBe(200);
    const r = await gql('{ author(order_by: {full_name: desc}, where: {full_name: {_like: "%o%"}}) { id full_name } }');
    expect(r).toEqual({
      data: {
        author: [
          { id: 3, full_name: 'Cid Moe' },
          { id: 2, full_name: 'Bob Stone' },
        ],
      },
    });
    const t = await gql('{ __type(name: "author") { fields { name description type { name } } } }');
    expect(t.data.__type.fields).toContainEqual({ name: 'full_name', description: 'first and last name', type: { name: 'String' } });
  });

  it('take further arguments through args', async () => {
    expect((await add('greeting', 'author_greeting')).status).toBe(200);
    const r = await gql('{ author_by_pk(id: 1) { greeting(args: {greeting: "Hi"}) } }');
    expect(r).toEqual({ data: { author_by_pk: { greeting: 'Hi, Ann' } } });
    // A computed field with a required argument is not offered in filters.
    const f = await gql('{ author(where: {greeting: {_eq: "x"}}) { id } }');
    expect(f.errors[0].extensions.code).toBe('validation-failed');
  });

  it('receive the session variables through the session argument', async () => {
    expect((await add('is_me', 'author_is_me', { session_argument: 'engine_session' })).status).toBe(200);
    const r = await gql('{ author(where: {is_me: {_eq: true}}) { id is_me } }', { 'x-engine-user-id': '2' });
    expect(r).toEqual({ data: { author: [{ id: 2, is_me: true }] } });
  });

  it('the metadata comment is the description', async () => {
    const r = await md('pg_add_computed_field', { table: 'author', name: 'name2', definition: { function: 'author_full_name' }, comment: 'shown name' });
    expect(r.status).toBe(200);
    const t = await gql('{ __type(name: "author") { fields { name description } } }');
    expect(t.data.__type.fields).toContainEqual({ name: 'name2', description: 'shown name' });
    expect((await md('pg_drop_computed_field', { table: 'author', name: 'name2' })).status).toBe(200);
  });
});

describe('table-returning computed fields', () => {
  it('are selected like an array relationship, with arguments', async () => {
    expect((await add('articles', 'author_articles')).status).toBe(200);
    const r = await gql(
      '{ author(order_by: {id: asc}, limit: 2) { id articles(order_by: {id: desc}) { id } rated: articles(args: {min_rating: 3}, where: {title: {_like: "A%"}}) { title } } }',
    );
    expect(r).toEqual({
      data: {
        author: [
          { id: 1, articles: [{ id: 2 }, { id: 1 }], rated: [{ title: 'A1' }] },
          { id: 2, articles: [{ id: 3 }], rated: [] },
        ],
      },
    });
    const filtered = await gql('{ author(where: {articles: {rating: {_gte: 4}}}, order_by: {id: asc}) { id } }');
    expect(filtered.data.author).toEqual([{ id: 1 }, { id: 2 }]);
    const none = await gql('{ author(where: {_not: {articles: {}}}) { id } }');
    expect(none.data.author).toEqual([{ id: 3 }]);
    const agg = await gql('{ author_aggregate(where: {id: {_eq: 1}}) { nodes { full_name articles { id } } } }');
    expect(agg.data.author_aggregate.nodes).toEqual([{ full_name: 'Ann Lee', articles: [{ id: 1 }, { id: 2 }] }]);
  });
});

describe('refusals', () => {
  it('a name taken by a column, a function not taking the row, a duplicate', async () => {
    const col = await add('first_name', 'author_full_name');
    expect(col.status).toBe(400);
    expect(col.body.error).toContain('"first_name" already exists');
    const arg = await add('x', 'not_a_row');
    expect(arg.status).toBe(400);
    expect(arg.body.error).toContain('should be of type "author"');
    const dup = await add('full_name', 'author_full_name');
    expect(dup.body.code).toBe('already-exists');
    const missing = await add('y', 'no_such_function');
    expect(missing.body.error).toContain('no such function exists');
    expect((await md('pg_drop_computed_field', { table: 'author', name: 'nope' })).body.code).toBe('not-exists');
  });
});

describe('select permission computed_fields', () => {
  it('lets a role select only the computed fields it lists; drop needs cascade', async () => {
    const doc = (await md('export_metadata', {})).body;
    const author = doc.sources[0].tables.find((t: any) => t.table.name === 'author');
    author.select_permissions = [{ role: 'user', permission: { columns: ['id'], computed_fields: ['full_name'], filter: {} } }];
    expect((await md('replace_metadata', doc)).status).toBe(200);
    const h = { 'x-engine-role': 'user' };
    expect((await gql('{ author(order_by: {id: asc}, limit: 1) { id full_name } }', h)).data.author).toEqual([{ id: 1, full_name: 'Ann Lee' }]);
    expect((await gql('{ author { greeting(args: {greeting: "x"}) } }', h)).errors[0].extensions.code).toBe('validation-failed');

    const drop = await md('pg_drop_computed_field', { table: 'author', name: 'full_name' });
    expect(drop.status).toBe(400);
    expect(drop.body.code).toBe('dependency-error');
    expect(drop.body.error).toContain('permission author.user.select');
    expect((await md('pg_drop_computed_field', { table: 'author', name: 'full_name', cascade: true })).status).toBe(200);
    const after = (await md('export_metadata', {})).body.sources[0].tables.find((t: any) => t.table.name === 'author');
    expect(after.select_permissions).toBeUndefined();
    expect(after.computed_fields.map((c: any) => c.name)).not.toContain('full_name');
  });
});

describe('computed fields in permission filters', () => {
  it('a select filter may compare a scalar computed field (with its session argument)', async () => {
    const doc = (await md('export_metadata', {})).body;
    const author = doc.sources[0].tables.find((t: any) => t.table.name === 'author');
    author.select_permissions = [{ role: 'me', permission: { columns: ['id'], computed_fields: ['is_me'], filter: { is_me: { _eq: true } } } }];
    expect((await md('replace_metadata', doc)).status).toBe(200);
    const r = await gql('{ author { id is_me } }', { 'x-engine-role': 'me', 'x-engine-user-id': '3' });
    expect(r).toEqual({ data: { author: [{ id: 3, is_me: true }] } });
    const bad = structuredClone(doc);
    bad.sources[0].tables.find((t: any) => t.table.name === 'author').select_permissions[0].permission.filter = { greeting: { _eq: 'x' } };
    const refused = await md('replace_metadata', bad);
    expect(refused.status).toBe(400);
  });
});

describe('legacy operations and changes under the engine', () => {
  it('add_computed_field / drop_computed_field on /v1/query', async () => {
    const a = await engine.post('/v1/query', {
      type: 'add_computed_field',
      args: { table: 'author', name: 'fn2', definition: { function: 'author_full_name' } },
    });
    expect(a.status).toBe(200);
    expect((await gql('{ author_by_pk(id: 3) { fn2 } }')).data.author_by_pk).toEqual({ fn2: 'Cid Moe' });
    expect((await engine.post('/v1/query', { type: 'drop_computed_field', args: { table: 'author', name: 'fn2' } })).status).toBe(200);
  });

  it('a dropped function makes the computed field inconsistent after reload_metadata', async () => {
    await db.sql('DROP FUNCTION author_greeting(author, text)');
    await md('reload_metadata', {});
    const inc = (await md('get_inconsistent_metadata', {})).body;
    expect(inc.inconsistent_objects).toContainEqual(
      expect.objectContaining({ type: 'computed_field', name: 'computed field greeting in table author in source default' }),
    );
    expect((await gql('{ author { id } }')).data.author).toHaveLength(3);
  });
});
