/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/** Select permissions of a role: columns, row filter with session variables, limit, aggregations; stringified numerics. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReadFixture, type ReadFixture } from '../../support/read-schema.ts';

let f: ReadFixture;
beforeAll(async () => {
  f = await startReadFixture();
  const doc = (await f.md({ type: 'export_metadata', args: {} })).body;
  const table = (name: string): any => doc.sources[0].tables.find((t: any) => t.table.name === name);
  table('authors').select_permissions = [
    { role: 'user', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Engine-User-Id' } } } },
    { role: 'reader', permission: { columns: '*', filter: {}, limit: 2, allow_aggregations: true } },
  ];
  table('articles').select_permissions = [
    {
      role: 'user',
      permission: { columns: ['id', 'title', 'author_id'], filter: { $or: [{ author_id: 'x-engine-user-id' }, { status: { _eq: 'published' } }] } },
    },
  ];
  const r = await f.md({ type: 'replace_metadata', args: doc });
  if (r.status !== 200) throw new Error(r.text);
});
afterAll(async () => {
  await f?.close();
});

const as = (role: string, vars: Record<string, string> = {}): Record<string, string> => ({ 'x-engine-role': role, ...vars });

describe('select permissions', () => {
  it('row filter with a session variable, columns, relationships only to readable tables', async () => {
    const r = await f.gql('{ authors { id name articles(order_by: {id: asc}) { id title } } }', undefined, as('user', { 'X-Engine-User-Id': '1' }));
    expect(r.data).toEqual({
      authors: [
        {
          id: 1,
          name: 'Ann',
          articles: [
            { id: 1, title: 'Hello World' },
            { id: 2, title: 'Second Post' },
          ],
        },
      ],
    });
    const other = await f.gql('{ articles(order_by: {id: asc}) { id author { name } } }', undefined, as('user', { 'x-engine-user-id': '2' }));
    // Published articles of others are readable, but their author row is not (object relationship → null).
    expect(other.data.articles).toEqual([
      { id: 1, author: null },
      { id: 3, author: { name: 'Bob' } },
    ]);
  });

  it('hidden columns, tables and aggregates are not in the role schema', async () => {
    const h = as('user', { 'x-engine-user-id': '1' });
    expect((await f.gql('{ authors { rating } }', undefined, h)).errors[0].extensions.code).toBe('validation-failed');
    expect((await f.gql('{ comments { id } }', undefined, h)).errors[0].message).toBe("field 'comments' not found in type: 'query_root'");
    expect((await f.gql('{ authors_aggregate { aggregate { count } } }', undefined, h)).errors[0].extensions.code).toBe('validation-failed');
    const t = await f.gql('{ __type(name: "articles") { fields { name } } }', undefined, h);
    expect(t.data.__type.fields.map((x: any) => x.name)).toEqual(['author', 'author_id', 'id', 'title']);
  });

  it('a missing session variable is an error', async () => {
    const r = await f.gql('{ authors { id } }', undefined, as('user'));
    expect(r.errors[0].extensions.code).toBe('not-found');
  });

  it('limit caps the rows and aggregations follow allow_aggregations', async () => {
    const r = await f.gql(
      '{ authors(order_by: {id: asc}) { id } big: authors(limit: 10, order_by: {id: desc}) { id } authors_aggregate { aggregate { count } } }',
      undefined,
      as('reader'),
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.authors).toEqual([{ id: 1 }, { id: 2 }]);
    expect(r.data.big).toEqual([{ id: 3 }, { id: 2 }]);
    // v2: the permission limit caps rows read, not the rows aggregates count (v2-compat.test.ts).
    expect(r.data.authors_aggregate.aggregate.count).toBe(3);
  });

  it('a role with no permissions gets a placeholder schema', async () => {
    const r = await f.gql('{ no_queries_available }', undefined, as('nobody'));
    expect(typeof r.data.no_queries_available).toBe('string');
    expect((await f.gql('{ authors { id } }', undefined, as('nobody'))).errors[0].extensions.code).toBe('validation-failed');
  });

  it('database errors hide SQL from non-admin roles', async () => {
    const r = await f.gql('{ authors { id } }', undefined, as('user', { 'x-engine-user-id': 'abc' }));
    expect(r.errors[0].extensions.code).toBe('data-exception');
    expect(r.errors[0].extensions.internal).toBeUndefined();
  });
});

describe('stringify numeric types', () => {
  it('bigint, numeric and float8 come back as strings', async () => {
    const s = await (await import('../../support/read-schema.ts')).startReadFixture({ stringifyNumericTypes: true });
    try {
      const r = await s.gql('{ authors_by_pk(id: 1) { id followers rating score } authors_aggregate { aggregate { sum { followers } max { rating } } } }');
      expect(r.data.authors_by_pk).toEqual({ id: 1, followers: '9007199254740993', rating: '4.5', score: '1.5' });
      expect(r.data.authors_aggregate.aggregate).toEqual({ sum: { followers: '9007199254741003' }, max: { rating: '4.5' } });
    } finally {
      await s.close();
    }
  });
});
