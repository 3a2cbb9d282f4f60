/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * v1 data operations on /v1/query and /v2/query (issue 15): select, count,
 * insert, update and delete in v1's argument shapes, with the requesting
 * role's permissions, over HTTP on a real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReadFixture, type ReadFixture } from '../../support/read-schema.ts';

let f: ReadFixture;
const q = async (body: unknown, role?: string, path = '/v1/query'): Promise<{ status: number; body: any }> => {
  const r = await f.engine.post<any>(path, body, role === undefined ? undefined : { 'x-engine-role': role });
  return { status: r.status, body: r.body };
};

beforeAll(async () => {
  f = await startReadFixture();
  for (const b of [
    {
      type: 'pg_create_select_permission',
      args: { table: 'authors', role: 'reader', permission: { columns: ['id', 'name'], filter: { active: { _eq: true } } } },
    },
    {
      type: 'pg_create_select_permission',
      args: { table: 'articles', role: 'reader', permission: { columns: ['id', 'title', 'author_id'], filter: {}, allow_aggregations: false } },
    },
    {
      type: 'pg_create_insert_permission',
      args: { table: 'articles', role: 'reader', permission: { columns: ['title', 'author_id'], check: { author_id: { _eq: 'X-Engine-User-Id' } } } },
    },
  ]) {
    expect((await f.md(b)).status).toBe(200);
  }
});
afterAll(async () => {
  await f?.close();
});

describe('select', () => {
  it('columns, where with $-operators and bare equality, order_by, limit and offset', async () => {
    const r = await q({ type: 'select', args: { table: 'authors', columns: ['id', 'name'], where: { id: { $lt: 3 } }, order_by: ['-id'] } });
    expect(r).toEqual({
      status: 200,
      body: [
        { id: 2, name: 'Bob' },
        { id: 1, name: 'Ann' },
      ],
    });
    const eq = await q({
      type: 'select',
      args: { table: 'authors', columns: ['name'], where: { $or: [{ name: 'Ann' }, { name: { _eq: 'Cid' } }] }, order_by: [{ column: 'name', type: 'desc' }] },
    });
    expect(eq.body).toEqual([{ name: 'Cid' }, { name: 'Ann' }]);
    const page = await q({ type: 'select', args: { table: { schema: 'public', name: 'authors' }, columns: ['id'], order_by: '+id', limit: 1, offset: 1 } });
    expect(page.body).toEqual([{ id: 2 }]);
  });

  it('nested relationships with alias, where, order_by and limit; order by a related column', async () => {
    const r = await q({
      type: 'select',
      args: {
        table: 'authors',
        columns: ['name', { name: 'articles', alias: 'posts', columns: ['title'], where: { words: { $gte: 100 } }, order_by: ['-words'], limit: 5 }],
        where: { id: 1 },
      },
    });
    expect(r.body).toEqual([{ name: 'Ann', posts: [{ title: 'Second Post' }, { title: 'Hello World' }] }]);
    const byAuthor = await q({
      type: 'select',
      args: {
        table: 'articles',
        columns: ['id', { name: 'author', columns: ['name'] }],
        where: { author_id: { $is_null: false } },
        order_by: ['-author.name', 'id'],
      },
    });
    expect(byAuthor.body).toEqual([
      { id: 3, author: { name: 'Bob' } },
      { id: 1, author: { name: 'Ann' } },
      { id: 2, author: { name: 'Ann' } },
    ]);
  });

  it("applies the role's permissions; answers v2's errors", async () => {
    const r = await q({ type: 'select', args: { table: 'authors', columns: ['id', 'name'], order_by: 'id' } }, 'reader');
    expect(r).toEqual({
      status: 200,
      body: [
        { id: 1, name: 'Ann' },
        { id: 3, name: 'Cid' },
      ],
    });
    const hidden = await q({ type: 'select', args: { table: 'authors', columns: ['id', 'rating'] } }, 'reader');
    expect(hidden).toEqual({
      status: 400,
      body: { path: '$.args.columns[1]', error: 'role "reader" does not have permission to select column "rating"', code: 'permission-denied' },
    });
    const none = await q({ type: 'select', args: { table: 'comments', columns: ['id'] } }, 'reader');
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ path: '$.args', error: 'select on "comments" for role "reader" is not allowed. ', code: 'permission-denied' });
    const missing = await q({ type: 'select', args: { table: 'author', columns: ['id'] } });
    expect(missing).toEqual({ status: 400, body: { path: '$.args.table', error: 'table "author" does not exist', code: 'not-exists' } });
    const noColumn = await q({ type: 'select', args: { table: 'authors', columns: ['id', 'user'] } });
    expect(noColumn.body).toEqual({ path: '$.args.columns[1]', error: '"user" does not exist', code: 'not-exists' });
  });

  it('is served on /v2/query too; metadata operations stay admin-only', async () => {
    expect((await q({ type: 'select', args: { table: 'authors', columns: ['id'], where: { id: 2 } } }, undefined, '/v2/query')).body).toEqual([{ id: 2 }]);
    const md = await q({ type: 'export_metadata', args: {} }, 'reader');
    expect(md.status).toBe(400);
    expect(md.body.code).toBe('access-denied');
  });
});

