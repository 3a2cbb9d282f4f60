/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * v2 request behaviours (issue 15) over HTTP on a real PostgreSQL: batches run
 * in order, /v1alpha1/graphql, lenient variables, automatic persisted queries,
 * and v2's error paths.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReadFixture, type ReadFixture } from '../../support/read-schema.ts';

let f: ReadFixture;
beforeAll(async () => {
  f = await startReadFixture();
});
afterAll(async () => {
  await f?.close();
});

describe('batched requests', () => {
  it('run in order, each operation seeing the effects of the earlier ones', async () => {
    const r = await f.engine.post<any>('/v1/graphql', [
      { query: 'mutation { insert_authors_one(object: {name: "Batch"}) { name } }' },
      { query: 'query { authors_aggregate(where: {name: {_eq: "Batch"}}) { aggregate { count } } }' },
      { query: 'mutation { delete_authors(where: {name: {_eq: "Batch"}}) { affected_rows } }' },
      { query: 'query { authors_aggregate(where: {name: {_eq: "Batch"}}) { aggregate { count } } }' },
    ]);
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      { data: { insert_authors_one: { name: 'Batch' } } },
      { data: { authors_aggregate: { aggregate: { count: 1 } } } },
      { data: { delete_authors: { affected_rows: 1 } } },
      { data: { authors_aggregate: { aggregate: { count: 0 } } } },
    ]);
  });

  it('a failing operation does not stop the ones after it', async () => {
    const r = await f.engine.post<any>('/v1/graphql', [{ query: '{ nope }' }, { query: '{ authors_aggregate { aggregate { count } } }' }]);
    expect(r.status).toBe(200);
    expect(r.body[0]).toEqual({
      errors: [{ message: "field 'nope' not found in type: 'query_root'", extensions: { path: '$.selectionSet.nope', code: 'validation-failed' } }],
    });
    expect(r.body[1]).toEqual({ data: { authors_aggregate: { aggregate: { count: 3 } } } });
  });
});

describe('/v1alpha1/graphql', () => {
  it('answers as /v1/graphql when the request succeeds', async () => {
    const r = await f.engine.post<any>('/v1alpha1/graphql', { query: '{ authors(order_by: {id: asc}, limit: 1) { name } }' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { authors: [{ name: 'Ann' }] } });
  });

  it('answers errors with HTTP 400 and the same body', async () => {
    const r = await f.engine.post<any>('/v1alpha1/graphql', { query: '{ authors { nope } }' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      errors: [
        { message: "field 'nope' not found in type: 'authors'", extensions: { path: '$.selectionSet.authors.selectionSet.nope', code: 'validation-failed' } },
      ],
    });
    const parse = await f.engine.post<any>('/v1alpha1/graphql', { query: '{ authors { ' });
    expect(parse.status).toBe(400);
    expect(parse.body.errors[0].extensions.code).toBe('parse-failed');
    const db = await f.engine.post<any>('/v1alpha1/graphql', { query: 'mutation { insert_articles_one(object: {id: 1, title: "dup"}) { id } }' });
    expect(db.status).toBe(400);
    expect(db.body.errors[0].extensions.code).toBe('constraint-violation');
  });

  it('a batch is answered with 200, errors in its elements', async () => {
    const r = await f.engine.post<any>('/v1alpha1/graphql', [{ query: '{ nope }' }, { query: '{ authors_aggregate { aggregate { count } } }' }]);
    expect(r.status).toBe(200);
    expect(r.body[0].errors[0].extensions.code).toBe('validation-failed');
    expect(r.body[1]).toEqual({ data: { authors_aggregate: { aggregate: { count: 3 } } } });
  });

  it('applies the role and permissions of the request', async () => {
    const r = await f.engine.post<any>('/v1alpha1/graphql', { query: '{ authors { id } }' }, { 'x-engine-role': 'nobody' });
    expect(r.status).toBe(400);
    expect(r.body.errors[0].extensions.code).toBe('validation-failed');
  });
});

