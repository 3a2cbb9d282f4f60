/**
 * The HTTP surface: health, version, admin-secret refusals, admin-only APIs,
 * malformed bodies.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';

const SECRET = 'top-secret';
let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase('http');
  await db.sql('CREATE TABLE note (id serial PRIMARY KEY, body text NOT NULL); INSERT INTO note (body) VALUES ($$hello$$)');
  engine = await startTestEngine({ databaseUrl: db.url, adminSecret: SECRET });
  const tracked = await engine.metadata({ type: 'pg_track_table', args: { table: 'note' } });
  expect(tracked.body).toEqual({ message: 'success' });
});

afterAll(async () => {
  await engine?.close();
  await db?.drop();
});

describe('health and version', () => {
  it('answers /healthz with OK while metadata is consistent', async () => {
    const res = await engine.get('/healthz', {});
    expect(res.status).toBe(200);
    expect(res.text).toBe('OK');
  });

  it('answers /v1/version', async () => {
    const res = await engine.get('/v1/version', {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });
});

describe('admin secret', () => {
  it('refuses GraphQL without the secret with access-denied (HTTP 200 as v2; 401 under graphql-response+json)', async () => {
    const res = await engine.graphql('{ note { id } }', undefined, {});
    expect(res.status).toBe(200);
    expect((await engine.graphql('{ note { id } }', undefined, { accept: 'application/graphql-response+json' })).status).toBe(401);
    expect(res.body).toMatchObject({ errors: [{ extensions: { code: 'access-denied', path: '$' } }] });
  });

  it('refuses a wrong secret on every API', async () => {
    const wrong = { 'x-engine-admin-secret': 'nope' };
    const gql = await engine.graphql('{ note { id } }', undefined, wrong);
    expect(gql.status).toBe(200);
    expect(gql.body).toMatchObject({ errors: [{ extensions: { code: 'access-denied', path: '$' } }] });
    const md = await engine.metadata({ type: 'export_metadata', args: {} }, wrong);
    expect(md.status).toBe(401);
    expect(md.body).toMatchObject({ code: 'access-denied', path: '$' });
    expect((await engine.post('/v2/query', { type: 'run_sql', args: { sql: 'select 1' } }, wrong)).status).toBe(401);
    expect((await engine.post('/v1/graphql/explain', { query: { query: '{ note { id } }' } }, wrong)).status).toBe(401);
  });

  it('serves GraphQL with the secret', async () => {
    const res = await engine.graphql('{ note { id body } }', undefined, { 'x-engine-admin-secret': SECRET });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { note: [{ id: 1, body: 'hello' }] } });
  });

  it('keeps the metadata and query APIs admin-only for other roles', async () => {
    const headers = { 'x-engine-admin-secret': SECRET, 'x-engine-role': 'user' };
    const md = await engine.metadata({ type: 'export_metadata', args: {} }, headers);
    expect(md.status).toBe(400);
    expect(md.body).toMatchObject({ code: 'access-denied' });
    const explain = await engine.post('/v1/graphql/explain', { query: { query: '{ note { id } }' } }, headers);
    expect(explain.status).toBe(400);
  });

  it('gives a role with no permissions a schema without the table', async () => {
    const headers = { 'x-engine-admin-secret': SECRET, 'x-engine-role': 'nobody' };
    const res = await engine.graphql('{ note { id } }', undefined, headers);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ errors: [{ extensions: { code: 'validation-failed' } }] });
    const typename = await engine.graphql('{ __typename }', undefined, headers);
    expect(typename.body).toEqual({ data: { __typename: 'query_root' } });
  });
});

describe('malformed bodies', () => {
  it('answers malformed JSON on /v1/metadata with 400 invalid-json and changes nothing', async () => {
    const before = await engine.metadata({ type: 'export_metadata', version: 2, args: {} });
    const res = await engine.post('/v1/metadata', '{"type": "pg_track_table", "args": {', { 'x-engine-admin-secret': SECRET });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid-json', path: '$' });
    const after = await engine.metadata({ type: 'export_metadata', version: 2, args: {} });
    expect(after.body).toEqual(before.body);
  });

  it('answers malformed JSON on /v1/graphql with invalid-json in the GraphQL error shape', async () => {
    const res = await engine.post('/v1/graphql', '{"query": ', { 'x-engine-admin-secret': SECRET });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ errors: [{ extensions: { code: 'invalid-json' } }] });
  });

  it('answers an empty body with invalid-json', async () => {
    const res = await engine.post('/v1/query', '', { 'x-engine-admin-secret': SECRET, 'content-type': 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid-json' });
  });
});

describe('run_sql', () => {
  it('is served on /v2/query and /v1/query, and refused on /v1/metadata, as in v2', async () => {
    const call = { type: 'run_sql', args: { sql: 'SELECT 1 AS one' } };
    for (const path of ['/v2/query', '/v1/query']) {
      const res = await engine.post(path, call);
      expect(res.status, path).toBe(200);
      expect(res.body, path).toEqual({ result_type: 'TuplesOk', result: [['one'], ['1']] });
    }
    const refused = await engine.metadata(call);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'parse-failed', path: '$.type' });
  });
});