describe('count', () => {
  it("counts rows, distinct values, with the role's filter (with or without aggregations)", async () => {
    expect((await q({ type: 'count', args: { table: 'articles', where: { author_id: 1 } } })).body).toEqual({ count: 2 });
    expect((await q({ type: 'count', args: { table: 'articles', distinct: ['author_id'] } })).body).toEqual({ count: 2 });
    expect((await q({ type: 'count', args: { table: 'authors' } }, 'reader')).body).toEqual({ count: 2 });
    expect((await q({ type: 'count', args: { table: 'articles', where: { title: { $like: '%o%' } } } }, 'reader')).body).toEqual({ count: 3 });
  });
});

describe('where with column comparisons and _exists', () => {
  it('compares columns of the row, and of the root row through a relationship', async () => {
    const r = await q({ type: 'select', args: { table: 'articles', columns: ['id'], where: { words: { $cgt: 'id' } }, order_by: ['id'] } });
    expect(r.body).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }]);
    // Articles whose author's id equals the article's own id ("$" is the article).
    const rooted = await q({ type: 'select', args: { table: 'articles', columns: ['id'], where: { author: { id: { _ceq: ['$', 'id'] } } } } });
    expect(rooted.body).toEqual([{ id: 1 }]);
    const c = await q({ type: 'count', args: { table: 'articles', where: { $or: [{ words: { $clt: 'id' } }, { words: { $is_null: true } }] } } });
    expect(c.body).toEqual({ count: 1 });
  });

  it('_exists over another table', async () => {
    const r = await q({
      type: 'select',
      args: { table: 'authors', columns: ['name'], where: { _exists: { _table: 'comments', _where: { body: 'wow' } } }, order_by: ['id'] },
    });
    expect(r.body.map((x: any) => x.name)).toEqual(['Ann', 'Bob', 'Cid']);
    const none = await q({ type: 'count', args: { table: 'authors', where: { _exists: { _table: 'comments', _where: { body: 'nope' } } } } });
    expect(none.body).toEqual({ count: 0 });
  });

  it('for a role: only readable columns, and not through rows its permissions filter', async () => {
    const ok = await q({ type: 'select', args: { table: 'articles', columns: ['id'], where: { author_id: { $ceq: 'id' } } } }, 'reader');
    expect(ok.body).toEqual([{ id: 1 }]);
    const hidden = await q({ type: 'select', args: { table: 'articles', columns: ['id'], where: { words: { $cgt: 'id' } } } }, 'reader');
    expect(hidden).toEqual({
      status: 400,
      body: { path: '$.args.where.words', error: 'role "reader" does not have permission to select column "words"', code: 'permission-denied' },
    });
    // Through a relationship and in _exists, the role's filter on the rows reached applies (Bob is inactive, hidden).
    const through = await q({ type: 'select', args: { table: 'articles', columns: ['id'], where: { author: { id: { $ceq: 'id' }, name: 'Bob' } } } }, 'reader');
    expect(through.body).toEqual([]);
    const rooted = await q(
      { type: 'select', args: { table: 'articles', columns: ['id'], where: { author: { id: { $ceq: ['$', 'author_id'] } } }, order_by: ['id'] } },
      'reader',
    );
    expect(rooted.body).toEqual([{ id: 1 }, { id: 2 }]);
    const hiddenRow = await q(
      { type: 'count', args: { table: 'articles', where: { _exists: { _table: 'authors', _where: { name: 'Bob' } }, id: { $ceq: 'id' } } } },
      'reader',
    );
    expect(hiddenRow.body).toEqual({ count: 0 });
    const exists = await q({ type: 'count', args: { table: 'articles', where: { _exists: { _table: 'comments', _where: {} } } } }, 'reader');
    expect(exists.body.code).toBe('permission-denied');
  });

  it('updates and deletes the rows such a where selects', async () => {
    const r = await q({ type: 'update', args: { table: 'articles', where: { words: { $clt: 'id' } }, $set: { title: 'never' } } });
    expect(r.body).toEqual({ affected_rows: 0 });
    const d = await q({ type: 'delete', args: { table: 'comments', where: { id: { $ceq: 'article_id' }, body: 'nope' } } });
    expect(d.body).toEqual({ affected_rows: 0 });
  });
});

