/**
 * v2 behaviours existing clients rely on (issue 15), over HTTP against a real
 * PostgreSQL: each case is v2's documented answer.
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

describe('distinct_on and order_by', () => {
  it('distinct_on columns leading order_by: one row per group, the first by the rest of the order', async () => {
    const r = await f.gql('{ articles(distinct_on: [author_id], order_by: [{author_id: asc}, {words: desc}]) { author_id title } }');
    expect(r).toEqual({
      data: {
        articles: [
          { author_id: 1, title: 'Second Post' },
          { author_id: 2, title: 'Bob Writes' },
          { author_id: null, title: 'Orphan' },
        ],
      },
    });
  });

  it('distinct_on without order_by still works', async () => {
    const r = await f.gql('{ articles(distinct_on: author_id) { author_id } }');
    expect(r.data.articles).toEqual([{ author_id: 1 }, { author_id: 2 }, { author_id: null }]);
  });

  it('order_by starting with another column is refused as v2 does', async () => {
    const r = await f.gql('{ articles(distinct_on: [author_id], order_by: {words: desc}) { id } }');
    expect(r.data).toBeUndefined();
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0].message).toBe('"distinct_on" columns must match initial "order_by" columns');
    expect(r.errors[0].extensions.code).toBe('validation-failed');
  });

  it('every distinct_on column must be among the leading order_by keys, also nested', async () => {
    const two = await f.gql('{ articles(distinct_on: [author_id, status], order_by: [{author_id: asc}, {id: asc}]) { id } }');
    expect(two.errors?.[0]?.extensions.code).toBe('validation-failed');
    const swapped = await f.gql('{ articles(distinct_on: [author_id, status], order_by: [{status: asc}, {author_id: asc}]) { id } }');
    expect(swapped.errors).toBeUndefined();
    const nested = await f.gql('{ authors { articles(distinct_on: status, order_by: {id: asc}) { id } } }');
    expect(nested.errors?.[0]?.message).toBe('"distinct_on" columns must match initial "order_by" columns');
    const viaRel = await f.gql('{ articles(distinct_on: author_id, order_by: {author: {name: asc}}) { id } }');
    expect(viaRel.errors?.[0]?.extensions.code).toBe('validation-failed');
  });
});

describe('negative limit and offset', () => {
  it('a negative literal limit or offset is validation-failed at the argument, not a database error', async () => {
    const l = await f.gql('{ articles(limit: -1) { id } }');
    expect(l.data).toBeUndefined();
    expect(l.errors).toHaveLength(1);
    expect(l.errors[0].extensions).toEqual({ path: '$.selectionSet.articles.args.limit', code: 'validation-failed' });
    expect(l.errors[0].message).toContain('non-negative');
    const o = await f.gql('{ authors { articles_aggregate(offset: -2) { aggregate { count } } } }');
    expect(o.errors[0].extensions).toEqual({ path: '$.selectionSet.authors.selectionSet.articles_aggregate.args.offset', code: 'validation-failed' });
  });

  it('a negative limit or offset from a variable is validation-failed, also when the plan is cached', async () => {
    const q = 'query($l: Int, $o: Int) { articles(order_by: {id: asc}, limit: $l, offset: $o) { id } }';
    expect((await f.gql(q, { l: 1, o: 1 })).data).toEqual({ articles: [{ id: 2 }] });
    for (let i = 0; i < 2; i++) {
      const l = await f.gql(q, { l: -1, o: 0 });
      expect(l).toEqual({ errors: [{ message: expect.stringContaining('non-negative'), extensions: { path: '$.variables.l', code: 'validation-failed' } }] });
      const o = await f.gql(q, { l: 1, o: -5 });
      expect(o.errors[0].extensions).toEqual({ path: '$.variables.o', code: 'validation-failed' });
    }
    expect((await f.gql(q, { l: 0, o: 0 })).data).toEqual({ articles: [] });
    expect((await f.gql(q, { l: null, o: null })).data.articles).toHaveLength(4);
  });
});

describe('stringify numeric types in aggregates', () => {
  it('avg, sum, stddev, variance… of bigint, numeric and float8 columns are strings; of int columns numbers', async () => {
    const s = await startReadFixture({ stringifyNumericTypes: true });
    try {
      const r = await s.gql(`{ authors_aggregate { aggregate { count
          avg { rating score followers } sum { rating score } stddev { score } variance { score } var_pop { rating } min { score } } }
        articles_aggregate { aggregate { avg { words } sum { words } } } }`);
      expect(r.errors).toBeUndefined();
      const a = r.data.authors_aggregate.aggregate;
      expect(a.count).toBe(3);
      expect(a.avg.score).toBe('1.875');
      expect(a.sum).toEqual({ rating: '7.75', score: '3.75' });
      expect(a.min).toEqual({ score: '1.5' });
      for (const v of [a.avg.rating, a.avg.followers, a.stddev.score, a.variance.score, a.var_pop.rating]) expect(typeof v).toBe('string');
      expect(Number(a.avg.rating)).toBe(3.875);
      expect(Number(a.var_pop.rating)).toBeCloseTo(0.390625, 10);
      // int4 is not a big numeric type: its aggregates stay JSON numbers.
      expect(typeof r.data.articles_aggregate.aggregate.avg.words).toBe('number');
      expect(r.data.articles_aggregate.aggregate.sum.words).toBe(400);
      // Nested aggregates too.
      const n = await s.gql(
        '{ authors_by_pk(id: 1) { articles_aggregate { aggregate { avg { words } } } } shop_orders_aggregate { aggregate { avg { total } } } }',
      );
      expect(n.data.shop_orders_aggregate.aggregate.avg.total).toMatch(/^55\.245/);
    } finally {
      await s.close();
    }
  });
});

describe('a select permission limit caps rows read, not rows aggregated', () => {
  const reader = { 'x-engine-role': 'reader' };
  beforeAll(async () => {
    for (const table of ['articles', 'authors']) {
      const r = await f.md({
        type: 'pg_create_select_permission',
        args: { table, role: 'reader', permission: { columns: '*', filter: {}, limit: 2, allow_aggregations: true } },
      });
      expect(r.status).toBe(200);
    }
  });

  it('the root list and nodes are capped; count, sum and avg cover every permitted row', async () => {
    const r = await f.gql(
      `{ articles(order_by: {id: asc}) { id }
         articles_aggregate(order_by: {id: asc}) { n: nodes { id } aggregate { count sum { words } } __typename nodes { title } } }`,
      undefined,
      reader,
    );
    expect(r).toEqual({
      data: {
        articles: [{ id: 1 }, { id: 2 }],
        articles_aggregate: {
          n: [{ id: 1 }, { id: 2 }],
          aggregate: { count: 4, sum: { words: 400 } },
          __typename: 'articles_aggregate',
          nodes: [{ title: 'Hello World' }, { title: 'Second Post' }],
        },
      },
    });
  });

  it('aggregates alone, nested aggregates, and a request limit (which applies to aggregates too)', async () => {
    const alone = await f.gql('{ articles_aggregate { aggregate { count max { id } } } }', undefined, reader);
    expect(alone.data.articles_aggregate.aggregate).toEqual({ count: 4, max: { id: 4 } });
    const nested = await f.gql('{ authors(order_by: {id: asc}) { id articles_aggregate { aggregate { count } nodes { id } } } }', undefined, reader);
    expect(nested.data.authors).toEqual([
      { id: 1, articles_aggregate: { aggregate: { count: 2 }, nodes: [{ id: 1 }, { id: 2 }] } },
      { id: 2, articles_aggregate: { aggregate: { count: 1 }, nodes: [{ id: 3 }] } },
    ]);
    const limited = await f.gql('{ articles_aggregate(limit: 3, order_by: {id: desc}) { aggregate { count } nodes { id } } }', undefined, reader);
    expect(limited.data.articles_aggregate).toEqual({ aggregate: { count: 3 }, nodes: [{ id: 4 }, { id: 3 }] });
  });
});

describe('json/jsonb path argument', () => {
  it('reads the value at a path: keys, indexes, quoted keys, bare first key, $ alone', async () => {
    await f.db.sql(`UPDATE articles SET meta = '{"lang": "en", "x": {"y": 2, "a b": [10, {"z": true}]}, "list": ["p", "q"]}' WHERE id = 4`);
    const r = await f.gql(`{ articles_by_pk(id: 4) {
      a: meta(path: "$.x.y") b: meta(path: "x.y") c: meta(path: "$.x['a b'][1].z") d: meta(path: "$.list[1]")
      e: meta(path: "$") f: meta(path: "$.missing.key") g: meta(path: "[\\"list\\"][0]") h: meta } }`);
    expect(r.errors).toBeUndefined();
    const m = r.data.articles_by_pk;
    expect(m.a).toBe(2);
    expect(m.b).toBe(2);
    expect(m.c).toBe(true);
    expect(m.d).toBe('q');
    expect(m.e).toEqual(m.h);
    expect(m.f).toBeNull();
    expect(m.g).toBe('p');
    expect(m.h.x).toEqual({ y: 2, 'a b': [10, { z: true }] });
  });

  it('takes the path from a variable (null = the whole value), in lists and nested rows', async () => {
    const q = 'query($p: String) { articles(order_by: {id: asc}, where: {id: {_lte: 3}}) { meta(path: $p) } }';
    expect((await f.gql(q, { p: '$.lang' })).data.articles).toEqual([{ meta: 'en' }, { meta: 'fr' }, { meta: 'en' }]);
    expect((await f.gql(q, { p: '$.x.y' })).data.articles).toEqual([{ meta: null }, { meta: null }, { meta: 2 }]);
    expect((await f.gql(q, { p: null })).data.articles[1]).toEqual({ meta: { lang: 'fr' } });
    const nested = await f.gql('{ authors_by_pk(id: 2) { articles { meta(path: "x") } } }');
    expect(nested.data.authors_by_pk.articles).toEqual([{ meta: { y: 2 } }]);
  });

  it('refuses a malformed path with v2 parse-failed error, literal or variable; the argument is only on json columns', async () => {
    const bad = await f.gql('{ articles { meta(path: "$.x[*].y") } }');
    expect(bad.data).toBeUndefined();
    expect(bad.errors[0].extensions.code).toBe('parse-failed');
    expect(bad.errors[0].message).toMatch(/^parse json path error: \$\.x\[\*\]\.y\. Accept letters, digits, underscore \(_\) or hyphen \(-\) only/);
    const badVar = await f.gql('query($p: String) { articles { meta(path: $p) } }', { p: '$.a b' });
    expect(badVar.errors[0].extensions.code).toBe('parse-failed');
    const notJson = await f.gql('{ articles { title(path: "$.a") } }');
    expect(notJson.errors[0].extensions.code).toBe('validation-failed');
    const t = await f.gql('{ __type(name: "articles") { fields { name args { name type { name } } } } }');
    const meta = t.data.__type.fields.find((x: { name: string }) => x.name === 'meta');
    expect(meta.args).toEqual([{ name: 'path', type: { name: 'String' } }]);
  });
});
