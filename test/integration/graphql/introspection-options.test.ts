/**
 * v2's `set_graphql_schema_introspection_options` as a user sees it: the
 * roles it names get `access-denied` for `__schema` and `__type` (over HTTP
 * and over a WebSocket), keep their data, and admin keeps introspection; the
 * setting is metadata (exported, replaced, cleared by an empty list), and bad
 * arguments change nothing (Note [Introspection disabled for roles]).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { wsUrl } from '../../support/ws-client.ts';

let db: TestDatabase;
let e: TestEngine;
const anonymous = { 'x-engine-role': 'anonymous' };
const user = { 'x-engine-role': 'user', 'x-engine-user-id': '1' };

const SCHEMA = '{ __schema { queryType { name } } }';
const TYPE = 'query Probe { __type(name: "author") { fields { name } } }';

function refusedAt(alias: string): unknown {
  return { errors: [{ message: 'introspection is disabled for this role', extensions: { path: `$.selectionSet.${alias}`, code: 'access-denied' } }] };
}

async function disable(roles: unknown): Promise<{ status: number; body: unknown }> {
  return await e.metadata({ type: 'set_graphql_schema_introspection_options', args: { disabled_for_roles: roles } });
}

beforeAll(async () => {
  db = await createTestDatabase('introspection');
  await db.sql(`
    CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL);
    INSERT INTO author VALUES (1, 'Ann'), (2, 'Bo');
  `);
  e = await startTestEngine({ databaseUrl: db.url });
  const setup = await e.metadata({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { table: 'author' } },
      ...['anonymous', 'user'].map((role) => ({
        type: 'pg_create_select_permission',
        args: { table: 'author', role, permission: { columns: '*', filter: {} } },
      })),
    ],
  });
  expect(setup.status).toBe(200);
});

afterAll(async () => {
  await e?.close();
  await db?.drop();
});

describe('GraphQL introspection disabled for roles', () => {
  it('refuses __schema and __type to the listed roles only, and keeps their data', async () => {
    // Before the setting, every role introspects; the answer is cached as a plan.
    expect((await e.graphql(SCHEMA, {}, anonymous)).body).toEqual({ data: { __schema: { queryType: { name: 'query_root' } } } });
    expect((await disable(['anonymous'])).body).toEqual({ message: 'success' });

    const schema = await e.graphql(SCHEMA, {}, anonymous);
    expect(schema.status).toBe(200);
    expect(schema.body).toEqual(refusedAt('__schema'));
    expect((await e.graphql(TYPE, {}, anonymous, 'Probe')).body).toEqual(refusedAt('__type'));
    // Aliased, inside a fragment, beside a data field: still refused, and nothing else runs.
    const hidden = await e.graphql('query { author { name } ...F } fragment F on query_root { t: __type(name: "author") { name } }', {}, anonymous);
    expect(hidden.body).toEqual(refusedAt('t'));
    // Data and a root __typename are answered.
    expect((await e.graphql('{ __typename author(order_by: {id: asc}) { name } }', {}, anonymous)).body).toEqual({
      data: { __typename: 'query_root', author: [{ name: 'Ann' }, { name: 'Bo' }] },
    });
    // Another role and admin introspect.
    expect((await e.graphql(TYPE, {}, user, 'Probe')).body).toMatchObject({ data: { __type: { fields: expect.arrayContaining([{ name: 'name' }]) } } });
    expect((await e.graphql(SCHEMA)).body).toEqual({ data: { __schema: { queryType: { name: 'query_root' } } } });
  });

  it('refuses introspection over a WebSocket too', async () => {
    const client = createClient({ url: wsUrl(e.url), webSocketImpl: WebSocket, connectionParams: { headers: anonymous }, retryAttempts: 0 });
    try {
      const run = (query: string): Promise<unknown> =>
        new Promise((resolve, reject) => {
          let last: unknown;
          client.subscribe({ query }, { next: (r) => (last = r), error: (err) => resolve({ error: err }), complete: () => resolve(last) });
          setTimeout(() => reject(new Error('no answer')), 30_000).unref();
        });
      const refused = await run(SCHEMA);
      expect(JSON.stringify(refused)).toContain('introspection is disabled for this role');
      expect(await run('{ author(where: {id: {_eq: 2}}) { name } }')).toEqual({ data: { author: [{ name: 'Bo' }] } });
    } finally {
      await client.dispose();
    }
  });

  it('is metadata: exported, replaced with the document, cleared by an empty list', async () => {
    expect((await disable(['anonymous', 'user', 'anonymous'])).status).toBe(200);
    const exported = await e.metadata<Record<string, unknown>>({ type: 'export_metadata', args: {} });
    expect(exported.body['graphql_schema_introspection']).toEqual({ disabled_for_roles: ['anonymous', 'user'] });
    expect((await e.graphql(SCHEMA, {}, user)).body).toEqual(refusedAt('__schema'));

    expect((await disable([])).body).toEqual({ message: 'success' });
    const cleared = await e.metadata<Record<string, unknown>>({ type: 'export_metadata', args: {} });
    expect(cleared.body).not.toHaveProperty('graphql_schema_introspection');
    expect((await e.graphql(SCHEMA, {}, user)).body).toEqual({ data: { __schema: { queryType: { name: 'query_root' } } } });

    // A v2 project's document carries it (graphql_schema_introspection.yaml).
    const replaced = await e.metadata({ type: 'replace_metadata', args: exported.body });
    expect(replaced.status).toBe(200);
    expect((await e.graphql(SCHEMA, {}, anonymous)).body).toEqual(refusedAt('__schema'));
    expect((await disable([])).status).toBe(200);
  });

  it('refuses bad arguments and bad documents and changes nothing', async () => {
    expect((await disable(['anonymous'])).status).toBe(200);
    const before = await e.metadata<Record<string, unknown>>({ type: 'export_metadata', args: {} });
    for (const args of [
      {},
      { disabled_for_roles: 'anonymous' },
      { disabled_for_roles: [1] },
      { disabled_for_roles: [''] },
      { disabled_for_roles: [], extra: 1 },
    ]) {
      const r = await e.metadata({ type: 'set_graphql_schema_introspection_options', args });
      expect(r.status, JSON.stringify(args)).toBe(400);
      expect(r.body).toMatchObject({ code: 'parse-failed', path: expect.stringContaining('$.args') });
    }
    const wrong = await e.metadata({ type: 'replace_metadata', args: { ...before.body, graphql_schema_introspection: { disabled_for_roles: 'user' } } });
    expect(wrong.status).toBe(400);
    expect((await e.metadata({ type: 'export_metadata', args: {} })).body).toEqual(before.body);
    expect((await e.graphql(SCHEMA, {}, anonymous)).body).toEqual(refusedAt('__schema'));
    expect((await disable([])).status).toBe(200);
  });
});