describe('insert, update, delete', () => {
  it('insert with returning and on_conflict', async () => {
    const r = await q({ type: 'insert', args: { table: 'authors', objects: [{ name: 'Dan', rating: 2 }, { name: 'Eli' }], returning: ['id', 'name'] } });
    expect(r.status).toBe(200);
    expect(r.body.affected_rows).toBe(2);
    expect(r.body.returning.map((x: any) => x.name)).toEqual(['Dan', 'Eli']);
    const id = r.body.returning[0].id;
    const ignored = await q({
      type: 'insert',
      args: { table: 'authors', objects: [{ id, name: 'Other' }], on_conflict: { constraint: 'authors_pkey', action: 'ignore' } },
    });
    expect(ignored.body).toEqual({ affected_rows: 0 });
    const updated = await q({
      type: 'insert',
      args: { table: 'authors', objects: [{ id, name: 'Dan2' }], on_conflict: { constraint: 'authors_pkey', action: 'update' }, returning: ['name'] },
    });
    expect(updated.body).toEqual({ affected_rows: 1, returning: [{ name: 'Dan2' }] });
  });

  it('update with $set and $inc', async () => {
    const r = await q({
      type: 'update',
      args: { table: 'articles', where: { id: 1 }, $set: { title: 'Hello Again' }, $inc: { words: 5 }, returning: ['title', 'words'] },
    });
    expect(r.body).toEqual({ affected_rows: 1, returning: [{ title: 'Hello Again', words: 105 }] });
  });

  it('update with $mul and $default, alone or with $set and $inc', async () => {
    const mul = await q({ type: 'update', args: { table: 'articles', where: { id: 1 }, $mul: { words: 2 }, returning: ['words'] } });
    expect(mul).toEqual({ status: 200, body: { affected_rows: 1, returning: [{ words: 210 }] } });
    await f.db.sql('ALTER TABLE authors ALTER COLUMN rating SET DEFAULT 1.5');
    const all = await q({
      type: 'update',
      args: {
        table: 'authors',
        where: { id: 2 },
        $set: { name: 'Bobby' },
        $inc: { followers: 1 },
        $mul: { score: 2 },
        $default: ['rating'],
        returning: ['name', 'followers', 'score', 'rating'],
      },
    });
    expect(all.body).toEqual({ affected_rows: 1, returning: [{ name: 'Bobby', followers: 11, score: 4.5, rating: 1.5 }] });
    const onlyDefault = await q({ type: 'update', args: { table: 'authors', where: { id: 2 }, $default: ['active'], returning: ['active'] } });
    expect(onlyDefault.body).toEqual({ affected_rows: 1, returning: [{ active: true }] });
    await q({
      type: 'update',
      args: { table: 'authors', where: { id: 2 }, $set: { name: 'Bob', active: false, rating: 3.25, score: 2.25 }, $inc: { followers: -1 } },
    });
    const both = await q({ type: 'update', args: { table: 'articles', where: { id: 1 }, $inc: { words: 1 }, $mul: { words: 2 } } });
    expect(both).toEqual({ status: 400, body: { path: '$.args.$inc', error: 'column found in multiple operators: "words"', code: 'validation-failed' } });
    const text = await q({ type: 'update', args: { table: 'articles', where: { id: 1 }, $mul: { title: 2 } } });
    expect(text.status).toBe(400);
    const missing = await q({ type: 'update', args: { table: 'articles', where: { id: 1 }, $default: ['nope'] } });
    expect(missing).toEqual({ status: 400, body: { path: '$.args.$default[0]', error: '"nope" does not exist', code: 'not-exists' } });
  });

  it('insert on_conflict with constraint_on, the columns of the constraint', async () => {
    const r = await q({
      type: 'insert',
      args: { table: 'authors', objects: [{ id: 1, name: 'Ann' }], on_conflict: { constraint_on: ['id'], action: 'update' }, returning: ['name'] },
    });
    expect(r.body).toEqual({ affected_rows: 1, returning: [{ name: 'Ann' }] });
    const none = await q({
      type: 'insert',
      args: { table: 'authors', objects: [{ id: 1, name: 'Ann' }], on_conflict: { constraint_on: ['name'], action: 'ignore' } },
    });
    expect(none).toEqual({
      status: 400,
      body: { path: '$.args.on_conflict.constraint_on', error: 'no unique or primary key constraint on columns "name"', code: 'not-exists' },
    });
  });

  it('delete with returning', async () => {
    const r = await q({ type: 'delete', args: { table: 'authors', where: { name: { $in: ['Eli', 'Dan2'] } }, returning: ['name'] } });
    expect(r.body.affected_rows).toBe(2);
    expect(r.body.returning.map((x: any) => x.name).sort()).toEqual(['Dan2', 'Eli']);
  });

  it('a role inserts within its insert permission; a failed check is permission-error, a missing permission permission-denied', async () => {
    const headers = { 'x-engine-role': 'reader', 'x-engine-user-id': '2' };
    const ok = await f.engine.post<any>(
      '/v1/query',
      { type: 'insert', args: { table: 'articles', objects: [{ title: 'Mine', author_id: 2 }], returning: ['title'] } },
      headers,
    );
    expect(ok.body).toEqual({ affected_rows: 1, returning: [{ title: 'Mine' }] });
    const bad = await f.engine.post<any>('/v1/query', { type: 'insert', args: { table: 'articles', objects: [{ title: 'Not mine', author_id: 1 }] } }, headers);
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('permission-error');
    const upd = await q({ type: 'update', args: { table: 'articles', where: {}, $set: { title: 'x' } } }, 'reader');
    expect(upd.body).toEqual({ path: '$.args', error: 'update on "articles" for role "reader" is not allowed. ', code: 'permission-denied' });
    expect((await q({ type: 'count', args: { table: 'articles', where: { title: 'Not mine' } } })).body).toEqual({ count: 0 });
  });
});
