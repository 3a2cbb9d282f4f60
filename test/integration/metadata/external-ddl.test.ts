/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Objects made or changed outside the engine (psql, a migration tool, an
 * ORM: here a separate pg client) are seen by the next metadata call without
 * `reload_metadata` (Note [Introspection freshness]).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';

let f: MetadataFixture;
beforeAll(async () => {
  f = await startFixture();
  expect((await f.md('pg_track_table', { table: 'authors' })).status).toBe(200);
});
afterAll(async () => {
  await f.close();
});

const gql = async (query: string): Promise<any> => (await f.engine.graphql(query)).body;

describe('tracking what a separate client just made', () => {
  it('a table is tracked at once and queried', async () => {
    await f.db.sql("CREATE TABLE books (id serial PRIMARY KEY, title text NOT NULL); INSERT INTO books (title) VALUES ('Dune')");
    const r = await f.md('pg_track_table', { table: 'books' });
    expect(r.body).toEqual({ message: 'success' });
    expect(await gql('{ books { title } }')).toEqual({ data: { books: [{ title: 'Dune' }] } });
  });

  it('a function is tracked at once and queried', async () => {
    await f.db.sql('CREATE FUNCTION books_titled(q text) RETURNS SETOF books STABLE LANGUAGE sql AS $$ SELECT * FROM books WHERE title ILIKE q $$');
    const r = await f.md('pg_track_function', { function: 'books_titled' });
    expect(r.body).toEqual({ message: 'success' });
    expect(await gql('{ books_titled(args: {q: "d%"}) { title } }')).toEqual({ data: { books_titled: [{ title: 'Dune' }] } });
  });

  it('a foreign key added by a migration makes a relationship at once', async () => {
    await f.db.sql('ALTER TABLE books ADD COLUMN author_id int REFERENCES authors(id); UPDATE books SET author_id = 1');
    const r = await f.md('pg_create_object_relationship', { table: 'books', name: 'author', using: { foreign_key_constraint_on: 'author_id' } });
    expect(r.body).toEqual({ message: 'success' });
    expect(await gql('{ books { title author { name } } }')).toEqual({ data: { books: [{ title: 'Dune', author: { name: 'Ann' } }] } });
  });

  it('a permission may name a column added outside', async () => {
    await f.db.sql("ALTER TABLE books ADD COLUMN isbn text DEFAULT 'x-1'");
    const r = await f.md('pg_create_select_permission', { table: 'books', role: 'reader', permission: { columns: ['title', 'isbn'], filter: {} } });
    expect(r.body).toEqual({ message: 'success' });
    const q = await f.engine.graphql('{ books { title isbn } }', undefined, { 'x-engine-role': 'reader' });
    expect(q.body).toEqual({ data: { books: [{ title: 'Dune', isbn: 'x-1' }] } });
  });

  it('a bulk sees them too, and a table unknown to the database is still refused', async () => {
    await f.db.sql(
      'CREATE TABLE shelves (id int PRIMARY KEY); CREATE TABLE shelf_books (shelf_id int REFERENCES shelves(id), book_id int REFERENCES books(id), PRIMARY KEY (shelf_id, book_id))',
    );
    const r = await f.md('bulk', [
      { type: 'pg_track_table', args: { table: 'shelves' } },
      { type: 'pg_track_table', args: { table: 'shelf_books' } },
      { type: 'pg_create_object_relationship', args: { table: 'shelf_books', name: 'shelf', using: { foreign_key_constraint_on: 'shelf_id' } } },
    ]);
    expect(r.status).toBe(200);
    const missing = await f.md('pg_track_table', { table: 'no_such_table' });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'invalid-configuration', error: 'Inconsistent object: no such table/view exists in source: "no_such_table"' });
  });
});

describe('what DDL outside breaks', () => {
  it('a dropped column is reported by the next metadata call, which itself succeeds', async () => {
    expect((await f.md('get_inconsistent_metadata')).body.is_consistent).toBe(true);
    await f.db.sql('ALTER TABLE books DROP COLUMN isbn');
    const incons = await f.md('get_inconsistent_metadata');
    expect(incons.body.is_consistent).toBe(false);
    expect(incons.body.inconsistent_objects).toEqual([
      expect.objectContaining({ type: 'select_permission', definition: expect.objectContaining({ role: 'reader' }) }),
    ]);
    expect(f.engine.engine.metadata.isConsistent()).toBe(false);
    // A write elsewhere is not blamed for it.
    expect((await f.md('pg_track_table', { table: 'articles' })).status).toBe(200);
    // Put back, the next call finds it consistent again, still without a reload.
    await f.db.sql('ALTER TABLE books ADD COLUMN isbn text');
    expect((await f.md('get_inconsistent_metadata')).body.is_consistent).toBe(true);
  });

  it('a function dropped outside is reported by the next call', async () => {
    await f.db.sql('DROP FUNCTION books_titled(text)');
    const incons = await f.md('get_inconsistent_metadata');
    expect(incons.body.inconsistent_objects).toEqual([expect.objectContaining({ type: 'function' })]);
    expect((await f.md('pg_untrack_function', { function: 'books_titled' })).status).toBe(200);
    expect((await f.md('get_inconsistent_metadata')).body.is_consistent).toBe(true);
  });
});

describe('another instance', () => {
  let b: TestEngine;
  afterAll(async () => {
    await b?.close();
  });

  it('sees a table that this one re-read and tracked', async () => {
    b = await startTestEngine({ databaseUrl: f.db.url });
    await f.db.sql('CREATE TABLE late (id int PRIMARY KEY)');
    expect((await f.md('pg_track_table', { table: 'late' })).status).toBe(200);
    const start = Date.now();
    const seen = () => b.engine.metadata.catalogRef.current.sources.get('default')?.tables.has('public.late') === true;
    while (!seen() && Date.now() - start < 5000) await new Promise((r) => setTimeout(r, 20));
    expect(seen()).toBe(true);
    expect(b.engine.metadata.isConsistent()).toBe(true);
  });
});
