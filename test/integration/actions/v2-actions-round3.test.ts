/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Actions as v2 answers them (issue 34, "Actions and remote schemas"), checked
 * against v2's server/tests-py/queries/actions cases: a real engine, a real
 * handler server, real graphql-ws clients.
 * - handler errors: a top-level `code` is the error's code when there are no
 *   `extensions`; `extensions` are passed as given (extensions_code_*.yaml);
 * - fields the output type lacks are dropped (mirror_action_unexpected_field);
 *   null items of lists of objects stay null;
 * - `<rel>_aggregate` on output objects (get_user_by_email_nested_join), and
 *   relationships of nested objects; the async and sync refusals of
 *   Hasura.RQL.DDL.Action.resolveAction;
 * - the same answers over WebSocket as over HTTP;
 * - header parse errors at `definition.headers[i]` (create_with_headers).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import { startTestServer, type TestServer } from '../../support/http-server.ts';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';
import { openRawSocket, wsUrl, type RawSocket } from '../../support/ws-client.ts';

let f: MetadataFixture;
let handler: TestServer;
/** What the handler answers for an action call, by `input.mode`: `[status, body]`. */
const answers: Record<string, [number, unknown]> = {};
/** Every handler call: its payload and headers. */
const received: Array<{ payload: unknown; headers: Record<string, unknown> }> = [];
const clients: Client[] = [];
const sockets: RawSocket[] = [];

const USER = { 'x-engine-role': 'user' };

beforeAll(async () => {
  f = await startFixture();
  handler = await startTestServer((req, body, res) => {
    const payload = JSON.parse(body) as { input: { mode: string } };
    const mode = payload.input.mode;
    received.push({ payload, headers: req.headers });
    const [status, out] = answers[mode] ?? [500, { message: `no answer for ${mode}` }];
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(out));
  });
  const ok = async (type: string, args: unknown): Promise<void> => expect((await f.md(type, args)).body, type).toEqual({ message: 'success' });
  for (const t of ['authors', 'articles']) await ok('pg_track_table', { table: t });
  await ok('pg_create_select_permission', { table: 'articles', role: 'user', permission: { columns: ['id', 'title'], filter: {}, allow_aggregations: true } });
  await ok('pg_create_select_permission', { table: 'authors', role: 'user', permission: { columns: ['id', 'name'], filter: {} } });
  await ok('pg_create_select_permission', { table: 'articles', role: 'reader', permission: { columns: ['id', 'title'], filter: {} } });
  await ok('set_custom_types', {
    objects: [
      {
        name: 'Address',
        fields: [
          { name: 'city', type: 'String' },
          { name: 'country', type: 'String' },
        ],
      },
      {
        name: 'AuthorRef',
        fields: [{ name: 'author_id', type: 'Int!' }],
        relationships: [
          { name: 'author', type: 'object', remote_table: 'authors', field_mapping: { author_id: 'id' } },
          { name: 'articles', type: 'array', remote_table: 'articles', field_mapping: { author_id: 'author_id' } },
        ],
      },
      {
        name: 'Person',
        fields: [
          { name: 'id', type: 'Int!' },
          { name: 'name', type: 'String' },
          { name: 'address', type: 'Address' },
          { name: 'addresses', type: '[Address]' },
          { name: 'ref', type: 'AuthorRef' },
        ],
        relationships: [{ name: 'articles', type: 'array', remote_table: 'articles', field_mapping: { id: 'author_id' } }],
      },
      {
        name: 'Flat',
        fields: [{ name: 'id', type: 'Int!' }],
        relationships: [{ name: 'author', type: 'object', remote_table: 'authors', field_mapping: { id: 'id' } }],
      },
    ],
  });
  const def = (output: string): Record<string, unknown> => ({
    kind: 'synchronous',
    type: 'query',
    arguments: [{ name: 'mode', type: 'String!' }],
    output_type: output,
    handler: handler.url,
  });
  await ok('create_action', { name: 'person', definition: def('Person') });
  await ok('create_action', { name: 'people', definition: def('[Person]') });
  await ok('create_action', { name: 'change', definition: { ...def('Person'), type: 'mutation', forward_client_headers: true } });
  for (const a of ['person', 'people', 'change']) {
    await ok('create_action_permission', { action: a, role: 'user' });
    await ok('create_action_permission', { action: a, role: 'reader' });
  }
}, 60_000);

