/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Enum tables through HTTP on real PostgreSQL: the GraphQL enum, columns
 * referencing it in outputs, filters and inputs, the validation rules, and
 * inconsistency when the enum table changes under the engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;

const SETUP = `
CREATE TABLE article_status (value text PRIMARY KEY, comment text);
INSERT INTO article_status VALUES ('draft', 'not yet shown'), ('published', 'visible to all');
CREATE TABLE article (id int PRIMARY KEY, title text NOT NULL, status text NOT NULL REFERENCES article_status(value));
INSERT INTO article VALUES (1, 'One', 'draft'), (2, 'Two', 'published');
CREATE TABLE empty_enum (value text PRIMARY KEY);
CREATE TABLE wide_enum (value text PRIMARY KEY, a text, b text);
INSERT INTO wide_enum VALUES ('x', 'a', 'b');
CREATE TABLE int_enum (value int PRIMARY KEY);
INSERT INTO int_enum VALUES (1);
`;

const md = async (type: string, args: unknown): Promise<any> => await engine.metadata({ type, args });
const gql = async (query: string): Promise<any> => (await engine.graphql(query)).body;

beforeAll(async () => {
  db = await createTestDatabase('enum');
  await db.sql(SETUP);
  engine = await startTestEngine({ databaseUrl: db.url });
  const r = await engine.metadata({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { table: 'article_status', is_enum: true } },
      { type: 'pg_track_table', args: { table: 'article' } },
    ],
  });
  if (r.status !== 200) throw new Error(r.text);
});
afterAll(async () => {
  await engine?.close();
  await db?.drop();
});

describe('an enum table', () => {
  it('is a GraphQL enum whose values carry the comment column', async () => {
    const t = await gql('{ __type(name: "article_status_enum") { kind enumValues { name description } } }');
    expect(t.data.__type).toEqual({
      kind: 'ENUM',
      enumValues: [
        { name: 'draft', description: 'not yet shown' },
        { name: 'published', description: 'visible to all' },
      ],
    });
  });

  it('gives referencing columns the enum type in outputs, filters and inputs', async () => {
    const f = await gql('{ __type(name: "article") { fields { name type { kind ofType { name kind } } } } }');
    expect(f.data.__type.fields.find((x: any) => x.name === 'status').type).toEqual({
      kind: 'NON_NULL',
      ofType: { name: 'article_status_enum', kind: 'ENUM' },
    });
    const q = await gql('{ article(where: {status: {_eq: published}}) { id status } }');
    expect(q).toEqual({ data: { article: [{ id: 2, status: 'published' }] } });
    const inList = await gql('{ article(where: {status: {_in: [draft, published]}}, order_by: {id: asc}) { id } }');
    expect(inList.data.article).toEqual([{ id: 1 }, { id: 2 }]);
    const wrong = await gql('{ article(where: {status: {_eq: "published"}}) { id } }');
    expect(wrong.errors[0].extensions.code).toBe('validation-failed');
    const ins = await gql('mutation { insert_article_one(object: {id: 3, title: "Three", status: draft}) { id status } }');
    expect(ins).toEqual({ data: { insert_article_one: { id: 3, status: 'draft' } } });
  });

  it('must have a single text key, at most one comment column and some rows', async () => {
    const empty = await md('pg_track_table', { table: 'empty_enum', is_enum: true });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toContain('has no rows');
    const wide = await md('pg_track_table', { table: 'wide_enum', is_enum: true });
    expect(wide.body.error).toContain('more than one column');
    const ints = await md('pg_track_table', { table: 'int_enum', is_enum: true });
    expect(ints.body.error).toContain('not of type text');
  });
});

describe('an enum table changed under the engine', () => {
  it('takes new rows on reload_metadata', async () => {
    await db.sql(`INSERT INTO article_status VALUES ('archived', NULL)`);
    await md('reload_metadata', {});
    const t = await gql('{ __type(name: "article_status_enum") { enumValues { name } } }');
    expect(t.data.__type.enumValues.map((v: any) => v.name)).toEqual(['archived', 'draft', 'published']);
  });

  it('is inconsistent once a value is not a GraphQL name, and consistent again when fixed', async () => {
    await db.sql(`INSERT INTO article_status VALUES ('not valid', NULL)`);
    expect((await md('reload_metadata', {})).status).toBe(200);
    const inc = (await md('get_inconsistent_metadata', {})).body;
    expect(inc.is_consistent).toBe(false);
    expect(inc.inconsistent_objects).toContainEqual(expect.objectContaining({ type: 'table', reason: expect.stringContaining('"not valid"') }));
    // The referencing table stays; its column falls back to the plain scalar.
    const f = await gql('{ __type(name: "article") { fields { name type { ofType { name } } } } }');
    expect(f.data.__type.fields.find((x: any) => x.name === 'status').type.ofType.name).toBe('String');
    await db.sql(`DELETE FROM article_status WHERE value = 'not valid'`);
    await md('reload_metadata', {});
    expect((await md('get_inconsistent_metadata', {})).body.is_consistent).toBe(true);
  });

  it('is inconsistent once its shape no longer fits an enum', async () => {
    await db.sql('ALTER TABLE article_status ADD COLUMN extra text');
    await md('reload_metadata', {});
    const inc = (await md('get_inconsistent_metadata', {})).body;
    expect(inc.inconsistent_objects).toContainEqual(
      expect.objectContaining({ type: 'table', reason: expect.stringContaining('more than one column besides the primary key') }),
    );
    await db.sql('ALTER TABLE article_status DROP COLUMN extra');
    await md('reload_metadata', {});
    expect((await md('get_inconsistent_metadata', {})).body.is_consistent).toBe(true);
  });
});
