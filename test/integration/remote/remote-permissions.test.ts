/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Remote schema permissions through HTTP on a real GraphQL server, with
 * ENGINE_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS on: a role sees a remote
 * schema only through its permission; hidden fields and arguments are
 * refused; `@preset` arguments vanish from the role's schema and are sent
 * as session variables or static values, merged into input objects (literal
 * or variable); permission documents that do not fit the remote schema are
 * refused with the reason. With the setting off, every role sees it whole.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;
let users: GraphqlTestServer;

const SDL = `
type User { id: ID! name: String! email: String! tenant: String! }
input UserFilter { name: String tenant: String }
type Query {
  users(tenant: String!, limit: Int): [User!]!
  search(filter: UserFilter!): [User!]!
  secret: String
}
`;
const ALL = [
  { id: '1', name: 'ann', email: 'ann@a', tenant: 'a' },
  { id: '2', name: 'bob', email: 'bob@a', tenant: 'a' },
  { id: '3', name: 'cid', email: 'cid@a', tenant: 'a' },
  { id: '4', name: 'ann', email: 'ann@b', tenant: 'b' },
];
const root = {
  users: ({ tenant, limit }: { tenant: string; limit?: number }) => ALL.filter((u) => u.tenant === tenant).slice(0, limit ?? 100),
  search: ({ filter }: { filter: { name?: string; tenant?: string } }) =>
    ALL.filter((u) => (filter.name === undefined || u.name === filter.name) && (filter.tenant === undefined || u.tenant === filter.tenant)),
  secret: () => 's3cret',
};

const USER_PERMISSION = `
type User { id: ID! name: String! }
input UserFilter { name: String tenant: String @preset(value: "x-engine-tenant") }
type Query {
  users(tenant: String! @preset(value: "x-engine-tenant"), limit: Int @preset(value: 2)): [User!]!
  search(filter: UserFilter!): [User!]!
}`;

const md = async (type: string, args: unknown): Promise<any> => await engine.metadata({ type, args });
const asUser = async (query: string, variables?: Record<string, unknown>, tenant = 'a'): Promise<any> =>
  (await engine.graphql(query, variables, { 'X-Engine-Role': 'user', 'X-Engine-Tenant': tenant })).body;

