/**
 * A v2 deployment started unchanged (issue 29, point 3): an `engine serve`
 * process configured only with HASURA_GRAPHQL_* variables, and clients
 * sending X-Hasura-* headers (over HTTP and in a WebSocket's
 * connection_init), against metadata whose permission names
 * X-Hasura-User-Id as v2 users write it.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnEngine, type EngineProcess } from '../../support/engine-process.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { openRawSocket } from '../../support/ws-client.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const SECRET = 'v2-admin-secret-value';
const JSON_TYPE = { 'content-type': 'application/json' };
const NOTES = '{ note(order_by: {id: asc}) { id owner_id } }';

let db: TestDatabase;
let engine: EngineProcess;

async function post(pathname: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${engine.url}${pathname}`, { method: 'POST', headers: { ...JSON_TYPE, ...headers }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

beforeAll(async () => {
  db = await createTestDatabase('v2names');
  await db.sql(`CREATE TABLE note (id int PRIMARY KEY, owner_id int NOT NULL); INSERT INTO note VALUES (1, 1), (2, 2), (3, 1);`);
  // Only v2's names: the database, the admin secret and the log types.
  engine = await spawnEngine([], { HASURA_GRAPHQL_DATABASE_URL: db.url, HASURA_GRAPHQL_ADMIN_SECRET: SECRET });
  const admin = { 'X-Hasura-Admin-Secret': SECRET };
  const tracked = await post('/v1/metadata', { type: 'pg_track_table', args: { source: 'default', table: 'note' } }, admin);
  expect(tracked.status, JSON.stringify(tracked.json)).toBe(200);
  // As a v2 user's metadata says it: X-Hasura-User-Id.
  const permission = await post(
    '/v1/metadata',
    {
      type: 'pg_create_select_permission',
      args: { source: 'default', table: 'note', role: 'user', permission: { columns: ['id', 'owner_id'], filter: { owner_id: { _eq: 'X-Hasura-User-Id' } } } },
    },
    admin,
  );
  expect(permission.status, JSON.stringify(permission.json)).toBe(200);
  const insert = await post(
    '/v1/metadata',
    {
      type: 'pg_create_insert_permission',
      args: { source: 'default', table: 'note', role: 'user', permission: { columns: ['id'], check: {}, set: { owner_id: 'x-hasura-user-id' } } },
    },
    admin,
  );
  expect(insert.status, JSON.stringify(insert.json)).toBe(200);
}, 60_000);

afterAll(async () => {
  await engine?.stop();
  await db?.drop();
});

describe('an engine configured with HASURA_GRAPHQL_* only', () => {
  it('has the admin secret: export_metadata is refused with 401 and queries with access-denied', async () => {
    const exported = await post('/v1/metadata', { type: 'export_metadata', args: {} });
    expect(exported.status).toBe(401);
    expect(exported.json).toMatchObject({ code: 'access-denied' });
    // v2 compat: a GraphQL refusal is HTTP 200 with an access-denied error and no data.
    const attempts: Array<Record<string, string>> = [{}, { 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': '1' }, { 'X-Hasura-Admin-Secret': 'wrong' }];
    for (const headers of attempts) {
      const query = await post('/v1/graphql', { query: NOTES }, headers);
      expect(query.json, JSON.stringify(headers)).toEqual({
        errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'access-denied' }) })],
      });
    }
  });

  it('runs X-Hasura-Admin-Secret + X-Hasura-Role + X-Hasura-User-Id as that user, through a permission naming X-Hasura-User-Id', async () => {
    const asAdmin = await post('/v1/graphql', { query: NOTES }, { 'X-Hasura-Admin-Secret': SECRET });
    expect(asAdmin.json).toEqual({
      data: {
        note: [
          { id: 1, owner_id: 1 },
          { id: 2, owner_id: 2 },
          { id: 3, owner_id: 1 },
        ],
      },
    });
    const asUser = await post('/v1/graphql', { query: NOTES }, { 'X-Hasura-Admin-Secret': SECRET, 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': '2' });
    expect(asUser.json).toEqual({ data: { note: [{ id: 2, owner_id: 2 }] } });
    // The X-Engine-* spelling of the same variable wins over v2's.
    const both = await post(
      '/v1/graphql',
      { query: NOTES },
      { 'X-Hasura-Admin-Secret': SECRET, 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': '2', 'X-Engine-User-Id': '1' },
    );
    expect(both.json).toEqual({
      data: {
        note: [
          { id: 1, owner_id: 1 },
          { id: 3, owner_id: 1 },
        ],
      },
    });
    // A preset naming x-hasura-user-id takes the session's value.
    const inserted = await post(
      '/v1/graphql',
      { query: 'mutation { insert_note_one(object: {id: 4}) { id owner_id } }' },
      { 'X-Hasura-Admin-Secret': SECRET, 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': '2' },
    );
    expect(inserted.json).toEqual({ data: { insert_note_one: { id: 4, owner_id: 2 } } });
    // The user role is no admin: the metadata API refuses it.
    const meta = await post('/v1/metadata', { type: 'export_metadata', args: {} }, { 'X-Hasura-Admin-Secret': SECRET, 'X-Hasura-Role': 'user' });
    expect(meta.status).toBe(400);
    expect(meta.json).toMatchObject({ code: 'access-denied' });
  });

  it("takes X-Hasura-* headers from a WebSocket's connection_init payload", async () => {
    const ws = await openRawSocket(engine.url, 'graphql-transport-ws');
    ws.send({ type: 'connection_init', payload: { headers: { 'X-Hasura-Admin-Secret': SECRET, 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': '1' } } });
    await ws.waitFor((m) => m['type'] === 'connection_ack');
    ws.send({ type: 'subscribe', id: '1', payload: { query: `subscription ${NOTES}` } });
    const first = await ws.waitFor((m) => m['type'] === 'next');
    expect(first['payload']).toEqual({
      data: {
        note: [
          { id: 1, owner_id: 1 },
          { id: 3, owner_id: 1 },
        ],
      },
    });
    ws.close();
    const wrong = await openRawSocket(engine.url, 'graphql-transport-ws');
    wrong.send({ type: 'connection_init', payload: { headers: { 'X-Hasura-Admin-Secret': 'wrong' } } });
    expect((await wrong.waitClosed()).code).toBe(4403);
  });

  it('says in its start-up log which names it read, never their values', () => {
    const line = engine
      .stdout()
      .split('\n')
      .find((l) => l.includes('"env_names"'));
    expect(line, engine.stdout()).toBeDefined();
    const detail = (JSON.parse(line as string) as { detail: { info: { read: string[] } } }).detail;
    expect(detail.info.read).toEqual(expect.arrayContaining(['HASURA_GRAPHQL_DATABASE_URL', 'HASURA_GRAPHQL_ADMIN_SECRET']));
    expect(engine.stdout()).not.toContain(SECRET);
  });
});

describe('an admin secret set but empty', () => {
  it('refuses to start, with the variable named, for either name', () => {
    for (const env of [{ HASURA_GRAPHQL_ADMIN_SECRET: '' }, { ENGINE_GRAPHQL_ADMIN_SECRET: ' ' }, { HASURA_GRAPHQL_ACCESS_KEY: '' }]) {
      const name = Object.keys(env)[0] as string;
      const r = spawnSync(process.execPath, ['engine/main.ts', 'serve', '--server-port', '1'], {
        cwd: root,
        encoding: 'utf8',
        env: { PATH: process.env['PATH'] ?? '', HASURA_GRAPHQL_DATABASE_URL: db.url, ...env },
        timeout: 30_000,
      });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(
        `${name} is set but empty: give the admin secret a value, or unset it to run without one (the engine does not start open when a secret was meant)`,
      );
      expect(r.stdout).not.toContain('engine serving');
    }
  }, 60_000);
});
