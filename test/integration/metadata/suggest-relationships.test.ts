/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * `pg_suggest_relationships` over HTTP (v2: Hasura.RQL.DDL.Relationship.Suggest;
 * Note [Suggested relationships]): both directions of each foreign key between
 * tracked tables, composite keys with their columns in key order, `tables` and
 * `omit_tracked`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;
const md = async (type: string, args: unknown): Promise<any> => await engine.metadata({ type, args });
const t = (name: string) => ({ schema: 'public', name });

beforeAll(async () => {
  db = await createTestDatabase('suggest');
  await db.sql(`
    CREATE TABLE author (id int PRIMARY KEY);
    CREATE TABLE article (id int PRIMARY KEY, author_id int CONSTRAINT article_author_fk REFERENCES author(id));
    CREATE TABLE profile (id int PRIMARY KEY, author_id int UNIQUE CONSTRAINT profile_author_fk REFERENCES author(id));
    CREATE TABLE region (country text, code text, PRIMARY KEY (country, code));
    CREATE TABLE store (id int PRIMARY KEY, region_code text, region_country text,
      CONSTRAINT store_region_fk FOREIGN KEY (region_country, region_code) REFERENCES region(country, code));
    CREATE TABLE untracked (id int PRIMARY KEY, author_id int REFERENCES author(id));
  `);
  engine = await startTestEngine({ databaseUrl: db.url });
  for (const name of ['author', 'article', 'profile', 'region', 'store']) expect((await md('pg_track_table', { table: name })).status).toBe(200);
});

afterAll(async () => {
  await engine?.close();
  await db?.drop();
});

const articleAuthor = [
  { type: 'object', from: { table: t('article'), columns: ['author_id'], constraint_name: 'article_author_fk' }, to: { table: t('author'), columns: ['id'] } },
  { type: 'array', from: { table: t('author'), columns: ['id'] }, to: { table: t('article'), columns: ['author_id'], constraint_name: 'article_author_fk' } },
];
const profileAuthor = [
  { type: 'object', from: { table: t('profile'), columns: ['author_id'], constraint_name: 'profile_author_fk' }, to: { table: t('author'), columns: ['id'] } },
  { type: 'object', from: { table: t('author'), columns: ['id'] }, to: { table: t('profile'), columns: ['author_id'], constraint_name: 'profile_author_fk' } },
];
const storeRegion = [
  {
    type: 'object',
    from: { table: t('store'), columns: ['region_country', 'region_code'], constraint_name: 'store_region_fk' },
    to: { table: t('region'), columns: ['country', 'code'] },
  },
  {
    type: 'array',
    from: { table: t('region'), columns: ['country', 'code'] },
    to: { table: t('store'), columns: ['region_country', 'region_code'], constraint_name: 'store_region_fk' },
  },
];

describe('pg_suggest_relationships', () => {
  it('suggests both directions of every foreign key between tracked tables, as v2', async () => {
    const r = await md('pg_suggest_relationships', {});
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ relationships: [...articleAuthor, ...profileAuthor, ...storeRegion] });
  });

  it('keeps the keys touching the listed tables', async () => {
    const r = await md('pg_suggest_relationships', { source: 'default', tables: [t('region')] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({ relationships: storeRegion });
    expect((await md('pg_suggest_relationships', { tables: ['author'] })).body).toEqual({ relationships: [...articleAuthor, ...profileAuthor] });
    expect((await md('pg_suggest_relationships', { tables: null })).body.relationships).toHaveLength(6);
  });

  it('omit_tracked leaves out a key its table already has a relationship over', async () => {
    const c = await md('pg_create_object_relationship', {
      table: 'store',
      name: 'region',
      using: { foreign_key_constraint_on: ['region_country', 'region_code'] },
    });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect((await md('pg_suggest_relationships', { omit_tracked: true })).body).toEqual({ relationships: [...articleAuthor, ...profileAuthor] });
    expect((await md('pg_suggest_relationships', { omit_tracked: false })).body.relationships).toHaveLength(6);
  });

  it('refuses an unknown source and bad arguments with their paths', async () => {
    expect((await md('pg_suggest_relationships', { source: 'nope' })).body).toMatchObject({ code: 'not-exists', path: '$.args.source' });
    const bad = await md('pg_suggest_relationships', { omit_tracked: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.path).toBe('$.args.omit_tracked');
  });
});
