/**
 * The web console (engine/console/) against a real engine with an admin
 * secret: its HTTP serving (caching headers, redirects, CSP), then a click
 * through in headless Chromium, loaded through a reverse proxy that adds a
 * path prefix, so every request the page makes must be relative. Each step
 * waits with a bound (playwright's auto-waiting, expect.poll); screenshots of
 * each page go to test/artifacts/console/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { queryText, responseText, setQuery, typeInto, unnamedControls, statusText } from '../../support/console-page.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { artifact, launchBrowser, systemChromium } from '../../support/browser.ts';
import { startPrefixProxy, type PrefixProxy } from '../../support/prefix-proxy.ts';
import { buildConsole, consoleBuildIsStale } from '../../../engine/console/build.ts';
import { loadConsoleAssets } from '../../../engine/console/assets.ts';

const SECRET = 'console-s3cret';
/** Every wait is bounded: 30 s covers a page action on two busy cores. */
const WAIT_MS = 30_000;
const eventually = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: WAIT_MS, interval: 100 });
const chromiumPath = systemChromium();
// CI installs Chromium (.ci/run); elsewhere the browser part says why it skips.
if (chromiumPath === null && process.env['CI'] === 'true') throw new Error('CI=true but no Chromium: .ci/run should have installed it');

let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  if (consoleBuildIsStale()) await buildConsole();
  db = await createTestDatabase('console');
  await db.sql(`
    CREATE TABLE authors (id serial PRIMARY KEY, name text NOT NULL);
    CREATE TABLE articles (id serial PRIMARY KEY, title text NOT NULL, author_id int NOT NULL REFERENCES authors(id), published boolean NOT NULL DEFAULT false,
                           price numeric NOT NULL DEFAULT 0);
    INSERT INTO authors (name) VALUES ('Ada'), ('Brian');
    INSERT INTO articles (title, author_id, published, price) VALUES ('Engines', 1, true, 19.99), ('Drafts', 1, false, 25), ('Compilers', 2, true, 9.99);
  `);
  engine = await startTestEngine({ databaseUrl: db.url, adminSecret: SECRET, enableConsole: true });
}, 180_000);

afterAll(async () => {
  await engine?.close();
  await db?.drop();
});