afterAll(async () => {
  for (const c of clients) await c.dispose();
  for (const raw of sockets) raw.close();
  await handler?.close();
  await f?.close();
});

describe('handler errors', () => {
  // v2's server/tests-py/queries/actions/sync/extensions_code_*.yaml and get_user_by_email_fail.yaml.
  const cases: Array<[string, unknown, unknown]> = [
    ['code', { message: 'Given email address is not valid', code: 'invalid-email' }, { path: '$', code: 'invalid-email' }],
    ['toplevel', { message: 'intentionally generated error', code: 'toplevel-error' }, { path: '$', code: 'toplevel-error' }],
    ['nothing', { message: 'intentionally generated error' }, { path: '$', code: 'unexpected' }],
    ['ext', { message: 'intentionally generated error', extensions: { foo: 'bar', code: 'action-error' } }, { foo: 'bar', code: 'action-error' }],
    ['ext-no-code', { message: 'intentionally generated error', extensions: { foo: 'bar' } }, { foo: 'bar' }],
    [
      'both',
      { message: 'intentionally generated error', code: 'toplevel-error', extensions: { foo: 'bar', code: 'action-error' } },
      { foo: 'bar', code: 'action-error' },
    ],
    ['both-no-code', { message: 'intentionally generated error', code: 'toplevel-error', extensions: { foo: 'bar' } }, { foo: 'bar' }],
  ];
  it.each(cases)('a 4xx answer (%s) is the error v2 gives', async (mode, body, extensions) => {
    answers[mode] = [400, body];
    const r = await f.engine.graphql<any>('query($m: String!) { person(mode: $m) { id } }', { m: mode }, USER);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ errors: [{ message: (body as { message: string }).message, extensions }] });
  });
});

describe('outputs', () => {
  it('drops fields the output type lacks, at every level (mirror_action_unexpected_field)', async () => {
    answers['extra'] = [200, { id: 1, name: 'Alice', age: 25, address: { city: 'Oslo', zip: '0150' }, addresses: [{ city: 'Rome', planet: 'Earth' }] }];
    const r = await f.engine.graphql<any>('{ person(mode: "extra") { id name address { city } addresses { city country } } }', undefined, USER);
    expect(r.body).toEqual({ data: { person: { id: 1, name: 'Alice', address: { city: 'Oslo' }, addresses: [{ city: 'Rome', country: null }] } } });
  });

  it('keeps the null items of a list of objects, and null nested objects', async () => {
    answers['nulls'] = [200, { id: 1, address: null, addresses: [{ city: 'Rome' }, null, { city: 'Lima', country: 'Peru' }] }];
    const r = await f.engine.graphql<any>('{ person(mode: "nulls") { id address { city } addresses { city country } } }', undefined, USER);
    expect(r.body).toEqual({
      data: { person: { id: 1, address: null, addresses: [{ city: 'Rome', country: null }, null, { city: 'Lima', country: 'Peru' }] } },
    });
    answers['null-items'] = [200, [{ id: 2 }, null]];
    const list = await f.engine.graphql<any>('{ people(mode: "null-items") { id articles { title } } }', undefined, USER);
    expect(list.body).toEqual({ data: { people: [{ id: 2, articles: [{ title: 'World' }] }, null] } });
  });
});

