/**
 * The console's editors of what was API-only, in headless Chromium against a real engine with an
 * admin secret: an existing source's configuration (`pg_update_source`), request and response
 * transforms of an action and an event trigger with the engine's live preview
 * (`test_webhook_transform`), and action relationships (the output type's relationships to a
 * table); a source's connection and SSL settings; a one-off event's request transform, previewed
 * and delivered. Every field is typed key by key; each effect is checked through export_metadata, the
 * preview through what the engine computed. Screenshots go to test/artifacts/console/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { artifact, launchBrowser, systemChromium } from '../../support/browser.ts';
import { consoleViewport, signIn, typeInto, unnamedControls, statusText } from '../../support/console-page.ts';
import { startTestServer, type TestServer } from '../../support/http-server.ts';
import { buildConsole, consoleBuildIsStale } from '../../../engine/console/build.ts';

const SECRET = 'console-editors-s3cret';
/** Every wait is bounded: 30 s covers a page action on two busy cores. */
const WAIT_MS = 30_000;
const eventually = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: WAIT_MS, interval: 100 });
const chromiumPath = systemChromium();
if (chromiumPath === null && process.env['CI'] === 'true') throw new Error('CI=true but no Chromium: .ci/run should have installed it');

type Json = Record<string, unknown>;
type Exported = {
  sources: Array<{ name: string; configuration: Json; customization?: Json; tables: Array<{ table: { name: string }; event_triggers?: Json[] }> }>;
  actions?: Array<{ name: string; definition: Json }>;
  custom_types?: { objects?: Array<{ name: string; relationships?: Json[] }> };
  cron_triggers?: Json[];
};

let db: TestDatabase;
/** A second database the `extra` source is moved to. */
let other: TestDatabase;
let engine: TestEngine;
/** The environment variable the `extra` source's URL is moved to. */
const EXTRA_URL_ENV = 'CONSOLE_EDITORS_EXTRA_URL';
let handler: TestServer;

async function exported(): Promise<Exported> {
  return ((await engine.metadata({ type: 'export_metadata', version: 2, args: {} })).body as { metadata: Exported }).metadata;
}

beforeAll(async () => {
  if (consoleBuildIsStale()) await buildConsole();
  db = await createTestDatabase('console_editors');
  other = await createTestDatabase('console_editors_other');
  process.env[EXTRA_URL_ENV] = db.url;
  await db.sql(`
    CREATE TABLE authors (id serial PRIMARY KEY, name text NOT NULL);
    INSERT INTO authors (name) VALUES ('Ada'), ('Alan');
    CREATE TABLE books (id serial PRIMARY KEY, title text NOT NULL, author_id int NOT NULL REFERENCES authors(id));
    INSERT INTO books (title, author_id) VALUES ('Notes', 1), ('Computing', 2), ('Engines', 1);
  `);
  // The action handler (`/find…`): the author whose id it is given, as v2's payload or as the
  // transformed body `{author}`; any other path is the event trigger's webhook.
  handler = await startTestServer((req, body, res) => {
    if (!(req.url ?? '').startsWith('/find')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    const sent = JSON.parse(body) as { input?: { id: number }; author?: number };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ author_id: sent.input?.id ?? sent.author, note: 'found' }));
  });
  engine = await startTestEngine({ databaseUrl: db.url, adminSecret: SECRET, enableConsole: true });
  // Set-up, not under test: tracked tables, a second source, an action and an event trigger.
  const setUp = await engine.metadata({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: 'authors' } } },
      { type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: 'books' } } },
      { type: 'pg_add_source', args: { name: 'extra', configuration: { connection_info: { database_url: db.url, pool_settings: { retries: 2 } } } } },
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
            handler: `${handler.url}find`,
          },
        },
      },
      {
        type: 'pg_create_event_trigger',
        args: { source: 'default', name: 'book_added', table: { schema: 'public', name: 'books' }, webhook: `${handler.url}hook`, insert: { columns: '*' } },
      },
      {
        type: 'create_cron_trigger',
        args: { name: 'nightly', webhook: `${handler.url}cron`, schedule: '0 3 * * *', payload: { report: 'daily' }, include_in_metadata: true },
      },
    ],
  });
  expect(setUp.status).toBe(200);
}, 180_000);

