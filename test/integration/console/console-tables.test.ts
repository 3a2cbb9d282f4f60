/**
 * The console's table and permission editors in headless Chromium against a
 * real engine (admin secret; function permissions not inferred), a second
 * PostgreSQL source and a loopback GraphQL server as remote schema:
 * `_exists` conditions in the permission builder (built nested in `_not`, beside a relationship condition,
 * and an existing `_or` with `_exists` loaded and saved unchanged), function
 * tracking with its configuration and function permissions (refused without
 * the select permission on the return table, then a role calls the
 * function), and remote relationships of a table to the remote schema and to
 * a table of the other source (created, queried over GraphQL, modified,
 * deleted). Fields are typed key by key; every step waits with a bound;
 * screenshots at 1280×800 go to the system's temporary directory
 * (engine-console-tables/).
 */
import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { launchBrowser, systemChromium } from '../../support/browser.ts';
import { consoleViewport, signIn, typeInto, unnamedControls, statusText } from '../../support/console-page.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';
import { buildConsole, consoleBuildIsStale } from '../../../engine/console/build.ts';

const SECRET = 'console-tables-s3cret';
/** Every wait is bounded: 30 s covers a page action on two busy cores. */
const WAIT_MS = 30_000;
const eventually = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: WAIT_MS, interval: 100 });
const chromiumPath = systemChromium();
if (chromiumPath === null && process.env['CI'] === 'true') throw new Error('CI=true but no Chromium: .ci/run should have installed it');
const SHOTS = path.join(os.tmpdir(), 'engine-console-tables');
const shot = (name: string) => path.join(SHOTS, name);

type Table = {
  table: { schema: string; name: string };
  select_permissions?: Array<{ role: string; permission: Record<string, unknown> }>;
  remote_relationships?: unknown[];
};
type Exported = {
  sources: Array<{ name: string; tables: Table[]; functions?: Array<Record<string, unknown>> }>;
};

let db: TestDatabase;
let db2: TestDatabase;
let engine: TestEngine;
/** The remote schema: customers by id. */
let crm: GraphqlTestServer;

async function exported(): Promise<Exported> {
  return ((await engine.metadata({ type: 'export_metadata', version: 2, args: {} })).body as { metadata: Exported }).metadata;
}

async function tableOf(source: string, name: string): Promise<Table> {
  return (await exported()).sources.find((s) => s.name === source)!.tables.find((t) => t.table.name === name)!;
}

const EXISTING_FILTER = {
  _or: [{ published: { _eq: true } }, { _exists: { _table: { schema: 'public', name: 'authors' }, _where: { name: { _eq: 'X-Engine-User-Id' } } } }],
};

