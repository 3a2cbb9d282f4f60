/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Remote schema root fields beside action fields and database fields in one
 * operation, through HTTP on a real GraphQL server and a real action
 * handler: a query answers every field in query order; a mutation runs its
 * remote mutations, database writes and action calls one after the other,
 * in request order (each side sees what the previous field wrote).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';
import { startTestServer, type TestServer } from '../../support/http-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;
let remote: GraphqlTestServer;
let handler: TestServer;
/** What the remote and the action handler saw, in the order they were called: who, and the author count then. */
const log: string[] = [];

const authorCount = async (): Promise<number> => ((await db.sql('SELECT count(*)::int AS n FROM author')).rows[0] as { n: number }).n;

const SDL = `
type Query { greeting(name: String!): String! }
type Mutation { touch(tag: String!): String! }
`;

const md = async (type: string, args: unknown): Promise<any> => await engine.metadata({ type, args });
const gql = async (query: string): Promise<any> => (await engine.graphql(query)).body;

beforeAll(async () => {
  db = await createTestDatabase('rsa');
  await db.sql(`CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL); INSERT INTO author VALUES (1, 'Ann');`);
  engine = await startTestEngine({ databaseUrl: db.url });
  expect((await md('pg_track_table', { table: 'author' })).status).toBe(200);
  remote = await startGraphqlServer(SDL, {
    greeting: ({ name }: { name: string }) => `hello ${name}`,
    touch: async ({ tag }: { tag: string }) => {
      log.push(`remote:${tag}:${await authorCount()}`);
      return tag;
    },
  });
  expect((await md('add_remote_schema', { name: 'r', definition: { url: remote.url, timeout_seconds: 5 } })).status).toBe(200);
  handler = await startTestServer((_req, body, res) => {
    const payload = JSON.parse(body) as { action: { name: string }; input: Record<string, unknown> };
    void (async () => {
      const answer = payload.action.name === 'double' ? Number(payload.input['n']) * 2 : `act:${await authorCount()}`;
      if (payload.action.name === 'note') log.push(String(answer));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    })();
  });
  const url = handler.url.replace(/\/$/, '');
  expect(
    (
      await md('create_action', {
        name: 'double',
        definition: { kind: 'synchronous', type: 'query', arguments: [{ name: 'n', type: 'Int!' }], output_type: 'Int!', handler: url },
      })
    ).status,
  ).toBe(200);
  expect(
    (await md('create_action', { name: 'note', definition: { kind: 'synchronous', type: 'mutation', arguments: [], output_type: 'String!', handler: url } }))
      .status,
  ).toBe(200);
});

afterAll(async () => {
  await engine?.close();
  await remote?.close();
  await handler?.close();
  await db?.drop();
});

describe('remote fields beside actions', () => {
  it('answer a query mixing database, action and remote root fields in query order', async () => {
    const r = await gql('{ g: greeting(name: "x") d: double(n: 21) author { name } t: __typename h: greeting(name: "y") }');
    expect(r).toEqual({ data: { g: 'hello x', d: 42, author: [{ name: 'Ann' }], t: 'query_root', h: 'hello y' } });
    expect(JSON.stringify(Object.keys(r.data))).toBe('["g","d","author","t","h"]');
  });

  it('run a mutation’s remote mutations, writes and actions in request order', async () => {
    log.length = 0;
    const before = remote.queries().length;
    const r = await gql(`mutation {
      a: touch(tag: "first")
      b: touch(tag: "second")
      insert_author_one(object: {id: 2, name: "Bob"}) { id }
      n: note
      c: touch(tag: "third")
    }`);
    expect(r).toEqual({ data: { a: 'first', b: 'second', insert_author_one: { id: 2 }, n: 'act:2', c: 'third' } });
    // a and b are one remote request (one run of one remote's fields), c another one after the insert and the action.
    expect(log).toEqual(['remote:first:1', 'remote:second:1', 'act:2', 'remote:third:2']);
    expect(remote.queries().length - before).toBe(2);
  });
});