afterAll(async () => {
  await engine?.close();
  await handler?.close();
  await db?.drop();
  await other?.drop();
  delete process.env[EXTRA_URL_ENV];
});

/** The database a source's queries reach, asked through the engine. */
async function databaseOf(source: string): Promise<string> {
  const r = await engine.post('/v2/query', { type: 'run_sql', args: { source, sql: 'SELECT current_database()' } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (r.body as { result: string[][] }).result[1]![0]!;
}

describe.skipIf(chromiumPath === null)('console editors in a browser', { timeout: 120_000 }, () => {
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
    await browser?.close();
    expect(pageErrors).toEqual([]);
  });

  it('Sources: changes the pool, isolation level, a read replica and the customization of an existing source', async () => {
    await page.getByRole('link', { name: 'Data', exact: true }).click();
    await page.getByRole('link', { name: 'Manage sources' }).click();
    await page.getByRole('button', { name: 'Configure source extra' }).click();
    const form = page.getByRole('form', { name: 'Configure source extra' });
    // What the source had is shown.
    expect(await form.getByLabel('Connection retries').inputValue()).toBe('2');
    await typeInto(form.getByLabel('Max connections', { exact: true }), '7');
    await typeInto(form.getByLabel('Idle timeout (seconds)'), '30');
    await form.getByLabel('Isolation level').selectOption('repeatable-read');
    await form.getByRole('button', { name: 'Add read replica' }).click();
    await form.getByLabel('Read replica 1 connection').waitFor();
    await form.getByRole('checkbox', { name: 'from the environment' }).check();
    await typeInto(form.getByLabel('Read replica 1 environment variable'), 'EXTRA_REPLICA_URL');
    await typeInto(form.getByLabel('Read replica 1 max connections'), '3');
    await typeInto(form.getByLabel('Root field namespace'), 'extra_ns');
    await typeInto(form.getByLabel('Type name prefix'), 'X_');
    await form.getByRole('button', { name: 'Save configuration' }).click();
    await eventually(() => statusText(form)).toBe('Saved the configuration of extra');
    await page.screenshot({ path: artifact('32-data-source-configuration.png') });
    expect(await unnamedControls(page)).toEqual([]);
    const extra = (await exported()).sources.find((s) => s.name === 'extra')!;
    expect(extra.configuration).toEqual({
      connection_info: {
        database_url: db.url,
        pool_settings: { retries: 2, max_connections: 7, idle_timeout: 30 },
        isolation_level: 'repeatable-read',
      },
      read_replicas: [{ database_url: { from_env: 'EXTRA_REPLICA_URL' }, pool_settings: { max_connections: 3 } }],
    });
    expect(extra.customization).toEqual({ root_fields: { namespace: 'extra_ns' }, type_names: { prefix: 'X_' } });
  });

  it('Sources: a value the engine refuses shows its error and changes nothing', async () => {
    const form = page.getByRole('form', { name: 'Configure source extra' });
    const before = (await exported()).sources.find((s) => s.name === 'extra')!;
    await typeInto(form.getByLabel('Max connections', { exact: true }), '0');
    await form.getByRole('button', { name: 'Save configuration' }).click();
    await eventually(() => form.getByRole('alert').textContent()).toMatch(/max_connections/);
    expect((await exported()).sources.find((s) => s.name === 'extra')).toEqual(before);
    // A namespace that is no GraphQL name: the engine's reason, nothing changed.
    await typeInto(form.getByLabel('Max connections', { exact: true }), '7');
    await typeInto(form.getByLabel('Root field namespace'), 'extra-ns');
    await form.getByRole('button', { name: 'Save configuration' }).click();
    await eventually(() => form.getByRole('alert').textContent()).toMatch(/namespace/);
    expect((await exported()).sources.find((s) => s.name === 'extra')).toEqual(before);
  });

  it("Sources: moves an existing source's connection to another URL, then to an environment variable with SSL settings", async () => {
    const form = page.getByRole('form', { name: 'Configure source extra' });
    // Afresh: the last test left refused values in the form.
    await form.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'Configure source extra' }).click();
    const extra = async () => (await exported()).sources.find((s) => s.name === 'extra')!;
    const before = await extra();
    expect(await form.getByLabel('Database URL given as').inputValue()).toBe('value');
    expect(await form.getByLabel('Database URL', { exact: true }).inputValue()).toBe(db.url);
    expect(await databaseOf('extra')).toBe(db.name);

    // By value: the engine now reaches the other database.
    await typeInto(form.getByLabel('Database URL', { exact: true }), other.url);
    await form.getByRole('button', { name: 'Save configuration' }).click();
    await eventually(() => statusText(form)).toBe('Saved the configuration of extra');
    const info = (before.configuration['connection_info'] ?? {}) as Json;
    expect((await extra()).configuration).toEqual({ ...before.configuration, connection_info: { ...info, database_url: other.url } });
    expect(await databaseOf('extra')).toBe(other.name);

    // From the environment, with SSL settings; a certificate without a mode is refused in the page.
    await form.getByLabel('Database URL given as').selectOption('env');
    await typeInto(form.getByLabel('Database URL environment variable'), EXTRA_URL_ENV);
    await typeInto(form.getByLabel('Root certificate (environment variable)'), 'EXTRA_SSL_ROOT_CERT');
    await form.getByRole('button', { name: 'Save configuration' }).click();
    await eventually(() => form.getByRole('alert').textContent()).toBe('Choose an SSL mode for the SSL certificate settings');
    expect(await databaseOf('extra')).toBe(other.name);
    // The test database takes no SSL: `disable` is what it can connect with.
    await form.getByLabel('SSL mode').selectOption('disable');
    await typeInto(form.getByLabel('Client certificate (environment variable)'), 'EXTRA_SSL_CERT');
    await typeInto(form.getByLabel('Client key (environment variable)'), 'EXTRA_SSL_KEY');
    await typeInto(form.getByLabel('Client key password (environment variable)'), 'EXTRA_SSL_PASSWORD');
    await page.screenshot({ path: artifact('37-data-source-connection.png') });
    expect(await unnamedControls(page)).toEqual([]);
    await form.getByRole('button', { name: 'Save configuration' }).click();
    await eventually(() => statusText(form)).toBe('Saved the configuration of extra');
    expect((await extra()).configuration).toEqual({
      ...before.configuration,
      connection_info: {
        ...info,
        database_url: { from_env: EXTRA_URL_ENV },
        ssl_configuration: {
          sslmode: 'disable',
          sslrootcert: { from_env: 'EXTRA_SSL_ROOT_CERT' },
          sslcert: { from_env: 'EXTRA_SSL_CERT' },
          sslkey: { from_env: 'EXTRA_SSL_KEY' },
          sslpassword: { from_env: 'EXTRA_SSL_PASSWORD' },
        },
      },
    });
    expect(await databaseOf('extra')).toBe(db.name);
    expect((await extra()).customization).toEqual(before.customization);

    // Opened again, the editor shows what was saved.
    await form.getByRole('button', { name: 'Close' }).click();
    await page.getByRole('button', { name: 'Configure source extra' }).click();
    expect(await form.getByLabel('Database URL given as').inputValue()).toBe('env');
    expect(await form.getByLabel('Database URL environment variable').inputValue()).toBe(EXTRA_URL_ENV);
    expect(await form.getByLabel('SSL mode').inputValue()).toBe('disable');
    expect(await form.getByLabel('Client key (environment variable)').inputValue()).toBe('EXTRA_SSL_KEY');
  });
  it("Actions: a request and response transform with the engine's live preview, then run", async () => {
    await page.getByRole('link', { name: 'Actions' }).click();
    await page
      .getByRole('list', { name: 'Actions' })
      .getByRole('link', { name: /findAuthor/ })
      .click();
    const form = page.getByRole('form', { name: 'Action findAuthor' });
    await form.getByText('Request and response transforms').click();
    const preview = form.getByRole('region', { name: 'Transformed request' });
    // Before any transform the preview is the request as v2 sends it.
    await eventually(() => preview.getByLabel('Transformed URL').textContent()).toBe(`${handler.url}find`);
    await typeInto(form.getByLabel('URL template'), '{{$base_url}}/authors/{{$body.input.id}}');
    await eventually(() => preview.getByLabel('Transformed URL').textContent()).toBe(`${handler.url}find/authors/1`);
    await form.getByLabel('Request body', { exact: true }).selectOption('transform');
    // A template that does not parse: the engine's error, as typed.
    await typeInto(form.getByLabel('Request body template (Kriti)'), '{"author": {{$body.input.id}');
    await eventually(() => preview.getByRole('alert').textContent()).toMatch(/body/i);
    await typeInto(form.getByLabel('Request body template (Kriti)'), '{"author": {{$body.input.id}}}');
    await eventually(async () => JSON.parse((await preview.getByLabel('Transformed body').textContent()) ?? 'null')).toEqual({ author: 1 });
    // The sample is the user's to change; the preview follows.
    await typeInto(form.getByLabel(/^Sample input/), '{"input": {"id": 7}}');
    await eventually(() => preview.getByLabel('Transformed URL').textContent()).toBe(`${handler.url}find/authors/7`);
    await typeInto(form.getByLabel(/^Response body template/), '{"author_id": {{$body.author_id}}, "note": "via transform"}');
    await page.screenshot({ path: artifact('33-actions-transform.png'), fullPage: true });
    expect(await unnamedControls(page)).toEqual([]);
    await form.getByRole('button', { name: 'Save action' }).click();
    await eventually(() => statusText(page.getByRole('main'))).toBe('Saved action findAuthor');
    const action = (await exported()).actions!.find((a) => a.name === 'findAuthor')!;
    expect(action.definition['request_transform']).toEqual({
      version: 2,
      template_engine: 'Kriti',
      url: '{{$base_url}}/authors/{{$body.input.id}}',
      body: { action: 'transform', template: '{"author": {{$body.input.id}}}' },
    });
    expect(action.definition['response_transform']).toEqual({
      version: 2,
      template_engine: 'Kriti',
      body: { action: 'transform', template: '{"author_id": {{$body.author_id}}, "note": "via transform"}' },
    });
    // The engine runs both: the handler is called at the templated URL with the templated body.
    const r = await engine.graphql('{ findAuthor(id: 2) { author_id note } }', {}, { 'x-engine-admin-secret': SECRET });
    expect(r.body).toEqual({ data: { findAuthor: { author_id: 2, note: 'via transform' } } });
    const call = handler.requests.at(-1)!;
    expect(call.path).toBe('/find/authors/2');
    expect(JSON.parse(call.body)).toEqual({ author: 2 });
  });

  it('Events: a request transform with method, URL and a query parameter, previewed by the engine, then delivered', async () => {
    await page.getByRole('link', { name: 'Events' }).click();
    await page
      .getByRole('list', { name: 'Event triggers' })
      .getByRole('link', { name: /book_added/ })
      .click();
    const form = page.getByRole('form', { name: 'Modify event trigger book_added' });
    await form.getByText('Request and response transforms').click();
    const preview = form.getByRole('region', { name: 'Transformed request' });
    await form.getByLabel('Method', { exact: true }).selectOption('PUT');
    await typeInto(form.getByLabel('URL template'), '{{$base_url}}/books');
    await form.getByRole('button', { name: 'Add query params' }).click();
    await typeInto(form.getByLabel('Query params 1 name'), 'title');
    await typeInto(form.getByLabel('Query params 1 value'), '{{$body.event.data.new.title}}');
    await typeInto(form.getByLabel(/^Sample input/), '{"event": {"data": {"new": {"title": "Notes"}}}}');
    await eventually(() => preview.getByLabel('Transformed URL').textContent()).toBe(`${handler.url}hook/books?title=Notes`);
    expect(await preview.getByLabel('Transformed method').textContent()).toBe('PUT');
    await page.screenshot({ path: artifact('34-events-transform.png'), fullPage: true });
    expect(await unnamedControls(page)).toEqual([]);
    await form.getByRole('button', { name: 'Save event trigger' }).click();
    await eventually(() => statusText(page.getByRole('main'))).toBe('Saved event trigger book_added');
    const trigger = (await exported()).sources[0]!.tables.find((t) => t.table.name === 'books')!.event_triggers![0]!;
    expect(trigger['request_transform']).toEqual({
      version: 2,
      template_engine: 'Kriti',
      method: 'PUT',
      url: '{{$base_url}}/books',
      query_params: { title: '{{$body.event.data.new.title}}' },
    });
    // An insert is delivered as the transform says.
    await db.sql(`INSERT INTO books (title, author_id) VALUES ('Transforms', 2)`);
    await eventually(() => handler.requests.find((q) => q.path.startsWith('/hook/books'))?.path).toBe('/hook/books?title=Transforms');
    expect(handler.requests.find((q) => q.path.startsWith('/hook/books'))!.method).toBe('PUT');
  });
  it("Scheduled: a cron trigger's request transform, previewed on its own payload, saved", async () => {
    await page.getByRole('link', { name: 'Scheduled' }).click();
    await page
      .getByRole('list', { name: 'Cron triggers' })
      .getByRole('link', { name: /nightly/ })
      .click();
    const form = page.getByRole('form', { name: 'Modify cron trigger nightly' });
    await form.getByText('Request and response transforms').click();
    const preview = form.getByRole('region', { name: 'Transformed request' });
    await typeInto(form.getByLabel('URL template'), '{{$base_url}}/{{$body.payload.report}}');
    await eventually(() => preview.getByLabel('Transformed URL').textContent()).toBe(`${handler.url}cron/daily`);
    await form.getByLabel('Request body', { exact: true }).selectOption('transform');
    await typeInto(form.getByLabel('Request body template (Kriti)'), '{"report": {{$body.payload.report}}, "trigger": {{$body.name}}}');
    await eventually(async () => JSON.parse((await preview.getByLabel('Transformed body').textContent()) ?? 'null')).toEqual({
      report: 'daily',
      trigger: 'nightly',
    });
    await page.screenshot({ path: artifact('36-scheduled-cron-transform.png') });
    expect(await unnamedControls(page)).toEqual([]);
    await form.getByRole('button', { name: 'Save cron trigger' }).click();
    await eventually(() => statusText(page.getByRole('main'))).toBe('Saved cron trigger nightly');
    const cron = (await exported()).cron_triggers!.find((c) => c['name'] === 'nightly')!;
    expect(cron['request_transform']).toEqual({
      version: 2,
      template_engine: 'Kriti',
      url: '{{$base_url}}/{{$body.payload.report}}',
      body: { action: 'transform', template: '{"report": {{$body.payload.report}}, "trigger": {{$body.name}}}' },
    });
  });

  it("Scheduled: a one-off event's request transform, previewed on the event's own payload, then delivered as it says", async () => {
    await page.getByRole('link', { name: 'Scheduled' }).click();
    await page.getByRole('link', { name: 'One-off events' }).click();
    const form = page.getByRole('form', { name: 'Schedule an event' });
    await typeInto(form.getByLabel('Webhook URL'), `${handler.url}once`);
    await typeInto(form.getByLabel('Payload (JSON, optional)'), '{"order": 42}');
    await typeInto(form.getByLabel('Comment'), 'transformed');
    await form.getByText('Request and response transforms').click();
    const preview = form.getByRole('region', { name: 'Transformed request' });
    // Before any transform the preview is the event as the engine sends it.
    await eventually(() => preview.getByLabel('Transformed URL').textContent()).toBe(`${handler.url}once`);
    await form.getByLabel('Method', { exact: true }).selectOption('PUT');
    await typeInto(form.getByLabel('URL template'), '{{$base_url}}/orders/{{$body.payload.order}}');
    await eventually(() => preview.getByLabel('Transformed URL').textContent()).toBe(`${handler.url}once/orders/42`);
    await form.getByLabel('Request body', { exact: true }).selectOption('transform');
    await typeInto(form.getByLabel('Request body template (Kriti)'), '{"order": {{$body.payload.order}}, "note": {{$body.comment}}}');
    await eventually(async () => JSON.parse((await preview.getByLabel('Transformed body').textContent()) ?? 'null')).toEqual({
      order: 42,
      note: 'transformed',
    });
    expect(await preview.getByLabel('Transformed method').textContent()).toBe('PUT');
    await page.screenshot({ path: artifact('38-scheduled-one-off-transform.png'), fullPage: true });
    expect(await unnamedControls(page)).toEqual([]);
    await form.getByRole('button', { name: 'Schedule event' }).click();
    await eventually(() => statusText(form)).toMatch(/^Scheduled event /);
    // Due now: the engine delivers it through the transform.
    await eventually(() => handler.requests.find((q) => q.path.startsWith('/once'))?.path).toBe('/once/orders/42');
    const sent = handler.requests.find((q) => q.path.startsWith('/once'))!;
    expect(sent.method).toBe('PUT');
    expect(JSON.parse(sent.body)).toEqual({ order: 42, note: 'transformed' });
  });

  it('Actions: a relationship of the output type to a table, added, edited and deleted', async () => {
    await page.getByRole('link', { name: 'Actions' }).click();
    await page
      .getByRole('list', { name: 'Actions' })
      .getByRole('link', { name: /findAuthor/ })
      .click();
    const section = page.getByRole('region', { name: 'Relationships of AuthorOut' });
    const add = section.getByRole('form', { name: 'New relationship' });
    await typeInto(add.getByLabel('Relationship name'), 'author');
    await add.getByLabel('Table').selectOption('public.authors');
    await eventually(() => add.getByLabel('Column for author_id').locator('option').allTextContents()).toContain('id');
    await add.getByLabel('Column for author_id').selectOption('id');
    await add.getByRole('button', { name: 'Add relationship' }).click();
    await eventually(() => statusText(section)).toBe('Saved relationship author');
    await page.screenshot({ path: artifact('35-actions-relationships.png') });
    expect(await unnamedControls(page)).toEqual([]);
    const relationships = async () => (await exported()).custom_types?.objects?.find((o) => o.name === 'AuthorOut')?.relationships;
    expect(await relationships()).toEqual([
      { name: 'author', type: 'object', source: 'default', remote_table: { schema: 'public', name: 'authors' }, field_mapping: { author_id: 'id' } },
    ]);
    const admin = { 'x-engine-admin-secret': SECRET };
    expect((await engine.graphql('{ findAuthor(id: 2) { author { name } } }', {}, admin)).body).toEqual({ data: { findAuthor: { author: { name: 'Alan' } } } });

    // A name the output type already has as a field: the engine's reason, nothing changed.
    await typeInto(add.getByLabel('Relationship name'), 'note');
    await add.getByLabel('Column for author_id').selectOption('id');
    await add.getByRole('button', { name: 'Add relationship' }).click();
    await eventually(() => section.getByRole('alert').textContent()).toMatch(/clashes with a field/);
    expect((await relationships())?.map((r) => r['name'])).toEqual(['author']);

    // Edit: an array relationship to the author's books, renamed.
    await section.getByRole('button', { name: 'Edit relationship author' }).click();
    const edit = section.getByRole('form', { name: 'Edit relationship author' });
    expect(await edit.getByLabel('Relationship name').inputValue()).toBe('author');
    await typeInto(edit.getByLabel('Relationship name'), 'books');
    await edit.getByLabel('Type').selectOption('array');
    await edit.getByLabel('Table').selectOption('public.books');
    await eventually(() => edit.getByLabel('Column for author_id').locator('option').allTextContents()).toContain('author_id');
    await edit.getByLabel('Column for author_id').selectOption('author_id');
    await edit.getByRole('button', { name: 'Save relationship' }).click();
    await eventually(() => statusText(section)).toBe('Saved relationship books');
    expect(await relationships()).toEqual([
      { name: 'books', type: 'array', source: 'default', remote_table: { schema: 'public', name: 'books' }, field_mapping: { author_id: 'author_id' } },
    ]);
    const books = await engine.graphql('{ findAuthor(id: 1) { books(order_by: {id: asc}) { title } } }', {}, admin);
    expect(books.body).toEqual({ data: { findAuthor: { books: [{ title: 'Notes' }, { title: 'Engines' }] } } });

    // Delete, once confirmed.
    await section.getByRole('button', { name: 'Delete relationship books' }).click();
    await section.getByRole('button', { name: 'Confirm delete of relationship books' }).click();
    await eventually(() => statusText(section)).toBe('Deleted relationship books');
    expect(await relationships()).toBeUndefined();
  });
});
