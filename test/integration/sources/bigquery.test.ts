/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * BigQuery sources end to end against a real BigQuery API emulator
 * (test/support/bigquery-emulator.ts): bigquery_add_source with a service
 * account from an environment variable, tables named `{dataset, name}` and
 * root fields `<dataset>_<table>`, manual relationships, select permissions
 * with session variables, aggregates, v2's typing of INT64/NUMERIC (strings),
 * global_select_limit, no mutation root, BigQuery errors in v2's shapes, a
 * missing dataset or table as inconsistent metadata, a client's cancel
 * reaching the job, export as {dataset, name}, bigquery_run_sql and
 * bigquery_update_source.
 */
import { generateKeyPairSync } from 'node:crypto';
import { BigQuery } from '@google-cloud/bigquery';
import { PassThroughClient } from 'google-auth-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorUnavailable, startBigQueryEmulator, startEmulatorProxy, type BigQueryEmulator, type EmulatorProxy } from '../../support/bigquery-emulator.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

const PROJECT = 'engine-test';
const SA_VAR = 'ENGINE_TEST_BQ_SERVICE_ACCOUNT';
const skip = emulatorUnavailable();
if (skip !== null) console.log(`skipped: ${skip}`);

let emulator: BigQueryEmulator;
let proxy: EmulatorProxy;
let db: TestDatabase;
let engine: TestEngine;
let bq: BigQuery;
const md = async (type: string, args: unknown): Promise<any> => await engine.metadata({ type, args });
const gql = async (query: string, headers?: Record<string, string>): Promise<any> => (await engine.graphql(query, undefined, headers)).body;

async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

async function until(ok: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!ok() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return ok();
}

async function run(query: string): Promise<void> {
  const [job] = await bq.createQueryJob({ query, useLegacySql: false });
  await job.getQueryResults();
}

