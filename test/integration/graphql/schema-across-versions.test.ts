/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Note [Types across catalog versions] (graphql/schema/schema-cache.ts) and
 * Note [Incremental catalog] (catalog/stages/catalog-sources.ts): after a
 * metadata change the role schemas take the types of unchanged tables from
 * the previous catalog version, and every change still shows. Through the
 * real metadata pipeline on PostgreSQL: after each change, every role's
 * schema from one long-lived SchemaCache prints exactly as the schema built
 * for it alone from that catalog (buildRoleSchema shares nothing), and the
 * engine's own answers over HTTP show the change. Changes: a table tracked
 * (the others' types are the very objects of the version before), a
 * permission narrowed, insert permissions given and changed, a relationship added to an existing table, the
 * source's type-name customization, a table's custom name, a role removed.
 * Root fields of unchanged tables are the very GraphQLField objects of the
 * version before (Note [Root fields across versions] in
 * graphql/schema/root-types.ts), and still read and write with the
 * requesting role's own permissions.
 */
import { printSchema, type GraphQLObjectType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Catalog } from '../../../engine/catalog/types.ts';
import { buildRoleSchema } from '../../../engine/graphql/schema/build-schema.ts';
import { SchemaCache } from '../../../engine/graphql/schema/schema-cache.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let te: TestEngine;
const cache = new SchemaCache();
const ROLES: Array<readonly [string, boolean]> = [
  ['admin', true],
  ['reader', false],
  ['other', false],
];

beforeAll(async () => {
  db = await createTestDatabase('versions');
  await db.sql(`
    CREATE TABLE a (id serial PRIMARY KEY, name text NOT NULL, owner_id int);
    CREATE TABLE b (id serial PRIMARY KEY, a_id int REFERENCES a (id), note text);
    CREATE TABLE c (id serial PRIMARY KEY, label text);
    CREATE TABLE d (id serial PRIMARY KEY, c_id int REFERENCES c (id));
    CREATE TABLE e_extra (id serial PRIMARY KEY, label text);
    INSERT INTO a (name, owner_id) VALUES ('first', 1);
    INSERT INTO b (a_id, note) VALUES (1, 'hello');
  `);
  te = await startTestEngine({ databaseUrl: db.url });
  for (const t of ['a', 'b', 'c']) {
    expect((await te.metadata({ type: 'pg_track_table', args: { table: t } })).status).toBe(200);
    for (const role of ['reader', 'other']) {
      const permission = { columns: role === 'reader' || t === 'c' ? '*' : ['id'], filter: {} };
      expect((await te.metadata({ type: 'pg_create_select_permission', args: { table: t, role, permission } })).status).toBe(200);
    }
  }
});

afterAll(async () => {
  await te?.close();
  await db?.drop();
});

function catalog(): Catalog {
  return te.engine.metadata.catalogRef.current;
}

async function md(type: string, args: unknown): Promise<void> {
  const r = await te.metadata({ type, args });
  expect(r.status, r.text).toBe(200);
}

/** The object type `name` in the cached schema of `role`. */
function objectOf(role: string, isAdmin: boolean, name: string): GraphQLObjectType | undefined {
  return cache.get(catalog(), role, isAdmin).schema.getType(name) as GraphQLObjectType | undefined;
}

/** Every role's cached schema prints as the one built for it alone. */
function expectFreshSchemas(): void {
  const c = catalog();
  for (const [role, isAdmin] of ROLES)
    expect(printSchema(cache.get(c, role, isAdmin).schema), role).toBe(printSchema(buildRoleSchema(c, role, isAdmin).schema));
}

async function answer(query: string, role?: string): Promise<any> {
  return (await te.graphql(query, undefined, role === undefined ? undefined : { 'x-engine-role': role })).body;
}

describe('role schemas across catalog versions', () => {
  it('tracking a table keeps the other tables types and adds the new one', async () => {
    expectFreshSchemas();
    const adminC = objectOf('admin', true, 'c');
    const otherA = objectOf('other', false, 'a');
    const otherC = objectOf('other', false, 'c');
    await md('pg_track_table', { table: 'd' });
    expect(objectOf('admin', true, 'd')?.getFields()['c_id']).toBeDefined();
    expect(objectOf('admin', true, 'c')).toBe(adminC);
    expect(objectOf('other', false, 'a')).toBe(otherA);
    expect(objectOf('other', false, 'c')).toBe(otherC);
    expectFreshSchemas();
    expect(await answer('{ d { id } }')).toEqual({ data: { d: [] } });
  });

  it("root fields of unchanged tables are kept and answer with the requesting role's permissions", async () => {
    const rootField = (role: string, isAdmin: boolean, root: 'query' | 'mutation', name: string): unknown =>
      (root === 'query'
        ? cache.get(catalog(), role, isAdmin).schema.getQueryType()
        : cache.get(catalog(), role, isAdmin).schema.getMutationType()
      )?.getFields()[name];
    const before = [rootField('admin', true, 'query', 'a'), rootField('admin', true, 'mutation', 'insert_c'), rootField('reader', false, 'query', 'b_by_pk')];
    expect(before.every((f) => f !== undefined)).toBe(true);
    await md('pg_track_table', { table: 'e_extra' });
    expectFreshSchemas();
    expect([rootField('admin', true, 'query', 'a'), rootField('admin', true, 'mutation', 'insert_c'), rootField('reader', false, 'query', 'b_by_pk')]).toEqual(
      before,
    );
    expect(rootField('admin', true, 'query', 'a')).toBe(before[0]);
    // The kept fields were made for another role (or version): to-ir still reads the requester's own view.
    await md('pg_create_select_permission', { table: 'e_extra', role: 'reader', permission: { columns: '*', filter: {} } });
    expectFreshSchemas();
    expect(await answer('{ b_by_pk(id: 1) { note } }', 'reader')).toEqual({ data: { b_by_pk: { note: 'hello' } } });
    expect((await answer('{ b_by_pk(id: 1) { note } }', 'other')).errors?.[0]?.message).toMatch(/note/);
    expect(await answer('{ b_by_pk(id: 1) { id } }', 'other')).toEqual({ data: { b_by_pk: { id: 1 } } });
    expect(await answer('mutation { insert_c(objects: [{ label: "x" }]) { affected_rows } }')).toEqual({ data: { insert_c: { affected_rows: 1 } } });
    expect((await answer('mutation { insert_c(objects: [{ label: "y" }]) { affected_rows } }', 'reader')).errors?.[0]?.message).toMatch(/no mutations exist/);
  });

  it('a narrowed permission shows in that role and leaves the others alone', async () => {
    const otherC = objectOf('other', false, 'c');
    await md('pg_drop_select_permission', { table: 'a', role: 'reader' });
    await md('pg_create_select_permission', { table: 'a', role: 'reader', permission: { columns: ['id'], filter: {} } });
    expect(Object.keys(objectOf('reader', false, 'a')?.getFields() ?? {})).toEqual(['id']);
    expect(objectOf('other', false, 'c')).toBe(otherC);
    expectFreshSchemas();
    const refused = await answer('{ a { name } }', 'reader');
    expect(refused.errors?.[0]?.message).toMatch(/name/);
    expect(await answer('{ a { id } }', 'reader')).toEqual({ data: { a: [{ id: 1 }] } });
  });

  it('insert permissions given and changed show in the mutation types', async () => {
    await md('pg_create_insert_permission', { table: 'c', role: 'reader', permission: { columns: ['label'], check: {} } });
    const input = (): string[] => Object.keys((cache.get(catalog(), 'reader', false).schema.getType('c_insert_input') as any)?.getFields() ?? {});
    expect(input()).toEqual(['label']);
    expectFreshSchemas();
    await md('pg_drop_insert_permission', { table: 'c', role: 'reader' });
    await md('pg_create_insert_permission', { table: 'c', role: 'reader', permission: { columns: ['id', 'label'], check: {} } });
    expect(input()).toEqual(['id', 'label']);
    expectFreshSchemas();
  });

  it('a relationship added to an existing table shows on its type', async () => {
    const adminC = objectOf('admin', true, 'c');
    await md('pg_create_object_relationship', { table: 'b', name: 'parent', using: { foreign_key_constraint_on: 'a_id' } });
    expect(objectOf('admin', true, 'b')?.getFields()['parent']).toBeDefined();
    expect(objectOf('reader', false, 'b')?.getFields()['parent']).toBeDefined();
    // c reaches neither a nor b: its types stay.
    expect(objectOf('admin', true, 'c')).toBe(adminC);
    expectFreshSchemas();
    expect(await answer('{ b { note parent { name } } }')).toEqual({ data: { b: [{ note: 'hello', parent: { name: 'first' } }] } });
  });

  it("a table's custom name and the source's type names customization rename its types", async () => {
    await md('pg_set_table_customization', { table: 'c', configuration: { custom_name: 'cee' } });
    expect(objectOf('admin', true, 'cee')).toBeDefined();
    expect(objectOf('admin', true, 'c')).toBeUndefined();
    expectFreshSchemas();
    const exported = (await te.metadata({ type: 'export_metadata', args: {} })).body as any;
    const source = exported.sources.find((s: any) => s.name === 'default');
    await md('pg_update_source', { name: 'default', configuration: source.configuration, customization: { type_names: { prefix: 'p_' } } });
    expect(objectOf('admin', true, 'p_a')).toBeDefined();
    expect(objectOf('admin', true, 'a')).toBeUndefined();
    expect(objectOf('other', false, 'p_cee')).toBeDefined();
    expectFreshSchemas();
    expect(await answer('{ __type(name: "p_b") { name } }')).toEqual({ data: { __type: { name: 'p_b' } } });
  });

  it('a role removed sees no table', async () => {
    for (const t of ['a', 'b', 'c']) await md('pg_drop_select_permission', { table: t, role: 'other' });
    expect(catalog().roles).not.toContain('other');
    expect(objectOf('other', false, 'p_a')).toBeUndefined();
    expectFreshSchemas();
    const refused = await answer('{ a { id } }', 'other');
    expect(refused.errors?.[0]?.message).toMatch(/a/);
  });
});
