/**
 * Screenshots of every console page, to look at before calling a console change done (issue 37):
 *
 *   node test/support/console-screenshots.ts <out-dir> [--sizes 1280x800,1920x1080] [--database-url URL]
 *
 * Starts a PostgreSQL (embedded, unless --database-url names one to make a scratch database on),
 * seeds a small schema with one of everything the console edits (tables and a 9-column one,
 * relationships, permissions, a computed field, an action with a relationship and transforms,
 * an event trigger, a cron trigger, a query collection with an allow-list entry and a REST
 * endpoint, a remote schema, an inherited role, API limits, a second source), starts an engine
 * with the console and opens it in the system Chromium. Then per size it visits each page of the
 * route table, every link of that page's sidebar and every tab of those, and writes one PNG per
 * view: `<width>x<height>-<nn>-<view>.png`. Not part of `npm test`: a person runs it and looks.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { Page } from 'playwright-core';
import { buildConsole, consoleBuildIsStale } from '../../engine/console/build.ts';
import { launchBrowser, systemChromium } from './browser.ts';
import { signIn } from './console-page.ts';
import { startTestEngine } from './engine.ts';
import { startServer as startPostgres } from './global-setup.ts';
import { startGraphqlServer } from './graphql-server.ts';
import { startTestServer } from './http-server.ts';

const SECRET = 'console-screenshots';
/** Each view settles within this (no request in flight for `QUIET_MS`), or is taken as it is. */
const SETTLE_MS = 10_000;
const QUIET_MS = 1_200;

const SEED_SQL = `
  CREATE TABLE authors (id serial PRIMARY KEY, name text NOT NULL, born int);
  INSERT INTO authors (name, born) VALUES ('Ada Lovelace', 1815), ('Alan Turing', 1912), ('Grace Hopper', 1906);
  CREATE TABLE books (id serial PRIMARY KEY, title text NOT NULL, author_id int NOT NULL REFERENCES authors(id), price numeric(8,2));
  INSERT INTO books (title, author_id, price) VALUES ('Notes', 1, 9.99), ('Computing Machinery', 2, 12.50), ('Compilers', 3, 30);
  CREATE TABLE shipments (id serial PRIMARY KEY, order_ref text NOT NULL, carrier text, tracking_number text, origin_city text,
    destination_city text, weight_kg numeric, shipped_at timestamptz DEFAULT now(), delivered boolean DEFAULT false);
  INSERT INTO shipments (order_ref, carrier, tracking_number, origin_city, destination_city, weight_kg)
    VALUES ('ORD-1001', 'Parcel Express International', 'PX-99812377123', 'Rotterdam', 'Buenos Aires', 12.5);
  CREATE FUNCTION author_label(a authors) RETURNS text LANGUAGE sql STABLE AS $$ SELECT a.name || ' (' || a.born || ')' $$;
  CREATE FUNCTION search_authors(q text) RETURNS SETOF authors LANGUAGE sql STABLE AS $$ SELECT * FROM authors WHERE name ILIKE '%' || q || '%' $$;
`;

function sizesOf(text: string): Array<{ width: number; height: number }> {
  return text.split(',').map((s) => {
    const m = /^(\d+)x(\d+)$/.exec(s.trim());
    if (m === null) throw new Error(`--sizes takes WIDTHxHEIGHT,…; not ${JSON.stringify(s)}`);
    return { width: Number(m[1]), height: Number(m[2]) };
  });
}

