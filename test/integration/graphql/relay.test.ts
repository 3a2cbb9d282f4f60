/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * The Relay API at /v1beta1/relay (issue 15) over HTTP on a real PostgreSQL,
 * from v2's documented behaviour: `<t>_connection` with edges, cursors and
 * pageInfo, first/last/after/before, where/order_by/distinct_on, array
 * relationships as connections, `node(id:)` with v2's global ids, the role's
 * permissions, mutations answering `id`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReadFixture, type ReadFixture } from '../../support/read-schema.ts';

let f: ReadFixture;
const relay = async (query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<any> =>
  (await f.engine.post('/v1beta1/relay', { query, variables }, headers)).body;
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string): string => Buffer.from(s, 'base64').toString('utf8');
const names = (r: any, field = 'authors_connection'): string[] => r.data[field].edges.map((e: any) => e.node.name ?? e.node.title);

beforeAll(async () => {
  f = await startReadFixture();
  await f.db.sql(
    "CREATE FUNCTION search_authors(prefix text) RETURNS SETOF authors LANGUAGE sql STABLE AS $$ SELECT * FROM authors WHERE name LIKE prefix || '%' $$",
  );
  for (const b of [
    { type: 'pg_track_function', args: { function: 'search_authors' } },
    {
      type: 'pg_create_select_permission',
      args: { table: 'authors', role: 'reader', permission: { columns: ['id', 'name'], filter: { active: { _eq: true } } } },
    },
    { type: 'pg_create_select_permission', args: { table: 'articles', role: 'reader', permission: { columns: ['id', 'title', 'author_id'], filter: {} } } },
  ]) {
    expect((await f.md(b)).status).toBe(200);
  }
});
afterAll(async () => {
  await f?.close();
});

