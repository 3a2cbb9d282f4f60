/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/** `where` operators per column type, combinators, variables in every position. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReadFixture, type ReadFixture } from '../../support/read-schema.ts';

let f: ReadFixture;
beforeAll(async () => {
  f = await startReadFixture();
});
afterAll(async () => {
  await f?.close();
});

async function ids(table: string, where: string, variables?: Record<string, unknown>, decl = ''): Promise<number[]> {
  const r = await f.gql(`query${decl} { ${table}(where: ${where}, order_by: {id: asc}) { id } }`, variables);
  expect(r.errors).toBeUndefined();
  return r.data[table].map((x: { id: number }) => x.id);
}

describe('comparison operators', () => {
  it('equality and ordering on int, numeric, text, date, boolean, uuid, bigint, float8, timestamptz', async () => {
    expect(await ids('authors', '{id: {_eq: 1}}')).toEqual([1]);
    expect(await ids('authors', '{id: {_neq: 1}}')).toEqual([2, 3]);
    expect(await ids('authors', '{id: {_gt: 1}}')).toEqual([2, 3]);
    expect(await ids('authors', '{id: {_gte: 2}}')).toEqual([2, 3]);
    expect(await ids('authors', '{id: {_lt: 2}}')).toEqual([1]);
    expect(await ids('authors', '{id: {_lte: 2}}')).toEqual([1, 2]);
    expect(await ids('authors', '{id: {_in: [1, 3]}}')).toEqual([1, 3]);
    expect(await ids('authors', '{id: {_nin: [1, 3]}}')).toEqual([2]);
    expect(await ids('authors', '{rating: {_gt: "4"}}')).toEqual([1]);
    expect(await ids('authors', '{rating: {_lte: 3.25}}')).toEqual([2]);
    expect(await ids('authors', '{rating: {_is_null: true}}')).toEqual([3]);
    expect(await ids('authors', '{rating: {_is_null: false}}')).toEqual([1, 2]);
    expect(await ids('authors', '{born: {_gt: "1985-01-01"}}')).toEqual([2]);
    expect(await ids('authors', '{active: {_eq: false}}')).toEqual([2]);
    expect(await ids('authors', '{uid: {_eq: "22222222-2222-2222-2222-222222222222"}}')).toEqual([2]);
    expect(await ids('authors', '{followers: {_gt: "9007199254740992"}}')).toEqual([1]);
    expect(await ids('authors', '{score: {_gte: 2}}')).toEqual([2]);
    expect(await ids('articles', '{published_at: {_lt: "2021-01-01T00:00:00Z"}}')).toEqual([1]);
    expect(await ids('comments', '{mood: {_eq: "sad"}}')).toEqual([2]);
    expect(await ids('comments', '{mood: {_in: ["happy"]}}')).toEqual([1, 4]);
  });

  it('text patterns', async () => {
    expect(await ids('articles', '{title: {_like: "%Post%"}}')).toEqual([2]);
    expect(await ids('articles', '{title: {_nlike: "%o%"}}')).toEqual([4]);
    expect(await ids('articles', '{title: {_ilike: "hello%"}}')).toEqual([1]);
    expect(await ids('articles', '{title: {_nilike: "%o%"}}')).toEqual([]);
    expect(await ids('articles', '{title: {_similar: "(Hello|Bob)%"}}')).toEqual([1, 3]);
    expect(await ids('articles', '{title: {_nsimilar: "(Hello|Bob)%"}}')).toEqual([2, 4]);
    expect(await ids('articles', '{title: {_regex: "^S"}}')).toEqual([2]);
    expect(await ids('articles', '{title: {_nregex: "^S"}}')).toEqual([1, 3, 4]);
    expect(await ids('articles', '{title: {_iregex: "^s"}}')).toEqual([2]);
    expect(await ids('articles', '{title: {_niregex: "^[sb]"}}')).toEqual([1, 4]);
  });

  it('jsonb', async () => {
    expect(await ids('articles', '{meta: {_contains: {lang: "en"}}}')).toEqual([1, 3]);
    expect(await ids('articles', '{meta: {_contains: {n: 1}}}')).toEqual([1]);
    expect(await ids('articles', '{meta: {_contained_in: {lang: "fr", extra: true}}}')).toEqual([2]);
    expect(await ids('articles', '{meta: {_has_key: "x"}}')).toEqual([3]);
    expect(await ids('articles', '{meta: {_has_keys_any: ["x", "n"]}}')).toEqual([1, 3]);
    expect(await ids('articles', '{meta: {_has_keys_all: ["lang", "n"]}}')).toEqual([1]);
    expect(await ids('articles', '{meta: {_eq: {lang: "fr"}}}')).toEqual([2]);
    expect(await ids('articles', '{meta: {_cast: {String: {_ilike: "%\\"y\\"%"}}}}')).toEqual([3]);
    const r = await f.gql('query($j: jsonb) { articles(where: {meta: {_contains: $j}}, order_by: {id: asc}) { id meta } }', { j: { x: { y: 2 } } });
    expect(r.data.articles).toEqual([{ id: 3, meta: { lang: 'en', x: { y: 2 } } }]);
  });

  it('arrays', async () => {
    expect(await ids('articles', '{tags: {_contains: ["b"]}}')).toEqual([1, 2]);
    expect(await ids('articles', '{tags: {_contained_in: ["a", "b", "z"]}}')).toEqual([1, 2]);
    expect(await ids('articles', '{tags: {_eq: ["c"]}}')).toEqual([3]);
    expect(await ids('articles', '{tags: {_is_null: true}}')).toEqual([4]);
    const r = await f.gql('{ articles_by_pk(id: 1) { tags } }');
    expect(r.data.articles_by_pk.tags).toEqual(['a', 'b']);
  });
});

describe('combinators and variables', () => {
  it('_and, _or, _not, implicit and', async () => {
    expect(await ids('authors', '{_or: [{id: {_eq: 1}}, {name: {_eq: "Cid"}}]}')).toEqual([1, 3]);
    expect(await ids('authors', '{_and: [{id: {_gt: 1}}, {active: {_eq: true}}]}')).toEqual([3]);
    expect(await ids('authors', '{_not: {id: {_eq: 1}}}')).toEqual([2, 3]);
    expect(await ids('authors', '{id: {_gt: 1}, active: {_eq: true}}')).toEqual([3]);
    expect(await ids('authors', '{_or: []}')).toEqual([]);
    expect(await ids('authors', '{}')).toEqual([1, 2, 3]);
  });

  it('leaf variables bind per request against one cached plan', async () => {
    const q = 'query($id: Int!, $ids: [Int!]) { authors(where: {_or: [{id: {_eq: $id}}, {id: {_in: $ids}}]}, order_by: {id: asc}) { id } }';
    for (const [vars, expected] of [
      [{ id: 1, ids: [] }, [1]],
      [{ id: 2, ids: [3] }, [2, 3]],
      [{ id: 3, ids: [1, 2] }, [1, 2, 3]],
    ] as const) {
      const r = await f.gql(q, vars);
      expect(r.data.authors.map((a: any) => a.id)).toEqual(expected);
    }
  });

  it('a whole where from a variable (structural): different values give different plans', async () => {
    const q = 'query($w: authors_bool_exp, $o: [authors_order_by!]) { authors(where: $w, order_by: $o) { id } }';
    const a = await f.gql(q, { w: { id: { _gt: 1 } }, o: [{ id: 'desc' }] });
    expect(a.data.authors).toEqual([{ id: 3 }, { id: 2 }]);
    const b = await f.gql(q, { w: { name: { _in: ['Ann', 'Bob'] } }, o: { id: 'asc' } });
    expect(b.data.authors).toEqual([{ id: 1 }, { id: 2 }]);
    const c = await f.gql(q, {});
    expect(c.data.authors).toHaveLength(3);
  });

  it('list literal with variable items', async () => {
    expect(await ids('authors', '{id: {_in: [$a, 3]}}', { a: 1 }, '($a: Int!)')).toEqual([1, 3]);
  });

  it('null comparison values are refused', async () => {
    const lit = await f.gql('{ authors(where: {id: {_eq: null}}) { id } }');
    expect(lit.errors[0].extensions.code).toBe('validation-failed');
    const v = await f.gql('query($id: Int) { authors(where: {id: {_eq: $id}}) { id } }', { id: null });
    expect(v.errors[0].extensions.code).toBe('validation-failed');
  });
});