describe.skipIf(skip !== null)('a BigQuery source', () => {
  beforeAll(async () => {
    emulator = await startBigQueryEmulator(PROJECT);
    bq = new BigQuery({ projectId: PROJECT, apiEndpoint: emulator.url, authClient: new PassThroughClient() });
    const [shop] = await bq.createDataset('shop');
    await shop.createTable('authors', {
      schema: {
        fields: [
          { name: 'id', type: 'INTEGER', mode: 'REQUIRED' },
          { name: 'name', type: 'STRING' },
          { name: 'rating', type: 'NUMERIC' },
          { name: 'score', type: 'FLOAT' },
          { name: 'tags', type: 'STRING', mode: 'REPEATED' },
          { name: 'address', type: 'RECORD', fields: [{ name: 'city', type: 'STRING' }] },
        ],
      },
    });
    await shop.createTable('articles', {
      schema: {
        fields: [
          { name: 'id', type: 'INT64' },
          { name: 'author_id', type: 'INT64' },
          { name: 'title', type: 'STRING' },
          { name: 'published', type: 'BOOL' },
        ],
      },
    });
    await shop.createTable('scratch', { schema: { fields: [{ name: 'id', type: 'INT64' }] } });
    await run(`INSERT INTO shop.authors (id, name, rating, score, tags, address) VALUES
      (1, 'Ann', 4.5, 1.25, ['a', 'b'], STRUCT('Paris' AS city)), (2, 'Bob', NULL, 2.5, ['c'], NULL), (3, 'Cid', 3, NULL, ['d'], NULL)`);
    await run(`INSERT INTO shop.articles (id, author_id, title, published) VALUES
      (1, 1, 'Dune', true), (2, 1, 'Emma', false), (3, 2, 'Ubik', true), (4, 3, 'Kim', true)`);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    process.env[SA_VAR] = JSON.stringify({
      client_email: 'engine@engine-test.iam.gserviceaccount.com',
      private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }),
      project_id: PROJECT,
    });
    // The engine talks to the emulator through a logging proxy (Note [Cancelling BigQuery jobs on the emulator]).
    proxy = await startEmulatorProxy(emulator.url);
    process.env['BIGQUERY_EMULATOR_HOST'] = proxy.url;
    db = await createTestDatabase('bq');
    engine = await startTestEngine({ databaseUrl: db.url });
  }, 900_000);

  afterAll(async () => {
    await engine?.close();
    await db?.drop();
    await proxy?.close();
    await emulator?.stop();
    delete process.env[SA_VAR];
    delete process.env['BIGQUERY_EMULATOR_HOST'];
  });

  it('is added with bigquery_add_source and its tables tracked as {dataset, name}', async () => {
    const add = await md('bigquery_add_source', {
      name: 'bq',
      configuration: { service_account: { from_env: SA_VAR }, project_id: PROJECT, datasets: ['shop'], global_select_limit: 2 },
    });
    expect(add.body).toEqual({ message: 'success' });
    for (const name of ['authors', 'articles', 'scratch']) {
      const r = await md('bigquery_track_table', { source: 'bq', table: { dataset: 'shop', name } });
      expect(r.body).toEqual({ message: 'success' });
    }
    const missing = await md('bigquery_track_table', { source: 'bq', table: { dataset: 'shop', name: 'nope' } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('shop.nope');
    const rel = await md('bigquery_create_array_relationship', {
      source: 'bq',
      table: { dataset: 'shop', name: 'authors' },
      name: 'articles',
      using: { manual_configuration: { remote_table: { dataset: 'shop', name: 'articles' }, column_mapping: { id: 'author_id' } } },
    });
    expect(rel.body).toEqual({ message: 'success' });
    const obj = await md('bigquery_create_object_relationship', {
      source: 'bq',
      table: { dataset: 'shop', name: 'articles' },
      name: 'author',
      using: { manual_configuration: { remote_table: { dataset: 'shop', name: 'authors' }, column_mapping: { author_id: 'id' } } },
    });
    expect(obj.body).toEqual({ message: 'success' });
  });

  it("exports its tables as {dataset, name}, takes that export back, and lists the dataset's tables so", async () => {
    const exported = (await md('export_metadata', {})).body;
    const source = exported.sources.find((s: any) => s.name === 'bq');
    expect(source.kind).toBe('bigquery');
    expect(source.tables.map((t: any) => t.table)).toEqual([
      { dataset: 'shop', name: 'authors' },
      { dataset: 'shop', name: 'articles' },
      { dataset: 'shop', name: 'scratch' },
    ]);
    const authors = source.tables.find((t: any) => t.table.name === 'authors');
    expect(authors.array_relationships[0].using.manual_configuration.remote_table).toEqual({ dataset: 'shop', name: 'articles' });
    const replaced = await md('replace_metadata', exported);
    expect(replaced.body).toEqual({ message: 'success' });
    expect((await md('export_metadata', {})).body).toEqual(exported);
    const tables = await md('bigquery_get_source_tables', { source: 'bq' });
    expect(tables.body).toEqual([
      { dataset: 'shop', name: 'articles' },
      { dataset: 'shop', name: 'authors' },
      { dataset: 'shop', name: 'scratch' },
    ]);
    const info = await md('bigquery_get_table_info', { source: 'bq', table: { dataset: 'shop', name: 'articles' } });
    expect(info.body.name).toEqual({ dataset: 'shop', name: 'articles' });
  });

  it('answers reads typed as v2 types them, relationships nested, under global_select_limit', async () => {
    const r = await gql(`{ shop_authors(order_by: {id: asc}) { id name rating score tags address articles(order_by: {id: desc}) { title author { name } } } }`);
    expect(r).toEqual({
      data: {
        shop_authors: [
          {
            id: '1',
            name: 'Ann',
            rating: expect.stringMatching(/^4\.50*$/),
            score: 1.25,
            tags: ['a', 'b'],
            address: { city: 'Paris' },
            articles: [
              { title: 'Emma', author: { name: 'Ann' } },
              { title: 'Dune', author: { name: 'Ann' } },
            ],
          },
          { id: '2', name: 'Bob', rating: null, score: 2.5, tags: ['c'], address: null, articles: [{ title: 'Ubik', author: { name: 'Bob' } }] },
        ],
      },
    });
    // An explicit limit and offset, and filters with typed parameters.
    const page = await gql(`{ shop_articles(where: {published: {_eq: true}, title: {_ilike: "%u%"}}, order_by: {id: asc}, limit: 5, offset: 0) { id title } }`);
    expect(page).toEqual({
      data: {
        shop_articles: [
          { id: '1', title: 'Dune' },
          { id: '3', title: 'Ubik' },
        ],
      },
    });
    // v2's BigQuery: asc puts nulls first (Bob has no rating), desc last.
    expect(await gql('{ shop_authors(order_by: {rating: asc}) { name } }')).toEqual({ data: { shop_authors: [{ name: 'Bob' }, { name: 'Cid' }] } });
    expect(await gql('{ shop_authors(order_by: {rating: desc}) { name } }')).toEqual({ data: { shop_authors: [{ name: 'Ann' }, { name: 'Cid' }] } });
    // v2's type names; the pattern operators BigQuery translates, not _similar.
    const comparison = await gql('{ __type(name: "String_BigQuery_comparison_exp") { inputFields { name } } }');
    const ops = comparison.data.__type.inputFields.map((f: any) => f.name);
    expect(ops).toEqual(expect.arrayContaining(['_eq', '_in', '_like', '_ilike', '_regex']));
    expect(ops).not.toContain('_similar');
    const inList = await gql(`{ shop_articles(where: {id: {_in: [2, 4]}}, order_by: {id: asc}) { title } }`);
    expect(inList).toEqual({ data: { shop_articles: [{ title: 'Emma' }, { title: 'Kim' }] } });
  });

  it('answers aggregates, at the root and over a relationship', async () => {
    const r = await gql(`{ shop_articles_aggregate(where: {published: {_eq: true}}) { aggregate { count sum { id } max { title } avg { id } } }
      shop_authors(where: {id: {_eq: 1}}) { articles_aggregate { aggregate { count } } } }`);
    expect(r).toEqual({
      data: {
        shop_articles_aggregate: { aggregate: { count: '3', sum: { id: '8' }, max: { title: 'Ubik' }, avg: { id: 8 / 3 } } },
        shop_authors: [{ articles_aggregate: { aggregate: { count: '2' } } }],
      },
    });
  });

  it('cancels the BigQuery job of a request its client gave up on, and keeps serving', async () => {
    const held = proxy.holdNextResults();
    const controller = new AbortController();
    const request = fetch(`${engine.url}/v1/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ shop_articles { id title } }' }),
      signal: controller.signal,
    }).catch((e: unknown) => e);
    const jobId = await within(held, 60_000, 'the job of the request was never polled');
    const cancelled = `POST /bigquery/v2/projects/${PROJECT}/jobs/${jobId}/cancel`;
    expect(proxy.log).not.toContain(cancelled);
    controller.abort();
    await request;
    expect(await until(() => proxy.log.includes(cancelled), 30_000)).toBe(true);
    expect(await gql('{ shop_authors(where: {id: {_eq: 3}}) { name } }')).toEqual({ data: { shop_authors: [{ name: 'Cid' }] } });
  });

  it('applies select permissions with session variables, and offers no mutations', async () => {
    const perm = await md('bigquery_create_select_permission', {
      source: 'bq',
      table: { dataset: 'shop', name: 'articles' },
      role: 'user',
      permission: { columns: ['id', 'title'], filter: { author_id: { _eq: 'X-Engine-User-Id' } } },
    });
    expect(perm.body).toEqual({ message: 'success' });
    const r = await gql('{ shop_articles(order_by: {id: asc}) { id title } }', { 'x-engine-role': 'user', 'x-engine-user-id': '1' });
    expect(r).toEqual({
      data: {
        shop_articles: [
          { id: '1', title: 'Dune' },
          { id: '2', title: 'Emma' },
        ],
      },
    });
    const hidden = await gql('{ shop_articles { author_id } }', { 'x-engine-role': 'user', 'x-engine-user-id': '1' });
    expect(hidden.errors[0].extensions.code).toBe('validation-failed');
    const schema = await gql('{ __schema { mutationType { name } } }');
    expect(schema).toEqual({ data: { __schema: { mutationType: null } } });
    const insert = await gql('mutation { insert_shop_articles(objects: [{id: 9}]) { affected_rows } }');
    expect(insert.errors[0].extensions.code).toBe('validation-failed');
  });

  it('answers a failing query with a GraphQL error in v2 shape, and a dropped table is inconsistent', async () => {
    await bq.dataset('shop').table('scratch').delete();
    const r = await engine.graphql<any>('{ shop_scratch { id } }');
    expect(r.status).toBe(200);
    expect(r.body.data ?? null).toBeNull();
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors[0].extensions.path).toMatch(/^\$/);
    expect(r.body.errors[0].message).toContain('scratch');
    const reload = await md('reload_metadata', {});
    expect(reload.body.is_consistent).toBe(false);
    const inc = (await md('get_inconsistent_metadata', {})).body;
    expect(JSON.stringify(inc.inconsistent_objects)).toContain('shop.scratch');
    expect(inc.inconsistent_objects).toContainEqual(expect.objectContaining({ type: 'table', definition: { dataset: 'shop', name: 'scratch' } }));
    // The other tables keep serving.
    expect(await gql('{ shop_authors(where: {id: {_eq: 3}}) { name } }')).toEqual({ data: { shop_authors: [{ name: 'Cid' }] } });
  });

  it("runs bigquery_run_sql as one job with v2's answer, and introspects the source again after it", async () => {
    const sql = async (q: string, source = 'bq'): Promise<any> => await engine.post('/v2/query', { type: 'bigquery_run_sql', args: { source, sql: q } });
    const typed = await sql(`SELECT 3 * 4 AS foo, 'Hello, World!' AS bar, 1.5 AS f, true AS b, NULL AS n, [1, 2] AS a`);
    expect(typed.status).toBe(200);
    expect(typed.body).toEqual({
      result_type: 'TuplesOk',
      result: [
        ['foo', 'bar', 'f', 'b', 'n', 'a'],
        ['12', 'Hello, World!', 1.5, true, null, ['1', '2']],
      ],
    });
    const rows = await sql('SELECT id, name FROM shop.authors WHERE id < 3 ORDER BY id');
    expect(rows.body).toEqual({
      result_type: 'TuplesOk',
      result: [
        ['id', 'name'],
        ['1', 'Ann'],
        ['2', 'Bob'],
      ],
    });
    const bad = await sql('SELECT * FROM shop.nope');
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('bigquery-error');
    expect(bad.body.error).toContain('nope');
    const pg = await sql('SELECT 1', 'default');
    expect(pg.body.code).toBe('not-exists');

    // DDL: a table made by the SQL, tracked, then dropped by the SQL. No transaction: the drop stands,
    // and the table is inconsistent at once (the GraphQL schema loses it without another metadata call).
    expect((await sql('CREATE TABLE shop.fresh (id INT64)')).body).toEqual({ result_type: 'TuplesOk', result: [[]] });
    expect((await md('bigquery_track_table', { source: 'bq', table: { dataset: 'shop', name: 'fresh' } })).body).toEqual({ message: 'success' });
    expect(await gql('{ shop_fresh { id } }')).toEqual({ data: { shop_fresh: [] } });
    expect((await sql('DROP TABLE shop.fresh')).status).toBe(200);
    const gone = await gql('{ shop_fresh { id } }');
    expect(gone.errors[0].extensions.code).toBe('validation-failed');
    const inc = (await md('get_inconsistent_metadata', {})).body;
    expect(inc.inconsistent_objects).toContainEqual(expect.objectContaining({ type: 'table', definition: { dataset: 'shop', name: 'fresh' } }));
  });

  it('introspects the table-valued functions of its datasets from the routines API; tracking one is refused as in v2', async () => {
    // Note [BigQuery routines]: made by the SQL (run_sql introspects again after it), listed as trackables.
    const made = await engine.post('/v2/query', {
      type: 'bigquery_run_sql',
      args: { source: 'bq', sql: 'CREATE TABLE FUNCTION shop.articles_of(author INT64) AS SELECT * FROM shop.articles WHERE author_id = author' },
    });
    expect(made.status).toBe(200);
    const trackables = await md('bigquery_get_source_trackables', { source: 'bq' });
    expect(trackables.body.functions).toEqual([{ name: { dataset: 'shop', name: 'articles_of' }, volitility: 'VOLATILE' }]);
    const tracked = await md('bigquery_track_function', { source: 'bq', function: { dataset: 'shop', name: 'articles_of' } });
    expect(tracked.status).toBe(400);
    expect(tracked.body.code).toBe('not-supported');
  });

  it("serves v2's computed fields: a table-valued function on the row's columns by argument_mapping, rows of return_table", async () => {
    await run(
      'CREATE TABLE FUNCTION shop.search_articles(a_id INT64, search STRING) AS SELECT a.* FROM shop.articles AS a WHERE a.author_id = a_id AND a.title LIKE search',
    );
    expect((await md('reload_metadata', {})).status).toBe(200);
    const fn = { dataset: 'shop', name: 'search_articles' };
    const authors = { dataset: 'shop', name: 'authors' };
    const add = async (name: string, definition: unknown): Promise<any> =>
      await md('bigquery_add_computed_field', { source: 'bq', table: authors, name, definition });
    // v2's reasons (DDL/ComputedField.hs).
    const noReturn = await add('bad', { function: fn, argument_mapping: { a_id: 'id' } });
    expect(noReturn.status).toBe(400);
    expect(noReturn.body.error).toContain(
      `the computed field "bad" cannot be added to table "shop.authors" because function "shop.search_articles" is not defined with 'RETURNS TABLE'. Expecting return table name.`,
    );
    const badMap = await add('bad', { function: fn, argument_mapping: { nope: 'id' }, return_table: { dataset: 'shop', name: 'articles' } });
    expect(badMap.status).toBe(400);
    expect(badMap.body.error).toContain('the argument "nope" is not one of function "shop.search_articles" input arguments');
    // Each style refuses the other's keys, as v2's schemas do.
    const rowStyle = await add('bad', { function: fn, table_argument: 'a_id' });
    expect(rowStyle.body).toMatchObject({ code: 'parse-failed', path: '$.args.definition.table_argument' });
    const pg = await md('pg_add_computed_field', { source: 'default', table: 'x', name: 'c', definition: { function: 'f', argument_mapping: {} } });
    expect(pg.body).toMatchObject({ code: 'parse-failed', path: '$.args.definition.argument_mapping', error: 'unexpected key "argument_mapping"' });
    const added = await add('search_articles', { function: fn, argument_mapping: { a_id: 'id' }, return_table: { dataset: 'shop', name: 'articles' } });
    expect(added.body).toEqual({ message: 'success' });

    // The other argument is the field's `args`; where, order_by and limit apply to the returned rows.
    // (The source's global_select_limit is 2.)
    expect(await gql('{ shop_authors(order_by: {id: desc}) { id search_articles(args: {search: "%i%"}) { id title } } }')).toEqual({
      data: {
        shop_authors: [
          { id: '3', search_articles: [{ id: '4', title: 'Kim' }] },
          { id: '2', search_articles: [{ id: '3', title: 'Ubik' }] },
        ],
      },
    });
    expect(
      await gql(
        '{ shop_authors(where: {id: {_lt: 3}}, order_by: {id: asc}) { id search_articles(args: {search: "%"}, order_by: {id: desc}, limit: 1) { title } } }',
      ),
    ).toEqual({
      data: {
        shop_authors: [
          { id: '1', search_articles: [{ title: 'Emma' }] },
          { id: '2', search_articles: [{ title: 'Ubik' }] },
        ],
      },
    });
    // A role reads only the returned rows its permission on the return table admits (articles: author_id = user id).
    const perm = await md('bigquery_create_select_permission', {
      source: 'bq',
      table: authors,
      role: 'user',
      permission: { columns: ['id'], computed_fields: ['search_articles'], filter: {} },
    });
    expect(perm.body).toEqual({ message: 'success' });
    const asUser = await gql('{ shop_authors(order_by: {id: asc}) { id search_articles(args: {search: "%"}, order_by: {id: asc}) { title } } }', {
      'x-engine-role': 'user',
      'x-engine-user-id': '1',
    });
    expect(asUser).toEqual({
      data: {
        shop_authors: [
          { id: '1', search_articles: [{ title: 'Dune' }, { title: 'Emma' }] },
          { id: '2', search_articles: [] },
        ],
      },
    });
    expect((await md('bigquery_drop_select_permission', { source: 'bq', table: authors, role: 'user' })).body).toEqual({ message: 'success' });
    const exported = (await md('export_metadata', {})).body;
    const table = exported.sources.find((s: any) => s.name === 'bq').tables.find((t: any) => t.table.name === 'authors');
    expect(table.computed_fields).toEqual([
      { name: 'search_articles', definition: { function: fn, argument_mapping: { a_id: 'id' }, return_table: { dataset: 'shop', name: 'articles' } } },
    ]);
    expect((await md('bigquery_drop_computed_field', { source: 'bq', table: authors, name: 'search_articles' })).body).toEqual({ message: 'success' });
  });

  it('takes bigquery_update_source: the configuration or the customization given, the other kept', async () => {
    const configuration = { service_account: { from_env: SA_VAR }, project_id: PROJECT, datasets: ['shop'], global_select_limit: 1 };
    expect((await md('bigquery_update_source', { name: 'bq', configuration })).body).toEqual({ message: 'success' });
    expect(await gql('{ shop_authors(order_by: {id: asc}) { id } }')).toEqual({ data: { shop_authors: [{ id: '1' }] } });
    // v2 caps array relationships too (Ann has two articles).
    expect(await gql('{ shop_authors(where: {id: {_eq: 1}}) { articles(order_by: {id: asc}) { id } } }')).toEqual({
      data: { shop_authors: [{ articles: [{ id: '1' }] }] },
    });
    const customization = { root_fields: { namespace: 'warehouse' }, type_names: { prefix: 'Wh_' } };
    expect((await md('bigquery_update_source', { name: 'bq', customization })).body).toEqual({ message: 'success' });
    expect(await gql('{ warehouse { shop_authors(order_by: {id: asc}) { __typename id } } }')).toEqual({
      data: { warehouse: { shop_authors: [{ __typename: 'Wh_shop_authors', id: '1' }] } },
    });
    const source = (await md('export_metadata', {})).body.sources.find((s: any) => s.name === 'bq');
    expect(source).toMatchObject({ configuration, customization });
    expect(source.tables.map((t: any) => t.table)).toContainEqual({ dataset: 'shop', name: 'authors' });
    const other = await md('bigquery_update_source', { name: 'default', customization });
    expect(other.body).toMatchObject({ code: 'not-exists', error: expect.stringContaining('does not match the expected type bigquery') });
  });

  it('reports a source whose dataset does not exist as inconsistent', async () => {
    const r = await md('bigquery_add_source', {
      name: 'gone',
      configuration: { service_account: { from_env: SA_VAR }, project_id: PROJECT, datasets: ['missing'] },
    });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('missing');
    const bad = await md('bigquery_add_source', {
      name: 'bad',
      configuration: { service_account: { client_email: 'x', private_key: 'nope', project_id: PROJECT }, project_id: PROJECT, datasets: ['shop'] },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('unable to parse private key');
  });
});
