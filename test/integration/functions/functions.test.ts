/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Tracked functions through HTTP on real PostgreSQL: root fields with `args`
 * and the table's arguments, aggregates, defaults, mutation exposure,
 * session argument, customization, legacy operations, and inconsistency when
 * the function changes under the engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;

const SETUP = `
CREATE TABLE article (id int PRIMARY KEY, title text NOT NULL, author_id int NOT NULL, rating int NOT NULL);
INSERT INTO article VALUES (1, 'Hello World', 1, 5), (2, 'Second Post', 1, 2), (3, 'Hello Again', 2, 4), (4, 'Other', 2, 1);
CREATE TABLE untracked_t (id int PRIMARY KEY);
CREATE FUNCTION search_articles(search text) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE title ILIKE ('%' || search || '%') $$ LANGUAGE sql STABLE;
COMMENT ON FUNCTION search_articles(text) IS 'search articles by title';
CREATE FUNCTION top_articles(min_rating int DEFAULT 4) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE rating >= min_rating $$ LANGUAGE sql STABLE;
CREATE FUNCTION my_articles(engine_session json) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE author_id = (engine_session->>'x-engine-user-id')::int $$ LANGUAGE sql STABLE;
CREATE FUNCTION bump_rating(article_id int) RETURNS SETOF article AS $$
  UPDATE article SET rating = rating + 1 WHERE id = article_id RETURNING * $$ LANGUAGE sql VOLATILE;
CREATE FUNCTION first_article() RETURNS article AS $$ SELECT * FROM article ORDER BY id LIMIT 1 $$ LANGUAGE sql STABLE;
CREATE FUNCTION twice(a int) RETURNS SETOF article AS $$ SELECT * FROM article $$ LANGUAGE sql STABLE;
CREATE FUNCTION twice(a text) RETURNS SETOF article AS $$ SELECT * FROM article $$ LANGUAGE sql STABLE;
CREATE FUNCTION answer() RETURNS int AS $$ SELECT 42 $$ LANGUAGE sql STABLE;
CREATE FUNCTION untracked_rows() RETURNS SETOF untracked_t AS $$ SELECT * FROM untracked_t $$ LANGUAGE sql STABLE;
`;

const md = async (type: string, args: unknown): Promise<any> => await engine.metadata({ type, args });
const gql = async (query: string, headers?: Record<string, string>): Promise<any> => (await engine.graphql(query, undefined, headers)).body;

beforeAll(async () => {
  db = await createTestDatabase('fn');
  await db.sql(SETUP);
  engine = await startTestEngine({ databaseUrl: db.url });
  const r = await md('pg_track_table', { table: 'article' });
  if (r.status !== 200) throw new Error(r.text);
});
afterAll(async () => {
  await engine?.close();
  await db?.drop();
});

