/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Relay node ids and cursors carry primary key values (issue 29, point 6;
 * Note [Relay ids of unselectable keys] in engine/graphql/schema/relay-types.ts).
 * By default, as v2, a role whose select permission lacks a key column still
 * gets node ids and connections; with ENGINE_GRAPHQL_RELAY_HIDE_UNSELECTABLE_KEYS
 * such a table is no Node for that role: no `id`, no connections, and
 * `node(id:)` does not find it. Admin and roles that select the whole key
 * keep everything. Two engines over one database: the default and the setting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReadFixture, type ReadFixture } from '../../support/read-schema.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';

let hiding: ReadFixture;
let plain: TestEngine;
const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string): string => Buffer.from(s, 'base64').toString('utf8');
const keyless = { 'x-engine-role': 'keyless' };
const keyed = { 'x-engine-role': 'keyed' };
const relayOf =
  (engine: () => TestEngine) =>
  async (query: string, headers?: Record<string, string>): Promise<any> =>
    (await engine().post('/v1beta1/relay', { query }, headers ?? {})).body;
const hidden = relayOf(() => hiding.engine);
const v2 = relayOf(() => plain);

const SHAPE = `{
  query_root: __type(name: "query_root") { fields { name } }
  authors: __type(name: "authors") { interfaces { name } fields { name } }
  articles: __type(name: "articles") { interfaces { name } fields { name } }
}`;
const fieldNames = (t: any): string[] => t.fields.map((x: any) => x.name);

beforeAll(async () => {
  hiding = await startReadFixture({ relayHideUnselectableKeys: true });
  await hiding.db.sql(
    "CREATE FUNCTION search_authors(prefix text) RETURNS SETOF authors LANGUAGE sql STABLE AS $$ SELECT * FROM authors WHERE name LIKE prefix || '%' $$",
  );
  for (const b of [
    { type: 'pg_track_function', args: { function: 'search_authors' } },
    // `keyless` reads authors and comments without their primary key column; articles whole.
    { type: 'pg_create_select_permission', args: { table: 'authors', role: 'keyless', permission: { columns: ['name'], filter: {} } } },
    { type: 'pg_create_select_permission', args: { table: 'articles', role: 'keyless', permission: { columns: ['id', 'title'], filter: {} } } },
    { type: 'pg_create_select_permission', args: { table: 'comments', role: 'keyless', permission: { columns: ['body'], filter: {} } } },
    { type: 'pg_create_select_permission', args: { table: 'authors', role: 'keyed', permission: { columns: ['id', 'name'], filter: {} } } },
  ]) {
    expect((await hiding.md(b)).status).toBe(200);
  }
  // The same metadata and data, served with the default (v2's behaviour).
  plain = await startTestEngine({ databaseUrl: hiding.db.url });
});
afterAll(async () => {
  await plain?.close();
  await hiding?.close();
});

describe('by default (v2)', () => {
  it('gives a role node ids and cursors of a key it cannot select, and node(id:) finds the row', async () => {
    const r = await v2('{ authors_connection(first: 1) { edges { cursor node { id name } } } }', keyless);
    const edge = r.data.authors_connection.edges[0];
    expect(edge.node.name).toBe('Ann');
    expect(unb64(edge.node.id)).toBe('[1, "public", "authors", 1]');
    expect(unb64(edge.cursor)).toBe('{"id" : 1}');
    const node = await v2(`{ node(id: "${b64('[1, "public", "authors", 2]')}") { ... on authors { name } } }`, keyless);
    expect(node).toEqual({ data: { node: { name: 'Bob' } } });
    const s = await v2(SHAPE, keyless);
    expect(s.data.authors.interfaces).toEqual([{ name: 'Node' }]);
    expect(fieldNames(s.data.query_root)).toContain('authors_connection');
    expect(fieldNames(s.data.articles)).toContain('comments_connection');
  });
});

describe('with ENGINE_GRAPHQL_RELAY_HIDE_UNSELECTABLE_KEYS', () => {
  it('makes a table whose key the role cannot select no Node: no id, no <t>_connection, <rel>_connection or <fn>_connection', async () => {
    const s = await hidden(SHAPE, keyless);
    expect(s.data.authors.interfaces).toEqual([]);
    expect(fieldNames(s.data.authors)).toContain('name');
    expect(fieldNames(s.data.authors)).not.toContain('id');
    const roots = fieldNames(s.data.query_root);
    expect(roots).not.toContain('authors_connection');
    expect(roots).not.toContain('search_authors_connection');
    expect(roots).toContain('articles_connection');
    expect(roots).toContain('node');
    // Articles (whole key) stay a Node; their comments (key hidden) are a plain list, not a connection.
    expect(s.data.articles.interfaces).toEqual([{ name: 'Node' }]);
    expect(fieldNames(s.data.articles)).toEqual(expect.arrayContaining(['id', 'title', 'author', 'comments']));
    expect(fieldNames(s.data.articles)).not.toContain('comments_connection');
    const comments = await hidden('{ __type(name: "comments") { interfaces { name } fields { name } } }', keyless);
    expect(comments.data.__type).toEqual({ interfaces: [], fields: [{ name: 'article' }, { name: 'body' }] });
  });

  it('still reads those rows through relationships, without their keys', async () => {
    const r = await hidden('{ articles_connection(first: 1) { edges { node { title author { name } comments(order_by: {body: asc}) { body } } } } }', keyless);
    expect(r.data.articles_connection.edges).toEqual([
      { node: { title: 'Hello World', author: { name: 'Ann' }, comments: [{ body: 'meh' }, { body: 'nice' }] } },
    ]);
  });

  it('refuses the connection and node(id:) of that table', async () => {
    const conn = await hidden('{ authors_connection { edges { cursor } } }', keyless);
    expect(conn.errors[0].extensions.code).toBe('validation-failed');
    expect(conn.data).toBeUndefined();
    for (const id of [b64('[1, "public", "authors", 2]'), b64('[1, "public", "authors", 99]')]) {
      const node = await hidden(`{ node(id: "${id}") { __typename } }`, keyless);
      // The same answer whether the key exists or not: nothing to learn by guessing.
      expect(node.errors).toEqual([
        {
          message: 'invalid node id: no such table found: "public.authors"',
          extensions: { path: '$.selectionSet.node.args.id', code: 'validation-failed' },
        },
      ]);
    }
  });

  it('keeps node ids and connections for admin and for a role that selects the whole key', async () => {
    for (const headers of [undefined, keyed]) {
      const s = await hidden(SHAPE, headers);
      expect(s.data.authors.interfaces).toEqual([{ name: 'Node' }]);
      expect(fieldNames(s.data.query_root)).toContain('authors_connection');
      const node = await hidden(`{ node(id: "${b64('[1, "public", "authors", 2]')}") { id ... on authors { name } } }`, headers);
      expect(node).toEqual({ data: { node: { id: b64('[1, "public", "authors", 2]'), name: 'Bob' } } });
    }
    const admin = await hidden(SHAPE);
    expect(fieldNames(admin.data.query_root)).toContain('search_authors_connection');
    expect(fieldNames(admin.data.articles)).toContain('comments_connection');
  });
});
