/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * v2 compatibility, third round (issue 34), through HTTP against a real engine
 * and real GraphQL servers on loopback. Each block names the v2 behaviour it
 * matches (hasura/graphql-engine server source or server/tests-py cases).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;
let hello: GraphqlTestServer;

const md = async (type: string, args: unknown, headers?: Record<string, string>): Promise<any> => await engine.metadata({ type, args }, headers);
const exported = async (): Promise<any> => (await md('export_metadata', {})).body;

beforeAll(async () => {
  db = await createTestDatabase('compat3');
  await db.sql('CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL);');
  engine = await startTestEngine({ databaseUrl: db.url });
  expect((await md('pg_track_table', { table: 'author' })).status).toBe(200);
  hello = await startGraphqlServer('type Query { hello: String }', { hello: () => 'hi' });
});

afterAll(async () => {
  await engine?.close();
  await hello?.close();
  await db?.drop();
});

// v2: RemoteSchemaDef's `url` is an InputWebhook, resolved by validateRemoteSchemaDef with
// resolveWebhook (Hasura/RemoteSchema/MetadataAPI/Core.hs).
describe('{{ENV}} templates in a remote schema url', () => {
  it('resolves the template from the environment, keeps it as written in the metadata, and queries through it', async () => {
    process.env['ENGINE_TEST_GRAPHQL_SERVICE'] = hello.url.replace(/\/graphql$/, '');
    try {
      const def = { url: '{{ENGINE_TEST_GRAPHQL_SERVICE}}/graphql' };
      const r = await md('add_remote_schema', { name: 'templated', definition: def });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect((await exported()).remote_schemas).toEqual([{ name: 'templated', definition: def }]);
      const q = await engine.graphql('{ hello }');
      expect(q.body).toEqual({ data: { hello: 'hi' } });
      expect((await md('remove_remote_schema', { name: 'templated' })).status).toBe(200);
    } finally {
      delete process.env['ENGINE_TEST_GRAPHQL_SERVICE'];
    }
  });

  it('refuses a template naming an unset variable, naming it, and stores nothing', async () => {
    const before = await exported();
    const r = await md('add_remote_schema', { name: 'unset', definition: { url: '{{ENGINE_TEST_NO_SUCH_SERVICE}}/graphql' } });
    expect(r.status).toBe(400);
    expect(r.body.error).toContain('ENGINE_TEST_NO_SUCH_SERVICE');
    expect(await exported()).toEqual(before);
  });
});
