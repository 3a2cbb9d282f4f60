/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Remote relationships of a role with remote schema permissions on, as v2's
 * server/tests-py/queries/remote_schemas/permissions/remote_relationships
 * cases answer them (issue 34): a join whose argument is a preset in the
 * role's view (the join's value wins), a non-joining argument preset whole
 * (hidden from the relationship field, its value sent), and several joins in
 * one query (hidden without a view of the remote; answered with one).
 * Real PostgreSQL, a real GraphQL server recording what it gets, HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;
let remote: GraphqlTestServer;

// v2's tests-py remote schema (graphql_server.py), cut to what these cases use.
const SDL = `
interface Communication { id: Int! msg: String! }
type Message implements Communication { id: Int! name: String! msg: String! errorMsg: String }
type User { user_id: Int gimmeText(text: String): String }
input IntCompareObj { eq: Int gt: Int lt: Int }
input StringCompareObj { eq: String }
input MessageWhereInpObj { id: IntCompareObj name: StringCompareObj }
input IncludeInpObj { id: [Int] name: [String] }
type Query {
  message(id: Int!): Message
  messages(where: MessageWhereInpObj, includes: IncludeInpObj): [Message]
  user(user_id: Int!): User
}`;
const MESSAGES = [
  { id: 1, name: 'alice', msg: 'You win!' },
  { id: 2, name: 'bob', msg: 'You lose!' },
  { id: 3, name: 'alice', msg: 'Another alice' },
];
type Where = { id?: { eq?: number; gt?: number; lt?: number }; name?: { eq?: string } };
type Includes = { id?: number[]; name?: string[] };
const root = {
  message: ({ id }: { id: number }) => MESSAGES.find((m) => m.id === id) ?? null,
  messages: ({ where, includes }: { where?: Where; includes?: Includes }) =>
    MESSAGES.filter(
      (m) =>
        (where?.id?.eq === undefined || m.id === where.id.eq) &&
        (where?.id?.gt === undefined || m.id > where.id.gt) &&
        (where?.id?.lt === undefined || m.id < where.id.lt) &&
        (where?.name?.eq === undefined || m.name === where.name.eq) &&
        (includes === undefined || (includes.id ?? []).includes(m.id) || (includes.name ?? []).includes(m.name)),
    ),
  user: ({ user_id }: { user_id: number }) => ({ user_id, gimmeText: ({ text }: { text?: string }) => text ?? null }),
};

const USER = { 'X-Engine-Role': 'user', 'X-Engine-User-Id': '1' };
const md = async (type: string, args: unknown): Promise<any> => (await engine.metadata({ type, args })).body;
const ok = async (type: string, args: unknown): Promise<void> => expect(await md(type, args), type).toEqual({ message: 'success' });
const gql = async (query: string, headers: Record<string, string> = USER): Promise<any> => (await engine.graphql(query, undefined, headers)).body;
const lastQuery = (): string => remote.queries().at(-1)?.body.query ?? '';

/** v2's view types, shared by the role permissions below. */
const VIEW_TYPES = `
interface Communication { id: Int! msg: String! }
type Message implements Communication { id: Int! name: String! msg: String! errorMsg: String }
input MessageWhereInpObj { id: IntCompareObj name: StringCompareObj }
input StringCompareObj { eq: String }
input IntCompareObj { eq: Int gt: Int lt: Int }
input IncludeInpObj { id: [Int] name: [String] }`;

async function withView(schema: string, body: () => Promise<void>): Promise<void> {
  await ok('add_remote_schema_permissions', { remote_schema: 'my-remote-schema', role: 'user', definition: { schema } });
  try {
    await body();
  } finally {
    await ok('drop_remote_schema_permissions', { remote_schema: 'my-remote-schema', role: 'user' });
  }
}

beforeAll(async () => {
  remote = await startGraphqlServer(SDL, root);
  db = await createTestDatabase('rr_v2r3');
  await db.sql(`CREATE TABLE profiles (id serial PRIMARY KEY, name text); INSERT INTO profiles (name) VALUES ('alice'), ('bob'), ('alice');`);
  engine = await startTestEngine({ databaseUrl: db.url, enableRemoteSchemaPermissions: true });
  await ok('pg_track_table', { table: 'profiles' });
  await ok('pg_create_select_permission', {
    table: 'profiles',
    role: 'user',
    permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Engine-User-Id' } }, allow_aggregations: true },
  });
  await ok('add_remote_schema', { name: 'my-remote-schema', definition: { url: remote.url, forward_client_headers: false, timeout_seconds: 10 } });
  // v2's setup_remote_rel_basic, setup_remote_rel_messages_single_field and setup_multiple_remote_rel (legacy shape).
  const rel = async (name: string, fields: string[], remoteField: unknown): Promise<void> => {
    const args = { name, table: 'profiles', hasura_fields: fields, remote_schema: 'my-remote-schema', remote_field: remoteField };
    expect((await engine.post('/v1/query', { type: 'create_remote_relationship', args })).body, name).toEqual({ message: 'success' });
  };
  await rel('messageBasic', ['id'], { message: { arguments: { id: '$id' } } });
  await rel('messagesSingleField', ['id'], { messages: { arguments: { where: { id: { eq: '$id' } } } } });
  await rel('remoteUser', ['id'], { user: { arguments: { user_id: '$id' } } });
  await rel('messagesNestedArr', ['name'], { messages: { arguments: { includes: { name: ['$name'] } } } });
  await rel('some_constant_text', ['id', 'name'], { user: { arguments: { user_id: 999 }, field: { gimmeText: { arguments: { text: 'constant text' } } } } });
}, 60_000);

