/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Who may call a tracked function: inferred from the select permission on
 * the return table (ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS, default true),
 * or only through pg_create_function_permission when inference is off. The
 * role's select filter applies to the returned rows either way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let inferred: TestEngine;
let explicit: TestEngine;

const SETUP = `
CREATE TABLE article (id int PRIMARY KEY, title text NOT NULL, author_id int NOT NULL);
INSERT INTO article VALUES (1, 'Hello World', 1), (2, 'Hello Again', 2), (3, 'Other', 1);
CREATE FUNCTION search_articles(search text) RETURNS SETOF article AS $$
  SELECT * FROM article WHERE title ILIKE ('%' || search || '%') $$ LANGUAGE sql STABLE;
`;

const user = { 'x-engine-role': 'user', 'x-engine-user-id': '1' };
const SEARCH = '{ search_articles(args: {search: "hello"}) { id title } }';

const SELECT_PERMISSION = { role: 'user', permission: { columns: ['id', 'title'], filter: { author_id: { _eq: 'X-Engine-User-Id' } } } };

async function exportDoc(engine: TestEngine): Promise<any> {
  return (await engine.metadata({ type: 'export_metadata', args: {} })).body;
}

async function setUp(engine: TestEngine): Promise<void> {
  const calls = [
    { type: 'pg_track_table', args: { table: 'article' } },
    { type: 'pg_track_function', args: { function: 'search_articles' } },
  ];
  const r = await engine.metadata({ type: 'bulk', args: calls });
  if (r.status !== 200) throw new Error(r.text);
  const doc = await exportDoc(engine);
  doc.sources[0].tables[0].select_permissions = [SELECT_PERMISSION];
  const p = await engine.metadata({ type: 'replace_metadata', args: doc });
  if (p.status !== 200) throw new Error(p.text);
}

beforeAll(async () => {
  db = await createTestDatabase('fnperm');
  await db.sql(SETUP);
  inferred = await startTestEngine({ databaseUrl: db.url });
  await setUp(inferred);
  explicit = await startTestEngine({ databaseUrl: db.url, inferFunctionPermissions: false });
  await explicit.metadata({ type: 'reload_metadata', args: {} });
});
afterAll(async () => {
  await inferred?.close();
  await explicit?.close();
  await db?.drop();
});

describe('inferred function permissions (default)', () => {
  it('a role that may select the return table may call the function; its filter applies', async () => {
    const r = (await inferred.graphql(SEARCH, undefined, user)).body as any;
    expect(r).toEqual({ data: { search_articles: [{ id: 1, title: 'Hello World' }] } });
  });

  it('a role without select permission does not see the function', async () => {
    const r = (await inferred.graphql(SEARCH, undefined, { 'x-engine-role': 'guest' })).body as any;
    expect(r.errors[0].extensions.code).toBe('validation-failed');
  });
});

describe('explicit function permissions (inference off)', () => {
  it('needs pg_create_function_permission, which needs the select permission', async () => {
    const before = (await explicit.graphql(SEARCH, undefined, user)).body as any;
    expect(before.errors[0].message).toContain("field 'search_articles' not found");
    const admin = (await explicit.graphql(SEARCH)).body as any;
    expect(admin.data.search_articles).toHaveLength(2);

    const noSelect = await explicit.metadata({ type: 'pg_create_function_permission', args: { function: 'search_articles', role: 'guest' } });
    expect(noSelect.status).toBe(400);
    expect((noSelect.body as any).error).toContain('has no select permission');

    const ok = await explicit.metadata({ type: 'pg_create_function_permission', args: { function: 'search_articles', role: 'user' } });
    expect(ok.status).toBe(200);
    const again = await explicit.metadata({ type: 'pg_create_function_permission', args: { function: 'search_articles', role: 'user' } });
    expect((again.body as any).code).toBe('already-exists');
    const after = (await explicit.graphql(SEARCH, undefined, user)).body as any;
    expect(after).toEqual({ data: { search_articles: [{ id: 1, title: 'Hello World' }] } });

    const doc = (await explicit.metadata({ type: 'export_metadata', args: {} })).body as any;
    expect(doc.sources[0].functions[0].permissions).toEqual([{ role: 'user' }]);

    const drop = await explicit.metadata({ type: 'pg_drop_function_permission', args: { function: 'search_articles', role: 'user' } });
    expect(drop.status).toBe(200);
    expect((await exportDoc(explicit)).sources[0].functions[0].permissions).toBeUndefined();
    expect(((await explicit.graphql(SEARCH, undefined, user)).body as any).errors[0].extensions.code).toBe('validation-failed');
  });

  it('an inherited role may call what a role of its set may call', async () => {
    await explicit.metadata({ type: 'pg_create_function_permission', args: { function: 'search_articles', role: 'user' } });
    const add = await explicit.metadata({ type: 'add_inherited_role', args: { role_name: 'family', role_set: ['user'] } });
    expect(add.status).toBe(200);
    const r = (await explicit.graphql(SEARCH, undefined, { 'x-engine-role': 'family', 'x-engine-user-id': '1' })).body as any;
    expect(r).toEqual({ data: { search_articles: [{ id: 1, title: 'Hello World' }] } });
    await explicit.metadata({ type: 'drop_inherited_role', args: { role_name: 'family' } });
    await explicit.metadata({ type: 'pg_drop_function_permission', args: { function: 'search_articles', role: 'user' } });
  });

  it('a function permission without the select permission is inconsistent', async () => {
    await explicit.metadata({ type: 'pg_create_function_permission', args: { function: 'search_articles', role: 'user' } });
    const doc = await exportDoc(explicit);
    doc.sources[0].tables[0].select_permissions = [];
    const r = await explicit.metadata({ type: 'replace_metadata', version: 2, args: { metadata: doc, allow_inconsistent_metadata: true } });
    expect(r.status).toBe(200);
    const inc = (await explicit.metadata({ type: 'get_inconsistent_metadata', args: {} })).body as any;
    expect(inc.inconsistent_objects).toEqual([
      expect.objectContaining({ type: 'function_permission', reason: expect.stringContaining('does not have select permission') }),
    ]);
  });
});