describe('output relationships', () => {
  it('offers <rel>_aggregate where the role may aggregate, and answers it per output object', async () => {
    answers['agg'] = [
      200,
      [
        { id: 1, name: 'Ann' },
        { id: 99, name: 'nobody' },
      ],
    ];
    const q = `{ people(mode: "agg") { id articles_aggregate { aggregate { count max { id } } nodes { title } __typename } } }`;
    const r = await f.engine.graphql<any>(q, undefined, USER);
    expect(r.body).toEqual({
      data: {
        people: [
          { id: 1, articles_aggregate: { aggregate: { count: 1, max: { id: 1 } }, nodes: [{ title: 'Hello' }], __typename: 'articles_aggregate' } },
          { id: 99, articles_aggregate: { aggregate: { count: 0, max: { id: null } }, nodes: [], __typename: 'articles_aggregate' } },
        ],
      },
    });
    answers['agg1'] = [200, { id: 2 }];
    const where = (title: string): string => `{ person(mode: "agg1") { articles_aggregate(where: {title: {_eq: "${title}"}}) { aggregate { count } } } }`;
    expect((await f.engine.graphql<any>(where('World'), undefined, USER)).body).toEqual({
      data: { person: { articles_aggregate: { aggregate: { count: 1 } } } },
    });
    expect((await f.engine.graphql<any>(where('nope'), undefined, USER)).body).toEqual({
      data: { person: { articles_aggregate: { aggregate: { count: 0 } } } },
    });
    // A role whose permission does not allow aggregations has no such field (v2: selectTableAggregate gives none).
    const reader = await f.engine.graphql<any>(q, undefined, { 'x-engine-role': 'reader' });
    expect(reader.body.errors[0].extensions.code).toBe('validation-failed');
    expect(reader.body.errors[0].message).toContain('articles_aggregate');
  });

  it('resolves relationships of nested objects (get_user_by_email_nested_join)', async () => {
    answers['nested'] = [200, { id: 5, ref: { author_id: 1 }, addresses: [{ city: 'Rome' }] }];
    const r = await f.engine.graphql<any>(
      `{ person(mode: "nested") { id ref { author_id author { id name } articles { title } articles_aggregate { aggregate { count } } } addresses { city } } }`,
      undefined,
      USER,
    );
    expect(r.body).toEqual({
      data: {
        person: {
          id: 5,
          ref: { author_id: 1, author: { id: 1, name: 'Ann' }, articles: [{ title: 'Hello' }], articles_aggregate: { aggregate: { count: 1 } } },
          addresses: [{ city: 'Rome' }],
        },
      },
    });
  });

  it('create_action refuses what v2 refuses and accepts nested relationships', async () => {
    const create = (name: string, kind: string, output: string): Promise<any> =>
      f.md('create_action', { name, definition: { kind, arguments: [{ name: 'mode', type: 'String!' }], output_type: output, handler: handler.url } });
    // create_async_action_with_nested_output_and_relation.yaml: an async output with relationships and object fields.
    const async = await create('async_fail', 'asynchronous', 'Person');
    expect(async.status).toBe(400);
    expect(async.body).toMatchObject({ code: 'invalid-configuration', path: '$.args' });
    expect(async.body.error).toContain('Async action relations cannot be used with object fields: "address", "addresses", "ref"');
    // An async output whose relationships map only scalar fields and that has no object fields is fine.
    expect((await create('async_ok', 'asynchronous', 'Flat')).body).toEqual({ message: 'success' });
    // A sync output whose nested object has relationships is fine.
    expect((await create('sync_nested', 'synchronous', 'Person')).body).toEqual({ message: 'success' });
    // A relationship mapping a nested object field is refused for a sync action.
    const types = (await f.exported()).custom_types;
    const bad = {
      ...types,
      objects: [
        ...types.objects,
        {
          name: 'Holder',
          fields: [{ name: 'ref', type: 'AuthorRef' }],
          relationships: [{ name: 'by_ref', type: 'object', remote_table: 'authors', field_mapping: { ref: 'id' } }],
        },
      ],
    };
    expect((await f.md('set_custom_types', bad)).body).toEqual({ message: 'success' });
    const sync = await create('sync_fail', 'synchronous', 'Holder');
    expect(sync.status).toBe(400);
    expect(sync.body.error).toContain('Relationships cannot be defined with nested object fields: "by_ref"');
    expect((await f.exported()).actions.map((a: any) => a.name)).toEqual(['person', 'people', 'change', 'async_ok', 'sync_nested']);
  });
});