beforeAll(async () => {
  if (consoleBuildIsStale()) await buildConsole();
  mkdirSync(SHOTS, { recursive: true });
  db = await createTestDatabase('console_tables');
  db2 = await createTestDatabase('console_tables_shop');
  await db.sql(`
    CREATE TABLE authors (id serial PRIMARY KEY, name text NOT NULL);
    INSERT INTO authors (name) VALUES ('ada'), ('banned');
    CREATE TABLE articles (id serial PRIMARY KEY, title text NOT NULL, author_id int, published boolean NOT NULL DEFAULT false);
    INSERT INTO articles (title, author_id, published) VALUES ('GraphQL joins', 1, true), ('Draft', 1, false);
    CREATE TABLE orders (id serial PRIMARY KEY, item text NOT NULL, customer_id int NOT NULL);
    INSERT INTO orders (item, customer_id) VALUES ('pen', 1), ('ink', 2);
    CREATE TABLE notes (id int);
    CREATE FUNCTION search_articles(search text, session json) RETURNS SETOF articles LANGUAGE sql STABLE
      AS $$ SELECT * FROM articles WHERE title ILIKE '%' || search || '%' $$;
  `);
  await db2.sql(`
    CREATE TABLE reviews (id serial PRIMARY KEY, order_id int NOT NULL, stars int NOT NULL);
    INSERT INTO reviews (order_id, stars) VALUES (1, 5), (1, 4), (2, 3);
  `);
  crm = await startGraphqlServer('type Query { customer(id: Int!): Customer }  type Customer { id: Int!  name: String!  tier: String! }', {
    customer: ({ id }: { id: number }) => ({ id, name: id === 1 ? 'Grace' : 'Linus', tier: id === 1 ? 'gold' : 'basic' }),
  });
  engine = await startTestEngine({ databaseUrl: db.url, adminSecret: SECRET, enableConsole: true, inferFunctionPermissions: false });
  // Set-up, not under test: tables, the second source, the remote schema, and permissions the editors start from.
  const setUp = await engine.metadata({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: 'authors' } } },
      { type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: 'articles' } } },
      { type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: 'orders' } } },
      { type: 'pg_add_source', args: { name: 'shop', configuration: { connection_info: { database_url: db2.url } } } },
      { type: 'pg_track_table', args: { source: 'shop', table: { schema: 'public', name: 'reviews' } } },
      { type: 'add_remote_schema', args: { name: 'crm', definition: { url: crm.url, timeout_seconds: 20 } } },
      {
        type: 'pg_create_object_relationship',
        args: {
          source: 'default',
          table: 'articles',
          name: 'author',
          using: { manual_configuration: { remote_table: { schema: 'public', name: 'authors' }, column_mapping: { author_id: 'id' } } },
        },
      },
      {
        type: 'pg_create_select_permission',
        args: { source: 'default', table: 'articles', role: 'editor', permission: { columns: ['id', 'title'], filter: EXISTING_FILTER } },
      },
      {
        type: 'pg_create_select_permission',
        args: { source: 'default', table: 'articles', role: 'viewer', permission: { columns: ['id', 'title'], filter: {} } },
      },
    ],
  });
  expect(setUp.status, setUp.text).toBe(200);
}, 180_000);

afterAll(async () => {
  await engine?.close();
  await crm?.close();
  await db?.drop();
  await db2?.drop();
});

