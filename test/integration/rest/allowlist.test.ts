/**
 * The allow-list enforced (ENGINE_GRAPHQL_ENABLE_ALLOWLIST) as a user sees it
 * on /v1/graphql: non-admin roles run only allow-listed documents, matched on
 * the parsed document (Note [Allow-list matching]), role scopes, admin never
 * restricted, introspection only when allow-listed, v2's error.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { openRawSocket } from '../../support/ws-client.ts';

let db: TestDatabase;
let on: TestEngine;
let off: TestEngine;
const user = { 'x-engine-role': 'user' };
const editor = { 'x-engine-role': 'editor' };
const NOT_ALLOWED = { errors: [{ message: 'query is not allowed', extensions: { path: '$', code: 'validation-failed' } }] };

const stored = `
  # the books of an author
  query AuthorBooks($id: Int!) {
    author_by_pk(id: $id) { name ...Books }
  }
  fragment Books on author { books(order_by: {id: asc}) { title } }
`;

beforeAll(async () => {
  db = await createTestDatabase('allowlist');
  await db.sql(`
    CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL);
    CREATE TABLE book (id int PRIMARY KEY, author_id int NOT NULL REFERENCES author(id), title text NOT NULL);
    INSERT INTO author VALUES (1, 'Ann'); INSERT INTO book VALUES (1, 1, 'One'), (2, 1, 'Two');
  `);
  on = await startTestEngine({ databaseUrl: db.url, enableAllowlist: true, adminSecret: 's' });
  off = await startTestEngine({ databaseUrl: db.url, adminSecret: 's' });
  const setup = await on.metadata({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { table: 'author' } },
      { type: 'pg_track_table', args: { table: 'book' } },
      {
        type: 'pg_create_array_relationship',
        args: { table: 'author', name: 'books', using: { foreign_key_constraint_on: { table: 'book', columns: ['author_id'] } } },
      },
      ...['user', 'editor'].flatMap((role) =>
        ['author', 'book'].map((table) => ({ type: 'pg_create_select_permission', args: { table, role, permission: { columns: '*', filter: {} } } })),
      ),
      {
        type: 'create_query_collection',
        args: {
          name: 'app',
          definition: {
            queries: [
              { name: 'books', query: stored },
              { name: 'names', query: '{ author { name } }' },
            ],
          },
        },
      },
      { type: 'add_collection_to_allowlist', args: { collection: 'app' } },
      {
        type: 'create_query_collection',
        args: {
          name: 'editors',
          definition: {
            queries: [
              { name: 'ids', query: '{ book { id } }' },
              { name: 'names', query: '{ author { name } }' },
            ],
          },
        },
      },
      { type: 'add_collection_to_allowlist', args: { collection: 'editors', scope: { global: false, roles: ['editor'] } } },
    ],
  });
  expect(setup.status).toBe(200);
  // The second engine shares the metadata database: poll (bounded) until it has the same metadata.
  for (let i = 0; i < 200; i++) {
    const r = await off.metadata({ type: 'export_metadata', args: {} });
    if ((r.body as Record<string, unknown>)['allowlist'] !== undefined) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
});

afterAll(async () => {
  await on?.close();
  await off?.close();
  await db?.drop();
});

const as = (role: Record<string, string>) => ({ 'x-engine-admin-secret': 's', ...role });
const books = { data: { author_by_pk: { name: 'Ann', books: [{ title: 'One' }, { title: 'Two' }] } } };

describe('the allow-list', () => {
  it("runs an allow-listed query for a non-admin role and refuses any other with v2's error", async () => {
    expect((await on.graphql(stored, { id: 1 }, as(user))).body).toEqual(books);
    expect((await on.graphql('{ book { id } }', undefined, as(user))).body).toEqual(NOT_ALLOWED);
    // Refused before validation: an unknown field is still "not allowed".
    expect((await on.graphql('{ nope }', undefined, as(user))).body).toEqual(NOT_ALLOWED);
    // A second time (the refusal is not cached as a plan).
    expect((await on.graphql('{ book { id } }', undefined, as(user))).body).toEqual(NOT_ALLOWED);
  });

  it('matches on the parsed document: whitespace, comments, __typename and definition order do not count', async () => {
    const reordered = `fragment Books on author { books(order_by: {id: asc}) { __typename title } }
      query AuthorBooks($id: Int!) { author_by_pk(id: $id) { __typename name, ...Books } }`;
    const r = await on.graphql(reordered, { id: 1 }, as(user));
    expect(r.body).toEqual({
      data: {
        author_by_pk: {
          __typename: 'author',
          name: 'Ann',
          books: [
            { __typename: 'book', title: 'One' },
            { __typename: 'book', title: 'Two' },
          ],
        },
      },
    });
    expect((await on.graphql('query {author{name}}', undefined, as(user))).body).toEqual({ data: { author: [{ name: 'Ann' }] } });
  });

  it('does not normalize field order, aliases, names or literals', async () => {
    for (const q of [
      '{ author { name id } }',
      '{ a: author { name } }',
      'query Named { author { name } }',
      stored.replace('asc', 'desc'),
      stored.replace('AuthorBooks', 'Other'),
    ]) {
      expect((await on.graphql(q, { id: 1 }, as(user))).body, q).toEqual(NOT_ALLOWED);
    }
  });

  it('grants role-scoped collections to their roles only; any grant is enough', async () => {
    expect((await on.graphql('{ book { id } }', undefined, as(editor))).body).toEqual({ data: { book: [{ id: 1 }, { id: 2 }] } });
    expect((await on.graphql('{ book { id } }', undefined, as(user))).body).toEqual(NOT_ALLOWED);
    // In both collections: global there, so every role.
    expect((await on.graphql('{ author { name } }', undefined, as(editor))).body).toEqual({ data: { author: [{ name: 'Ann' }] } });
    expect((await on.graphql(stored, { id: 1 }, as(editor))).body).toEqual(books);
  });

  it('never restricts the admin, and leaves every role free when not enabled', async () => {
    expect((await on.graphql('{ book { title } }', undefined, { 'x-engine-admin-secret': 's' })).body).toEqual({
      data: { book: [{ title: 'One' }, { title: 'Two' }] },
    });
    expect((await off.graphql('{ book { title } }', undefined, as(user))).body).toEqual({ data: { book: [{ title: 'One' }, { title: 'Two' }] } });
  });

  it("refuses introspection unless it is allow-listed (v2's rule)", async () => {
    const intro = '{ __schema { queryType { name } } }';
    expect((await on.graphql(intro, undefined, as(user))).body).toEqual(NOT_ALLOWED);
    expect((await on.graphql('{ __type(name: "author") { name } }', undefined, as(user))).body).toEqual(NOT_ALLOWED);
    expect((await on.metadata({ type: 'add_query_to_collection', args: { collection_name: 'app', query_name: 'intro', query: intro } })).status).toBe(200);
    expect((await on.graphql(intro, undefined, as(user))).body).toEqual({ data: { __schema: { queryType: { name: 'query_root' } } } });
    expect((await on.metadata({ type: 'drop_query_from_collection', args: { collection_name: 'app', query_name: 'intro' } })).status).toBe(200);
    expect((await on.graphql(intro, undefined, as(user))).body).toEqual(NOT_ALLOWED);
  });

  it('follows metadata changes: a dropped entry refuses, a scope update moves the grant', async () => {
    expect((await on.graphql(stored, { id: 1 }, as(user))).body).toEqual(books);
    expect(
      (await on.metadata({ type: 'update_scope_of_collection_in_allowlist', args: { collection: 'app', scope: { global: false, roles: ['editor'] } } })).status,
    ).toBe(200);
    expect((await on.graphql(stored, { id: 1 }, as(user))).body).toEqual(NOT_ALLOWED);
    expect((await on.graphql(stored, { id: 1 }, as(editor))).body).toEqual(books);
    expect((await on.metadata({ type: 'drop_collection_from_allowlist', args: { collection: 'app' } })).status).toBe(200);
    expect((await on.graphql(stored, { id: 1 }, as(editor))).body).toEqual(NOT_ALLOWED);
    expect((await on.metadata({ type: 'add_collection_to_allowlist', args: { collection: 'app' } })).status).toBe(200);
    expect((await on.graphql(stored, { id: 1 }, as(user))).body).toEqual(books);
  });

  it('checks each operation of a batch', async () => {
    const r = await on.post('/v1/graphql', [{ query: '{ author { name } }' }, { query: '{ book { id } }' }], as(user));
    expect(r.body).toEqual([{ data: { author: [{ name: 'Ann' }] } }, NOT_ALLOWED]);
  });

  it('applies to subscriptions over WebSocket too (the same allow step)', async () => {
    const ws = await openRawSocket(on.url, 'graphql-transport-ws', as(user));
    try {
      ws.send({ type: 'connection_init' });
      await ws.waitFor((m) => m['type'] === 'connection_ack');
      ws.send({ type: 'subscribe', id: 'no', payload: { query: 'subscription { book { id } }' } });
      const refused = await ws.waitFor((m) => m['id'] === 'no');
      expect(refused).toMatchObject({ type: 'error', payload: [{ message: 'query is not allowed', extensions: { code: 'validation-failed' } }] });
      expect(
        (
          await on.metadata({
            type: 'add_query_to_collection',
            args: { collection_name: 'app', query_name: 'sub', query: 'subscription { book(order_by: {id: asc}) { id } }' },
          })
        ).status,
      ).toBe(200);
      ws.send({ type: 'subscribe', id: 'yes', payload: { query: 'subscription { book(order_by: {id: asc}) { id } }' } });
      expect(await ws.waitFor((m) => m['id'] === 'yes')).toMatchObject({ type: 'next', payload: { data: { book: [{ id: 1 }, { id: 2 }] } } });
    } finally {
      ws.close();
    }
  });
});