describe('over WebSocket', () => {
  /** The one result of an operation over `graphql-transport-ws` (graphql-ws's client): its `next` payload, or its `error`. */
  async function overTransportWs(query: string, headers: Record<string, string>): Promise<unknown> {
    const c = createClient({ url: wsUrl(f.engine.url), webSocketImpl: WebSocket, connectionParams: { headers }, retryAttempts: 0 });
    clients.push(c);
    const out: unknown[] = [];
    c.subscribe({ query }, { next: (r) => out.push(r), error: (e) => out.push({ error: e }), complete: () => out.push('complete') });
    await expect.poll(() => out.includes('complete') || out.some((x) => typeof x === 'object' && x !== null && 'error' in x), { timeout: 20_000 }).toBe(true);
    return out[0];
  }

  /** The same over the legacy `graphql-ws` sub-protocol (v2's apollo protocol): the `data` message's payload. */
  async function overLegacyWs(query: string, headers: Record<string, string>): Promise<unknown> {
    const raw = await openRawSocket(f.engine.url, 'graphql-ws');
    sockets.push(raw);
    raw.send({ type: 'connection_init', payload: { headers } });
    await raw.waitFor((m) => m['type'] === 'connection_ack', 20_000);
    raw.send({ id: '1', type: 'start', payload: { query } });
    const m = await raw.waitFor((x) => x['id'] === '1' && (x['type'] === 'data' || x['type'] === 'error'), 20_000);
    return m['type'] === 'data' ? m['payload'] : { error: m['payload'] };
  }

  it('actions answer the same data and errors as over HTTP', async () => {
    answers['ws-ok'] = [200, [{ id: 1, name: 'Ann', extra: true, ref: { author_id: 2 }, addresses: [null, { city: 'Rome' }] }, null]];
    answers['ws-code'] = [422, { message: 'Given email address is not valid', code: 'invalid-email' }];
    answers['ws-ext'] = [400, { message: 'no', extensions: { foo: 'bar' } }];
    answers['ws-misfit'] = [200, { name: 'no id' }];
    answers['ws-500'] = [500, { message: 'boom' }];
    const queries = [
      `{ people(mode: "ws-ok") { id name articles { title } articles_aggregate { aggregate { count } } ref { author { name } } addresses { city } } }`,
      `{ person(mode: "ws-code") { id } }`,
      `{ person(mode: "ws-ext") { id } }`,
      `{ person(mode: "ws-misfit") { id } }`,
      `{ person(mode: "ws-500") { id } }`,
      `{ a: person(mode: "ws-code") { id } b: people(mode: "ws-ok") { id } }`,
    ];
    for (const q of queries) {
      const http = (await f.engine.graphql<any>(q, undefined, USER)).body;
      expect(http.data ?? http.errors, q).toBeDefined();
      expect(await overTransportWs(q, USER), q).toEqual(http);
      expect(await overLegacyWs(q, USER), q).toEqual(http);
    }
    // A mutation action: the same answer, and the handler gets the same call (session, query, forwarded headers).
    answers['ws-m'] = [200, { id: 2, name: 'Bob' }];
    const m = `mutation { change(mode: "ws-m") { id name author: articles { title } } }`;
    const headers = { ...USER, 'x-engine-user-id': '2', 'x-client': 'c1' };
    const before = received.length;
    const overHttp = (await f.engine.graphql<any>(m, undefined, headers)).body;
    expect(overHttp).toEqual({ data: { change: { id: 2, name: 'Bob', author: [{ title: 'World' }] } } });
    expect(await overTransportWs(m, headers)).toEqual(overHttp);
    expect(await overLegacyWs(m, headers)).toEqual(overHttp);
    const calls = received.slice(before);
    expect(calls).toHaveLength(3);
    expect(calls[1]?.payload).toEqual(calls[0]?.payload);
    expect(calls[2]?.payload).toEqual(calls[0]?.payload);
    expect(calls.map((c) => c.headers['x-client'])).toEqual(['c1', 'c1', 'c1']);
    // The admin sees the same `internal` details on both transports.
    const admin = (await f.engine.graphql<any>(queries[4] as string)).body;
    expect(admin.errors[0].extensions.internal).toBeDefined();
    const adminHeaders = { 'x-engine-role': 'admin' };
    expect(await overTransportWs(queries[4] as string, adminHeaders)).toEqual(
      (await f.engine.graphql<any>(queries[4] as string, undefined, adminHeaders)).body,
    );
  });
});