beforeAll(async () => {
  db = await createTestDatabase('rsp');
  engine = await startTestEngine({ databaseUrl: db.url, enableRemoteSchemaPermissions: true });
  users = await startGraphqlServer(SDL, root);
  expect((await md('add_remote_schema', { name: 'users', definition: { url: users.url } })).status).toBe(200);
  const r = await md('add_remote_schema_permissions', { remote_schema: 'users', role: 'user', definition: { schema: USER_PERMISSION } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
});

afterAll(async () => {
  await engine?.close();
  await users?.close();
  await db?.drop();
});

describe('a role with a permission', () => {
  it('gets preset arguments from the session and static values, and cannot pass them', async () => {
    expect(await asUser('{ users { id name } }')).toEqual({
      data: {
        users: [
          { id: '1', name: 'ann' },
          { id: '2', name: 'bob' },
        ],
      },
    });
    expect(users.queries().at(-1)?.body.query).toMatch(/users\(tenant: \$__engine_session_0, limit: 2\)/);
    expect(await asUser('{ users { id } }', undefined, 'b')).toEqual({ data: { users: [{ id: '4' }] } });
    const own = await asUser('{ users(tenant: "b") { id } }');
    expect(own.errors[0].extensions.code).toBe('validation-failed');
  });

  it('does not see hidden fields or root fields', async () => {
    expect((await asUser('{ users { email } }')).errors[0].extensions.code).toBe('validation-failed');
    expect((await asUser('{ secret }')).errors[0].extensions.code).toBe('validation-failed');
  });

  it('merges preset input fields into a literal object and into a variable', async () => {
    expect(await asUser('{ search(filter: {name: "ann"}) { id } }')).toEqual({ data: { search: [{ id: '1' }] } });
    expect(await asUser('query($f: UserFilter!) { search(filter: $f) { id } }', { f: { name: 'ann' } }, 'b')).toEqual({ data: { search: [{ id: '4' }] } });
    // The preset wins over what the client tried to send: the field is not in the role's input type.
    const tried = await asUser('{ search(filter: {name: "ann", tenant: "b"}) { id } }');
    expect(tried.errors[0].extensions.code).toBe('validation-failed');
  });

  it('needs the session variables its presets name', async () => {
    const r = (await engine.graphql('{ users { id } }', undefined, { 'X-Engine-Role': 'user' })).body as any;
    expect(r.errors[0].message).toContain('x-engine-tenant');
  });
});

describe('other roles and admin', () => {
  it('a role without a permission does not see the remote schema; admin sees it whole', async () => {
    const anon = (await engine.graphql('{ secret }', undefined, { 'X-Engine-Role': 'anonymous' })).body as any;
    expect(anon.errors[0].extensions.code).toBe('validation-failed');
    expect((await engine.graphql('{ secret users(tenant: "b") { email } }')).body).toEqual({ data: { secret: 's3cret', users: [{ email: 'ann@b' }] } });
  });

  it('with the setting off, every role sees the remote schema whole', async () => {
    const open = await startTestEngine({ databaseUrl: db.url });
    try {
      const r = (await open.graphql('{ secret }', undefined, { 'X-Engine-Role': 'anonymous' })).body;
      expect(r).toEqual({ data: { secret: 's3cret' } });
    } finally {
      await open.close();
    }
  });
});

describe('inherited roles', () => {
  it("see the union of their members' views, presets included", async () => {
    expect(
      (await md('add_remote_schema_permissions', { remote_schema: 'users', role: 'reader', definition: { schema: 'type Query { secret: String }' } })).status,
    ).toBe(200);
    const r = await md('add_inherited_role', { role_name: 'both', role_set: ['user', 'reader'] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const both = (await engine.graphql('{ secret users { name } }', undefined, { 'X-Engine-Role': 'both', 'X-Engine-Tenant': 'b' })).body;
    expect(both).toEqual({ data: { secret: 's3cret', users: [{ name: 'ann' }] } });
    const reader = (await engine.graphql('{ users { name } }', undefined, { 'X-Engine-Role': 'reader' })).body as any;
    expect(reader.errors[0].extensions.code).toBe('validation-failed');
    expect((await md('drop_inherited_role', { role_name: 'both' })).status).toBe(200);
    expect((await md('drop_remote_schema_permissions', { remote_schema: 'users', role: 'reader' })).status).toBe(200);
  });
});

describe('remote relationships with remote schema permissions on', () => {
  it("follow the role's view: its fields, its presets (the join's own argument keeps the join's value)", async () => {
    await db.sql("CREATE TABLE team (id int PRIMARY KEY, tenant text NOT NULL); INSERT INTO team VALUES (1, 'b');");
    expect((await md('pg_track_table', { table: 'team' })).status).toBe(200);
    expect((await md('pg_create_select_permission', { table: 'team', role: 'user', permission: { columns: ['id', 'tenant'], filter: {} } })).status).toBe(200);
    const rel = await md('pg_create_remote_relationship', {
      table: 'team',
      name: 'members',
      hasura_fields: ['tenant'],
      remote_schema: 'users',
      remote_field: { users: { arguments: { tenant: '$tenant' } } },
    });
    expect(rel.status, JSON.stringify(rel.body)).toBe(200);
    expect((await engine.graphql('{ team { id members { email } } }')).body).toEqual({ data: { team: [{ id: 1, members: [{ email: 'ann@b' }] }] } });
    expect(await asUser('{ team { id members { name } } }')).toEqual({ data: { team: [{ id: 1, members: [{ name: 'ann' }] }] } });
    expect(users.queries().at(-1)?.body.query).toMatch(/users\(tenant: "b", limit: 2\)/);
    expect((await asUser('{ team { members { email } } }')).errors[0].extensions.code).toBe('validation-failed');
    expect(await asUser('{ team { id } users { id } }', undefined, 'b')).toEqual({ data: { team: [{ id: 1 }], users: [{ id: '4' }] } });
  });
});

describe('permission documents that do not fit', () => {
  const refused = async (schema: string): Promise<any> => {
    const r = await md('add_remote_schema_permissions', { remote_schema: 'users', role: 'other', definition: { schema } });
    expect(r.status).toBe(400);
    return r.body;
  };
  it('are refused with the reason', async () => {
    expect((await refused('type Query { nope: Int }')).error).toContain('field "nope" does not exist');
    expect((await refused('type Query { secret: Int }')).error).toContain('has type "Int", the remote schema\'s is "String"');
    expect((await refused('type User { id: ID! } type Query { users(limit: Int): [User!]! }')).error).toContain('hides its required argument "tenant"');
    expect((await refused('type Query { secret: String')).error).toContain('does not parse');
    expect((await refused('input UserFilter { name: Int } type User { id: ID! } type Query { search(filter: UserFilter!): [User!]! }')).error).toContain(
      'input field "UserFilter.name" has type "Int"',
    );
    expect((await refused('type User { id: ID! nick: String } type Query { secret: String }')).code).toBe('invalid-configuration');
    const dup = await md('add_remote_schema_permissions', { remote_schema: 'users', role: 'user', definition: { schema: 'type Query { secret: String }' } });
    expect(dup.body.code).toBe('already-exists');
    const missing = await md('add_remote_schema_permissions', { remote_schema: 'nope', role: 'x', definition: { schema: 'type Query { secret: String }' } });
    expect(missing.body.code).toBe('not-exists');
  });
});