async function seed(engineMetadata: (body: unknown) => Promise<{ status: number; text: string }>, handlerUrl: string, remoteUrl: string, dbUrl: string) {
  const calls: unknown[] = [
    { type: 'pg_track_table', args: { table: { schema: 'public', name: 'authors' } } },
    { type: 'pg_track_table', args: { table: { schema: 'public', name: 'books' } } },
    { type: 'pg_track_table', args: { table: { schema: 'public', name: 'shipments' } } },
    {
      type: 'pg_create_object_relationship',
      args: { table: { schema: 'public', name: 'books' }, name: 'author', using: { foreign_key_constraint_on: 'author_id' } },
    },
    {
      type: 'pg_create_array_relationship',
      args: {
        table: { schema: 'public', name: 'authors' },
        name: 'books',
        using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'books' }, columns: ['author_id'] } },
      },
    },
    { type: 'pg_track_function', args: { function: { schema: 'public', name: 'search_authors' } } },
    {
      type: 'pg_add_computed_field',
      args: { table: { schema: 'public', name: 'authors' }, name: 'label', definition: { function: { schema: 'public', name: 'author_label' } } },
    },
    {
      type: 'pg_create_select_permission',
      args: { table: { schema: 'public', name: 'books' }, role: 'user', permission: { columns: ['id', 'title'], filter: { price: { _lt: 20 } }, limit: 10 } },
    },
    { type: 'pg_create_select_permission', args: { table: { schema: 'public', name: 'authors' }, role: 'editor', permission: { columns: '*', filter: {} } } },
    { type: 'add_inherited_role', args: { role_name: 'staff', role_set: ['user', 'editor'] } },
    {
      type: 'set_custom_types',
      args: {
        objects: [
          {
            name: 'AuthorOut',
            fields: [
              { name: 'author_id', type: 'Int!' },
              { name: 'note', type: 'String' },
            ],
            relationships: [
              { name: 'author', type: 'object', source: 'default', remote_table: { schema: 'public', name: 'authors' }, field_mapping: { author_id: 'id' } },
            ],
          },
        ],
      },
    },
    {
      type: 'create_action',
      args: {
        name: 'findAuthor',
        definition: {
          type: 'query',
          kind: 'synchronous',
          arguments: [{ name: 'id', type: 'Int!' }],
          output_type: 'AuthorOut',
          handler: `${handlerUrl}find`,
          request_transform: { version: 2, template_engine: 'Kriti', url: '{{$base_url}}/authors/{{$body.input.id}}' },
        },
      },
    },
    { type: 'create_action_permission', args: { action: 'findAuthor', role: 'user' } },
    {
      type: 'pg_create_event_trigger',
      args: { name: 'book_added', table: { schema: 'public', name: 'books' }, webhook: `${handlerUrl}hook`, insert: { columns: '*' }, enable_manual: true },
    },
    {
      type: 'create_cron_trigger',
      args: { name: 'nightly_report', webhook: `${handlerUrl}cron`, schedule: '0 3 * * *', payload: { report: 'daily' }, include_in_metadata: true },
    },
    {
      type: 'create_query_collection',
      args: {
        name: 'app_queries',
        definition: { queries: [{ name: 'books_by_author', query: 'query ($id: Int!) { books(where: {author_id: {_eq: $id}}) { title } }' }] },
      },
    },
    { type: 'add_collection_to_allowlist', args: { collection: 'app_queries' } },
    {
      type: 'create_rest_endpoint',
      args: {
        name: 'books_by_author',
        url: 'authors/:id/books',
        methods: ['GET'],
        definition: { query: { collection_name: 'app_queries', query_name: 'books_by_author' } },
      },
    },
    { type: 'add_remote_schema', args: { name: 'greetings', definition: { url: remoteUrl, timeout_seconds: 10 } } },
    { type: 'set_api_limits', args: { depth_limit: { global: 10, per_role: { user: 5 } } } },
    { type: 'pg_add_source', args: { name: 'reporting', configuration: { connection_info: { database_url: dbUrl, pool_settings: { max_connections: 5 } } } } },
  ];
  const r = await engineMetadata({ type: 'bulk', args: calls });
  if (r.status !== 200) throw new Error(`seeding failed: ${r.text}`);
  await engineMetadata({ type: 'pg_invoke_event_trigger', args: { name: 'book_added', payload: { id: 1, title: 'Notes' } } });
}

/** The engine's API calls in flight (`/v1/…`, `/api/rest/…`) and when the last one began or ended. */
interface Inflight {
  readonly pending: Set<string>;
  last: number;
}

/** Waits until no API call has been in flight for QUIET_MS (bounded by SETTLE_MS; then says which were). */
async function settle(page: Page, inflight: Inflight, what: string): Promise<void> {
  const until = Date.now() + SETTLE_MS;
  while (Date.now() < until) {
    if (inflight.pending.size === 0 && Date.now() - inflight.last >= QUIET_MS) return;
    await page.waitForTimeout(50);
  }
  console.log(`[console-screenshots] ${what}: still waiting for ${[...inflight.pending].join(', ')}; taken as it is`);
}

