/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * GraphQL reads through HTTP on real PostgreSQL: list/by_pk/aggregate root
 * fields, relationships both ways, order_by variants, distinct_on,
 * pagination, other schemas, views, enum tables, custom names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReadFixture, type ReadFixture } from '../../support/read-schema.ts';

let f: ReadFixture;
beforeAll(async () => {
  f = await startReadFixture();
});
afterAll(async () => {
  await f?.close();
});

async function data(query: string, variables?: Record<string, unknown>): Promise<any> {
  const r = await f.gql(query, variables);
  expect(r.errors).toBeUndefined();
  return r.data;
}

describe('root fields', () => {
  it('list, by_pk and aggregate', async () => {
    const d = await data('{ authors(order_by: {id: asc}) { id name } authors_by_pk(id: 2) { name } none: authors_by_pk(id: 99) { name } }');
    expect(d.authors).toEqual([
      { id: 1, name: 'Ann' },
      { id: 2, name: 'Bob' },
      { id: 3, name: 'Cid' },
    ]);
    expect(d.authors_by_pk).toEqual({ name: 'Bob' });
    expect(d.none).toBeNull();
  });

  it('keeps the query order of root fields and aliases', async () => {
    const r = await f.engine.graphql('{ z: authors_by_pk(id: 1) { name } a: authors_by_pk(id: 2) { n: name } }');
    expect(r.text.replace(/\s/g, '')).toBe('{"data":{"z":{"name":"Ann"},"a":{"n":"Bob"}}}');
  });

  it('aggregates: count (columns, distinct), sum, avg, max, min, stddev, variance, nodes', async () => {
    const d = await data(`{ articles_aggregate(where: {author_id: {_is_null: false}}) {
      aggregate { count c: count(columns: [author_id]) d: count(columns: [author_id], distinct: true)
        sum { words } avg { words } max { words title } min { published_at } stddev { words } var_samp { words } variance { words } stddev_pop { words } var_pop { words } stddev_samp { words } }
      nodes { id } } }`);
    const a = d.articles_aggregate.aggregate;
    expect(a.count).toBe(3);
    expect(a.c).toBe(3);
    expect(a.d).toBe(2);
    expect(a.sum.words).toBe(400);
    expect(Number(a.avg.words)).toBeCloseTo(133.333, 2);
    expect(a.max).toEqual({ words: 250, title: 'Second Post' });
    expect(a.min.published_at).toBe('2020-01-01T10:00:00+00:00');
    expect(Number(a.variance.words)).toBeCloseTo(10833.33, 1);
    expect(Number(a.var_samp.words)).toBeCloseTo(10833.33, 1);
    expect(Number(a.stddev.words)).toBeCloseTo(104.08, 1);
    expect(Number(a.stddev_samp.words)).toBeCloseTo(104.08, 1);
    expect(Number(a.var_pop.words)).toBeCloseTo(7222.22, 1);
    expect(Number(a.stddev_pop.words)).toBeCloseTo(84.98, 1);
    expect(d.articles_aggregate.nodes).toHaveLength(3);
  });

  it('aggregate over no rows', async () => {
    const d = await data('{ articles_aggregate(where: {id: {_gt: 100}}) { aggregate { count sum { words } } nodes { id } } }');
    expect(d.articles_aggregate).toEqual({ aggregate: { count: 0, sum: { words: null } }, nodes: [] });
  });
});

describe('relationships', () => {
  it('object and array relationships both ways, nested with their own arguments', async () => {
    const d = await data(
      `{ articles(where: {id: {_eq: 1}}) { title author { name articles(order_by: {id: desc}, limit: 1) { title comments(where: {mood: {_eq: "happy"}}) { body article { id } } } } } }`,
    );
    expect(d.articles).toEqual([{ title: 'Hello World', author: { name: 'Ann', articles: [{ title: 'Second Post', comments: [] }] } }]);
  });

  it('object relationship with a null key is null; empty array relationship is []', async () => {
    const d = await data('{ articles(where: {title: {_eq: "Orphan"}}) { author { name } comments { id } } }');
    expect(d.articles).toEqual([{ author: null, comments: [] }]);
  });

  it('relationship aggregates', async () => {
    const d = await data('{ authors(order_by: {id: asc}) { name articles_aggregate { aggregate { count max { words } } } } }');
    expect(d.authors.map((a: any) => a.articles_aggregate.aggregate)).toEqual([
      { count: 2, max: { words: 250 } },
      { count: 1, max: { words: 50 } },
      { count: 0, max: { words: null } },
    ]);
  });

  it('filters through object and array relationships', async () => {
    const d = await data(`{ byAuthor: articles(where: {author: {name: {_eq: "Bob"}}}) { title }
      withHappy: articles(where: {comments: {mood: {_eq: "happy"}}}, order_by: {id: asc}) { id }
      noArticles: authors(where: {_not: {articles: {}}}) { name } }`);
    expect(d.byAuthor).toEqual([{ title: 'Bob Writes' }]);
    expect(d.withHappy).toEqual([{ id: 1 }, { id: 3 }]);
    expect(d.noArticles).toEqual([{ name: 'Cid' }]);
  });
});