describe('console over HTTP', () => {
  it('redirects /console and / to console/ (relative, for path prefixes)', async () => {
    for (const p of ['/console', '/']) {
      const res = await fetch(`${engine.url}${p}`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('console/');
    }
  });

  it('serves the page revalidated, assets immutable and precompressed, with a same-origin CSP', async () => {
    const page = await fetch(`${engine.url}/console/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="(assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBe(2);
    expect(html).not.toMatch(/https?:\/\//);
    for (const a of assets) {
      const res = await fetch(`${engine.url}/console/${a}`, { headers: { 'accept-encoding': 'br' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-encoding')).toBe('br');
      const again = await fetch(`${engine.url}/console/${a}`, { headers: { 'if-none-match': res.headers.get('etag')! } });
      expect(again.status).toBe(304);
    }
    const etag = page.headers.get('etag')!;
    expect((await fetch(`${engine.url}/console/`, { headers: { 'if-none-match': etag } })).status).toBe(304);
  });

  it('an enabled console that is not built stops the start, saying how to build it', () => {
    expect(() => loadConsoleAssets('/nonexistent/console-dist')).toThrow(/web console is enabled but not built.*npm install/);
  });

  it('answers 404 in v2 shape for an unknown asset', async () => {
    const res = await fetch(`${engine.url}/console/assets/nope.js`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'not-found' });
  });
});

describe.skipIf(chromiumPath === null)('console in a browser, behind a path prefix', { timeout: 120_000 }, () => {
  let browser: Browser;
  let page: Page;
  let proxy: PrefixProxy;
  const outside: string[] = [];
  const pageErrors: string[] = [];
  /** Bodies of the page's requests: what it asks the engine. */
  const bodies: string[] = [];

  beforeAll(async () => {
    proxy = await startPrefixProxy(engine.url, '/gateway/engine');
    browser = await launchBrowser(chromiumPath!);
    // CONSOLE_VIEWPORT=1920x1080 takes the same screenshots at another size (to look at the layout).
    const [width, height] = (process.env['CONSOLE_VIEWPORT'] ?? '1280x800').split('x').map(Number) as [number, number];
    const context = await browser.newContext({ viewport: { width, height } });
    page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    const origin = new URL(proxy.url).origin;
    page.on('request', (r) => {
      if (!r.url().startsWith(origin) && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) outside.push(r.url());
    });
    page.on('request', (r) => {
      const body = r.postData();
      if (body !== null) bodies.push(body);
    });
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) pageErrors.push(m.text());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
  });

  it('asks for the admin secret and keeps it in sessionStorage, not in the URL', async () => {
    await page.goto(`${proxy.url}/console`);
    expect(new URL(page.url()).pathname).toBe('/gateway/engine/console/');
    await typeInto(page.getByLabel('Admin secret'), 'wrong');
    await page.getByRole('button', { name: 'Enter' }).click();
    await eventually(() => page.getByRole('alert').textContent()).toContain('refused');
    await typeInto(page.getByLabel('Admin secret'), SECRET);
    await page.screenshot({ path: artifact('01-admin-secret.png') });
    await page.getByLabel('Admin secret').press('Enter');
    await page.getByRole('navigation', { name: 'Console sections' }).waitFor();
    expect(page.url()).not.toContain(SECRET);
    expect(await page.evaluate(() => sessionStorage.getItem('engine-console.admin-secret'))).toBe(SECRET);
  });

  it('runs a query in GraphiQL', async () => {
    await page.getByRole('link', { name: 'API explorer' }).click();
    await page.locator('.graphiql-query-editor .monaco-editor').first().waitFor();
    // Nothing is tracked yet: the explorer says so instead of opening on GraphiQL's welcome text.
    await eventually(() => page.getByLabel('Schema of the role').textContent()).toContain('Role admin sees an empty schema');
    expect(await queryText(page)).not.toContain('Welcome to GraphiQL');
    await setQuery(page, 'query { __typename }');
    await page.getByRole('button', { name: /^Execute query/ }).click();
    await eventually(() => responseText(page)).toContain('"__typename": "query_root"');
    await page.screenshot({ path: artifact('02-api-explorer.png') });
    expect(await unnamedControls(page)).toEqual([]);
  });

  it('Data: tracks a table, then all, and adds the relationships suggested by the foreign key', async () => {
    await page.getByRole('link', { name: 'Data', exact: true }).click();
    const untracked = page.getByRole('table', { name: 'Untracked tables and views' });
    await untracked.waitFor();
    await page.getByRole('button', { name: 'Track public.articles' }).click();
    await eventually(() => statusText(page)).toBe('Tracked public.articles');
    await page.getByRole('button', { name: 'Track all' }).click();
    await eventually(() => statusText(page)).toBe('Tracked public.authors');
    await eventually(() => page.getByRole('list', { name: 'Tracked tables' }).innerText()).toContain('public.authors');
    await page.screenshot({ path: artifact('03-data-overview.png') });
    expect(await unnamedControls(page)).toEqual([]);
    await page.getByRole('button', { name: 'Add object relationship author on public.articles' }).click();
    await eventually(() => statusText(page)).toBe('Added the object relationship author on public.articles');
    await page.getByRole('button', { name: 'Add array relationship articles on public.authors' }).click();
    await eventually(() => statusText(page)).toBe('Added the array relationship articles on public.authors');
    await eventually(() => page.getByText('No foreign key between tracked tables lacks a relationship.').count()).toBe(1);
    const res = await engine.graphql('{ authors(order_by: {id: asc}) { name articles(order_by: {id: asc}) { title author { name } } } }');
    expect(res.body).toEqual({
      data: {
        authors: [
          {
            name: 'Ada',
            articles: [
              { title: 'Engines', author: { name: 'Ada' } },
              { title: 'Drafts', author: { name: 'Ada' } },
            ],
          },
          { name: 'Brian', articles: [{ title: 'Compilers', author: { name: 'Brian' } }] },
        ],
      },
    });
  });

  it('Data: lists a table made outside the engine, from the engine introspection, sending no SQL', async () => {
    await db.sql('CREATE TABLE reviews (id int PRIMARY KEY, article_id int NOT NULL REFERENCES articles(id), stars smallint NOT NULL)');
    const before = bodies.length;
    // Away and back: the Data page reads the database again when it opens.
    await page.getByRole('link', { name: 'Metadata' }).click();
    await page.getByRole('link', { name: 'Data', exact: true }).click();
    await eventually(() => page.getByRole('table', { name: 'Untracked tables and views' }).innerText()).toContain('public.reviews');
    const sent = bodies.slice(before);
    expect(sent.some((b) => b.includes('"pg_get_source_trackables"'))).toBe(true);
    expect(sent.some((b) => b.includes('"pg_get_table_info"'))).toBe(true);
    expect(sent.filter((b) => b.includes('run_sql'))).toEqual([]);
  });

  it('Data: sorts, filters and edits a row in the grid', async () => {
    await page.getByRole('list', { name: 'Tracked tables' }).getByRole('link', { name: 'public.articles' }).click();
    const grid = page.getByRole('table', { name: 'Rows of public.articles' });
    await eventually(() => page.getByText('Rows 1–3 of 3').count()).toBe(1);
    // Sorted by the primary key first; by title after a click.
    await page.getByRole('button', { name: 'Sort by title' }).click();
    await eventually(async () => (await grid.locator('tbody tr').first().innerText()).split('\t')[2]).toBe('Compilers');
    await page.getByRole('button', { name: 'Sort by id' }).click();
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 1 column').selectOption('published');
    await typeInto(page.getByLabel('Filter 1 value'), 'true');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await eventually(() => page.getByText('Rows 1–2 of 2').count()).toBe(1);
    await page.getByRole('button', { name: 'Remove filter 1' }).click();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await eventually(() => page.getByText('Rows 1–3 of 3').count()).toBe(1);
    await page.getByRole('button', { name: 'Edit row 1' }).click();
    await typeInto(page.getByLabel('title of row 1'), 'Engines, revised');
    await page.getByRole('button', { name: 'Save row 1' }).click();
    await eventually(() => statusText(page)).toBe('Saved row 1');
    await eventually(() => grid.locator('tbody tr').first().innerText()).toContain('Engines, revised');
    await page.screenshot({ path: artifact('04-data-rows.png') });
    expect(await unnamedControls(page)).toEqual([]);
    expect((await db.sql('SELECT title FROM articles WHERE id = 1')).rows).toEqual([{ title: 'Engines, revised' }]);
  });

  it('Data: inserts and deletes a row, and pages through more rows than a page holds', async () => {
    await page.getByRole('button', { name: 'Insert row' }).click();
    const form = page.getByRole('form', { name: 'Insert a row into public.articles' });
    await typeInto(form.getByLabel(/^title/), 'Parsers');
    await typeInto(form.getByLabel(/^author_id/), '2');
    await form.getByRole('button', { name: 'Save new row' }).click();
    await eventually(() => page.getByText('Rows 1–4 of 4').count()).toBe(1);
    expect((await db.sql("SELECT published FROM articles WHERE title = 'Parsers'")).rows).toEqual([{ published: false }]);
    await page.getByRole('button', { name: 'Delete row 4' }).click();
    await page.getByRole('button', { name: 'Confirm delete of row 4' }).click();
    await eventually(() => page.getByText('Rows 1–3 of 3').count()).toBe(1);
    expect((await db.sql("SELECT count(*)::int AS n FROM articles WHERE title = 'Parsers'")).rows).toEqual([{ n: 0 }]);
    // Eleven more rows: two pages of ten.
    await db.sql("INSERT INTO articles (title, author_id) SELECT 'extra ' || i, 2 FROM generate_series(1, 11) i");
    try {
      await page.getByRole('button', { name: 'Refresh rows' }).click();
      await eventually(() => page.getByText('Rows 1–10 of 14').count()).toBe(1);
      await page.getByRole('button', { name: 'Next page' }).click();
      await eventually(() => page.getByText('Rows 11–14 of 14').count()).toBe(1);
      // The pager's text follows the offset at once; the rows follow when the page is read.
      await eventually(() => page.getByRole('table', { name: 'Rows of public.articles' }).locator('tbody tr').count()).toBe(4);
    } finally {
      await db.sql("DELETE FROM articles WHERE title LIKE 'extra %'");
    }
  });

  it('Data: runs SQL and shows the result as a table', async () => {
    await page.getByRole('link', { name: 'SQL editor' }).click();
    await typeInto(page.getByLabel('SQL', { exact: true }), 'SELECT id, title FROM articles ORDER BY id');
    await page.getByRole('button', { name: 'Run SQL' }).click();
    const result = page.getByRole('table', { name: 'SQL result' });
    await eventually(() => result.innerText()).toContain('Engines, revised');
    expect(await result.locator('tbody tr').count()).toBe(3);
    await page.screenshot({ path: artifact('05-data-sql.png') });
    expect(await unnamedControls(page)).toEqual([]);
  });

  /** What the engine stored (export_metadata over HTTP), not what the page shows. */
  const selectPermissionsOfArticles = async (): Promise<unknown[] | undefined> => {
    const exported = (await engine.metadata({ type: 'export_metadata', version: 2, args: {} })).body as {
      metadata: { sources: Array<{ tables: Array<{ table: { name: string }; select_permissions?: unknown[] }> }> };
    };
    return exported.metadata.sources[0]!.tables.find((t) => t.table.name === 'articles')!.select_permissions;
  };

  it('Permissions: writes a select permission for a new role in the editor', async () => {
    await page.getByRole('link', { name: 'Permissions' }).click();
    await page.getByRole('list', { name: 'Tables' }).getByRole('link', { name: 'public.articles' }).click();
    await typeInto(page.getByLabel('New role'), 'user');
    await page.getByRole('button', { name: 'Add role' }).click();
    await page.getByRole('button', { name: 'select permission of user: none' }).click();
    const editor = page.getByRole('region', { name: 'Edit select permission of user on public.articles' });
    // Typed key by key, each value must stay as typed (it once became `truerue` and `999`).
    await editor.getByRole('button', { name: 'Add condition' }).click();
    await editor.getByLabel('Row filter condition 1 column').selectOption('published');
    await typeInto(editor.getByLabel('Row filter condition 1 value'), 'true');
    await editor.getByRole('button', { name: 'Add condition' }).click();
    await editor.getByLabel('Row filter condition 2 column').selectOption('price');
    await editor.getByLabel('Row filter condition 2 operator').selectOption('_gte');
    // Text that is no number is refused with the reason, not sent as a string.
    await typeInto(editor.getByLabel('Row filter condition 2 value'), '9,99');
    await editor.getByRole('button', { name: 'Save permission' }).click();
    await eventually(() => editor.getByRole('alert').first().textContent()).toContain('"9,99" is not a number');
    expect(await selectPermissionsOfArticles()).toBeUndefined();
    await typeInto(editor.getByLabel('Row filter condition 2 value'), '9.99');
    expect(JSON.parse(await editor.getByLabel('Row filter (JSON)').inputValue())).toEqual({ _and: [{ published: { _eq: true } }, { price: { _gte: 9.99 } }] });
    await editor.getByLabel('id', { exact: true }).check();
    await editor.getByLabel('title', { exact: true }).check();
    await typeInto(editor.getByLabel('Limit'), '10');
    await editor.getByRole('button', { name: 'Save permission' }).click();
    await eventually(() => statusText(editor)).toBe('Saved select permission of user on public.articles');
    await eventually(() => page.getByRole('button', { name: 'select permission of user: partial' }).count()).toBe(1);
    await page.screenshot({ path: artifact('06-permissions.png') });
    expect(await unnamedControls(page)).toEqual([]);
    expect(await selectPermissionsOfArticles()).toEqual([
      {
        role: 'user',
        permission: {
          columns: ['id', 'title'],
          filter: { _and: [{ published: { _eq: true } }, { price: { _gte: 9.99 } }] },
          limit: 10,
          allow_aggregations: false,
        },
      },
    ]);
  });

  it('Permissions: an insert permission keeps the typed check and column preset exactly', async () => {
    await page.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'insert permission of user: none' }).click();
    const editor = page.getByRole('region', { name: 'Edit insert permission of user on public.articles' });
    await editor.getByRole('button', { name: 'Add condition' }).click();
    await editor.getByLabel('Row check condition 1 column').selectOption('published');
    await typeInto(editor.getByLabel('Row check condition 1 value'), 'true');
    await editor.getByLabel('title', { exact: true }).check();
    await editor.getByLabel('published', { exact: true }).check();
    await editor.getByRole('button', { name: 'Add preset' }).click();
    await editor.getByLabel('Preset 1 column').selectOption('price');
    await typeInto(editor.getByLabel('Preset 1 value'), 'nine');
    await editor.getByRole('button', { name: 'Save permission' }).click();
    await eventually(() => editor.getByRole('alert').textContent()).toBe('Column preset 1: "nine" is not a number (column price is numeric)');
    await typeInto(editor.getByLabel('Preset 1 value'), '9.99');
    await editor.getByRole('button', { name: 'Save permission' }).click();
    await eventually(() => statusText(editor)).toBe('Saved insert permission of user on public.articles');
    const exported = (await engine.metadata({ type: 'export_metadata', version: 2, args: {} })).body as {
      metadata: { sources: Array<{ tables: Array<{ table: { name: string }; insert_permissions?: unknown[] }> }> };
    };
    expect(exported.metadata.sources[0]!.tables.find((t) => t.table.name === 'articles')!.insert_permissions).toEqual([
      { role: 'user', permission: { check: { published: { _eq: true } }, columns: ['title', 'published'], set: { price: 9.99 }, backend_only: false } },
    ]);
  });

  it('API explorer: a query as that role sees only the permitted rows; the SQL is shown', async () => {
    // GraphiQL keeps the last query in localStorage; without one it opens on a query of the role's own schema.
    await page.evaluate(() => localStorage.clear());
    await page.getByRole('link', { name: 'API explorer' }).click();
    await page.locator('.graphiql-query-editor .monaco-editor').first().waitFor();
    await eventually(() => queryText(page)).toContain('articles(limit: 10)');
    const sample = /articles\(limit: 10\) \{([^}]*)\}/
      .exec(await queryText(page))?.[1]
      ?.trim()
      .split(/\s+/);
    expect(sample?.sort()).toEqual(['author_id', 'id', 'price', 'published', 'title']);
    // The roles the metadata knows are offered; a role it does not know is typed, and an empty schema is said so.
    await page.getByLabel('Role', { exact: true }).selectOption('Other role…');
    await typeInto(page.getByLabel('Other role'), 'nobody');
    await eventually(() => page.getByLabel('Schema of the role').textContent()).toContain('Role nobody sees an empty schema');
    // The query in the editor stays when the role changes (GraphiQL keeps it).
    await page.getByLabel('Role', { exact: true }).selectOption('user');
    await eventually(() => page.getByLabel('Headers sent').innerText()).toContain('x-engine-role: user');
    await page.locator('.graphiql-query-editor .monaco-editor').first().waitFor();
    expect(await page.getByLabel('Schema of the role').count()).toBe(0);
    await setQuery(page, 'query { articles(order_by: {id: asc}) { title } }');
    await page.getByRole('button', { name: /^Execute query/ }).click();
    await eventually(() => responseText(page)).toContain('Compilers');
    const text = await responseText(page);
    expect(text).toContain('"title": "Engines, revised"');
    expect(text).not.toContain('Drafts');
    await page.getByRole('button', { name: 'Show Generated SQL (explain)' }).click();
    await page.getByRole('button', { name: 'Explain query' }).click();
    await eventually(() => page.getByLabel('SQL of articles').textContent()).toMatch(/SELECT/i);
    expect(await page.getByLabel('SQL of articles').textContent()).toContain('published');
    await page.screenshot({ path: artifact('07-api-explorer-role.png') });
  });

  it('API explorer: a subscription streams changes over the WebSocket', async () => {
    await page.getByLabel('Role', { exact: true }).selectOption('admin');
    await eventually(() => page.getByLabel('Headers sent').innerText()).not.toContain('x-engine-role');
    await page.locator('.graphiql-query-editor .monaco-editor').first().waitFor();
    await setQuery(page, 'subscription { authors(order_by: {id: asc}) { name } }');
    await page.getByRole('button', { name: /^Execute query/ }).click();
    await eventually(() => responseText(page)).toContain('"name": "Brian"');
    await db.sql("UPDATE authors SET name = 'Brian K.' WHERE id = 2");
    await eventually(() => responseText(page)).toContain('"name": "Brian K."');
    await page.screenshot({ path: artifact('08-api-explorer-subscription.png') });
    await page.getByRole('button', { name: /^Stop query/ }).click();
  });

  it('Metadata: shows the inconsistency a column drop makes, drops it, exports and imports', async () => {
    // A permission that reads the column, made over the API.
    const perm = await engine.metadata({
      type: 'pg_create_select_permission',
      args: { source: 'default', table: 'articles', role: 'editor', permission: { columns: ['id'], filter: { author_id: { _eq: 1 } } } },
    });
    expect(perm.status).toBe(200);
    // Dropped outside the engine, as a migration tool would: both relationships and the permission lose their column.
    await db.sql('ALTER TABLE articles DROP COLUMN author_id');
    // Flagged in plain sight: the header's count, the table in the sidebar, the permission's cell.
    await page.getByRole('link', { name: 'Data', exact: true }).click();
    await eventually(() => page.getByRole('link', { name: '3 inconsistent objects', exact: true }).count()).toBe(1);
    const mark = page.getByRole('list', { name: 'Tracked tables' }).getByRole('link', { name: /^public\.articles is inconsistent: / });
    await eventually(() => mark.getAttribute('aria-label')).toContain('author_id');
    await page.getByRole('link', { name: 'Permissions' }).click();
    await page.getByRole('list', { name: 'Tables' }).getByRole('link', { name: 'public.articles', exact: true }).click();
    await page.getByRole('button', { name: 'select permission of editor: inconsistent' }).click();
    await eventually(() => page.getByRole('note', { name: 'Why this permission is inconsistent' }).textContent()).toContain('author_id');
    // A consistent permission beside it keeps its summary.
    expect(await page.getByRole('button', { name: 'select permission of user: partial' }).count()).toBe(1);
    await page.screenshot({ path: artifact('09-permissions-inconsistent.png') });
    await page.getByRole('link', { name: /inconsistent objects$/ }).click();
    const table = page.getByRole('table', { name: 'Inconsistent objects' });
    await eventually(() => table.innerText()).toContain('author_id');
    await page.screenshot({ path: artifact('09-metadata-inconsistent.png') });
    await page.getByRole('button', { name: 'Drop inconsistent objects' }).click();
    await eventually(() => page.getByText('The metadata is consistent.').count()).toBe(1);
    expect(await page.getByRole('link', { name: /inconsistent objects?$/ }).count()).toBe(0);
    expect(((await engine.metadata({ type: 'get_inconsistent_metadata', args: {} })).body as { is_consistent: boolean }).is_consistent).toBe(true);
    const before = Number(await page.getByLabel('Resource version').textContent());
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export metadata' }).click()]);
    const file = await download.path();
    const exported = JSON.parse((await import('node:fs')).readFileSync(file, 'utf8')) as { sources: Array<{ tables: unknown[] }> };
    expect(exported.sources[0]!.tables).toHaveLength(2);
    await page.locator('#metadata-import').setInputFiles(file);
    await eventually(() => statusText(page)).toMatch(/^Imported /);
    await eventually(async () => Number(await page.getByLabel('Resource version').textContent())).toBeGreaterThan(before);
    await page.screenshot({ path: artifact('10-metadata.png') });
    expect(await unnamedControls(page)).toEqual([]);
  });

  it('is usable from the keyboard: the sections are reachable with Tab and Enter', async () => {
    await page.goto(`${proxy.url}/console/#/metadata`);
    await page.getByRole('navigation', { name: 'Console sections' }).waitFor();
    await page.keyboard.press('Tab');
    let focused = '';
    // The hash change keeps the focus of the last step on the Metadata page, so Tab goes through the
    // rest of that page's controls (the API limits form) before it wraps to the sections.
    for (let i = 0; i < 60 && focused !== 'Data'; i++) {
      focused = await page.evaluate<string>("(document.activeElement?.textContent ?? '').trim()");
      if (focused !== 'Data') await page.keyboard.press('Tab');
    }
    expect(focused).toBe('Data');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Source default' }).waitFor();
    expect(await page.getByRole('link', { name: 'Data', exact: true }).getAttribute('aria-current')).toBe('page');
  });

  it('made no request outside the prefix or the origin, and no page error', () => {
    expect(outside).toEqual([]);
    // No page reads the catalog with SQL: the only run_sql is the one typed into the SQL editor.
    expect(bodies.filter((b) => /pg_catalog|information_schema/.test(b))).toEqual([]);
    expect(bodies.filter((b) => b.includes('"run_sql"')).map((b) => (JSON.parse(b) as { args: { sql: string } }).args.sql)).toEqual([
      'SELECT id, title FROM articles ORDER BY id',
    ]);
    expect(proxy.escaped).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