describe('connections', () => {
  it('pages forward with first/after: edges in order, cursors and node ids as v2 writes them', async () => {
    const q = `query ($after: String) { authors_connection(first: 2, after: $after) {
      edges { cursor node { id name } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`;
    const p1 = await relay(q);
    expect(names(p1)).toEqual(['Ann', 'Bob']);
    const e0 = p1.data.authors_connection.edges[0];
    // v2: the cursor is base64 of the primary key object, the node id of [1, schema, table, pk...].
    expect(unb64(e0.cursor)).toBe('{"id" : 1}');
    expect(unb64(e0.node.id)).toBe('[1, "public", "authors", 1]');
    expect(p1.data.authors_connection.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: b64('{"id" : 1}'),
      endCursor: b64('{"id" : 2}'),
    });
    const p2 = await relay(q, { after: p1.data.authors_connection.pageInfo.endCursor });
    expect(names(p2)).toEqual(['Cid']);
    // v2: hasPreviousPage is whether rows precede the page, whatever the cursor.
    expect(p2.data.authors_connection.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true });
  });

  it('pages backward with last/before', async () => {
    const last = await relay('{ authors_connection(last: 2) { edges { node { name } } pageInfo { hasNextPage hasPreviousPage } } }');
    expect(names(last)).toEqual(['Bob', 'Cid']);
    expect(last.data.authors_connection.pageInfo).toEqual({ hasNextPage: false, hasPreviousPage: true });
    const before = await relay(
      `{ authors_connection(last: 1, before: "${b64('{"id" : 3}')}") { edges { node { name } } pageInfo { hasNextPage hasPreviousPage } } }`,
    );
    expect(names(before)).toEqual(['Bob']);
    expect(before.data.authors_connection.pageInfo).toEqual({ hasNextPage: true, hasPreviousPage: true });
  });

  it('orders by order_by then the primary key; the cursor holds the sort keys', async () => {
    const q = `query ($after: String) { articles_connection(first: 2, after: $after, order_by: [{author: {name: desc_nulls_last}}, {words: asc}]) {
      edges { cursor node { title } } pageInfo { endCursor hasNextPage } } }`;
    const p1 = await relay(q);
    expect(names(p1, 'articles_connection')).toEqual(['Bob Writes', 'Hello World']);
    expect(JSON.parse(unb64(p1.data.articles_connection.edges[1].cursor))).toEqual({ author: { name: 'Ann' }, words: 100, id: 1 });
    const p2 = await relay(q, { after: p1.data.articles_connection.pageInfo.endCursor });
    expect(names(p2, 'articles_connection')).toEqual(['Second Post', 'Orphan']);
    expect(p2.data.articles_connection.pageInfo.hasNextPage).toBe(false);
  });

  it('filters with where and de-duplicates with distinct_on', async () => {
    const w = await relay('{ articles_connection(where: {words: {_gte: 100}}) { edges { node { title } } } }');
    expect(names(w, 'articles_connection')).toEqual(['Hello World', 'Second Post']);
    const d = await relay('{ articles_connection(distinct_on: [author_id], order_by: [{author_id: asc}, {words: desc}]) { edges { node { title } } } }');
    expect(names(d, 'articles_connection')).toEqual(['Second Post', 'Bob Writes', 'Orphan']);
    const bad = await relay('{ articles_connection(distinct_on: [author_id], order_by: [{words: desc}]) { edges { node { title } } } }');
    expect(bad.errors[0].extensions.code).toBe('validation-failed');
  });

  it('reads array relationships as connections, paged per parent', async () => {
    const r = await relay(
      '{ authors_connection(first: 1) { edges { node { name articles_connection(first: 1, order_by: {id: desc}) { edges { node { title } } pageInfo { hasNextPage } } } } } }',
    );
    const ann = r.data.authors_connection.edges[0].node;
    expect(ann.articles_connection).toEqual({ edges: [{ node: { title: 'Second Post' } }], pageInfo: { hasNextPage: true } });
  });

  it('answers an empty page with no edges and no further pages', async () => {
    const r = await relay('{ authors_connection(where: {name: {_eq: "nobody"}}) { edges { cursor } pageInfo { hasNextPage hasPreviousPage } } }');
    expect(r.data.authors_connection).toEqual({ edges: [], pageInfo: { hasNextPage: false, hasPreviousPage: false } });
  });

  it('refuses bad cursors and arguments with validation errors at their path', async () => {
    const bad = await relay('{ authors_connection(after: "not a cursor!") { edges { cursor } } }');
    expect(bad.errors[0]).toEqual({
      message: 'the "after" or "before" cursor is invalid',
      extensions: { path: '$.selectionSet.authors_connection.args.after', code: 'validation-failed' },
    });
    const badVar = await relay('query ($c: String) { authors_connection(after: $c) { edges { cursor } } }', { c: b64('[1]') });
    expect(badVar.errors[0].extensions.code).toBe('validation-failed');
    const both = await relay('{ authors_connection(first: 1, last: 1) { edges { cursor } } }');
    expect(both.errors[0].message).toBe('"first" and "last" are not allowed at once');
    const neg = await relay('{ authors_connection(first: -1) { edges { cursor } } }');
    expect(neg.errors[0].extensions.code).toBe('validation-failed');
  });
});

describe('function connections', () => {
  it('pages the rows of a tracked function as <fn>_connection', async () => {
    const r = await relay(
      '{ search_authors_connection(args: {prefix: ""}, first: 1, order_by: {name: desc}) { edges { node { name } } pageInfo { hasNextPage endCursor } } }',
    );
    expect(names(r, 'search_authors_connection')).toEqual(['Cid']);
    const next = await relay(
      `{ search_authors_connection(args: {prefix: ""}, first: 5, after: "${r.data.search_authors_connection.pageInfo.endCursor}", order_by: {name: desc}) { edges { node { name } } } }`,
    );
    expect(names(next, 'search_authors_connection')).toEqual(['Bob', 'Ann']);
    // The role reads the function's rows through its authors permission.
    const role = await relay('{ search_authors_connection(args: {prefix: ""}) { edges { node { name } } } }', undefined, { 'x-engine-role': 'reader' });
    expect(names(role, 'search_authors_connection')).toEqual(['Ann', 'Cid']);
  });
});