async function hrefs(page: Page, selector: string): Promise<string[]> {
  // A string: the root tsconfig has no DOM library (as console-page.ts's checks).
  const all = await page.evaluate<string[]>(`[...document.querySelectorAll(${JSON.stringify(selector)})].map((a) => a.getAttribute('href') ?? '')`);
  return all.filter((h) => h.startsWith('#/'));
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { sizes: { type: 'string', default: '1280x800,1920x1080' }, 'database-url': { type: 'string' } },
  });
  const out = positionals[0];
  if (out === undefined) throw new Error('usage: node test/support/console-screenshots.ts <out-dir> [--sizes 1280x800,1920x1080] [--database-url URL]');
  const sizes = sizesOf(values.sizes);
  const chromium = systemChromium();
  if (chromium === null) throw new Error('no Chromium: apt-get install chromium, or set CHROMIUM_PATH');
  mkdirSync(out, { recursive: true });
  if (consoleBuildIsStale()) await buildConsole();

  const stops: Array<() => Promise<unknown>> = [];
  try {
    let adminUrl = values['database-url'];
    if (adminUrl === undefined) {
      const server = await startPostgres();
      stops.unshift(() => server.stop());
      adminUrl = server.url;
    }
    const dbName = `console_screenshots_${Date.now()}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    stops.unshift(async () => {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await c.end();
    });
    await admin.end();
    const u = new URL(adminUrl);
    u.pathname = `/${dbName}`;
    const dbUrl = u.toString();
    const client = new pg.Client({ connectionString: dbUrl });
    await client.connect();
    await client.query(SEED_SQL);
    await client.end();

    const handler = await startTestServer((_req, _body, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"author_id": 1}'));
    stops.unshift(() => handler.close());
    const remote = await startGraphqlServer('type Query { hello(name: String!): String! }', { hello: ({ name }: { name: string }) => `Hello ${name}` });
    stops.unshift(() => remote.close());
    const engine = await startTestEngine({ databaseUrl: dbUrl, adminSecret: SECRET, enableConsole: true });
    stops.unshift(() => engine.close());
    await seed((b) => engine.metadata(b), handler.url, remote.url, dbUrl);

    const browser = await launchBrowser(chromium);
    stops.unshift(() => browser.close());
    let written = 0;
    for (const size of sizes) {
      const context = await browser.newContext({ viewport: size, locale: 'en-US' });
      const page = await context.newPage();
      const inflight: Inflight = { pending: new Set(), last: Date.now() };
      let ids = 0;
      const key = new WeakMap<object, string>();
      const api = (url: string) => /\/(v1|api\/rest)\//.test(new URL(url).pathname);
      page.on('request', (r) => {
        if (!api(r.url())) return;
        const k = `${r.method()} ${new URL(r.url()).pathname}#${++ids}`;
        key.set(r, k);
        inflight.pending.add(k);
        inflight.last = Date.now();
      });
      const done = (r: object) => {
        const k = key.get(r);
        if (k === undefined) return;
        inflight.pending.delete(k);
        inflight.last = Date.now();
      };
      // What goes wrong in the page is said, with the view it happened on.
      let at = 'login';
      page.on('pageerror', (e) => console.log(`[console-screenshots] ${at}: page error: ${String(e)}`));
      page.on('console', (m) => {
        if (m.type() === 'error') console.log(`[console-screenshots] ${at}: console error: ${m.text()}`);
      });
      page.on('requestfailed', (r) => console.log(`[console-screenshots] ${at}: request failed: ${r.url()}`));
      page.on('requestfinished', done);
      page.on('requestfailed', done);
      await page.goto(`${engine.url}/console/`);
      await signIn(page, SECRET);
      const top = await hrefs(page, 'nav[aria-label="Console sections"] a');
      const seen = new Set<string>();
      const queue: Array<{ href: string; depth: number }> = top.map((href) => ({ href, depth: 0 }));
      let n = 0;
      while (queue.length > 0) {
        const { href, depth } = queue.shift()!;
        if (seen.has(href)) continue;
        seen.add(href);
        at = href;
        await page.evaluate(`location.hash = ${JSON.stringify(href)}`);
        // A page draws its heading once what it shows has come (a quiet network alone is not enough:
        // a page may ask for more after a render); then the asking it led to settles too.
        await page
          .locator('main h1, main .graphiql-container, main [role=alert]')
          .first()
          .waitFor({ timeout: SETTLE_MS })
          .catch(() => console.log(`[console-screenshots] ${href}: no heading within ${SETTLE_MS} ms; taken as it is`));
        await settle(page, inflight, href);
        const name = `${size.width}x${size.height}-${String(++n).padStart(2, '0')}-${
          href
            .replace(/^#\//, '')
            .replace(/[^a-zA-Z0-9]+/g, '_')
            .replace(/_+$/, '') || 'home'
        }.png`;
        await page.screenshot({ path: path.join(out, name) });
        written++;
        // A page's sidebar (its items) and an item's tabs; the ⚠ marks lead to the Metadata page.
        if (depth === 0) for (const h of await hrefs(page, '.sidebar a:not(.incons-mark)')) queue.push({ href: h, depth: 1 });
        if (depth <= 1) for (const h of await hrefs(page, 'nav.tabs a')) queue.push({ href: h, depth: 2 });
      }
      await context.close();
    }
    console.log(`[console-screenshots] wrote ${written} screenshots to ${path.resolve(out)}`);
  } finally {
    for (const stop of stops) await stop().catch((e: unknown) => console.error('[console-screenshots] cleanup:', e));
  }
}

await main();