afterAll(async () => {
  await engine?.close();
  await remote?.close();
  await db?.drop();
});

describe('remote relationships of a role with remote schema permissions', () => {
  it('a joining argument that is a preset in the role’s view takes the join’s value (derive_remote_relationship_with_joining_field_containing_preset)', async () => {
    await withView(`${VIEW_TYPES}\ntype Query { message(id: Int! @preset(value: 2)): Message }`, async () => {
      expect(await gql('{ profiles { id messageBasic { id name } } }')).toEqual({ data: { profiles: [{ id: 1, messageBasic: { id: 1, name: 'alice' } }] } });
      expect(lastQuery()).toMatch(/message\(id: 1\)/);
      // The root field keeps the preset: the role cannot ask for another message.
      expect(await gql('{ message { id name } }')).toEqual({ data: { message: { id: 2, name: 'bob' } } });
    });
  });

  it('a non-joining argument preset whole is not offered and its value is sent (partial_arguments_from_preset)', async () => {
    const view = (names: string): string =>
      `${VIEW_TYPES}\ntype Query { messages(where: MessageWhereInpObj, includes: IncludeInpObj @preset(value: {name: ${names}})): [Message] }`;
    await withView(view('["bob"]'), async () => {
      const refused = await gql('{ profiles { id messagesSingleField(includes: {id: [1]}) { id name } } }');
      expect(refused).toEqual({
        errors: [
          {
            message: expect.stringMatching(/^'messagesSingleField' has no argument named 'includes'/),
            // v2 answers at the field; Engine's validation names the argument under it (execute/validate.ts, every unknown argument).
            extensions: { path: expect.stringMatching(/^\$\.selectionSet\.profiles\.selectionSet\.messagesSingleField\b/), code: 'validation-failed' },
          },
        ],
      });
      expect(await gql('{ profiles { id messagesSingleField { id name } } }')).toEqual({ data: { profiles: [{ id: 1, messagesSingleField: [] }] } });
      expect(lastQuery()).toMatch(/messages\(where: \{id: \{eq: 1\}\}, includes: \{name: \["bob"\]\}\)/);
    });
    // The preset is what decides: the same join with a preset that admits the message answers it.
    await withView(view('["alice"]'), async () => {
      expect(await gql('{ profiles { id messagesSingleField { id name } } }')).toEqual({
        data: { profiles: [{ id: 1, messagesSingleField: [{ id: 1, name: 'alice' }] }] },
      });
    });
  });

  const MANY = `{
    p_1: profiles_by_pk(id: 1) { id name remoteUser { user_id } }
    profiles { some_constant_text messagesNestedArr { name msg } name r_user: remoteUser { user_id } }
    profiles_by_pk(id: 2) { id name remoteUser { user_id } }
  }`;

  it('several joins in one query: refused while the role has no view of the remote (complex_multiple_joins)', async () => {
    for (const id of ['1', '2']) {
      const r = await gql(MANY, { 'X-Engine-Role': 'user', 'X-Engine-User-Id': id });
      expect(r.data).toBeUndefined();
      expect(r.errors).toHaveLength(1);
      expect(r.errors[0].extensions.code).toBe('validation-failed');
      expect(r.errors[0].message).toMatch(/^field 'remoteUser' not found in type: 'profiles'/);
    }
  });

  it('several joins in one query: each answered, per row and alias, with a view of the remote', async () => {
    const full = `${VIEW_TYPES}\ntype User { user_id: Int gimmeText(text: String): String }\ntype Query { messages(where: MessageWhereInpObj, includes: IncludeInpObj): [Message] user(user_id: Int!): User }`;
    await withView(full, async () => {
      const before = remote.queries().length;
      expect(await gql(MANY)).toEqual({
        data: {
          p_1: { id: 1, name: 'alice', remoteUser: { user_id: 1 } },
          profiles: [
            {
              some_constant_text: 'constant text',
              messagesNestedArr: [
                { name: 'alice', msg: 'You win!' },
                { name: 'alice', msg: 'Another alice' },
              ],
              name: 'alice',
              r_user: { user_id: 1 },
            },
          ],
          profiles_by_pk: null,
        },
      });
      // The joins of one query go to the remote in few requests, not one per row and field.
      expect(remote.queries().length - before).toBeLessThanOrEqual(4);
      // Admin: every row, every join.
      const admin = (await engine.graphql('{ profiles(order_by: {id: asc}) { id r: remoteUser { user_id } messagesNestedArr { id } some_constant_text } }'))
        .body as any;
      expect(admin.data.profiles).toEqual([
        { id: 1, r: { user_id: 1 }, messagesNestedArr: [{ id: 1 }, { id: 3 }], some_constant_text: 'constant text' },
        { id: 2, r: { user_id: 2 }, messagesNestedArr: [{ id: 2 }], some_constant_text: 'constant text' },
        { id: 3, r: { user_id: 3 }, messagesNestedArr: [{ id: 1 }, { id: 3 }], some_constant_text: 'constant text' },
      ]);
    });
  });
});