describe('pg_track_function', () => {
  it('exposes a SETOF function with args and the table arguments', async () => {
    expect((await md('pg_track_function', { function: 'search_articles' })).status).toBe(200);
    const r = await gql('{ search_articles(args: {search: "hello"}, where: {rating: {_gt: 4}}) { id title } }');
    expect(r).toEqual({ data: { search_articles: [{ id: 1, title: 'Hello World' }] } });
    const o = await gql('{ search_articles(args: {search: "hello"}, order_by: {id: desc}, limit: 1, offset: 0) { id } }');
    expect(o.data.search_articles).toEqual([{ id: 3 }]);
    const d = await gql('{ search_articles(args: {search: "o"}, distinct_on: author_id, order_by: [{author_id: asc}, {id: asc}]) { id } }');
    expect(d.data.search_articles).toEqual([{ id: 1 }, { id: 3 }]);
  });

  it('an argument is a parameter, never SQL text', async () => {
    const r = await engine.graphql('query ($s: String!) { search_articles(args: {search: $s}) { id } }', { s: "x'); DROP TABLE article; --" });
    expect((r.body as any).data.search_articles).toEqual([]);
    expect((await gql('{ article(order_by: {id: asc}) { id } }')).data.article).toHaveLength(4);
  });

  it('gives the function comment as description and an aggregate field', async () => {
    const t = await gql('{ __type(name: "query_root") { fields { name description args { name type { kind name ofType { name } } } } } }');
    const f = t.data.__type.fields.find((x: any) => x.name === 'search_articles');
    expect(f.description).toBe('search articles by title');
    expect(f.args.map((a: any) => a.name)).toEqual(['args', 'distinct_on', 'limit', 'offset', 'order_by', 'where']);
    expect(f.args[0].type).toEqual({ kind: 'NON_NULL', name: null, ofType: { name: 'search_articles_args' } });
    const a = await gql('{ search_articles_aggregate(args: {search: "hello"}) { aggregate { count sum { rating } } nodes { id } } }');
    expect(a.data.search_articles_aggregate).toEqual({ aggregate: { count: 2, sum: { rating: 9 } }, nodes: [{ id: 1 }, { id: 3 }] });
  });

  it('arguments with defaults may be left out', async () => {
    expect((await md('pg_track_function', { function: 'top_articles' })).status).toBe(200);
    expect((await gql('{ top_articles(order_by: {id: asc}) { id } }')).data.top_articles).toEqual([{ id: 1 }, { id: 3 }]);
    expect((await gql('{ top_articles(args: {min_rating: 2}, order_by: {id: asc}) { id } }')).data.top_articles).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    const t = await gql('{ __type(name: "top_articles_args") { inputFields { name type { kind name } } } }');
    expect(t.data.__type.inputFields).toEqual([{ name: 'min_rating', type: { kind: 'SCALAR', name: 'Int' } }]);
  });

  it('a function returning one row of the table (not SETOF) answers an object, as v2 does', async () => {
    expect((await md('pg_track_function', { function: 'first_article' })).status).toBe(200);
    expect((await gql('{ first_article { id title } }')).data.first_article).toEqual({ id: 1, title: 'Hello World' });
    const t = await gql('{ __schema { queryType { fields { name type { kind name } } } } }');
    expect(t.data.__schema.queryType.fields.find((x: any) => x.name === 'first_article').type).toEqual({ kind: 'OBJECT', name: 'article' });
  });

  it('passes the session variables as JSON to the session argument', async () => {
    const r = await md('pg_track_function', { function: 'my_articles', configuration: { session_argument: 'engine_session' } });
    expect(r.status).toBe(200);
    const q = await gql('{ my_articles(order_by: {id: asc}) { id } }', { 'x-engine-user-id': '2' });
    expect(q.data.my_articles).toEqual([{ id: 3 }, { id: 4 }]);
    const t = await gql('{ __type(name: "query_root") { fields { name args { name } } } }');
    expect(t.data.__type.fields.find((x: any) => x.name === 'my_articles').args.map((a: any) => a.name)).not.toContain('args');
  });

  it('a VOLATILE function is a mutation unless exposed_as says query', async () => {
    expect((await md('pg_track_function', { function: 'bump_rating' })).status).toBe(200);
    const q = await gql('{ bump_rating(args: {article_id: 4}) { id } }');
    expect(q.errors[0].extensions.code).toBe('validation-failed');
    const m = await gql('mutation { bump_rating(args: {article_id: 4}) { id rating } }');
    expect(m).toEqual({ data: { bump_rating: [{ id: 4, rating: 2 }] } });
    const both = await gql(
      'mutation { a: bump_rating(args: {article_id: 4}) { rating } insert_article_one(object: {id: 9, title: "t", author_id: 3, rating: 0}) { id } b: bump_rating(args: {article_id: 9}) { rating } }',
    );
    expect(both).toEqual({ data: { a: [{ rating: 3 }], insert_article_one: { id: 9 }, b: [{ rating: 1 }] } });
    const c = await md('pg_set_function_customization', { function: 'bump_rating', configuration: { exposed_as: 'query' } });
    expect(c.status).toBe(200);
    expect((await gql('{ bump_rating(args: {article_id: 4}) { rating } }')).data.bump_rating).toEqual([{ rating: 4 }]);
    const s = await md('pg_set_function_customization', { function: 'bump_rating', configuration: { exposed_as: 'mutation' } });
    expect(s.status).toBe(200);
    expect((await gql('mutation { bump_rating(args: {article_id: 4}) { rating } }')).data.bump_rating).toEqual([{ rating: 5 }]);
  });

  it('custom_name, custom_root_fields and comment', async () => {
    const r = await md('pg_set_function_customization', {
      function: 'search_articles',
      configuration: { custom_name: 'find', custom_root_fields: { function_aggregate: 'find_stats' } },
    });
    expect(r.status).toBe(200);
    expect((await gql('{ find(args: {search: "other"}) { id } }')).data.find).toEqual([{ id: 4 }]);
    expect((await gql('{ find_stats(args: {search: "other"}) { aggregate { count } } }')).data.find_stats.aggregate.count).toBe(1);
    expect((await gql('{ __type(name: "find_args") { name } }')).data.__type.name).toBe('find_args');
    expect((await gql('{ search_articles(args: {search: "x"}) { id } }')).errors[0].extensions.code).toBe('validation-failed');
    await md('pg_untrack_function', { function: 'search_articles' });
    expect((await md('pg_track_function', { function: 'search_articles', comment: 'find them' })).status).toBe(200);
    const t = await gql('{ __type(name: "query_root") { fields { name description } } }');
    expect(t.data.__type.fields.find((x: any) => x.name === 'search_articles').description).toBe('find them');
    const doc = (await md('export_metadata', {})).body;
    expect(doc.sources[0].functions).toContainEqual({ function: { schema: 'public', name: 'search_articles' }, comment: 'find them' });
  });
});

