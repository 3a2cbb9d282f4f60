/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * GraphQL language features (introspection, fragments, variables, aliases,
 * directives, __typename), error shapes, explain, and stringified numerics.
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

describe('language features', () => {
  it('introspection: root types, generated names, operators', async () => {
    const r = await f.gql(`{ __schema { queryType { name } mutationType { name } subscriptionType { name } }
      cmp: __type(name: "String_comparison_exp") { inputFields { name } }
      jsonb: __type(name: "jsonb_comparison_exp") { inputFields { name } }
      ob: __type(name: "order_by") { enumValues { name } }
      agg: __type(name: "articles_aggregate_fields") { fields { name } }
      sel: __type(name: "authors_select_column") { enumValues { name } }
      q: __type(name: "query_root") { fields { name } } }`);
    expect(r.errors).toBeUndefined();
    const d = r.data;
    expect(d.__schema).toEqual({ queryType: { name: 'query_root' }, mutationType: { name: 'mutation_root' }, subscriptionType: { name: 'subscription_root' } });
    const names = (x: any[]): string[] => x.map((i) => i.name);
    expect(names(d.cmp.inputFields)).toEqual(
      expect.arrayContaining([
        '_eq',
        '_neq',
        '_gt',
        '_gte',
        '_lt',
        '_lte',
        '_in',
        '_nin',
        '_is_null',
        '_like',
        '_nlike',
        '_ilike',
        '_nilike',
        '_similar',
        '_nsimilar',
        '_regex',
        '_nregex',
        '_iregex',
        '_niregex',
      ]),
    );
    expect(names(d.jsonb.inputFields)).toEqual(expect.arrayContaining(['_contains', '_contained_in', '_has_key', '_has_keys_any', '_has_keys_all', '_cast']));
    expect(names(d.ob.enumValues)).toEqual(['asc', 'asc_nulls_first', 'asc_nulls_last', 'desc', 'desc_nulls_first', 'desc_nulls_last']);
    expect(names(d.agg.fields)).toEqual(['avg', 'count', 'max', 'min', 'stddev', 'stddev_pop', 'stddev_samp', 'sum', 'var_pop', 'var_samp', 'variance']);
    expect(names(d.sel.enumValues)).toEqual(['id', 'name', 'rating', 'born', 'active', 'uid', 'followers', 'score']);
    expect(names(d.q.fields)).toEqual(
      expect.arrayContaining(['authors', 'authors_by_pk', 'authors_aggregate', 'shop_orders', 'allStats', 'stats_aggregate', 'article_status']),
    );
  });

  it('scalar names follow the database types', async () => {
    const r = await f.gql('{ __type(name: "authors") { fields { name type { name kind ofType { name kind ofType { name } } } } } }');
    const t = Object.fromEntries(r.data.__type.fields.map((x: any) => [x.name, x.type.name ?? x.type.ofType?.name ?? x.type.ofType?.ofType?.name]));
    expect(t).toMatchObject({
      id: 'Int',
      name: 'String',
      rating: 'numeric',
      born: 'date',
      active: 'Boolean',
      uid: 'uuid',
      followers: 'bigint',
      score: 'float8',
    });
    const a = await f.gql('{ __type(name: "articles") { fields { name type { kind name ofType { kind name ofType { name } } } } } }');
    const tags = a.data.__type.fields.find((x: any) => x.name === 'tags');
    expect(tags.type).toEqual({ kind: 'LIST', name: null, ofType: { kind: 'NON_NULL', name: null, ofType: { name: 'String' } } });
    expect(a.data.__type.fields.find((x: any) => x.name === 'status').type.name).toBe('article_status_enum');
    expect(a.data.__type.fields.find((x: any) => x.name === 'meta').type.name).toBe('jsonb');
  });

  it('fragments, inline fragments, aliases, @include/@skip, __typename at every level', async () => {
    const q = `query Q($inc: Boolean!, $skip: Boolean!) {
      __typename
      a: authors_by_pk(id: 1) { ...AuthorBits __typename n: name @include(if: $inc) ... on authors { active @skip(if: $skip) }
        articles(limit: 1, order_by: {id: asc}) { __typename title } articles_aggregate { __typename aggregate { __typename count } } }
    }
    fragment AuthorBits on authors { id }`;
    const r1 = await f.gql(q, { inc: true, skip: false });
    expect(r1.data).toEqual({
      __typename: 'query_root',
      a: {
        id: 1,
        __typename: 'authors',
        n: 'Ann',
        active: true,
        articles: [{ __typename: 'articles', title: 'Hello World' }],
        articles_aggregate: { __typename: 'articles_aggregate', aggregate: { __typename: 'articles_aggregate_fields', count: 2 } },
      },
    });
    const r2 = await f.gql(q, { inc: false, skip: true });
    expect(Object.keys(r2.data.a)).toEqual(['id', '__typename', 'articles', 'articles_aggregate']);
  });

  it('operationName picks the operation', async () => {
    const r = await f.engine.post('/v1/graphql', {
      query: 'query A { authors_by_pk(id: 1) { name } } query B { authors_by_pk(id: 2) { name } }',
      operationName: 'B',
    });
    expect((r.body as any).data.authors_by_pk.name).toBe('Bob');
  });

  it('only introspection or only __typename answers without the database', async () => {
    const r = await f.gql('{ __typename }');
    expect(r).toEqual({ data: { __typename: 'query_root' } });
  });

  it('advertises the subscription root, and refuses subscriptions over HTTP as v2 does', async () => {
    const r = await f.gql('{ __type(name: "subscription_root") { name } }');
    expect(r.data.__type).toEqual({ name: 'subscription_root' });
    const s = await f.gql('subscription { authors { id } }');
    expect(s.errors[0]).toEqual({
      message: 'subscriptions are not supported over HTTP, use websockets instead',
      extensions: { path: '$', code: 'validation-failed' },
    });
  });
});

