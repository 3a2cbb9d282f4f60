/**
 * v2's API limits (`set_api_limits`, `remove_api_limits`) as a user sees them:
 * depth, node, batch, rate and time limits per role, the admin exempt.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';

let db: TestDatabase;
let e: TestEngine;
const user = { 'x-engine-role': 'user', 'x-engine-user-id': '1' };
const other = { 'x-engine-role': 'other' };

function refused(message: string, code = 'validation-failed'): unknown {
  return { errors: [{ message, extensions: { path: '$', code } }] };
}

beforeAll(async () => {
  db = await createTestDatabase('limits');
  await db.sql(`
    CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL);
    CREATE TABLE book (id int PRIMARY KEY, author_id int NOT NULL REFERENCES author(id), title text NOT NULL);
    INSERT INTO author VALUES (1, 'Ann');
    INSERT INTO book VALUES (1, 1, 'One');
    CREATE VIEW slow AS SELECT 1 AS id, (SELECT pg_sleep(3))::text AS z;
  `);
  e = await startTestEngine({ databaseUrl: db.url });
  const setup = await e.metadata({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { table: 'author' } },
      { type: 'pg_track_table', args: { table: 'book' } },
      { type: 'pg_track_table', args: { table: 'slow' } },
      { type: 'pg_create_object_relationship', args: { table: 'book', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      {
        type: 'pg_create_array_relationship',
        args: { table: 'author', name: 'books', using: { foreign_key_constraint_on: { table: 'book', columns: ['author_id'] } } },
      },
      ...['user', 'other'].flatMap((role) =>
        ['author', 'book', 'slow'].map((table) => ({ type: 'pg_create_select_permission', args: { table, role, permission: { columns: '*', filter: {} } } })),
      ),
    ],
  });
  expect(setup.status).toBe(200);
});

afterAll(async () => {
  await e?.close();
  await db?.drop();
});

const deep = '{ author { books { author { name } } } }'; // depth 3, 3 nodes

describe('API limits', () => {
  it('stores the limits in the metadata document, refuses bad ones, and removes them', async () => {
    const bad = await e.metadata({ type: 'set_api_limits', args: { depth_limit: { per_role: { user: 1 } } } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'parse-failed', path: expect.stringContaining('$.args') });
    const role = await e.metadata({ type: 'set_api_limits', args: { rate_limit: { global: { max_reqs_per_min: 1, unique_params: ['x-engine-role'] } } } });
    expect(role.status).toBe(400);
    const limits = { disabled: false, depth_limit: { global: 5, per_role: { user: 2 } }, node_limit: { global: 10 } };
    expect((await e.metadata({ type: 'set_api_limits', args: limits })).body).toEqual({ message: 'success' });
    const exported = await e.metadata({ type: 'export_metadata', args: {} });
    expect(exported.body).toMatchObject({ api_limits: limits });
    expect((await e.metadata({ type: 'remove_api_limits', args: {} })).body).toEqual({ message: 'success' });
    expect((await e.metadata({ type: 'export_metadata', args: {} })).body).not.toHaveProperty('api_limits');
    // replace_metadata carries them too.
    const doc = exported.body as Record<string, unknown>;
    expect((await e.metadata({ type: 'replace_metadata', args: doc })).status).toBe(200);
    expect((await e.metadata({ type: 'export_metadata', args: {} })).body).toMatchObject({ api_limits: limits });
    const wrong = await e.metadata({ type: 'replace_metadata', args: { ...doc, api_limits: { depth_limit: { global: 'x' } } } });
    expect(wrong.status).toBe(400);
    expect((await e.metadata({ type: 'remove_api_limits', args: {} })).status).toBe(200);
  });

  it('applies depth and node limits per role, not to admin, and depth limits not to introspection', async () => {
    await e.metadata({
      type: 'set_api_limits',
      args: { depth_limit: { global: 5, per_role: { user: 2 } }, node_limit: { global: 2, per_role: { user: 10 } } },
    });
    try {
      expect((await e.graphql(deep, undefined, user)).body).toEqual(refused('depth limit of 2 exceeded'));
      expect((await e.graphql(deep, undefined, other)).body).toEqual(refused('node limit of 2 exceeded'));
      // Fragments count where they are spread.
      const viaFragment = 'query { author { ...A } } fragment A on author { books { author { name } } }';
      expect((await e.graphql(viaFragment, undefined, user)).body).toEqual(refused('depth limit of 2 exceeded'));
      expect((await e.graphql('{ author { books { title } } }', undefined, user)).body).toEqual({ data: { author: [{ books: [{ title: 'One' }] }] } });
      expect((await e.graphql(deep)).body).toEqual({ data: { author: [{ books: [{ author: { name: 'Ann' } }] }] } });
      const introspection = await e.graphql('{ __schema { queryType { fields { type { ofType { name } } } } } }', undefined, user);
      expect(introspection.body).toHaveProperty(['data', '__schema', 'queryType']);
    } finally {
      await e.metadata({ type: 'remove_api_limits', args: {} });
    }
  });

  it('limits batches', async () => {
    await e.metadata({ type: 'set_api_limits', args: { batch_limit: { global: 2 } } });
    try {
      const q = { query: '{ author { name } }' };
      expect((await e.post('/v1/graphql', [q, q], user)).body).toEqual([{ data: { author: [{ name: 'Ann' }] } }, { data: { author: [{ name: 'Ann' }] } }]);
      expect((await e.post('/v1/graphql', [q, q, q], user)).body).toEqual(refused('batch limit of 2 exceeded'));
    } finally {
      await e.metadata({ type: 'remove_api_limits', args: {} });
    }
  });

  it('rate-limits per role and per session variable', async () => {
    await e.metadata({
      type: 'set_api_limits',
      args: { rate_limit: { global: { max_reqs_per_min: 3 }, per_role: { user: { max_reqs_per_min: 2, unique_params: ['X-Engine-User-Id'] } } } },
    });
    try {
      const q = '{ author { name } }';
      for (let i = 0; i < 3; i++) expect((await e.graphql(q, undefined, other)).body).toHaveProperty('data');
      expect((await e.graphql(q, undefined, other)).body).toEqual(refused('rate limit of 3 exceeded', 'rate-limit-exceeded'));
      for (let i = 0; i < 2; i++) expect((await e.graphql(q, undefined, user)).body).toHaveProperty('data');
      expect((await e.graphql(q, undefined, user)).body).toEqual(refused('rate limit of 2 exceeded', 'rate-limit-exceeded'));
      // Another user id has its own count; admin is never limited.
      expect((await e.graphql(q, undefined, { ...user, 'x-engine-user-id': '2' })).body).toHaveProperty('data');
      for (let i = 0; i < 5; i++) expect((await e.graphql(q)).body).toHaveProperty('data');
    } finally {
      await e.metadata({ type: 'remove_api_limits', args: {} });
    }
  });

  it('counts every operation of a batch against the rate limit, refusing a batch that would pass it whole', async () => {
    await e.metadata({
      type: 'set_api_limits',
      args: { batch_limit: { global: 5 }, rate_limit: { global: { max_reqs_per_min: 4, unique_params: ['x-engine-user-id'] } } },
    });
    try {
      const me = { 'x-engine-role': 'other', 'x-engine-user-id': 'batcher' };
      const q = { query: '{ author { name } }' };
      const ok = { data: { author: [{ name: 'Ann' }] } };
      const rate = refused('rate limit of 4 exceeded', 'rate-limit-exceeded');
      // Over the batch limit: refused before the rate limit, and counting nothing.
      expect((await e.post('/v1/graphql', [q, q, q, q, q, q], me)).body).toEqual(refused('batch limit of 5 exceeded'));
      expect((await e.post('/v1/graphql', [q, q, q], me)).body).toEqual([ok, ok, ok]);
      // 3 + 2 > 4: the whole batch is refused and none of it is counted, so one more still fits.
      expect((await e.post('/v1/graphql', [q, q], me)).body).toEqual(rate);
      expect((await e.post('/v1/graphql', q, me)).body).toEqual(ok);
      expect((await e.post('/v1/graphql', [q], me)).body).toEqual(rate);
      expect((await e.post('/v1/graphql', q, me)).body).toEqual(rate);
    } finally {
      await e.metadata({ type: 'remove_api_limits', args: {} });
    }
  });

  it("bounds a role's statements by its time limit", async () => {
    await e.metadata({ type: 'set_api_limits', args: { time_limit: { global: 60, per_role: { user: 0.5 } } } });
    try {
      const started = Date.now();
      const r = await e.graphql('{ slow { id z } }', undefined, user);
      expect(r.body).toEqual(refused('canceling statement due to statement timeout', 'timeout'));
      expect(Date.now() - started).toBeLessThan(2_500);
      expect((await e.graphql('{ slow { id z } }', undefined, other)).body).toEqual({ data: { slow: [{ id: 1, z: '' }] } });
    } finally {
      await e.metadata({ type: 'remove_api_limits', args: {} });
    }
  });
});