describe('refusals', () => {
  it('already tracked, missing, overloaded, not returning a tracked table', async () => {
    const again = await md('pg_track_function', { function: 'top_articles' });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: 'already-tracked', error: 'function already tracked : "top_articles"' });
    const missing = await md('pg_track_function', { function: { schema: 'public', name: 'nope' } });
    expect(missing.body).toMatchObject({ code: 'not-exists', path: '$.args.function' });
    const over = await md('pg_track_function', { function: 'twice' });
    expect(over.status).toBe(400);
    expect(over.body.error).toContain('overloaded');
    const scalar = await md('pg_track_function', { function: 'answer' });
    expect(scalar.body.error).toContain('does not return a "COMPOSITE" type');
    const untracked = await md('pg_track_function', { function: 'untracked_rows' });
    expect(untracked.body.error).toContain('is not tracked');
    const badSession = await md('pg_track_function', { function: 'top_articles_x', configuration: { session_argument: 'x' } });
    expect(badSession.status).toBe(400);
    const noSuchArg = await md('pg_set_function_customization', { function: 'top_articles', configuration: { session_argument: 'nope' } });
    expect(noSuchArg.body.error).toContain('session argument "nope" not found');
    expect((await md('pg_untrack_function', { function: 'nope' })).body.code).toBe('not-exists');
    const bogus = await md('pg_track_function', { function: 'answer', configuration: { exposed_as: 'sometimes' } });
    expect(bogus.status).toBe(400);
    const doc = (await md('export_metadata', {})).body;
    doc.sources[0].functions = [{ function: 'top_articles', configuration: { exposed_as: 'sometimes' } }];
    expect((await md('replace_metadata', doc)).status).toBe(400);
  });

  it('untracking the return table is refused while a function depends on it, unless cascaded', async () => {
    await db.sql('CREATE TABLE tag (id int PRIMARY KEY); CREATE FUNCTION all_tags() RETURNS SETOF tag AS $$ SELECT * FROM tag $$ LANGUAGE sql STABLE;');
    await md('reload_metadata', {});
    expect((await md('pg_track_table', { table: 'tag' })).status).toBe(200);
    expect((await md('pg_track_function', { function: 'all_tags' })).status).toBe(200);
    const r = await md('pg_untrack_table', { table: 'tag' });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('dependency-error');
    expect(r.body.error).toContain('function all_tags');
    expect((await md('pg_untrack_table', { table: 'tag', cascade: true })).status).toBe(200);
    const doc = (await md('export_metadata', {})).body;
    expect(doc.sources[0].functions.map((f: any) => f.function.name)).not.toContain('all_tags');
  });
});