describe('lenient variables', () => {
  it('a variable the operation does not use is not an error', async () => {
    const r = await f.gql('query($unused: Int, $id: Int!) { authors_by_pk(id: $id) { name } }', { id: 1, unused: 5 });
    expect(r).toEqual({ data: { authors_by_pk: { name: 'Ann' } } });
    const never = await f.gql('query($unused: String) { authors_by_pk(id: 2) { name } }');
    expect(never).toEqual({ data: { authors_by_pk: { name: 'Bob' } } });
  });

  it('numbers given as JSON strings are taken for Int and Float, also nested in input objects', async () => {
    const q = 'query($o: Int, $id: Int!) { authors(order_by: {id: asc}, offset: $o) { id } authors_by_pk(id: $id) { name } }';
    expect(await f.gql(q, { o: '1', id: '2' })).toEqual({ data: { authors: [{ id: 2 }, { id: 3 }], authors_by_pk: { name: 'Bob' } } });
    // The same operation again (a plan-cache hit) with numbers, then strings.
    expect((await f.gql(q, { o: 2, id: 3 })).data.authors).toEqual([{ id: 3 }]);
    expect((await f.gql(q, { o: '2147483647', id: '1' })).data).toEqual({ authors: [], authors_by_pk: { name: 'Ann' } });
    const nested = await f.gql('query($w: authors_bool_exp) { authors(where: $w) { id } }', { w: { id: { _in: ['1', '3'] }, score: { _gte: '1.5' } } });
    expect(nested).toEqual({ data: { authors: [{ id: 1 }] } });
  });

  it('strings that are not numbers of the type are still refused, at the argument that uses the variable', async () => {
    for (const [id, code] of [
      ['abc', 'validation-failed'],
      ['1.5', 'validation-failed'],
      ['2147483648', 'parse-failed'],
    ]) {
      const r = await f.gql('query($id: Int!) { authors_by_pk(id: $id) { name } }', { id });
      expect(r.data).toBeUndefined();
      expect(r.errors[0].extensions).toEqual({ path: '$.selectionSet.authors_by_pk.args.id', code });
    }
  });
});

describe('automatic persisted queries', () => {
  // Note [Automatic persisted queries]: served, where v2 refuses them (the links cannot fall back from v2's answer).
  const query = '{ authors_by_pk(id: 1) { name } }';
  const hash = createHash('sha256').update(query).digest('hex');
  const apq = (sha256Hash: string): unknown => ({ persistedQuery: { version: 1, sha256Hash } });

  it('an unknown hash is PersistedQueryNotFound; with its text it runs and is remembered, over POST and GET', async () => {
    const fresh = createHash('sha256').update(`${query} `).digest('hex');
    const unknown = await f.engine.post<any>('/v1/graphql', { extensions: apq(fresh) });
    expect([unknown.status, unknown.body]).toEqual([
      200,
      { errors: [{ message: 'PersistedQueryNotFound', extensions: { path: '$', code: 'persisted-query-not-found' } }] },
    ]);
    const withText = await f.engine.post<any>('/v1/graphql', { query, extensions: apq(hash) });
    expect(withText.body).toEqual({ data: { authors_by_pk: { name: 'Ann' } } });
    const hashOnly = await f.engine.post<any>('/v1/graphql', { extensions: apq(hash) });
    expect(hashOnly.body).toEqual({ data: { authors_by_pk: { name: 'Ann' } } });
    const get = (await f.engine.get(`/v1/graphql?extensions=${encodeURIComponent(JSON.stringify(apq(hash)))}`)) as any;
    expect(get.body).toEqual({ data: { authors_by_pk: { name: 'Ann' } } });
  });

  it('refuses a hash that does not match the text, and a malformed persistedQuery', async () => {
    const wrong = await f.engine.post<any>('/v1/graphql', { query: '{ authors { id } }', extensions: apq(hash) });
    expect(wrong.body).toEqual({
      errors: [
        { message: 'provided sha does not match query', extensions: { path: '$.extensions.persistedQuery.sha256Hash', code: 'persisted-query-hash-mismatch' } },
      ],
    });
    const v2 = await f.engine.post<any>('/v1/graphql', { extensions: { persistedQuery: { version: 2, sha256Hash: hash } } });
    expect(v2.body.errors[0].extensions).toEqual({ path: '$.extensions.persistedQuery', code: 'parse-failed' });
    const notHex = await f.engine.post<any>('/v1/graphql', { extensions: apq('abc') });
    expect(notHex.body.errors[0].extensions).toEqual({ path: '$.extensions.persistedQuery.sha256Hash', code: 'parse-failed' });
  });

  it('other extensions are ignored', async () => {
    const r = await f.engine.post<any>('/v1/graphql', { query: '{ authors_by_pk(id: 1) { name } }', extensions: { clientLibrary: { name: 'x' } } });
    expect(r.body).toEqual({ data: { authors_by_pk: { name: 'Ann' } } });
  });
});

/** path and code of an error's extensions (an admin also sees `internal`). */
const ext = (e: any): unknown => ({ path: e.extensions.path, code: e.extensions.code });

describe('error paths', () => {
  it('a constraint violation of an insert is reported at its objects argument', async () => {
    const many = await f.gql('mutation { insert_articles(objects: [{id: 1, title: "dup"}]) { affected_rows } }');
    expect(ext(many.errors[0])).toEqual({ path: '$.selectionSet.insert_articles.args.objects', code: 'constraint-violation' });
    expect(many.errors[0].message).toMatch(/^Uniqueness violation\. duplicate key value violates unique constraint "articles_pkey"/);
    const one = await f.gql('mutation { a: insert_articles_one(object: {title: "fk", author_id: 99}) { id } }');
    expect(one.errors[0].message).toBe('Foreign key violation. insert or update on table "articles" violates foreign key constraint "articles_author_id_fkey"');
    expect(ext(one.errors[0])).toEqual({ path: '$.selectionSet.a.args.object', code: 'constraint-violation' });
    // The second field of a mutation fails: its own path, and the first field is rolled back.
    const second = await f.gql(
      'mutation { ok: insert_authors_one(object: {name: "Rolled"}) { id } bad: insert_articles(objects: [{id: 2, title: "dup"}]) { affected_rows } }',
    );
    expect(ext(second.errors[0])).toEqual({ path: '$.selectionSet.bad.args.objects', code: 'constraint-violation' });
    expect((await f.gql('{ authors(where: {name: {_eq: "Rolled"}}) { id } }')).data.authors).toEqual([]);
  });
});

