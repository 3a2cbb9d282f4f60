/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;
const VAR = 'ENGINE_GRAPHQL_DATABASE_URL';
const saved = process.env[VAR];

beforeAll(async () => {
  db = await createTestDatabase('mdenv');
  await db.sql('CREATE TABLE t (id int PRIMARY KEY)');
  process.env[VAR] = db.url;
  engine = await startTestEngine({ databaseUrl: db.url });
});
afterAll(async () => {
  await engine?.close();
  if (saved === undefined) delete process.env[VAR];
  else process.env[VAR] = saved;
  await db?.drop();
});

describe('the default source', () => {
  it('names the environment variable when the URL came from it', async () => {
    const doc = (await engine.metadata<any>({ type: 'export_metadata', args: {} })).body;
    expect(doc.sources[0].configuration).toEqual({ connection_info: { database_url: { from_env: VAR } } });
    expect((await engine.metadata({ type: 'pg_track_table', args: { table: 't' } })).status).toBe(200);
  });

  it('metadata and query APIs are admin only', async () => {
    const r = await engine.metadata<any>({ type: 'export_metadata', args: {} }, { 'x-engine-role': 'user' });
    // Without an admin secret every request is admin (compat.md), so a role header alone does not restrict it.
    expect([200, 400]).toContain(r.status);
    const svc = engine.engine.metadata;
    const denied = await svc.handle('metadata', { type: 'export_metadata', args: {} }, { role: 'user', isAdmin: false, variables: {} });
    expect(denied.status).toBe(400);
    expect((denied as { json: any }).json).toMatchObject({ code: 'access-denied' });
  });
});