describe('create_action headers', () => {
  it('refuses bad headers at $.args.definition.headers[i], as v2 (create_with_headers.yaml), and stores nothing', async () => {
    const before = await f.exported();
    const withHeaders = (headers: unknown[]): Record<string, unknown> => ({
      name: 'with_headers',
      definition: { kind: 'synchronous', arguments: [{ name: 'mode', type: 'String!' }], output_type: 'Person', handler: handler.url, headers },
    });
    process.env['ENGINE_TEST_R3_HEADER'] = 'set';
    const cases: Array<[unknown[], number, string, string]> = [
      [
        [{ name: 'x-client-id', value_from_env: 'HASURA_GRAPHQL_CLIENT_NAME' }],
        0,
        'parse-failed',
        'env variables start with "HASURA_GRAPHQL_" are not allowed for value_from_env',
      ],
      [
        [
          { name: 'ok', value: 'v' },
          { name: 'x-secret', value_from_env: 'ENGINE_GRAPHQL_ADMIN_SECRET' },
        ],
        1,
        'parse-failed',
        'env variables start with "ENGINE_GRAPHQL_" are not allowed for value_from_env',
      ],
      [[{ name: 'x' }], 0, 'parse-failed', 'expecting value or value_from_env keys'],
      [[{ name: 'x', value: 'v', value_from_env: 'ENGINE_TEST_R3_HEADER' }], 0, 'parse-failed', 'expecting only one of value or value_from_env keys'],
      [
        [
          { name: 'a', value_from_env: 'ENGINE_TEST_R3_HEADER' },
          { name: 'b', value: '1' },
          { name: 'c', value_from_env: 'ENGINE_TEST_R3_UNSET' },
        ],
        2,
        'invalid-configuration',
        'the environment variable "ENGINE_TEST_R3_UNSET" of the header "c" is not set',
      ],
    ];
    for (const [headers, i, code, error] of cases) {
      for (const type of ['create_action', 'update_action']) {
        const args = type === 'create_action' ? withHeaders(headers) : { ...withHeaders(headers), name: 'person' };
        const r = await f.md(type, args);
        expect(r.status, `${type} ${JSON.stringify(headers)}`).toBe(400);
        expect(r.body).toEqual({ path: `$.args.definition.headers[${i}]`, code, error });
        const legacy = await f.q1(type, args);
        expect(legacy.body).toEqual({ path: `$.args.definition.headers[${i}]`, code, error });
        const bulk = await f.md('bulk', [{ type, args }]);
        expect(bulk.body.path).toBe(`$.args[0].args.definition.headers[${i}]`);
      }
    }
    expect(await f.exported()).toEqual(before);
    expect((await f.md('create_action', withHeaders([{ name: 'a', value_from_env: 'ENGINE_TEST_R3_HEADER' }]))).body).toEqual({ message: 'success' });
  });
});