describe('order_by, distinct_on, pagination', () => {
  it('columns with nulls first/last (v2 defaults: asc nulls last, desc nulls first)', async () => {
    const q = (o: string): Promise<any> => data(`{ authors(order_by: {rating: ${o}}) { id } }`);
    expect((await q('asc')).authors.map((a: any) => a.id)).toEqual([2, 1, 3]);
    expect((await q('asc_nulls_first')).authors.map((a: any) => a.id)).toEqual([3, 2, 1]);
    expect((await q('desc')).authors.map((a: any) => a.id)).toEqual([3, 1, 2]);
    expect((await q('desc_nulls_last')).authors.map((a: any) => a.id)).toEqual([1, 2, 3]);
  });

  it('object relationship columns and array-relationship aggregates', async () => {
    const byAuthor = await data('{ articles(order_by: [{author: {name: desc_nulls_last}}, {id: asc}]) { id } }');
    expect(byAuthor.articles.map((a: any) => a.id)).toEqual([3, 1, 2, 4]);
    const byCount = await data('{ authors(order_by: [{articles_aggregate: {count: desc}}, {id: asc}]) { id } }');
    expect(byCount.authors.map((a: any) => a.id)).toEqual([1, 2, 3]);
    const byMax = await data('{ authors(order_by: {articles_aggregate: {max: {words: asc}}}) { id } }');
    expect(byMax.authors.map((a: any) => a.id)).toEqual([2, 1, 3]);
  });

  it('distinct_on with a matching order_by (a non-matching one is refused: v2-compat.test.ts)', async () => {
    const d = await data(`{ a: articles(distinct_on: [author_id], order_by: [{author_id: asc}, {words: desc}]) { author_id words } }`);
    expect(d.a).toEqual([
      { author_id: 1, words: 250 },
      { author_id: 2, words: 50 },
      { author_id: null, words: null },
    ]);
  });

  it('limit and offset, also from variables', async () => {
    const d = await data('query($l: Int, $o: Int) { authors(order_by: {id: asc}, limit: $l, offset: $o) { id } }', { l: 1, o: 1 });
    expect(d.authors).toEqual([{ id: 2 }]);
    const all = await data('query($l: Int) { authors(order_by: {id: asc}, limit: $l) { id } }', { l: null });
    expect(all.authors).toHaveLength(3);
  });
});

describe('names and kinds of tables', () => {
  it('a table in another schema and a view with custom names', async () => {
    const d = await data(
      '{ shop_orders(order_by: {id: asc}) { id total placed_at } allStats(order_by: {id: asc}) { name articleCount } stats_aggregate { aggregate { count } } }',
    );
    expect(d.shop_orders).toEqual([
      { id: 1, total: 10.5, placed_at: '2020-01-01T00:00:00' },
      { id: 2, total: 99.99, placed_at: '2022-02-02T12:00:00' },
    ]);
    expect(d.allStats).toEqual([
      { name: 'Ann', articleCount: 2 },
      { name: 'Bob', articleCount: 1 },
      { name: 'Cid', articleCount: 0 },
    ]);
    expect(d.stats_aggregate.aggregate.count).toBe(3);
  });

  it('an enum table is a GraphQL enum used by referencing columns', async () => {
    const d = await data(
      '{ articles(where: {status: {_eq: published}}, order_by: {id: asc}) { id status } __type(name: "article_status_enum") { kind enumValues { name description } } }',
    );
    expect(d.articles).toEqual([
      { id: 1, status: 'published' },
      { id: 3, status: 'published' },
    ]);
    expect(d.__type).toEqual({
      kind: 'ENUM',
      enumValues: [
        { name: 'draft', description: 'not yet' },
        { name: 'published', description: 'out' },
      ],
    });
    const r = await f.gql('{ articles(where: {status: {_eq: "published"}}) { id } }');
    expect(r.errors[0].extensions.code).toBe('validation-failed');
    const v = await data('query($s: article_status_enum) { articles(where: {status: {_eq: $s}}) { id } }', { s: 'draft' });
    expect(v.articles).toEqual([{ id: 2 }]);
  });
});

describe('stringify numeric types off (default)', () => {
  it('bigint, numeric and float8 are JSON numbers', async () => {
    const d = await data('{ authors_by_pk(id: 2) { followers rating score } }');
    expect(d.authors_by_pk).toEqual({ followers: 10, rating: 3.25, score: 2.25 });
  });
});