describe('errors', () => {
  it('validation errors have a v2 path and code', async () => {
    const r = await f.gql('{ authors { id nope } }');
    expect(r.errors).toEqual([
      { message: "field 'nope' not found in type: 'authors'", extensions: { path: '$.selectionSet.authors.selectionSet.nope', code: 'validation-failed' } },
    ]);
    const w = await f.gql('{ authors(where: {nope: {_eq: 1}}) { id } }');
    expect(w.errors[0].extensions).toEqual({ path: '$.selectionSet.authors.args.where.nope', code: 'validation-failed' });
    const t = await f.gql('{ authors(where: {id: {_eq: "x"}}) { id } }');
    expect(t.errors[0].extensions.code).toBe('validation-failed');
  });

  it('syntax errors are parse-failed', async () => {
    const r = await f.gql('{ authors { id ');
    expect(r.errors[0].extensions.code).toBe('parse-failed');
  });

  it('malformed bodies are answered, not 500', async () => {
    for (const body of [{}, { query: 1 }, { query: '{ __typename }', variables: [1] }, { query: '{ __typename }', operationName: 3 }]) {
      const r = await f.engine.post('/v1/graphql', body);
      expect(r.status).toBe(200);
      expect((r.body as any).errors[0].extensions.code).toMatch(/parse-failed|validation-failed/);
    }
    const v = await f.gql('query($id: Int!) { authors_by_pk(id: $id) { id } }', { id: 'x' });
    expect(v.errors[0].extensions.code).toBe('validation-failed');
    const m = await f.gql('query($id: Int!) { authors_by_pk(id: $id) { id } }');
    expect(m.errors[0].extensions.code).toBe('validation-failed');
    const mu = await f.gql('mutation { x }');
    expect(mu.errors[0].extensions.code).toBe('validation-failed');
  });

  it('database errors: data-exception with the message; SQL only for admin', async () => {
    const admin = await f.gql('{ authors(where: {born: {_eq: "not a date"}}) { id } }');
    expect(admin.errors[0].extensions.code).toBe('data-exception');
    expect(admin.errors[0].extensions.internal.statement).toContain('SELECT');
    const user = await f.gql('{ authors(where: {uid: {_eq: "nope"}}) { id } }', undefined, { 'x-engine-role': 'admin' });
    expect(user.errors[0].extensions.code).toBe('data-exception');
  });

  it('a batch of requests answers a list', async () => {
    const r = await f.engine.post('/v1/graphql', [{ query: '{ authors_by_pk(id: 1) { id } }' }, { query: '{ nope }' }]);
    const b = r.body as any[];
    expect(b[0]).toEqual({ data: { authors_by_pk: { id: 1 } } });
    expect(b[1].errors[0].extensions.code).toBe('validation-failed');
  });
});

describe('explain', () => {
  it('answers the SQL and plan of each root field', async () => {
    const r = await f.engine.post('/v1/graphql/explain', {
      query: { query: 'query($id: Int!) { a: authors_by_pk(id: $id) { name } articles { id } __typename }', variables: { id: 1 } },
      user: {},
    });
    expect(r.status).toBe(200);
    const b = r.body as Array<{ field: string; sql: string; plan: string[]; prepared_arguments: unknown[] }>;
    expect(b.map((x) => x.field)).toEqual(['a', 'articles']);
    expect(b[0]?.prepared_arguments).toContain(1);
    expect(b[0]?.sql).toContain('"public"."authors"');
    expect(b[0]?.plan.join('\n')).toMatch(/Scan/);
  });
});
