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
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { artifact, launchBrowser, systemChromium } from '../../support/browser.ts';
import { startPrefixProxy, type PrefixProxy } from '../../support/prefix-proxy.ts';
import { buildConsole, consoleBuildIsStale } from '../../../engine/console/build.ts';

const SECRET = 'console-s3cret';
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
    CREATE TABLE articles (id serial PRIMARY KEY, title text NOT NULL, author_id int NOT NULL REFERENCES authors(id), published boolean NOT NULL DEFAULT false);
    INSERT INTO authors (name) VALUES ('Ada'), ('Brian');
    INSERT INTO articles (title, author_id, published) VALUES ('Engines', 1, true), ('Drafts', 1, false), ('Compilers', 2, true);
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

  it('answers 404 in v2 shape for an unknown asset', async () => {
    const res = await fetch(`${engine.url}/console/assets/nope.js`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: 'not-found' });
  });
});

/** Types into GraphiQL's query editor (Monaco): select all, then insert the text as one edit. */
async function setQuery(page: Page, query: string): Promise<void> {
  await page.locator('.graphiql-query-editor .monaco-editor').first().click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(query);
}

async function responseText(page: Page): Promise<string> {
  return (await page.locator('.graphiql-response .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
}

describe.skipIf(chromiumPath === null)('console in a browser, behind a path prefix', () => {
  let browser: Browser;
  let page: Page;
  let proxy: PrefixProxy;
  const outside: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    proxy = await startPrefixProxy(engine.url, '/gateway/engine');
    browser = await launchBrowser(chromiumPath!);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.setDefaultTimeout(20_000);
    const origin = new URL(proxy.url).origin;
    page.on('request', (r) => {
      if (!r.url().startsWith(origin) && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) outside.push(r.url());
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
    await page.getByLabel('Admin secret').fill('wrong');
    await page.getByRole('button', { name: 'Enter' }).click();
    await expect.poll(() => page.getByRole('alert').textContent(), { timeout: 20_000 }).toContain('refused');
    await page.getByLabel('Admin secret').fill(SECRET);
    await page.screenshot({ path: artifact('01-admin-secret.png') });
    await page.getByLabel('Admin secret').press('Enter');
    await page.getByRole('navigation', { name: 'Console sections' }).waitFor();
    expect(page.url()).not.toContain(SECRET);
    expect(await page.evaluate(() => sessionStorage.getItem('engine-console.admin-secret'))).toBe(SECRET);
  });

  it('runs a query in GraphiQL', async () => {
    await page.getByRole('link', { name: 'API explorer' }).click();
    await page.locator('.graphiql-query-editor .monaco-editor').first().waitFor();
    await setQuery(page, 'query { __typename }');
    await page.getByRole('button', { name: /^Execute query/ }).click();
    await expect.poll(() => responseText(page), { timeout: 20_000 }).toContain('"__typename": "query_root"');
    await page.screenshot({ path: artifact('02-api-explorer.png') });
  });

  it('made no request outside the prefix or the origin, and no page error', () => {
    expect(outside).toEqual([]);
    expect(proxy.escaped).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
