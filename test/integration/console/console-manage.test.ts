/**
 * The console's management pages in headless Chromium against a real engine
 * with an admin secret, and real loopback HTTP servers as the action handler
 * and the webhooks: actions and custom types (one run from GraphiQL), event
 * triggers with their logs, cron triggers and one-off events, query
 * collections with the allow-list and REST endpoints, sources, remote schemas
 * (a loopback GraphQL server), the row
 * grid's custom column names and primary-key-less tables, and computed fields. Each step waits with
 * a bound; screenshots go to test/artifacts/console/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { artifact, launchBrowser, systemChromium } from '../../support/browser.ts';
import { responseText, setQuery, signIn, typeDateTime, typeInto, unnamedControls, statusText } from '../../support/console-page.ts';
import { startTestServer, type TestServer } from '../../support/http-server.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';
import { buildConsole, consoleBuildIsStale } from '../../../engine/console/build.ts';

const SECRET = 'console-manage-s3cret';
/** Every wait is bounded: 30 s covers a page action on two busy cores. */
const WAIT_MS = 30_000;
const eventually = <T>(fn: () => Promise<T> | T) => expect.poll(fn, { timeout: WAIT_MS, interval: 100 });
const chromiumPath = systemChromium();
if (chromiumPath === null && process.env['CI'] === 'true') throw new Error('CI=true but no Chromium: .ci/run should have installed it');

type EventTrigger = { name: string; webhook?: string; definition: Record<string, unknown>; retry_conf?: unknown; headers?: unknown };
type Exported = {
  sources: Array<{ name: string; tables: Array<{ table: { name: string }; event_triggers?: EventTrigger[] }> }>;
  actions?: Array<{ name: string; definition: Record<string, unknown>; permissions?: Array<{ role: string }>; comment?: string }>;
  custom_types?: Record<string, Array<{ name: string }>>;
  cron_triggers?: Array<Record<string, unknown>>;
  query_collections?: Array<{ name: string; definition: { queries: Array<{ name: string; query: string }> } }>;
  allowlist?: unknown[];
  graphql_schema_introspection?: { disabled_for_roles: string[] };
  network?: { tls_allowlist: unknown[] };
  rest_endpoints?: unknown[];
  remote_schemas?: Array<{ name: string; definition: Record<string, unknown>; permissions?: unknown[] }>;
  [key: string]: unknown;
};

let db: TestDatabase;
let engine: TestEngine;
let handler: TestServer;
/** The event trigger's webhook: answers `hookStatus` and records what it got. */
let hook: TestServer;
let hookStatus = 200;
/** The remote schema: a GraphQL server on loopback. */
let remote: GraphqlTestServer;

async function exported(): Promise<Exported> {
  return ((await engine.metadata({ type: 'export_metadata', version: 2, args: {} })).body as { metadata: Exported }).metadata;
}

beforeAll(async () => {
  if (consoleBuildIsStale()) await buildConsole();
  db = await createTestDatabase('console_manage');
  await db.sql(`
    CREATE TABLE orders (id serial PRIMARY KEY, item text NOT NULL, qty int NOT NULL DEFAULT 1);
    INSERT INTO orders (item, qty) VALUES ('pen', 2), ('ink', 1);
    CREATE TABLE people (id serial PRIMARY KEY, "full name" text NOT NULL, birth_year int);
    INSERT INTO people ("full name", birth_year) VALUES ('Ada Lovelace', 1815), ('Alan Turing', 1912);
    CREATE TABLE readings (sensor text NOT NULL, value numeric NOT NULL);
    INSERT INTO readings VALUES ('s1', 1.5), ('s2', 2.5);
    CREATE FUNCTION order_label(o orders) RETURNS text LANGUAGE sql STABLE AS $$ SELECT o.item || ' x' || o.qty $$;
    CREATE FUNCTION order_for(o orders, session json) RETURNS text LANGUAGE sql STABLE
      AS $$ SELECT o.item || ' for ' || coalesce(session->>'x-engine-user-id', 'nobody') $$;
  `);
  // The action handler: adds its two arguments, echoing what it was sent.
  handler = await startTestServer((_req, body, res) => {
    const input = (JSON.parse(body) as { input: { a: number; b: number } }).input;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ sum: input.a + input.b }));
  });
  hook = await startTestServer((_req, _body, res) => {
    res.writeHead(hookStatus, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: hookStatus < 300 }));
  });
  remote = await startGraphqlServer('type Query { hello(name: String!): String!  secret: String! }', {
    hello: ({ name }: { name: string }) => `Hello ${name}`,
    secret: () => 's3cret',
  });
  engine = await startTestEngine({ databaseUrl: db.url, adminSecret: SECRET, enableConsole: true, enableRemoteSchemaPermissions: true });
  // Set-up, not under test: the table the event trigger watches is tracked through the API.
  const tracked = await engine.metadata({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: 'orders' } } },
      {
        type: 'pg_track_table',
        args: {
          source: 'default',
          table: { schema: 'public', name: 'people' },
          configuration: { column_config: { 'full name': { custom_name: 'fullName' }, birth_year: { custom_name: 'born' } } },
        },
      },
      { type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: 'readings' } } },
    ],
  });
  expect(tracked.status).toBe(200);
}, 180_000);

afterAll(async () => {
  await engine?.close();
  await handler?.close();
  await hook?.close();
  await remote?.close();
  await db?.drop();
});