describe('legacy operations on /v1/query', () => {
  it('track_function version 1 and 2, untrack_function', async () => {
    await db.sql('CREATE FUNCTION legacy_one() RETURNS SETOF article AS $$ SELECT * FROM article WHERE id = 1 $$ LANGUAGE sql STABLE;');
    await md('reload_metadata', {});
    const v1 = await engine.post('/v1/query', { type: 'track_function', args: { schema: 'public', name: 'legacy_one' } });
    expect(v1.status).toBe(200);
    expect((await gql('{ legacy_one { id } }')).data.legacy_one).toEqual([{ id: 1 }]);
    expect((await engine.post('/v1/query', { type: 'untrack_function', args: { schema: 'public', name: 'legacy_one' } })).status).toBe(200);
    const v2 = await engine.post('/v1/query', {
      type: 'track_function',
      version: 2,
      args: { function: { schema: 'public', name: 'legacy_one' }, configuration: { custom_root_fields: { function: 'legacy_first' } } },
    });
    expect(v2.status).toBe(200);
    expect((await gql('{ legacy_first { id } }')).data.legacy_first).toEqual([{ id: 1 }]);
  });
});

describe('run_sql', () => {
  it('a function created by run_sql can be tracked at once; dropping a tracked one needs cascade', async () => {
    const sql = 'CREATE FUNCTION by_author(a int) RETURNS SETOF article AS $$ SELECT * FROM article WHERE author_id = a $$ LANGUAGE sql STABLE';
    expect((await engine.post('/v2/query', { type: 'run_sql', args: { sql } })).status).toBe(200);
    expect((await md('pg_track_function', { function: 'by_author' })).status).toBe(200);
    expect((await gql('{ by_author(args: {a: 2}, order_by: {id: asc}) { id } }')).data.by_author).toEqual([{ id: 3 }, { id: 4 }]);
    const drop = await engine.post('/v2/query', { type: 'run_sql', args: { sql: 'DROP FUNCTION by_author(int)' } });
    expect(drop.status).toBe(400);
    expect((await engine.post('/v2/query', { type: 'run_sql', args: { sql: 'DROP FUNCTION by_author(int)', cascade: true } })).status).toBe(200);
    const doc = (await md('export_metadata', {})).body;
    expect(doc.sources[0].functions.map((f: any) => f.function.name)).not.toContain('by_author');
  });
});

describe('a function changed under the engine', () => {
  it('is inconsistent after reload_metadata, and consistent again once restored', async () => {
    await db.sql('DROP FUNCTION first_article()');
    expect((await md('reload_metadata', {})).status).toBe(200);
    const inc = (await md('get_inconsistent_metadata', {})).body;
    expect(inc.is_consistent).toBe(false);
    expect(inc.inconsistent_objects).toContainEqual(
      expect.objectContaining({ type: 'function', reason: 'Inconsistent object: no such function exists in postgres : "first_article"' }),
    );
    expect((await gql('{ first_article { id } }')).errors[0].extensions.code).toBe('validation-failed');
    await db.sql('CREATE FUNCTION first_article() RETURNS int AS $$ SELECT 1 $$ LANGUAGE sql STABLE');
    await md('reload_metadata', {});
    const changed = (await md('get_inconsistent_metadata', {})).body;
    expect(changed.inconsistent_objects[0].reason).toContain('does not return a "COMPOSITE" type');
    await db.sql(
      'DROP FUNCTION first_article(); CREATE FUNCTION first_article() RETURNS article AS $$ SELECT * FROM article ORDER BY id LIMIT 1 $$ LANGUAGE sql STABLE',
    );
    await md('reload_metadata', {});
    expect((await md('get_inconsistent_metadata', {})).body.is_consistent).toBe(true);
    expect((await gql('{ first_article { id } }')).data.first_article).toEqual({ id: 1 });
  });
});