describe('node(id:)', () => {
  it('fetches the row a global id names, through fragments on its type or on Node', async () => {
    const id = b64('[1, "public", "articles", 3]');
    const r = await relay(`{ node(id: "${id}") { id __typename ... on articles { title author { name } } } }`);
    expect(r).toEqual({ data: { node: { id, __typename: 'articles', title: 'Bob Writes', author: { name: 'Bob' } } } });
    const v = await relay('query ($id: ID!) { node(id: $id) { ... on Node { id } ... on authors { name } } }', { id: b64('[1, "public", "authors", 2]') });
    expect(v.data.node).toEqual({ id: b64('[1, "public", "authors", 2]'), name: 'Bob' });
    const missing = await relay(`{ node(id: "${b64('[1, "public", "authors", 99]')}") { id } }`);
    expect(missing).toEqual({ data: { node: null } });
  });

  it('refuses an id of no table, or with the wrong number of key values', async () => {
    const none = await relay(`{ node(id: "${b64('[1, "public", "nope", 1]')}") { id } }`);
    expect(none.errors[0].extensions).toEqual({ path: '$.selectionSet.node.args.id', code: 'validation-failed' });
    expect(none.errors[0].message).toMatch(/^invalid node id: no such table found/);
    const extra = await relay(`{ node(id: "${b64('[1, "public", "authors", 1, 2]')}") { id } }`);
    expect(extra.errors[0].message).toMatch(/^invalid node id: unexpected column values/);
    const garbage = await relay('{ node(id: "!!") { id } }');
    expect(garbage.errors[0].extensions.code).toBe('validation-failed');
  });
});

describe('the Relay schema', () => {
  it('has node and <t>_connection on query_root, and no list roots; tables without a primary key have no connection', async () => {
    const r = await relay('{ __schema { queryType { fields { name } } } }');
    const fields = r.data.__schema.queryType.fields.map((x: any) => x.name);
    expect(fields).toContain('node');
    expect(fields).toContain('authors_connection');
    expect(fields).toContain('shop_orders_connection');
    expect(fields).not.toContain('authors');
    expect(fields).not.toContain('authors_by_pk');
    expect(fields.some((n: string) => n.startsWith('stats'))).toBe(false);
  });

  it('makes tables with a primary key implement Node, with id: ID! in place of the id column', async () => {
    const t = await relay('{ __type(name: "authors") { interfaces { name } fields { name type { kind ofType { name } } } } }');
    expect(t.data.__type.interfaces).toEqual([{ name: 'Node' }]);
    const id = t.data.__type.fields.find((x: any) => x.name === 'id');
    expect(id.type).toEqual({ kind: 'NON_NULL', ofType: { name: 'ID' } });
    expect(t.data.__type.fields.map((x: any) => x.name)).toContain('articles_connection');
    // A view without a primary key is reachable from no root field (no relationship leads to it here).
    const stats = await relay('{ __type(name: "stats") { name } }');
    expect(stats.data.__type).toBeNull();
  });

  it('keeps /v1/graphql unchanged', async () => {
    const r = await f.gql('{ authors(order_by: {id: asc}, limit: 1) { id } }');
    expect(r).toEqual({ data: { authors: [{ id: 1 }] } });
    const c = await f.gql('{ authors_connection { edges { cursor } } }');
    expect(c.errors[0].extensions.code).toBe('validation-failed');
  });

  it('runs mutations whose returned rows carry the node id', async () => {
    const r = await relay('mutation { insert_comments_one(object: {article_id: 4, body: "relay"}) { id body } }');
    const id = r.data.insert_comments_one.id;
    expect(JSON.parse(unb64(id))).toEqual([1, 'public', 'comments', expect.any(Number)]);
    const back = await relay(`{ node(id: "${id}") { ... on comments { body } } }`);
    expect(back.data.node).toEqual({ body: 'relay' });
  });
});

describe('permissions', () => {
  it('reads only the rows and columns the role may read', async () => {
    const h = { 'x-engine-role': 'reader' };
    const r = await relay('{ authors_connection { edges { node { id name } } pageInfo { hasNextPage } } }', undefined, h);
    expect(names(r)).toEqual(['Ann', 'Cid']);
    const hidden = await relay(`{ node(id: "${b64('[1, "public", "authors", 2]')}") { ... on authors { name } } }`, undefined, h);
    expect(hidden).toEqual({ data: { node: null } });
    const col = await relay('{ authors_connection { edges { node { rating } } } }', undefined, h);
    expect(col.errors[0].extensions.code).toBe('validation-failed');
    const noComments = await relay(`{ node(id: "${b64('[1, "public", "comments", 1]')}") { id } }`, undefined, h);
    expect(noComments.errors[0].message).toMatch(/^invalid node id: no such table found/);
  });
});