describe('nested insert error paths', () => {
  it('a column the parent insert decides is refused at the nested row, in v2 words', async () => {
    const r = await f.gql(
      `mutation { insert_authors(objects: [{name: "A1"}, {name: "A3", articles: {data: [{title: "ok"}, {title: "t", author_id: 3}]}}]) { affected_rows } }`,
    );
    expect(r).toEqual({
      errors: [
        {
          message: 'cannot insert "author_id" columns as their values are already being determined by parent insert',
          extensions: { path: '$.selectionSet.insert_authors.args.objects[1].articles.data[1]', code: 'validation-failed' },
        },
      ],
    });
    const one = await f.gql('mutation { insert_authors_one(object: {name: "A3", articles: {data: [{title: "t", author_id: 3}]}}) { id } }');
    expect(one.errors[0].extensions.path).toBe('$.selectionSet.insert_authors_one.args.object.articles.data[0]');
  });

  it('an object relationship and the column it sets, given together, are refused at the relationship', async () => {
    const r = await f.gql('mutation { insert_articles(objects: [{title: "t", author_id: 1, author: {data: {name: "Z"}}}]) { affected_rows } }');
    expect(r).toEqual({
      errors: [
        {
          message: 'cannot insert object relationship "author" as "author_id" column values are already determined',
          extensions: { path: '$.selectionSet.insert_articles.args.objects[0].author', code: 'validation-failed' },
        },
      ],
    });
  });
});

describe('directive errors', () => {
  it('are reported at the selection set that holds the directive, in v2 words', async () => {
    expect(await f.gql('{ authors { id @exclude(if: true) name } }')).toEqual({
      errors: [
        { message: 'directive "exclude" is not defined in the schema', extensions: { path: '$.selectionSet.authors.selectionSet', code: 'validation-failed' } },
      ],
    });
    expect(await f.gql('{ authors { id @include(if: true) @include(if: true) } }')).toEqual({
      errors: [
        {
          message: 'the following directives are used more than once: include',
          extensions: { path: '$.selectionSet.authors.selectionSet', code: 'validation-failed' },
        },
      ],
    });
    expect(await f.gql('query @include(if: true) { authors { id } }')).toEqual({
      errors: [{ message: 'directive "include" is not allowed on a query', extensions: { path: '$', code: 'validation-failed' } }],
    });
    const arg = await f.gql('{ authors @skip(if: "yes") { id } }');
    expect(arg.errors[0].extensions).toEqual({ path: '$.selectionSet', code: 'validation-failed' });
  });
});

describe('metadata error paths and root-field collisions', () => {
  it('track_table and untrack_table report their checks at $.args', async () => {
    const again = await f.md({ type: 'pg_track_table', args: { table: 'authors' } });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ code: 'already-tracked', error: 'view/table already tracked: "authors"', path: '$.args' });
    const legacy = await f.engine.post<any>('/v1/query', { type: 'untrack_table', args: { table: 'never_tracked' } });
    expect(legacy.status).toBe(400);
    expect(legacy.body).toEqual({ code: 'already-untracked', error: 'view/table already untracked: "never_tracked"', path: '$.args' });
  });

  it('a table and a function of the same name: not-supported, whichever comes second', async () => {
    const sql = `CREATE FUNCTION public.articles() RETURNS SETOF articles LANGUAGE sql STABLE AS 'SELECT * FROM articles';
      CREATE TABLE public.latest (id int PRIMARY KEY);
      CREATE FUNCTION public.latest() RETURNS SETOF authors LANGUAGE sql STABLE AS 'SELECT * FROM authors'`;
    expect((await f.engine.post('/v2/query', { type: 'run_sql', args: { sql } })).status).toBe(200);
    const fn = await f.md({ type: 'pg_track_function', args: { function: 'articles' } });
    expect(fn.status).toBe(400);
    expect(fn.body).toEqual({ code: 'not-supported', error: 'table with name "articles" already exists', path: '$.args' });
    expect((await f.md({ type: 'pg_track_function', args: { function: 'latest' } })).status).toBe(200);
    const table = await f.engine.post<any>('/v1/query', { type: 'track_table', args: { name: 'latest' } });
    expect(table.status).toBe(400);
    expect(table.body).toEqual({ code: 'not-supported', error: 'function with name "latest" already exists', path: '$.args' });
  });
});