describe.skipIf(chromiumPath === null)('console table and permission editors in a browser', { timeout: 120_000 }, () => {
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser(chromiumPath!);
    const context = await browser.newContext({ viewport: consoleViewport(), locale: 'en-US' });
    page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.goto(`${engine.url}/console/`);
    await signIn(page, SECRET);
  }, 60_000);

  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await browser?.close();
  });

  const openPermission = async (role: string, navigate = true) => {
    if (navigate) {
      await page.getByRole('link', { name: 'Permissions' }).click();
      await page.getByRole('list', { name: 'Tables' }).getByRole('link', { name: 'public.articles' }).click();
    }
    await page.getByRole('button', { name: new RegExp(`^select permission of ${role}: `) }).click();
    return page.getByRole('region', { name: `Edit select permission of ${role} on public.articles` });
  };

  it('Permissions: loads an _or with _exists into the builder, and saving it unchanged keeps the rule', async () => {
    const editor = await openPermission('editor');
    // The builder shows the existing rule: _or of a column condition and _exists on authors.
    expect(await editor.getByLabel('Row filter condition 1.1 column').inputValue()).toBe('published');
    expect(await editor.getByLabel('Row filter condition 1.2 table').inputValue()).toBe('public.authors');
    expect(await editor.getByLabel('Row filter condition 1.2.1 column').inputValue()).toBe('name');
    expect(await editor.getByLabel('Row filter condition 1.2.1 value').inputValue()).toBe('X-Engine-User-Id');
    // Retyped in the builder, the rule is written again from the builder's tree: the same JSON.
    await typeInto(editor.getByLabel('Row filter condition 1.2.1 value'), 'X-Engine-User-Id');
    expect(JSON.parse(await editor.getByLabel('Row filter (JSON)').inputValue())).toEqual(EXISTING_FILTER);
    await page.screenshot({ path: shot('permissions-exists-loaded.png') });
    expect(await unnamedControls(page)).toEqual([]);
    await typeInto(editor.getByLabel('Limit'), '5');
    await editor.getByRole('button', { name: 'Save permission' }).click();
    await eventually(() => statusText(editor)).toBe('Saved select permission of editor on public.articles');
    expect((await tableOf('default', 'articles')).select_permissions?.find((p) => p.role === 'editor')?.permission).toEqual({
      columns: ['id', 'title'],
      filter: EXISTING_FILTER,
      limit: 5,
      allow_aggregations: false,
    });
    await editor.getByRole('button', { name: 'Close' }).click();
  });

  it('Permissions: builds _not { _exists } and a relationship condition for a new role in the builder', async () => {
    await page.getByRole('link', { name: 'Permissions' }).click();
    await page.getByRole('list', { name: 'Tables' }).getByRole('link', { name: 'public.articles' }).click();
    await typeInto(page.getByLabel('New role'), 'reader');
    await page.getByRole('button', { name: 'Add role' }).click();
    const editor = await openPermission('reader', false);
    await editor.getByRole('button', { name: 'Add _not', exact: true }).click();
    await editor.getByRole('button', { name: 'Row filter condition 1: add _exists', exact: true }).click();
    // Without a table it is refused in the page.
    await editor.getByRole('button', { name: 'Save permission' }).click();
    await eventually(() => editor.getByRole('alert').first().textContent()).toContain('condition 1.1: pick the table of _exists');
    // Only tracked tables are offered: the engine refuses _exists on others.
    const offered = await editor.getByLabel('Row filter condition 1.1 table').locator('option').allTextContents();
    expect([...offered].sort()).toEqual(['(pick a table)', 'public.articles', 'public.authors', 'public.orders']);
    await editor.getByLabel('Row filter condition 1.1 table').selectOption('public.authors');
    await editor.getByRole('button', { name: 'Row filter condition 1.1: add condition', exact: true }).click();
    await editor.getByLabel('Row filter condition 1.1.1 column').selectOption('name');
    await typeInto(editor.getByLabel('Row filter condition 1.1.1 value'), 'banned');
    // And a relationship condition: the article's author is ada.
    await editor.getByRole('button', { name: 'Add relationship', exact: true }).click();
    await editor.getByLabel('Row filter condition 2 relationship').selectOption('author');
    await editor.getByRole('button', { name: 'Row filter condition 2: add condition', exact: true }).click();
    await editor.getByLabel('Row filter condition 2.1 column').selectOption('name');
    await typeInto(editor.getByLabel('Row filter condition 2.1 value'), 'ada');
    await editor.getByRole('button', { name: 'All columns' }).click();
    const rule = {
      _and: [
        { _not: { _exists: { _table: { schema: 'public', name: 'authors' }, _where: { name: { _eq: 'banned' } } } } },
        { author: { name: { _eq: 'ada' } } },
      ],
    };
    expect(JSON.parse(await editor.getByLabel('Row filter (JSON)').inputValue())).toEqual(rule);
    await page.screenshot({ path: shot('permissions-exists.png') });
    expect(await unnamedControls(page)).toEqual([]);
    await editor.getByRole('button', { name: 'Save permission' }).click();
    await eventually(() => statusText(editor)).toBe('Saved select permission of reader on public.articles');
    expect((await tableOf('default', 'articles')).select_permissions?.find((p) => p.role === 'reader')?.permission).toEqual({
      columns: ['id', 'title', 'author_id', 'published'],
      filter: rule,
      allow_aggregations: false,
    });
    // The rule holds over GraphQL: an author named "banned" exists, so the role sees no article.
    const asReader = { 'x-engine-admin-secret': SECRET, 'x-engine-role': 'reader' };
    expect((await engine.graphql('{ articles { id } }', undefined, asReader)).body).toEqual({ data: { articles: [] } });
    await db.sql(`UPDATE authors SET name = 'grace' WHERE name = 'banned'`);
    expect((await engine.graphql('{ articles(order_by: {id: asc}) { id } }', undefined, asReader)).body).toEqual({
      data: { articles: [{ id: 1 }, { id: 2 }] },
    });
    await editor.getByRole('button', { name: 'Close' }).click();
  });

  it('Data: tracks a function with its configuration and gives a role permission to call it', async () => {
    await page.getByRole('link', { name: 'Data', exact: true }).click();
    const untracked = page.getByRole('table', { name: 'Untracked custom functions' });
    await untracked.getByLabel('Exposed as of public.search_articles').selectOption('query');
    await typeInto(untracked.getByLabel('Session argument of public.search_articles'), 'session');
    await page.screenshot({ path: shot('data-functions-untracked.png') });
    expect(await unnamedControls(page)).toEqual([]);
    await untracked.getByRole('button', { name: 'Track function public.search_articles' }).click();
    await eventually(() => statusText(page.getByRole('main'))).toBe('Tracked function public.search_articles');
    const functions = async () => (await exported()).sources.find((s) => s.name === 'default')!.functions;
    expect(await functions()).toEqual([
      { function: { schema: 'public', name: 'search_articles' }, configuration: { exposed_as: 'query', session_argument: 'session' } },
    ]);
    await page.screenshot({ path: shot('data-functions.png') });
    expect(await unnamedControls(page)).toEqual([]);
    await page.getByRole('table', { name: 'Tracked functions' }).getByRole('link', { name: 'public.search_articles' }).click();
    const perms = page.getByRole('region', { name: 'Permissions' });
    // Function permissions are not inferred: the role cannot call it yet.
    const asViewer = { 'x-engine-admin-secret': SECRET, 'x-engine-role': 'viewer' };
    const search = '{ search_articles(args: {search: "graph"}) { title } }';
    expect(JSON.stringify((await engine.graphql(search, undefined, asViewer)).body)).toContain('search_articles');
    expect((await engine.graphql(search, undefined, asViewer)).body).not.toHaveProperty('data.search_articles');
    // A role without a select permission on articles is refused, with the engine's reason.
    await typeInto(perms.getByLabel('New role'), 'guest');
    await perms.getByRole('button', { name: 'Add role' }).click();
    await perms.getByRole('button', { name: 'Allow role guest on function public.search_articles' }).click();
    await eventually(() => perms.getByRole('alert').textContent()).toContain('has no select permission on its return table');
    expect((await functions())?.[0]?.['permissions']).toBeUndefined();
    await perms.getByRole('button', { name: 'Allow role viewer on function public.search_articles' }).click();
    await eventually(() => statusText(perms)).toBe('Role viewer may call function public.search_articles');
    expect((await functions())?.[0]?.['permissions']).toEqual([{ role: 'viewer' }]);
    // This engine does not infer function permissions: no note says it does.
    expect(await perms.getByRole('note').count()).toBe(0);
    await eventually(async () => (await engine.graphql(search, undefined, asViewer)).body).toEqual({ data: { search_articles: [{ title: 'GraphQL joins' }] } });
    await page.screenshot({ path: shot('data-function.png') });
    expect(await unnamedControls(page)).toEqual([]);
    // The configuration: exposed as a mutation now, the session argument kept.
    const config = page.getByRole('form', { name: 'Configuration of function public.search_articles' });
    await config.getByLabel('Exposed as').selectOption('mutation');
    await config.getByRole('button', { name: 'Save configuration' }).click();
    await eventually(() => statusText(page.getByRole('main'))).toBe('Saved the configuration of function public.search_articles');
    expect((await functions())?.[0]?.['configuration']).toEqual({ exposed_as: 'mutation', session_argument: 'session' });
    await perms.getByRole('button', { name: 'Revoke role viewer on function public.search_articles' }).click();
    await eventually(() => statusText(perms)).toBe('Role viewer may no longer call function public.search_articles');
    expect((await functions())?.[0]?.['permissions']).toBeUndefined();
    // Untracked from its page: back to the overview, among the untracked functions again.
    await config.getByRole('button', { name: 'Untrack function public.search_articles' }).click();
    await page.getByRole('table', { name: 'Untracked custom functions' }).getByRole('button', { name: 'Track function public.search_articles' }).waitFor();
    expect(await functions()).toBeUndefined();
  });

  it('Data: a function page says when the engine infers function permissions', async () => {
    // Another engine, with v2's default (inferred), over its own database.
    const db3 = await createTestDatabase('console_tables_infer');
    const inferring = await startTestEngine({ databaseUrl: db3.url, adminSecret: SECRET, enableConsole: true });
    try {
      await db3.sql(
        `CREATE TABLE notes (id int PRIMARY KEY); CREATE FUNCTION all_notes() RETURNS SETOF notes LANGUAGE sql STABLE AS $$ SELECT * FROM notes $$;`,
      );
      const setUp = await inferring.metadata({
        type: 'bulk',
        args: [
          { type: 'pg_track_table', args: { table: 'notes' } },
          { type: 'pg_track_function', args: { function: 'all_notes' } },
        ],
      });
      expect(setUp.status, setUp.text).toBe(200);
      const other = await page.context().newPage();
      try {
        await other.goto(`${inferring.url}/console/#/data?source=default&function=public.all_notes`);
        await typeInto(other.getByLabel('Admin secret'), SECRET);
        await other.getByLabel('Admin secret').press('Enter');
        const perms = other.getByRole('region', { name: 'Permissions' });
        await eventually(() => perms.getByRole('note').textContent()).toContain('This engine infers function permissions');
      } finally {
        await other.close();
      }
      // And this test's engine, which does not, says nothing of the kind.
      expect((await engine.get('/v1alpha1/config')).body).toMatchObject({ is_function_permissions_inferred: false });
    } finally {
      await inferring.close();
      await db3.drop();
    }
  });

  it('Data: adds remote relationships to a remote schema and to a table of another source, queries, modifies and deletes them', async () => {
    await page.getByRole('link', { name: 'Data', exact: true }).click();
    await page.getByRole('list', { name: 'Tracked tables' }).getByRole('link', { name: 'public.orders' }).click();
    await page.getByRole('link', { name: 'Relationships' }).click();
    const region = page.getByRole('region', { name: 'Remote relationships' });
    const status = () => statusText(region);
    const form = region.getByRole('form', { name: 'Add a remote relationship to public.orders' });
    // To the remote schema: customer(id: $customer_id).
    await typeInto(form.getByLabel('Relationship name'), 'customer');
    await form.getByLabel('Remote schema', { exact: true }).selectOption('crm');
    await form.getByLabel('Remote field 1', { exact: true }).selectOption('customer');
    // Without a column passed it is refused in the page.
    await form.getByRole('button', { name: 'Add remote relationship' }).click();
    await eventually(() => region.getByRole('alert').textContent()).toContain('Pass at least one column');
    await form.getByLabel('Remote field 1 argument id', { exact: true }).selectOption('column:customer_id');
    await form.getByRole('button', { name: 'Add remote relationship' }).click();
    await eventually(status).toBe('Saved the remote relationship customer on public.orders');
    const toCrm = {
      to_remote_schema: { remote_schema: 'crm', lhs_fields: ['customer_id'], remote_field: { customer: { arguments: { id: '$customer_id' } } } },
    };
    expect((await tableOf('default', 'orders')).remote_relationships).toEqual([{ name: 'customer', definition: toCrm }]);
    expect((await engine.graphql('{ orders(order_by: {id: asc}) { item customer { name } } }')).body).toEqual({
      data: {
        orders: [
          { item: 'pen', customer: { name: 'Grace' } },
          { item: 'ink', customer: { name: 'Linus' } },
        ],
      },
    });
    // To a table of the other source: reviews by order_id.
    await typeInto(form.getByLabel('Relationship name'), 'reviews');
    await form.getByLabel('To a table of a source').check();
    await form.getByLabel('Source', { exact: true }).selectOption('shop');
    await form.getByLabel('Table', { exact: true }).selectOption('public.reviews');
    await form.getByLabel('Relationship type').selectOption('array');
    await form.getByRole('button', { name: 'Add field mapping' }).click();
    await form.getByLabel('Field mapping 1 column').selectOption('id');
    await eventually(() => form.getByLabel('Field mapping 1 target column').locator('option').allTextContents()).toContain('order_id');
    await form.getByLabel('Field mapping 1 target column').selectOption('order_id');
    await page.screenshot({ path: shot('data-remote-relationship-source.png') });
    await form.getByRole('button', { name: 'Add remote relationship' }).click();
    await eventually(status).toBe('Saved the remote relationship reviews on public.orders');
    const toShop = {
      to_source: { source: 'shop', table: { schema: 'public', name: 'reviews' }, relationship_type: 'array', field_mapping: { id: 'order_id' } },
    };
    expect((await tableOf('default', 'orders')).remote_relationships).toEqual([
      { name: 'customer', definition: toCrm },
      { name: 'reviews', definition: toShop },
    ]);
    expect((await engine.graphql('{ orders(order_by: {id: asc}) { item reviews(order_by: {stars: desc}) { stars } } }')).body).toEqual({
      data: {
        orders: [
          { item: 'pen', reviews: [{ stars: 5 }, { stars: 4 }] },
          { item: 'ink', reviews: [{ stars: 3 }] },
        ],
      },
    });
    const list = region.getByRole('table', { name: 'Remote relationships of public.orders' });
    await eventually(() => list.locator('tbody tr').count()).toBe(2);
    expect(await unnamedControls(page)).toEqual([]);
    // Modified and saved unchanged: the same definition.
    await list.getByRole('button', { name: 'Modify remote relationship reviews' }).click();
    const modifyReviews = region.getByRole('form', { name: 'Modify remote relationship reviews' });
    expect(await modifyReviews.getByLabel('Field mapping 1 target column').inputValue()).toBe('order_id');
    await modifyReviews.getByRole('button', { name: 'Save remote relationship' }).click();
    await eventually(status).toBe('Saved the remote relationship reviews on public.orders');
    expect((await tableOf('default', 'orders')).remote_relationships).toEqual([
      { name: 'customer', definition: toCrm },
      { name: 'reviews', definition: toShop },
    ]);
    // Modified to a deeper path: customer(id: $customer_id) { tier }.
    await list.getByRole('button', { name: 'Modify remote relationship customer' }).click();
    const modify = region.getByRole('form', { name: 'Modify remote relationship customer' });
    expect(await modify.getByLabel('Remote field 1 argument id', { exact: true }).inputValue()).toBe('column:customer_id');
    await modify.getByLabel('Remote field 2', { exact: true }).selectOption('tier');
    await page.screenshot({ path: shot('data-remote-relationship-schema.png') });
    expect(await unnamedControls(page)).toEqual([]);
    await modify.getByRole('button', { name: 'Save remote relationship' }).click();
    await eventually(status).toBe('Saved the remote relationship customer on public.orders');
    expect((await tableOf('default', 'orders')).remote_relationships?.[0]).toEqual({
      name: 'customer',
      definition: {
        to_remote_schema: {
          remote_schema: 'crm',
          lhs_fields: ['customer_id'],
          remote_field: { customer: { arguments: { id: '$customer_id' }, field: { tier: {} } } },
        },
      },
    });
    expect((await engine.graphql('{ orders(order_by: {id: asc}) { customer } }')).body).toEqual({
      data: { orders: [{ customer: 'gold' }, { customer: 'basic' }] },
    });
    // Deleted, asked once.
    await list.getByRole('button', { name: 'Delete remote relationship reviews' }).click();
    await list.getByRole('button', { name: 'Confirm delete of reviews' }).click();
    await eventually(status).toBe('Deleted the remote relationship reviews');
    expect((await tableOf('default', 'orders')).remote_relationships?.map((r) => (r as { name: string }).name)).toEqual(['customer']);
  });
});
