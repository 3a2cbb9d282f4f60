/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * v2 compatibility, third round (issue 34), queries: each case is v2's answer over HTTP against
 * a real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';

const SQL = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, rating int);
CREATE TABLE article (id serial PRIMARY KEY, title text, author_id int REFERENCES author(id));
CREATE TABLE doc (id serial PRIMARY KEY, body jsonb);
COMMENT ON COLUMN author.name IS 'the name';
CREATE DOMAIN positive_int AS int CHECK (VALUE > 0);
CREATE FUNCTION authors_between(int, int) RETURNS SETOF author AS $$ SELECT * FROM author WHERE id BETWEEN $1 AND $2 $$ LANGUAGE sql STABLE;
CREATE FUNCTION articles_of(a author) RETURNS SETOF article AS $$ SELECT * FROM article WHERE author_id = a.id $$ LANGUAGE sql STABLE;
CREATE FUNCTION author_by_domain(n positive_int) RETURNS SETOF author AS $$ SELECT * FROM author WHERE id = n $$ LANGUAGE sql STABLE;
CREATE FUNCTION author_or_first(x int DEFAULT 1) RETURNS SETOF author AS $$ SELECT * FROM author WHERE id = x $$ LANGUAGE sql STABLE;
CREATE FUNCTION one_author(x int) RETURNS author AS $$ SELECT * FROM author WHERE id = x $$ LANGUAGE sql STABLE;
INSERT INTO author (name, rating) VALUES ('Ann', 5), ('Bob', 3), ('Cy', 4);
INSERT INTO article (title, author_id) VALUES ('a1', 1), ('a2', 1), ('b1', 2);
INSERT INTO doc (body) VALUES ('{"objs": [{"你好": "hi", "é": 1}]}');
`;

const FUNCTIONS = ['authors_between', 'articles_of', 'author_by_domain', 'author_or_first', 'one_author'];

let s: SeededEngine;
const gql = async (query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<any> =>
  (await s.engine.graphql(query, variables, headers)).body;

beforeAll(async () => {
  s = await startSeededEngine({
    prefix: 'v2q3',
    sql: SQL,
    track: {
      type: 'bulk',
      args: [
        { type: 'pg_track_table', args: { source: 'default', table: 'author' } },
        { type: 'pg_track_table', args: { source: 'default', table: 'article' } },
        { type: 'pg_track_table', args: { source: 'default', table: 'doc' } },
        {
          type: 'pg_create_object_relationship',
          args: { source: 'default', table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } },
        },
        {
          type: 'pg_create_array_relationship',
          args: { source: 'default', table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } },
        },
        ...FUNCTIONS.map((f) => ({ type: 'pg_track_function', args: { source: 'default', function: f } })),
        {
          type: 'pg_create_select_permission',
          args: { source: 'default', table: 'author', role: 'reader', permission: { columns: ['id', 'name'], filter: {} } },
        },
        { type: 'pg_create_select_permission', args: { source: 'default', table: 'article', role: 'reader', permission: { columns: '*', filter: {} } } },
        {
          type: 'pg_create_select_permission',
          args: { source: 'default', table: 'author', role: 'counter', permission: { columns: [], filter: { rating: { _gt: 3 } }, allow_aggregations: true } },
        },
      ],
    },
  });
});
afterAll(async () => {
  await s?.close();
});

describe('functions whose arguments are not base types', () => {
  it('a table row argument and a domain argument leave every role a schema', async () => {
    for (const headers of [undefined, { 'x-engine-role': 'reader' }]) {
      const r = await gql('{ author(order_by: {id: asc}, limit: 1) { name } }', undefined, headers);
      expect(r).toEqual({ data: { author: [{ name: 'Ann' }] } });
    }
  });

  it('a row argument is the scalar <type>_scalar (v2), given as the row literal', async () => {
    const t = await gql('{ __type(name: "articles_of_args") { inputFields { name type { kind ofType { kind name } } } } }');
    expect(t.data.__type.inputFields).toEqual([{ name: 'a', type: { kind: 'NON_NULL', ofType: { kind: 'SCALAR', name: 'author_scalar' } } }]);
    const r = await gql('{ articles_of(args: {a: "(1,Ann,5)"}, order_by: {id: asc}) { title } }');
    expect(r).toEqual({ data: { articles_of: [{ title: 'a1' }, { title: 'a2' }] } });
    const asReader = await gql('query($a: author_scalar!) { articles_of(args: {a: $a}) { title } }', { a: '(2,Bob,3)' }, { 'x-engine-role': 'reader' });
    expect(asReader).toEqual({ data: { articles_of: [{ title: 'b1' }] } });
  });

  it('a domain argument is the scalar named after the domain; the domain check still applies', async () => {
    const t = await gql('{ __type(name: "author_by_domain_args") { inputFields { name type { ofType { name } } } } }');
    expect(t.data.__type.inputFields).toEqual([{ name: 'n', type: { ofType: { name: 'positive_int' } } }]);
    expect(await gql('{ author_by_domain(args: {n: 2}) { name } }')).toEqual({ data: { author_by_domain: [{ name: 'Bob' }] } });
    const bad = await gql('{ author_by_domain(args: {n: 0}) { name } }');
    expect(bad.errors[0].extensions.code).toBe('constraint-violation');
  });
});

describe('function arguments', () => {
  it('unnamed arguments are arg_1, arg_2, ... from 1', async () => {
    const t = await gql('{ __type(name: "authors_between_args") { inputFields { name } } }');
    expect(t.data.__type.inputFields.map((f: any) => f.name)).toEqual(['arg_1', 'arg_2']);
    const r = await gql('{ authors_between(args: {arg_1: 2, arg_2: 3}, order_by: {id: asc}) { name } }');
    expect(r).toEqual({ data: { authors_between: [{ name: 'Bob' }, { name: 'Cy' }] } });
  });

  it('an argument with a default may be left out, and so may `args` when every one has a default', async () => {
    expect(await gql('{ author_or_first { name } }')).toEqual({ data: { author_or_first: [{ name: 'Ann' }] } });
    expect(await gql('{ author_or_first(args: {}) { name } }')).toEqual({ data: { author_or_first: [{ name: 'Ann' }] } });
    expect(await gql('{ author_or_first(args: {x: 3}) { name } }')).toEqual({ data: { author_or_first: [{ name: 'Cy' }] } });
  });

  it('an unknown argument points at .args.args', async () => {
    const r = await gql('{ author_or_first(args: {nope: 1}) { name } }');
    expect(r.errors[0].extensions).toEqual({ path: '$.selectionSet.author_or_first.args.args.nope', code: 'validation-failed' });
  });
});

describe('a function returning one row', () => {
  it('RETURNS t (not SETOF) answers an object', async () => {
    expect(await gql('{ one_author(args: {x: 2}) { name } }')).toEqual({ data: { one_author: { name: 'Bob' } } });
    // PostgreSQL makes a row of nulls of a composite function that found no row; v2 reads it FROM the call too.
    expect(await gql('{ one_author(args: {x: 99}) { name } }')).toEqual({ data: { one_author: { name: null } } });
    const t = await gql('{ __schema { queryType { fields { name type { kind name } } } } }');
    expect(t.data.__schema.queryType.fields.find((f: any) => f.name === 'one_author').type).toEqual({ kind: 'OBJECT', name: 'author' });
    const agg = await gql('{ one_author_aggregate(args: {x: 2}) { aggregate { count } } }');
    expect(agg).toEqual({ data: { one_author_aggregate: { aggregate: { count: 1 } } } });
  });
});

describe('variables coerced as v2 does', () => {
  it('a numeric string for an Int limit or offset is the number', async () => {
    const r = await gql('query($l: Int, $o: Int) { author(order_by: {id: asc}, limit: $l, offset: $o) { id } }', { l: '1', o: '1' });
    expect(r).toEqual({ data: { author: [{ id: 2 }] } });
  });

  it('an Int outside 32 bits or fractional is parse-failed with v2 wording, at the argument', async () => {
    const q = 'query($l: Int) { author(limit: $l) { id } }';
    for (const [l, shown] of [
      [2147483648, '2.147483648e9'],
      ['2147483648', '2.147483648e9'],
      [-3000000000, '-3.0e9'],
      [1.5, '1.5'],
    ] as const) {
      const r = await gql(q, { l });
      expect(r).toEqual({
        errors: [
          {
            message: `The value ${shown} lies outside the bounds or is not an integer. Maybe it is a float, or is there integer overflow?`,
            extensions: { path: '$.selectionSet.author.args.limit', code: 'parse-failed' },
          },
        ],
      });
    }
  });

  it('a bad value inside a variable points at the argument and the place in the value', async () => {
    const e = await gql('query($d: [author_select_column!]) { author(distinct_on: $d) { id } }', { d: ['id', 'zz'] });
    expect(e.errors[0].extensions).toEqual({ path: '$.selectionSet.author.args.distinct_on[1]', code: 'validation-failed' });
    const nested = await gql('query($n: Int) { a: author(where: {_and: [{id: {_eq: $n}}]}) { id } }', { n: 2 ** 40 });
    expect(nested.errors[0].extensions).toEqual({ path: '$.selectionSet.a.args.where._and[0].id._eq', code: 'parse-failed' });
    const w = await gql('query($w: author_bool_exp) { author(where: $w) { id } }', { w: { id: { _eq: 'x' } } });
    expect(w.errors[0].extensions).toEqual({ path: '$.selectionSet.author.args.where.id._eq', code: 'validation-failed' });
  });
});

describe('database errors', () => {
  it('an invalid escape sequence in a string argument is bad-request, as v2 maps SQLSTATE 22025', async () => {
    const r = await gql('{ author(where: {name: {_like: "%\\\\"}}) { id } }');
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].message).toBe('LIKE pattern must not end with escape character');
    expect(r.errors[0].extensions).toMatchObject({ path: '$', code: 'bad-request' });
  });
});

describe('error paths', () => {
  it('a fragment cycle names the fragments and the path the inlining took', async () => {
    const two = await gql('query { author { ...A } } fragment A on author { articles { ...B } } fragment B on article { author { ...A } }');
    expect(two).toEqual({
      errors: [
        {
          message: 'the fragment definition(s) "A" and "B" form a cycle',
          extensions: {
            path: '$.selectionSet.author.selectionSet.A.selectionSet.articles.selectionSet.B.selectionSet.author.selectionSet',
            code: 'validation-failed',
          },
        },
      ],
    });
    const self = await gql('query { ...Q } fragment Q on query_root { ... on query_root { ...Q } }');
    expect(self.errors[0]).toEqual({
      message: 'the fragment definition(s) "Q" form a cycle',
      extensions: { path: '$.selectionSet.Q.selectionSet', code: 'validation-failed' },
    });
    // A fragment spread twice is no cycle.
    expect((await gql('query { ...R ...R } fragment R on query_root { one_author(args: {x: 1}) { name } }')).data).toEqual({ one_author: { name: 'Ann' } });
  });

  it('distinct_on not leading order_by is reported at the field arguments', async () => {
    const r = await gql('{ author(distinct_on: [rating], order_by: {name: asc}) { id } }');
    expect(r).toEqual({
      errors: [
        {
          message: '"distinct_on" columns must match initial "order_by" columns',
          extensions: { path: '$.selectionSet.author.args', code: 'validation-failed' },
        },
      ],
    });
  });
});

describe('changing tracked functions', () => {
  const runSql = async (sql: string): Promise<any> => await s.engine.post('/v2/query', { type: 'run_sql', args: { source: 'default', sql } });

  it('run_sql that overloads a tracked function is refused and rolled back', async () => {
    const r = await runSql('CREATE FUNCTION one_author(x text) RETURNS author AS $$ SELECT * FROM author WHERE name = x $$ LANGUAGE sql STABLE');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ path: '$', error: 'the following tracked function(s) cannot be overloaded: one_author', code: 'not-supported' });
    expect((await s.db.sql("SELECT count(*)::int AS n FROM pg_proc WHERE proname = 'one_author'")).rows[0].n).toBe(1);
  });

  it('run_sql that makes a tracked function VOLATILE is refused', async () => {
    const r = await runSql('ALTER FUNCTION one_author(int) VOLATILE');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ path: '$', error: 'type of function "one_author" is altered to "VOLATILE" which is not supported now', code: 'not-supported' });
    expect((await gql('{ one_author(args: {x: 1}) { name } }')).data).toEqual({ one_author: { name: 'Ann' } });
  });

  it('tracking an overloaded function is refused with v2 wording', async () => {
    await s.db.sql('CREATE FUNCTION twice(x int) RETURNS SETOF author AS $$ SELECT * FROM author $$ LANGUAGE sql STABLE');
    await s.db.sql('CREATE FUNCTION twice(x text) RETURNS SETOF author AS $$ SELECT * FROM author $$ LANGUAGE sql STABLE');
    await s.engine.metadata({ type: 'reload_metadata', args: {} });
    const r = await s.engine.metadata({ type: 'pg_track_function', args: { source: 'default', function: 'twice' } });
    expect(r.status).toBe(400);
    expect((r.body as any).error).toContain('function "twice" is overloaded. Overloaded functions are not supported');
  });
});

describe('a select permission with no columns but allow_aggregations', () => {
  const counter = { 'x-engine-role': 'counter' };

  it('gives <t>_aggregate with count (no columns argument), under the permission filter', async () => {
    expect(await gql('{ author_aggregate { aggregate { count } } }', undefined, counter)).toEqual({ data: { author_aggregate: { aggregate: { count: 2 } } } });
    const w = await gql('{ author_aggregate(where: {_not: {_and: []}}) { aggregate { count } } }', undefined, counter);
    expect(w).toEqual({ data: { author_aggregate: { aggregate: { count: 0 } } } });
    const t = await gql('{ __type(name: "author_aggregate_fields") { fields { name args { name } } } }', undefined, counter);
    expect(t.data.__type.fields).toEqual([{ name: 'count', args: [] }]);
  });

  it('shows no row type, list, by_pk or nodes field', async () => {
    const roots = await gql('{ __schema { queryType { fields { name } } } }', undefined, counter);
    expect(roots.data.__schema.queryType.fields.map((f: any) => f.name)).toEqual(['author_aggregate']);
    const nodes = await gql('{ author_aggregate { nodes { id } } }', undefined, counter);
    expect(nodes.errors[0].extensions.code).toBe('validation-failed');
    expect((await gql('{ __type(name: "author") { name } }', undefined, counter)).data.__type).toBeNull();
  });
});

describe('JSON path arguments', () => {
  it('bracket notation takes non-ASCII keys', async () => {
    const r = await gql('{ doc { a: body(path: "objs[0][\\"你好\\"]") b: body(path: "$.objs[0][\\"é\\"]") c: body(path: "[\\"objs\\"][0][\\"你好\\"]") } }');
    expect(r).toEqual({ data: { doc: [{ a: 'hi', b: 1, c: 'hi' }] } });
  });
});

describe('descriptions', () => {
  it('an empty comment in metadata is no description (null, or the table default), never ""', async () => {
    const c = await s.engine.metadata({
      type: 'pg_set_table_customization',
      args: { source: 'default', table: 'article', configuration: { comment: '', column_config: { title: { comment: '' } } } },
    });
    expect(c.status).toBe(200);
    const t = await gql('{ __type(name: "article") { description fields { name description } } }');
    expect(t.data.__type.description).toBe('columns and relationships of "article"');
    expect(t.data.__type.fields.find((f: any) => f.name === 'title').description).toBeNull();
    const a = await gql('{ __type(name: "author") { fields { name description } } }');
    expect(a.data.__type.fields.filter((f: any) => f.name === 'id' || f.name === 'name')).toEqual([
      { name: 'id', description: null },
      { name: 'name', description: 'the name' },
    ]);
  });
});

describe('introspection order', () => {
  it("lists a type's fields, root fields and a field's arguments by name, as v2 does", async () => {
    const t = await gql('{ __type(name: "author") { fields { name } } q: __schema { queryType { fields { name args { name } } } } }');
    const names = t.data.__type.fields.map((f: any) => f.name);
    expect(names).toEqual(['articles', 'articles_aggregate', 'id', 'name', 'rating']);
    const roots = t.data.q.queryType.fields.map((f: any) => f.name);
    expect(roots).toEqual([...roots].sort());
    expect(roots.indexOf('article')).toBeLessThan(roots.indexOf('author'));
    for (const f of t.data.q.queryType.fields) expect(f.args.map((a: any) => a.name)).toEqual(f.args.map((a: any) => a.name).sort());
  });
});
