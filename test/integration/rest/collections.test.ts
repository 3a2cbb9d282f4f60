/**
 * Query collections and the allow-list's metadata operations as a user sees
 * them over HTTP: create, rename, add and drop queries, allow-list entries
 * with scopes, the dependency reports of drops, export and replace, and
 * queries that stop validating when the database changes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';

let db: TestDatabase;
let e: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase('collections');
  await db.sql(`CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL, bio text); INSERT INTO author VALUES (1, 'Ann', 'b');`);
  e = await startTestEngine({ databaseUrl: db.url });
  expect((await e.metadata({ type: 'pg_track_table', args: { table: 'author' } })).status).toBe(200);
});

afterAll(async () => {
  await e?.close();
  await db?.drop();
});

async function ok(type: string, args: unknown): Promise<void> {
  const r = await e.metadata({ type, args });
  expect(r.body, `${type} ${JSON.stringify(args)}`).toEqual({ message: 'success' });
}

async function exported(): Promise<Record<string, unknown>> {
  return (await e.metadata({ type: 'export_metadata', args: {} })).body as Record<string, unknown>;
}

describe('query collections', () => {
  it('creates, adds, renames and drops queries, and exports them', async () => {
    await ok('create_query_collection', { name: 'c1', comment: 'first', definition: { queries: [{ name: 'q1', query: 'query q1 { author { id } }' }] } });
    const dup = await e.metadata({ type: 'create_query_collection', args: { name: 'c1', definition: { queries: [] } } });
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({ code: 'already-exists', path: '$.args.name' });
    await ok('add_query_to_collection', { collection_name: 'c1', query_name: 'q2', query: 'query q2($id: Int!) { author_by_pk(id: $id) { name } }' });
    const twice = await e.metadata({ type: 'add_query_to_collection', args: { collection_name: 'c1', query_name: 'q2', query: '{ author { id } }' } });
    expect(twice.body).toMatchObject({ code: 'already-exists', path: '$.args.query_name' });
    const noColl = await e.metadata({ type: 'add_query_to_collection', args: { collection_name: 'nope', query_name: 'q', query: '{ author { id } }' } });
    expect(noColl.body).toMatchObject({ code: 'not-exists', path: '$.args.collection_name' });
    expect((await exported())['query_collections']).toEqual([
      {
        name: 'c1',
        comment: 'first',
        definition: {
          queries: [
            { name: 'q1', query: 'query q1 { author { id } }' },
            { name: 'q2', query: 'query q2($id: Int!) { author_by_pk(id: $id) { name } }' },
          ],
        },
      },
    ]);
    await ok('rename_query_collection', { collection: 'c1', new_name: 'c2' });
    expect(((await exported())['query_collections'] as Array<{ name: string }>).map((c) => c.name)).toEqual(['c2']);
    await ok('drop_query_from_collection', { collection_name: 'c2', query_name: 'q1' });
    const gone = await e.metadata({ type: 'drop_query_from_collection', args: { collection_name: 'c2', query_name: 'q1' } });
    expect(gone.body).toMatchObject({ code: 'not-exists', path: '$.args.query_name' });
    const noCascade = await e.metadata({ type: 'drop_query_collection', args: { collection: 'c2' } });
    expect(noCascade.body).toMatchObject({ code: 'parse-failed' });
    await ok('drop_query_collection', { collection: 'c2', cascade: false });
    expect(await exported()).not.toHaveProperty('query_collections');
  });

  it('refuses a query that is not GraphQL, or does not validate against the schema', async () => {
    const syntax = await e.metadata({
      type: 'create_query_collection',
      args: { name: 'bad', definition: { queries: [{ name: 'q', query: 'query { author { id }' }] } },
    });
    expect(syntax.status).toBe(400);
    expect(syntax.body).toMatchObject({ code: 'parse-failed', path: '$.args.definition.queries[0].query' });
    expect((syntax.body as { error: string }).error).toContain('not a valid GraphQL query');
    const sdl = await e.metadata({
      type: 'create_query_collection',
      args: { name: 'bad', definition: { queries: [{ name: 'q', query: 'type T { a: Int }' }] } },
    });
    expect(sdl.body).toMatchObject({ code: 'parse-failed' });
    await ok('create_query_collection', { name: 'v', definition: { queries: [] } });
    const unknownField = await e.metadata({ type: 'add_query_to_collection', args: { collection_name: 'v', query_name: 'q', query: '{ author { nope } }' } });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body).toMatchObject({ code: 'invalid-configuration', path: '$.args' });
    expect((unknownField.body as { error: string }).error).toContain('Cannot query field "nope"');
    await ok('drop_query_collection', { collection: 'v', cascade: false });
  });

  it('keeps allow-list entries with scopes, and reports them as dependents of their collection', async () => {
    await ok('create_query_collection', { name: 'a', definition: { queries: [{ name: 'q', query: '{ author { id } }' }] } });
    await ok('add_collection_to_allowlist', { collection: 'a' });
    // Already present in any scope: nothing changes.
    await ok('add_collection_to_allowlist', { collection: 'a', scope: { global: false, roles: ['user'] } });
    expect((await exported())['allowlist']).toEqual([{ collection: 'a', scope: { global: true } }]);
    await ok('update_scope_of_collection_in_allowlist', { collection: 'a', scope: { global: false, roles: ['user', 'editor'] } });
    expect((await exported())['allowlist']).toEqual([{ collection: 'a', scope: { global: false, roles: ['user', 'editor'] } }]);
    const noRoles = await e.metadata({ type: 'update_scope_of_collection_in_allowlist', args: { collection: 'a', scope: { global: false } } });
    expect(noRoles.body).toMatchObject({ code: 'parse-failed' });
    const missing = await e.metadata({ type: 'add_collection_to_allowlist', args: { collection: 'zz' } });
    expect(missing.body).toMatchObject({ code: 'not-exists', path: '$.args.collection' });
    const notListed = await e.metadata({ type: 'drop_collection_from_allowlist', args: { collection: 'zz' } });
    expect(notListed.body).toMatchObject({ code: 'not-exists' });

    const refused = await e.metadata({ type: 'drop_query_collection', args: { collection: 'a', cascade: false } });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'dependency-error', path: '$.args' });
    expect((refused.body as { error: string }).error).toContain('allowlist entry for query collection a');
    expect((await exported())['allowlist']).toHaveLength(1);
    await ok('drop_query_collection', { collection: 'a', cascade: true });
    const after = await exported();
    expect(after).not.toHaveProperty('allowlist');
    expect(after).not.toHaveProperty('query_collections');
  });

  it('takes the legacy names on /v1/query, the legacy allow-list call without a scope', async () => {
    const q = (type: string, args: unknown) => e.post('/v1/query', { type, args });
    expect((await q('create_query_collection', { name: 'l', definition: { queries: [{ name: 'q', query: '{ author { id } }' }] } })).body).toEqual({
      message: 'success',
    });
    expect((await q('add_collection_to_allowlist', { collection: 'l', scope: { global: true } })).body).toMatchObject({
      code: 'parse-failed',
      path: '$.args.scope',
    });
    expect((await q('add_collection_to_allowlist', { collection: 'l' })).body).toEqual({ message: 'success' });
    expect((await q('drop_collection_from_allowlist', { collection: 'l' })).body).toEqual({ message: 'success' });
    expect((await q('drop_query_collection', { collection: 'l', cascade: false })).body).toEqual({ message: 'success' });
  });

  it('round-trips through replace_metadata and refuses malformed entries', async () => {
    const doc = await exported();
    const withCollections = {
      ...doc,
      query_collections: [{ name: 'r', definition: { queries: [{ name: 'q', query: '{ author { name } }' }] } }],
      allowlist: [{ collection: 'r', scope: { global: false, roles: ['user'] } }],
    };
    expect((await e.metadata({ type: 'replace_metadata', args: withCollections })).body).toMatchObject({ message: 'success' });
    const back = await exported();
    expect(back['query_collections']).toEqual(withCollections.query_collections);
    expect(back['allowlist']).toEqual(withCollections.allowlist);
    const bad = await e.metadata({ type: 'replace_metadata', args: { ...doc, query_collections: [{ name: 'x', definition: { queries: [{ name: 'q' }] } }] } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'parse-failed' });
    const dangling = await e.metadata({ type: 'replace_metadata', args: { ...doc, allowlist: [{ collection: 'none' }] } });
    expect(dangling.status).toBe(400);
    await ok('drop_query_collection', { collection: 'r', cascade: true });
  });

  it('makes a query inconsistent when the database drops a column it reads', async () => {
    await ok('create_query_collection', {
      name: 'd',
      definition: {
        queries: [
          { name: 'bio', query: '{ author { bio } }' },
          { name: 'id', query: '{ author { id } }' },
        ],
      },
    });
    await ok('add_collection_to_allowlist', { collection: 'd' });
    await db.sql('ALTER TABLE author DROP COLUMN bio');
    expect((await e.metadata({ type: 'reload_metadata', args: {} })).body).toMatchObject({ message: 'success', is_consistent: false });
    const inc = (await e.metadata({ type: 'get_inconsistent_metadata', args: {} })).body as {
      is_consistent: boolean;
      inconsistent_objects: Array<{ type: string; name: string; reason: string }>;
    };
    expect(inc.is_consistent).toBe(false);
    expect(inc.inconsistent_objects).toEqual([
      expect.objectContaining({
        type: 'query_collection',
        name: 'query bio in query collection d',
        reason: expect.stringContaining('Cannot query field "bio"'),
      }),
    ]);
    await ok('drop_inconsistent_metadata', {});
    const left = (await exported())['query_collections'] as Array<{ definition: { queries: Array<{ name: string }> } }>;
    expect(left[0]?.definition.queries.map((q) => q.name)).toEqual(['id']);
    await db.sql('ALTER TABLE author ADD COLUMN bio text');
    await ok('drop_query_collection', { collection: 'd', cascade: true });
  });
});