describe.skipIf(chromiumPath === null)('console management pages in a browser', { timeout: 120_000 }, () => {
  let browser: Browser;
  let page: Page;
  const outside: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser(chromiumPath!);
    // en-US: the order in which a date and time are typed (typeDateTime).
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    page = await context.newPage();
    page.setDefaultTimeout(WAIT_MS);
    const origin = new URL(engine.url).origin;
    page.on('request', (r) => {
      if (!r.url().startsWith(origin) && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) outside.push(r.url());
    });
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) pageErrors.push(m.text());
    });
    await page.goto(`${engine.url}/console/`);
    await signIn(page, SECRET);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
  });

  const status = () => statusText(page.getByRole('main'));

  it('Actions: creates an action from SDL with a handler, a header and a role', async () => {
    await page.getByRole('link', { name: 'Actions' }).click();
    const form = page.getByRole('form', { name: 'New action' });
    await typeInto(form.getByLabel('Action definition (SDL)'), 'type Mutation {\n  """Adds two numbers"""\n  addNumbers(a: Int!, b: Int!): SumOutput\n}');
    await typeInto(form.getByLabel('Type definitions (SDL)'), 'type SumOutput {\n  sum: Int!\n}');
    await typeInto(form.getByLabel('Handler URL'), `${handler.url}add`);
    await form.getByRole('button', { name: 'Add header' }).click();
    await typeInto(form.getByLabel('Handler headers 1 name'), 'x-console-test');
    await typeInto(form.getByLabel('Handler headers 1 value'), 'from-console');
    await typeInto(form.getByLabel('Another role'), 'user');
    await form.getByRole('button', { name: 'Allow role' }).click();
    await form.getByRole('button', { name: 'Create action' }).click();
    await eventually(status).toBe('Saved action addNumbers');
    await page.getByRole('form', { name: 'Action addNumbers' }).waitFor();
    await page.screenshot({ path: artifact('11-actions.png') });
    expect(await unnamedControls(page)).toEqual([]);
    const md = await exported();
    expect(md.actions).toEqual([
      {
        name: 'addNumbers',
        comment: 'Adds two numbers',
        definition: {
          type: 'mutation',
          kind: 'synchronous',
          arguments: [
            { name: 'a', type: 'Int!' },
            { name: 'b', type: 'Int!' },
          ],
          output_type: 'SumOutput',
          handler: `${handler.url}add`,
          headers: [{ name: 'x-console-test', value: 'from-console' }],
          forward_client_headers: false,
        },
        permissions: [{ role: 'user' }],
      },
    ]);
    expect(md.custom_types?.['objects']).toEqual([{ name: 'SumOutput', fields: [{ name: 'sum', type: 'Int!' }] }]);
  });

  it('Actions: runs the action from GraphiQL; the handler gets the header', async () => {
    await page.getByRole('link', { name: 'API explorer' }).click();
    await page.locator('.graphiql-query-editor .monaco-editor').first().waitFor();
    await setQuery(page, 'mutation { addNumbers(a: 2, b: 3) { sum } }');
    await page.getByRole('button', { name: /^Execute query/ }).click();
    await eventually(() => responseText(page)).toContain('"sum": 5');
    await page.screenshot({ path: artifact('12-api-explorer-action.png') });
    const call = handler.requests.at(-1)!;
    expect(call.headers['x-console-test']).toBe('from-console');
    expect(JSON.parse(call.body)).toMatchObject({ action: { name: 'addNumbers' }, input: { a: 2, b: 3 } });
  });

  it('Actions: edits the action (timeout, roles) and the custom types', async () => {
    await page.getByRole('link', { name: 'Actions' }).click();
    await page
      .getByRole('list', { name: 'Actions' })
      .getByRole('link', { name: /addNumbers/ })
      .click();
    const form = page.getByRole('form', { name: 'Action addNumbers' });
    expect(await form.getByLabel('Type definitions (SDL)').inputValue()).toBe('type SumOutput {\n  sum: Int!\n}');
    await typeInto(form.getByLabel('Timeout (seconds)'), '7');
    await form.getByLabel('user', { exact: true }).uncheck();
    await form.getByRole('button', { name: 'Save action' }).click();
    await eventually(status).toBe('Saved action addNumbers');
    await eventually(async () => (await exported()).actions?.[0]?.definition['timeout']).toBe(7);
    expect((await exported()).actions?.[0]?.permissions).toBeUndefined();
    // A bad SDL is refused in the page, and nothing changes.
    await typeInto(form.getByLabel('Action definition (SDL)'), 'type Mutation { addNumbers(a: Int!): }');
    await form.getByRole('button', { name: 'Save action' }).click();
    await eventually(() => page.getByRole('main').getByRole('alert').textContent()).toContain('not valid GraphQL SDL');

    await page.getByRole('link', { name: 'Custom types' }).click();
    const types = page.getByRole('form', { name: 'Custom types' });
    expect(await types.getByLabel('Custom types (SDL)').inputValue()).toContain('type SumOutput');
    await typeInto(types.getByLabel('Custom types (SDL)'), 'type SumOutput {\n  sum: Int!\n}\n\nscalar Email\n\nenum Colour {\n  RED\n  GREEN\n}');
    await types.getByRole('button', { name: 'Save custom types' }).click();
    await eventually(status).toBe('Saved the custom types');
    const ct = (await exported()).custom_types!;
    expect(ct['scalars']).toEqual([{ name: 'Email' }]);
    expect(ct['enums']).toEqual([{ name: 'Colour', values: [{ value: 'RED' }, { value: 'GREEN' }] }]);
    await page.screenshot({ path: artifact('13-actions-custom-types.png') });
    expect(await unnamedControls(page)).toEqual([]);
    // Dropping a type an action uses is refused with the engine's reason.
    await typeInto(types.getByLabel('Custom types (SDL)'), 'scalar Email');
    await types.getByRole('button', { name: 'Save custom types' }).click();
    await eventually(() => page.getByRole('main').getByRole('alert').textContent()).toContain('still used by the action "addNumbers"');
  });

  it('Actions: deletes the action', async () => {
    await page
      .getByRole('list', { name: 'Actions' })
      .getByRole('link', { name: /addNumbers/ })
      .click();
    await page.getByRole('button', { name: 'Delete action' }).click();
    await page.getByRole('button', { name: 'Confirm delete of action addNumbers' }).click();
    await eventually(status).toBe('Deleted action addNumbers');
    await eventually(async () => (await exported()).actions ?? []).toEqual([]);
    expect(await page.getByText('No actions yet.').count()).toBe(1);
  });

  /** Webhook calls of the event trigger with this operation. */
  const hookCalls = (op: string) =>
    hook.requests.filter((r) => (JSON.parse(r.body) as { event?: { op?: string } }).event?.op === op).map((r) => JSON.parse(r.body) as Record<string, unknown>);
  const triggers = async () => (await exported()).sources[0]!.tables.find((t) => t.table.name === 'orders')!.event_triggers ?? [];
  /** Clicks a refresh button until the text of `region` passes `check` (bounded). */
  const refreshUntil = (button: string, region: string) =>
    eventually(async () => {
      await page.getByRole('button', { name: button }).click();
      return page.getByRole('region', { name: region }).innerText();
    });

  it('Events: creates an event trigger on insert, update of one column and manual', async () => {
    await page.getByRole('link', { name: 'Events', exact: true }).click();
    const form = page.getByRole('form', { name: 'New event trigger' });
    await typeInto(form.getByLabel('Trigger name'), 'order_events');
    await form.getByLabel('Table').selectOption('public.orders');
    await form.getByLabel('insert', { exact: true }).check();
    await form.getByLabel('update', { exact: true }).check();
    await form.getByLabel('any column').uncheck();
    await form.getByLabel('Update column qty').check();
    await form.getByLabel(/manual \(invoke/).check();
    await typeInto(form.getByLabel('Webhook URL'), `${hook.url}orders`);
    await typeInto(form.getByLabel('Number of retries'), '0');
    await form.getByRole('button', { name: 'Add header' }).click();
    await typeInto(form.getByLabel('Webhook headers 1 name'), 'x-hook');
    await typeInto(form.getByLabel('Webhook headers 1 value'), 'yes');
    await form.getByRole('button', { name: 'Create event trigger' }).click();
    await eventually(status).toBe('Saved event trigger order_events');
    await page.getByRole('form', { name: 'Modify event trigger order_events' }).waitFor();
    await page.screenshot({ path: artifact('14-events-trigger.png') });
    expect(await unnamedControls(page)).toEqual([]);
    expect(await triggers()).toEqual([
      {
        name: 'order_events',
        definition: { enable_manual: true, insert: { columns: '*' }, update: { columns: ['qty'] } },
        retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 },
        webhook: `${hook.url}orders`,
        headers: [{ name: 'x-hook', value: 'yes' }],
      },
    ]);
  });

  it('Events: an insert is delivered and shows in the event and invocation logs', async () => {
    await db.sql("INSERT INTO orders (item, qty) VALUES ('cap', 3)");
    await eventually(() => hookCalls('INSERT').length).toBe(1);
    expect(hook.requests.at(-1)!.headers['x-hook']).toBe('yes');
    await page.getByRole('link', { name: 'Events', exact: true }).and(page.locator('.tabs a')).click();
    await refreshUntil('Refresh events', 'Events of order_events').toMatch(/INSERT\s+delivered/);
    expect(await page.getByRole('table', { name: 'Event log' }).innerText()).toContain('"item":"cap"');
    await page.screenshot({ path: artifact('15-events-log.png') });
    expect(await unnamedControls(page)).toEqual([]);
    await page.getByRole('link', { name: 'Invocations' }).click();
    await refreshUntil('Refresh invocations', 'Invocations of order_events').toContain('200');
    await page.screenshot({ path: artifact('16-events-invocations.png') });
  });

  it('Events: a failed delivery is redelivered from the event log', async () => {
    hookStatus = 500;
    await db.sql("UPDATE orders SET qty = 9 WHERE item = 'cap'");
    await eventually(() => hookCalls('UPDATE').length).toBe(1);
    await page.locator('.tabs').getByRole('link', { name: 'Events' }).click();
    await refreshUntil('Refresh events', 'Events of order_events').toMatch(/UPDATE\s+failed/);
    hookStatus = 200;
    await page
      .getByRole('row')
      .filter({ hasText: 'failed' })
      .getByRole('button', { name: /^Redeliver event / })
      .click();
    await eventually(status).toMatch(/^Event .* is due again$/);
    await eventually(() => hookCalls('UPDATE').length).toBe(2);
    await refreshUntil('Refresh events', 'Events of order_events').toMatch(/UPDATE\s+delivered/);
  });

  it('Events: invokes the trigger manually', async () => {
    await typeInto(page.getByLabel('Payload (the row, as JSON)'), '{"id": 42, "item": "manual"}');
    await page.getByRole('button', { name: 'Invoke order_events' }).click();
    await eventually(status).toMatch(/^Invoked order_events: event [0-9a-f-]{36}$/);
    await eventually(() => hookCalls('MANUAL').length).toBe(1);
    expect(hookCalls('MANUAL')[0]).toMatchObject({ event: { data: { old: null, new: { id: 42, item: 'manual' } } }, trigger: { name: 'order_events' } });
  });

  it('Events: modifies the webhook and deletes the trigger', async () => {
    await page.getByRole('link', { name: 'Modify' }).click();
    const form = page.getByRole('form', { name: 'Modify event trigger order_events' });
    await typeInto(form.getByLabel('Webhook URL'), `${hook.url}orders-v2`);
    await form.getByRole('button', { name: 'Save event trigger' }).click();
    await eventually(async () => (await triggers())[0]?.webhook).toBe(`${hook.url}orders-v2`);
    await form.getByRole('button', { name: 'Delete event trigger' }).click();
    await form.getByRole('button', { name: 'Confirm delete of event trigger order_events' }).click();
    await eventually(status).toBe('Deleted event trigger order_events');
    expect(await triggers()).toEqual([]);
  });

  it('Scheduled: creates, modifies and deletes a cron trigger; its upcoming events are listed', async () => {
    await page.getByRole('link', { name: 'Scheduled' }).click();
    const form = page.getByRole('form', { name: 'New cron trigger' });
    await typeInto(form.getByLabel('Name', { exact: true }), 'nightly');
    await typeInto(form.getByLabel('Webhook URL'), `${hook.url}cron`);
    await form.getByRole('button', { name: 'Every day at midnight (UTC)' }).click();
    await typeInto(form.getByLabel('Payload (JSON, optional)'), '{"job": "report"}');
    await form.getByRole('button', { name: 'Create cron trigger' }).click();
    await eventually(status).toBe('Saved cron trigger nightly');
    await page.getByRole('form', { name: 'Modify cron trigger nightly' }).waitFor();
    await page.screenshot({ path: artifact('17-scheduled-cron.png') });
    expect(await unnamedControls(page)).toEqual([]);
    expect((await exported()).cron_triggers).toEqual([
      expect.objectContaining({
        name: 'nightly',
        webhook: `${hook.url}cron`,
        schedule: '0 0 * * *',
        payload: { job: 'report' },
        include_in_metadata: true,
        retry_conf: { num_retries: 0, retry_interval_seconds: 10, timeout_seconds: 60, tolerance_seconds: 21600 },
      }),
    ]);
    // Its next fire times are stored ahead and listed.
    await page.locator('.tabs').getByRole('link', { name: 'Events' }).click();
    await refreshUntil('Refresh events', 'Events of nightly').toMatch(/T00:00:00\.000Z\s+scheduled/);
    await page.screenshot({ path: artifact('18-scheduled-cron-events.png') });
    await page.locator('.tabs').getByRole('link', { name: 'Invocations' }).click();
    await eventually(() => page.getByRole('region', { name: 'Invocations of nightly' }).innerText()).toContain('No invocations yet.');
    await page.locator('.tabs').getByRole('link', { name: 'Modify' }).click();
    const modify = page.getByRole('form', { name: 'Modify cron trigger nightly' });
    await typeInto(modify.getByLabel('Cron schedule (UTC)'), '*/30 * * * *');
    await modify.getByRole('button', { name: 'Save cron trigger' }).click();
    await eventually(async () => (await exported()).cron_triggers?.[0]?.['schedule']).toBe('*/30 * * * *');
    // A bad schedule is refused with the engine's reason.
    await typeInto(modify.getByLabel('Cron schedule (UTC)'), 'every so often');
    await modify.getByRole('button', { name: 'Save cron trigger' }).click();
    await eventually(() => modify.getByRole('alert').textContent()).toContain('invalid cron schedule');
    await modify.getByRole('button', { name: 'Delete cron trigger' }).click();
    await modify.getByRole('button', { name: 'Confirm delete of cron trigger nightly' }).click();
    await eventually(status).toBe('Deleted cron trigger nightly');
    expect((await exported()).cron_triggers ?? []).toEqual([]);
  });

  it('Scheduled: a one-off event is delivered and its invocation shown; another is deleted before it is due', async () => {
    await page.getByRole('link', { name: 'One-off events' }).click();
    const form = page.getByRole('form', { name: 'Schedule an event' });
    await typeInto(form.getByLabel('Webhook URL'), `${hook.url}oneoff`);
    await typeInto(form.getByLabel('Payload (JSON, optional)'), '{"n": 1}');
    await typeInto(form.getByLabel('Comment'), 'right away');
    await form.getByRole('button', { name: 'Schedule event' }).click();
    await eventually(() => statusText(form)).toMatch(/^Scheduled event [0-9a-f-]{36}$/);
    await eventually(() => hook.requests.filter((r) => r.path === '/oneoff').length).toBe(1);
    expect(JSON.parse(hook.requests.find((r) => r.path === '/oneoff')!.body)).toMatchObject({ payload: { n: 1 }, comment: 'right away' });
    await refreshUntil('Refresh events', 'One-off events').toMatch(/delivered/);
    await page
      .getByRole('button', { name: /^Invocations of event / })
      .first()
      .click();
    await eventually(() => page.getByRole('region', { name: /^Invocations of event / }).innerText()).toContain('200');
    await page.screenshot({ path: artifact('19-scheduled-one-off.png') });
    expect(await unnamedControls(page)).toEqual([]);
    await typeDateTime(form.getByLabel('Due at (your local time)'), '2099-01-01T00:00');
    await typeInto(form.getByLabel('Comment'), 'much later');
    await form.getByRole('button', { name: 'Schedule event' }).click();
    await refreshUntil('Refresh events', 'One-off events').toContain('much later');
    await page
      .getByRole('row')
      .filter({ hasText: 'much later' })
      .getByRole('button', { name: /^Delete event / })
      .click();
    await eventually(() => page.getByRole('region', { name: 'One-off events' }).innerText()).not.toContain('much later');
    const left = (await engine.metadata({ type: 'get_scheduled_events', args: { type: 'one_off' } })).body as { events: Array<{ comment: string }> };
    expect(left.events.map((e) => e.comment)).toEqual(['right away']);
  });

  it('Collections: creates a collection and adds a query; adds it to the allow-list, changes the scope, removes it', async () => {
    await page.getByRole('link', { name: 'REST & allow-list' }).click();
    await page.getByRole('link', { name: 'New query collection' }).click();
    const create = page.getByRole('form', { name: 'New query collection' });
    await typeInto(create.getByLabel('Collection name'), 'shop');
    await create.getByRole('button', { name: 'Create collection' }).click();
    await page.getByRole('heading', { name: 'Query collection shop' }).waitFor();
    const add = page.getByRole('form', { name: 'Add a query to shop' });
    await typeInto(add.getByLabel('Query name'), 'order_by_id');
    await typeInto(add.getByLabel('Query (GraphQL)'), 'query order_by_id($id: Int!) { orders_by_pk(id: $id) { item qty } }');
    await add.getByRole('button', { name: 'Add query' }).click();
    await eventually(status).toBe('Added query order_by_id to shop');
    // A query that does not validate against the schema is refused with the reason.
    await typeInto(add.getByLabel('Query name'), 'broken');
    await typeInto(add.getByLabel('Query (GraphQL)'), 'query broken { no_such_field }');
    await add.getByRole('button', { name: 'Add query' }).click();
    await eventually(() => page.getByRole('main').getByRole('alert').textContent()).toContain('no_such_field');
    expect((await exported()).query_collections).toEqual([
      { name: 'shop', definition: { queries: [{ name: 'order_by_id', query: 'query order_by_id($id: Int!) { orders_by_pk(id: $id) { item qty } }' }] } },
    ]);
    await page.getByRole('button', { name: 'Add to allow-list' }).click();
    await eventually(status).toBe('Added shop to the allow-list');
    expect((await exported()).allowlist).toEqual([{ collection: 'shop', scope: { global: true } }]);
    await page.getByLabel('for these roles only').check();
    await typeInto(page.getByLabel('Allowed roles (comma-separated)'), 'user, editor');
    await page.getByRole('button', { name: 'Change scope' }).click();
    await eventually(status).toBe('Changed the allow-list scope of shop');
    expect((await exported()).allowlist).toEqual([{ collection: 'shop', scope: { global: false, roles: ['user', 'editor'] } }]);
    await page.screenshot({ path: artifact('20-collections.png'), fullPage: true });
    expect(await unnamedControls(page)).toEqual([]);
    await page.getByRole('link', { name: 'Allow-list', exact: true }).click();
    const list = page.getByRole('table', { name: 'Allow-listed collections' });
    await eventually(() => list.innerText()).toContain('roles user, editor');
    await page.screenshot({ path: artifact('21-allowlist.png') });
    await page.getByRole('button', { name: 'Remove shop from the allow-list' }).click();
    await eventually(status).toBe('Removed shop from the allow-list');
    expect((await exported()).allowlist ?? []).toEqual([]);
  });

  it('Collections: creates a REST endpoint from the query, tries it, deletes it; drops the collection', async () => {
    await page.getByRole('link', { name: 'REST endpoints' }).click();
    const form = page.getByRole('form', { name: 'New REST endpoint' });
    await typeInto(form.getByLabel('Endpoint name'), 'order');
    await typeInto(form.getByLabel('URL template'), 'orders/:id');
    await form.getByLabel('Collection').selectOption('shop');
    await form.getByLabel('Query', { exact: true }).selectOption('order_by_id');
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    await eventually(status).toBe('Created REST endpoint order');
    expect((await exported()).rest_endpoints).toEqual([
      { name: 'order', url: 'orders/:id', methods: ['GET'], definition: { query: { collection_name: 'shop', query_name: 'order_by_id' } } },
    ]);
    await page.getByRole('button', { name: 'Try endpoint order' }).click();
    const tryIt = page.getByRole('form', { name: 'Try endpoint order' });
    await typeInto(tryIt.getByLabel('id', { exact: true }), '1');
    await tryIt.getByRole('button', { name: 'Send request' }).click();
    await eventually(() => tryIt.getByLabel('Response status').textContent()).toBe('200');
    expect(JSON.parse((await tryIt.getByLabel('Response body').textContent())!)).toEqual({ orders_by_pk: { item: 'pen', qty: 2 } });
    await page.screenshot({ path: artifact('22-rest-endpoints.png'), fullPage: true });
    expect(await unnamedControls(page)).toEqual([]);
    await page.getByRole('button', { name: 'Delete endpoint order' }).click();
    await eventually(status).toBe('Deleted REST endpoint order');
    expect((await exported()).rest_endpoints ?? []).toEqual([]);
    await page.getByRole('list', { name: 'Query collections' }).getByRole('link', { name: /shop/ }).click();
    await page.getByRole('button', { name: 'Remove query order_by_id' }).click();
    await eventually(status).toBe('Removed query order_by_id from shop');
    await page.getByRole('button', { name: 'Drop collection' }).click();
    await page.getByRole('button', { name: 'Confirm drop of collection shop' }).click();
    await eventually(async () => (await exported()).query_collections ?? []).toEqual([]);
  });

  it('Sources: adds a PostgreSQL source by connection string and by environment variable, reloads and removes them', async () => {
    const second = await createTestDatabase('console_manage_src');
    try {
      await second.sql('CREATE TABLE widgets (id int PRIMARY KEY, label text)');
      process.env['CONSOLE_MANAGE_SECOND_DB'] = second.url;
      await page.getByRole('link', { name: 'Data', exact: true }).click();
      await page.getByRole('link', { name: 'Manage sources' }).click();
      const form = page.getByRole('form', { name: 'Add a PostgreSQL source' });
      // A source that cannot be reached is refused with the connection error, and not added.
      await typeInto(form.getByLabel('Source name'), 'unreachable');
      await typeInto(form.getByLabel('Connection string', { exact: true }), 'postgres://nobody@127.0.0.1:1/none');
      await form.getByRole('button', { name: 'Add source' }).click();
      await eventually(() => page.getByRole('main').getByRole('alert').first().textContent()).toMatch(/ECONNREFUSED|connect/i);
      await typeInto(form.getByLabel('Source name'), 'second');
      await typeInto(form.getByLabel('Connection string', { exact: true }), second.url);
      await form.getByRole('button', { name: 'Add source' }).click();
      await eventually(status).toBe('Added source second');
      const sources = page.getByRole('table', { name: 'Sources' });
      await eventually(() => sources.innerText()).toContain('second');
      await page.getByLabel('environment variable of the engine').check();
      await typeInto(form.getByLabel('Source name'), 'from_env');
      await typeInto(form.getByLabel('Environment variable', { exact: true }), 'CONSOLE_MANAGE_SECOND_DB');
      await form.getByRole('button', { name: 'Add source' }).click();
      await eventually(status).toBe('Added source from_env');
      await eventually(() => sources.innerText()).toContain('environment variable CONSOLE_MANAGE_SECOND_DB');
      await page.screenshot({ path: artifact('23-data-sources.png') });
      expect(await unnamedControls(page)).toEqual([]);
      const md = await exported();
      expect(md.sources.map((s) => s.name)).toEqual(['default', 'second', 'from_env']);
      // The new source's database is browsable on the Data page.
      await page.getByLabel('Source', { exact: true }).selectOption('second');
      await eventually(() => page.getByRole('table', { name: 'Untracked tables and views' }).innerText()).toContain('public.widgets');
      await page.getByRole('link', { name: 'Manage sources' }).click();
      await page.getByRole('button', { name: 'Reload source second' }).click();
      await eventually(status).toBe('Reloaded source second');
      for (const name of ['second', 'from_env']) {
        await page.getByRole('button', { name: `Remove source ${name}` }).click();
        await page.getByRole('button', { name: `Confirm removal of ${name}` }).click();
        await eventually(status).toBe(`Removed source ${name}`);
      }
      expect((await exported()).sources.map((s) => s.name)).toEqual(['default']);
    } finally {
      delete process.env['CONSOLE_MANAGE_SECOND_DB'];
      await second.drop();
    }
  });

  it('Data: the grid shows columns under their custom GraphQL names, and edits, inserts and sorts through them', async () => {
    await page.getByRole('link', { name: 'Data', exact: true }).click();
    await page.getByRole('list', { name: 'Tracked tables' }).getByRole('link', { name: 'public.people' }).click();
    const grid = page.getByRole('table', { name: 'Rows of public.people' });
    await eventually(() => page.getByText('Rows 1–2 of 2').count()).toBe(1);
    expect(await grid.locator('thead').innerText()).toMatch(/full name as fullName[\s\S]*birth_year as born/);
    expect(await grid.locator('tbody tr').first().innerText()).toContain('Ada Lovelace');
    await page.getByRole('button', { name: 'Sort by full name' }).click();
    await page.getByRole('button', { name: 'Sort by full name' }).click();
    await eventually(async () => (await grid.locator('tbody tr').first().innerText()).split('\t')[2]).toBe('Alan Turing');
    await page.getByRole('button', { name: 'Edit row 2' }).click();
    await typeInto(page.getByLabel('full name of row 2'), 'Ada King');
    await typeInto(page.getByLabel('birth_year of row 2'), '1816');
    await page.getByRole('button', { name: 'Save row 2' }).click();
    await eventually(() => statusText(page.getByRole('main'))).toBe('Saved row 2');
    expect((await db.sql('SELECT "full name", birth_year FROM people WHERE id = 1')).rows).toEqual([{ 'full name': 'Ada King', birth_year: 1816 }]);
    await page.getByRole('button', { name: 'Insert row' }).click();
    const form = page.getByRole('form', { name: 'Insert a row into public.people' });
    await typeInto(form.getByLabel(/^full name/), 'Grace Hopper');
    await typeInto(form.getByLabel(/^birth_year/), '1906');
    await form.getByRole('button', { name: 'Save new row' }).click();
    await eventually(() => page.getByText('Rows 1–3 of 3').count()).toBe(1);
    expect((await db.sql(`SELECT birth_year FROM people WHERE "full name" = 'Grace Hopper'`)).rows).toEqual([{ birth_year: 1906 }]);
    await page.screenshot({ path: artifact('24-data-rows-custom-names.png') });
    expect(await unnamedControls(page)).toEqual([]);
  });

  it('Data: a table without a primary key has a read-only grid that still filters and inserts', async () => {
    await page.getByRole('list', { name: 'Tracked tables' }).getByRole('link', { name: 'public.readings' }).click();
    const grid = page.getByRole('table', { name: 'Rows of public.readings' });
    await eventually(() => page.getByText('Rows 1–2 of 2').count()).toBe(1);
    expect(await grid.innerText()).toContain('s2');
    expect(await grid.getByText('read-only: no primary key').count()).toBe(2);
    expect(await grid.getByRole('button', { name: /^(Edit|Delete) row/ }).count()).toBe(0);
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 1 column').selectOption('sensor');
    await typeInto(page.getByLabel('Filter 1 value'), 's1');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await eventually(() => page.getByText('Rows 1–1 of 1').count()).toBe(1);
    await page.getByRole('button', { name: 'Remove filter 1' }).click();
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('button', { name: 'Insert row' }).click();
    const form = page.getByRole('form', { name: 'Insert a row into public.readings' });
    await typeInto(form.getByLabel(/^sensor/), 's3');
    await typeInto(form.getByLabel(/^value/), '3.5');
    await form.getByRole('button', { name: 'Save new row' }).click();
    await eventually(() => page.getByText('Rows 1–3 of 3').count()).toBe(1);
    await page.screenshot({ path: artifact('25-data-rows-no-primary-key.png') });
  });

  it('Data: customizes a table (type name, a root field, column field names) and the grid follows', async () => {
    await page.getByRole('list', { name: 'Tracked tables' }).getByRole('link', { name: 'public.people' }).click();
    await page.getByRole('link', { name: 'Customization' }).click();
    const form = page.getByRole('form', { name: 'Customization of public.people' });
    expect(await form.getByLabel('Field name of column full name').inputValue()).toBe('fullName');
    await typeInto(form.getByLabel('Custom GraphQL name'), 'person');
    await typeInto(form.getByLabel('select', { exact: true }), 'everyone');
    await typeInto(form.getByLabel('Field name of column id'), 'personId');
    await typeInto(form.getByLabel('Field name of column birth_year'), '');
    await form.getByRole('button', { name: 'Save customization' }).click();
    await eventually(status).toBe('Saved the customization of public.people');
    await page.screenshot({ path: artifact('28-data-customization.png') });
    expect(await unnamedControls(page)).toEqual([]);
    const people = (await exported()).sources[0]!.tables.find((t) => t.table.name === 'people') as unknown as { configuration: unknown };
    expect(people.configuration).toEqual({
      custom_name: 'person',
      custom_root_fields: { select: 'everyone' },
      column_config: { id: { custom_name: 'personId' }, 'full name': { custom_name: 'fullName' } },
    });
    expect((await engine.graphql('{ everyone(order_by: {personId: asc}, limit: 1) { personId fullName birth_year } }')).body).toEqual({
      data: { everyone: [{ personId: 1, fullName: 'Ada King', birth_year: 1816 }] },
    });
    // A name that is not a GraphQL name is refused in the page.
    await typeInto(form.getByLabel('Field name of column id'), 'person id');
    await form.getByRole('button', { name: 'Save customization' }).click();
    await eventually(() => page.getByRole('main').getByRole('alert').textContent()).toContain('"person id" is not a GraphQL name');
    await page.getByRole('link', { name: 'Browse rows' }).click();
    await eventually(() => page.getByText('Rows 1–3 of 3').count()).toBe(1);
    expect(await page.getByRole('table', { name: 'Rows of public.people' }).locator('thead').innerText()).toContain('id as personId');
  });

  it('Data: adds computed fields (one with table and session arguments), queries them, drops one', async () => {
    await page.getByRole('link', { name: 'Data', exact: true }).click();
    await page.getByRole('list', { name: 'Tracked tables' }).getByRole('link', { name: 'public.orders' }).click();
    await page.getByRole('link', { name: 'Computed fields' }).click();
    const form = page.getByRole('form', { name: 'Add a computed field to public.orders' });
    // Without a function it is refused in the page.
    await typeInto(form.getByLabel('Computed field name'), 'label');
    await form.getByRole('button', { name: 'Add computed field' }).click();
    await eventually(() => page.getByRole('main').getByRole('alert').textContent()).toContain('Pick the function');
    await form.getByLabel('Function', { exact: true }).selectOption('public.order_label');
    await typeInto(form.getByLabel('Comment'), 'item and quantity');
    await form.getByRole('button', { name: 'Add computed field' }).click();
    await eventually(status).toBe('Added the computed field label on public.orders');
    await typeInto(form.getByLabel('Computed field name'), 'for_me');
    await form.getByLabel('Function', { exact: true }).selectOption('public.order_for');
    await typeInto(form.getByLabel('Table argument'), 'o');
    await typeInto(form.getByLabel('Session argument'), 'session');
    await form.getByRole('button', { name: 'Add computed field' }).click();
    await eventually(status).toBe('Added the computed field for_me on public.orders');
    const list = page.getByRole('table', { name: 'Computed fields of public.orders' });
    await eventually(() => list.locator('tbody tr').count()).toBe(2);
    expect(await list.locator('tbody').innerText()).toMatch(/for_me\tpublic\.order_for\to\tsession/);
    await page.screenshot({ path: artifact('29-data-computed-fields.png') });
    expect(await unnamedControls(page)).toEqual([]);
    const computed = async () =>
      ((await exported()).sources[0]!.tables.find((t) => t.table.name === 'orders') as unknown as { computed_fields?: Array<{ name: string }> })
        .computed_fields ?? [];
    expect([...(await computed())].sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'for_me', definition: { function: { schema: 'public', name: 'order_for' }, table_argument: 'o', session_argument: 'session' } },
      { name: 'label', definition: { function: { schema: 'public', name: 'order_label' } }, comment: 'item and quantity' },
    ]);
    const asUser7 = { 'x-engine-admin-secret': SECRET, 'x-engine-user-id': '7' };
    expect((await engine.graphql('{ orders(order_by: {id: asc}, limit: 1) { label for_me } }', undefined, asUser7)).body).toEqual({
      data: { orders: [{ label: 'pen x2', for_me: 'pen for 7' }] },
    });
    await page.getByRole('button', { name: 'Drop computed field label' }).click();
    await eventually(status).toBe('Dropped the computed field label');
    await eventually(() => list.locator('tbody tr').count()).toBe(1);
    expect((await computed()).map((f) => f.name)).toEqual(['for_me']);
  });

  it('Remote schemas: adds one, queries it from GraphiQL, shows its schema', async () => {
    await page.getByRole('link', { name: 'Remote schemas' }).click();
    const form = page.getByRole('form', { name: 'Add a remote schema' });
    await typeInto(form.getByLabel('Remote schema name'), 'greeter');
    await typeInto(form.getByLabel('GraphQL server URL'), remote.url);
    await form.getByRole('button', { name: 'Add header' }).click();
    await typeInto(form.getByLabel('Server headers 1 name'), 'x-remote');
    await typeInto(form.getByLabel('Server headers 1 value'), 'console');
    await form.getByRole('button', { name: 'Add remote schema' }).click();
    await eventually(status).toBe('Saved remote schema greeter');
    await page.getByRole('form', { name: 'Modify remote schema greeter' }).waitFor();
    await page.screenshot({ path: artifact('26-remote-schema.png') });
    expect(await unnamedControls(page)).toEqual([]);
    expect((await exported()).remote_schemas).toEqual([
      {
        name: 'greeter',
        definition: { url: remote.url, headers: [{ name: 'x-remote', value: 'console' }], forward_client_headers: false, timeout_seconds: 60 },
      },
    ]);
    await page.getByRole('link', { name: 'API explorer' }).click();
    await page.locator('.graphiql-query-editor .monaco-editor').first().waitFor();
    await setQuery(page, 'query { hello(name: "Ada") }');
    await page.getByRole('button', { name: /^Execute query/ }).click();
    await eventually(() => responseText(page)).toContain('"hello": "Hello Ada"');
    expect(remote.queries().at(-1)!.headers['x-remote']).toBe('console');
    // Explain shows the request a remote root field sends (it has no SQL).
    const sent = remote.queries().length;
    await page.getByRole('button', { name: 'Show Generated SQL (explain)' }).click();
    await page.getByRole('button', { name: 'Explain query' }).click();
    await eventually(() => page.getByLabel('Request of hello to greeter').textContent()).toContain('hello');
    expect(await page.getByLabel('SQL of hello').count()).toBe(0);
    expect(remote.queries().length).toBe(sent);
    await page.getByRole('link', { name: 'Remote schemas' }).click();
    await page.getByRole('list', { name: 'Remote schemas' }).getByRole('link', { name: 'greeter' }).click();
    await page.getByRole('link', { name: 'Schema', exact: true }).click();
    await eventually(() => page.getByLabel('SDL of greeter').textContent()).toContain('hello(name: String!): String!');
  });

  it('Remote schemas: a role permission limits the role to part of the schema; reload; remove', async () => {
    await page.getByRole('link', { name: 'Permissions', exact: true }).and(page.locator('.tabs a')).click();
    await typeInto(page.getByLabel('New role'), 'user');
    await page.getByRole('button', { name: 'Add role' }).click();
    await page.getByRole('button', { name: 'Permission of user: none' }).click();
    const editor = page.getByRole('form', { name: 'Remote schema permission of user' });
    // A new permission starts from the whole schema.
    await eventually(() => editor.getByLabel(/^Schema the role may use/).inputValue()).toContain('secret');
    await typeInto(editor.getByLabel(/^Schema the role may use/), 'type Query {\n  hello(name: String!): String!\n}');
    await editor.getByRole('button', { name: 'Save permission' }).click();
    await eventually(status).toBe('Saved the permission of user on greeter');
    await eventually(() => page.getByRole('button', { name: 'Permission of user: partial schema' }).count()).toBe(1);
    await page.screenshot({ path: artifact('27-remote-schema-permissions.png') });
    expect(await unnamedControls(page)).toEqual([]);
    const asUser = { 'x-engine-admin-secret': SECRET, 'x-engine-role': 'user' };
    expect((await engine.graphql('{ hello(name: "Bo") }', undefined, asUser)).body).toEqual({ data: { hello: 'Hello Bo' } });
    expect(JSON.stringify((await engine.graphql('{ secret }', undefined, asUser)).body)).toContain('errors');
    await page.getByRole('link', { name: 'Modify' }).click();
    const form = page.getByRole('form', { name: 'Modify remote schema greeter' });
    await form.getByRole('button', { name: 'Reload remote schema' }).click();
    await eventually(status).toBe('Reloaded remote schema greeter');
    const permissions = (await exported()).remote_schemas?.[0]?.permissions as Array<{ role: string }> | undefined;
    expect(permissions?.map((p) => p.role)).toEqual(['user']);
    // As v2, removal takes the remote schema's permissions with it (only other
    // dependents, such as remote relationships, refuse it).
    await form.getByRole('button', { name: 'Remove remote schema' }).click();
    await form.getByRole('button', { name: 'Confirm removal of remote schema greeter' }).click();
    await eventually(status).toBe('Removed remote schema greeter');
    expect(JSON.stringify((await engine.graphql('{ hello(name: "Bo") }', undefined, asUser)).body)).toContain('errors');
    expect((await exported()).remote_schemas ?? []).toEqual([]);
  });

  it('Permissions: adds an inherited role, modifies the roles it inherits from, drops it', async () => {
    // Set-up, not under test: two roles that each see one column of readings.
    const setUp = await engine.metadata({
      type: 'bulk',
      args: [
        { type: 'pg_create_select_permission', args: { source: 'default', table: 'readings', role: 'clerk', permission: { columns: ['sensor'], filter: {} } } },
        {
          type: 'pg_create_select_permission',
          args: { source: 'default', table: 'readings', role: 'auditor', permission: { columns: ['value'], filter: {} } },
        },
      ],
    });
    expect(setUp.status).toBe(200);
    await page.getByRole('link', { name: 'Permissions', exact: true }).first().click();
    const section = page.getByRole('region', { name: 'Inherited roles' });
    const sectionStatus = () => statusText(section);
    const add = section.getByRole('form', { name: 'Add an inherited role' });
    await typeInto(add.getByLabel('Inherited role name'), 'staff');
    await add.getByRole('checkbox', { name: 'clerk' }).check();
    await add.getByRole('button', { name: 'Add inherited role' }).click();
    await eventually(sectionStatus).toBe('Added inherited role staff');
    expect((await exported()).inherited_roles).toEqual([{ role_name: 'staff', role_set: ['clerk'] }]);
    const asStaff = { 'x-engine-admin-secret': SECRET, 'x-engine-role': 'staff' };
    const readings = '{ readings(order_by: {sensor: asc}, limit: 1) { sensor value } }';
    expect(JSON.stringify((await engine.graphql(readings, undefined, asStaff)).body)).toContain('errors');
    await section.getByRole('button', { name: 'Modify inherited role staff' }).click();
    const modify = section.getByRole('form', { name: 'Modify inherited role staff' });
    expect(await modify.getByRole('checkbox', { name: 'clerk' }).isChecked()).toBe(true);
    await modify.getByRole('checkbox', { name: 'auditor' }).check();
    await page.screenshot({ path: artifact('30-permissions-inherited-role.png') });
    expect(await unnamedControls(page)).toEqual([]);
    await modify.getByRole('button', { name: 'Save inherited role' }).click();
    await eventually(sectionStatus).toBe('Saved inherited role staff');
    const staff = (await exported()).inherited_roles as Array<{ role_name: string; role_set: string[] }>;
    expect(staff.map((r) => ({ ...r, role_set: [...r.role_set].sort() }))).toEqual([{ role_name: 'staff', role_set: ['auditor', 'clerk'] }]);
    // Both columns now: the union of what clerk and auditor may see.
    const body = JSON.stringify((await engine.graphql(readings, undefined, asStaff)).body);
    expect(body).not.toContain('errors');
    expect(body).toMatch(/"sensor":"s1","value":"?1\.5/);
    await section.getByRole('button', { name: 'Drop inherited role staff' }).click();
    await eventually(sectionStatus).toBe('Dropped inherited role staff');
    expect((await exported()).inherited_roles ?? []).toEqual([]);
  });

  it('Metadata: sets API limits (global and per role); a role over its depth limit is refused; removes them', async () => {
    // clerk may select readings (the inherited-role step gave it the permission).
    await page.getByRole('link', { name: 'Metadata', exact: true }).click();
    const form = page.getByRole('form', { name: 'API limits' });
    const limitsStatus = () => statusText(form);
    const depth = form.getByLabel('Global depth limit (levels of a query)');
    const nodes = form.getByLabel('Global node limit (fields of a query)');
    const rate = form.getByLabel('Global rate limit (requests per minute)');
    const unique = form.getByLabel('Global rate limit, unique by');
    await typeInto(depth, '5');
    await form.getByRole('button', { name: 'Add a role to the depth limit' }).click();
    await typeInto(form.getByLabel('Depth limit, role 1', { exact: true }), 'clerk');
    await typeInto(form.getByLabel('Depth limit, role 1 value (levels of a query)'), '0');
    await typeInto(rate, '600');
    await typeInto(unique, 'IP');
    // Text that is no whole number is refused in the page with the reason, and nothing is sent.
    await typeInto(nodes, '1e3');
    await form.getByRole('button', { name: 'Save API limits' }).click();
    await eventually(() => form.getByRole('alert').textContent()).toContain('Global node limit must be a whole number');
    expect((await exported()).api_limits).toBeUndefined();
    await typeInto(nodes, '1000');
    await form.getByRole('button', { name: 'Save API limits' }).click();
    await eventually(limitsStatus).toBe('Saved the API limits');
    await page.screenshot({ path: artifact('31-metadata-api-limits.png') });
    expect(await unnamedControls(page)).toEqual([]);
    expect((await exported()).api_limits).toEqual({
      depth_limit: { global: 5, per_role: { clerk: 0 } },
      node_limit: { global: 1000 },
      rate_limit: { global: { max_reqs_per_min: 600, unique_params: 'IP' } },
    });
    const asClerk = { 'x-engine-admin-secret': SECRET, 'x-engine-role': 'clerk' };
    expect(JSON.stringify((await engine.graphql('{ readings { sensor } }', undefined, asClerk)).body)).toContain('depth limit of 0 exceeded');
    expect((await engine.graphql('{ readings(limit: 1) { sensor } }')).body).toHaveProperty('data');
    // Emptying every field removes the limits.
    await form.getByRole('button', { name: 'Remove role 1 of the depth limit' }).click();
    for (const field of [depth, nodes, rate, unique]) await typeInto(field, '');
    await form.getByRole('button', { name: 'Save API limits' }).click();
    await eventually(() => exported().then((m) => m.api_limits)).toBeUndefined();
    expect((await engine.graphql('{ readings { sensor } }', undefined, asClerk)).body).toHaveProperty('data');
  });

  it('Metadata: refuses introspection to a checked role and keeps an insecure TLS allow-list', async () => {
    await page.getByRole('link', { name: 'Metadata', exact: true }).click();
    const form = page.getByRole('form', { name: 'Introspection' });
    const asClerk = { 'x-engine-admin-secret': SECRET, 'x-engine-role': 'clerk' };
    const probe = '{ __schema { queryType { name } } }';
    expect((await engine.graphql(probe, undefined, asClerk)).body).toHaveProperty('data');
    await form.getByRole('checkbox', { name: 'clerk' }).check();
    // A role no permission names yet is typed in.
    await typeInto(form.getByLabel('Another role'), 'guest');
    await form.getByRole('button', { name: 'Refuse introspection to this role' }).click();
    expect(await form.getByRole('checkbox', { name: 'guest' }).isChecked()).toBe(true);
    await form.getByRole('button', { name: 'Save introspection options' }).click();
    await eventually(() => statusText(form)).toBe('Saved the introspection options');
    expect((await exported()).graphql_schema_introspection).toEqual({ disabled_for_roles: ['clerk', 'guest'] });
    expect(JSON.stringify((await engine.graphql(probe, undefined, asClerk)).body)).toContain('introspection is disabled for this role');
    expect((await engine.graphql(probe)).body).toHaveProperty('data');

    const tls = page.getByRole('form', { name: 'Insecure TLS allow-list' });
    await typeInto(tls.getByLabel('Host'), 'internal.example');
    await typeInto(tls.getByLabel('Port (optional)'), 'x1');
    await tls.getByRole('button', { name: 'Allow host' }).click();
    await eventually(() => tls.getByRole('alert').textContent()).toContain('The port must be a number');
    await typeInto(tls.getByLabel('Port (optional)'), '8443');
    await tls.getByRole('button', { name: 'Allow host' }).click();
    await eventually(() => statusText(tls)).toBe('Allowed internal.example:8443');
    expect((await exported()).network).toEqual({ tls_allowlist: [{ host: 'internal.example', suffix: '8443', permissions: ['self-signed'] }] });
    await page.screenshot({ path: artifact('32-metadata-security.png') });
    expect(await unnamedControls(page)).toEqual([]);
    await tls.getByRole('button', { name: 'Remove internal.example:8443' }).click();
    await eventually(() => exported().then((m) => m.network)).toBeUndefined();

    await form.getByRole('checkbox', { name: 'clerk' }).uncheck();
    await form.getByRole('checkbox', { name: 'guest' }).uncheck();
    await form.getByRole('button', { name: 'Save introspection options' }).click();
    await eventually(() => exported().then((m) => m.graphql_schema_introspection)).toBeUndefined();
    expect((await engine.graphql(probe, undefined, asClerk)).body).toHaveProperty('data');
  });

  it('made no request outside the origin, and no page error', () => {
    expect(outside).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
