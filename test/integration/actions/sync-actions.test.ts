/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../support/http-server.ts';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';

let f: MetadataFixture;
let handler: TestServer;

/** Routes handler requests by action name; each route answers `[status, body]` (a string body is sent raw). */
const routes: Record<string, (payload: any, req: http.IncomingMessage) => [number, unknown] | 'hang'> = {};

beforeAll(async () => {
  f = await startFixture();
  handler = await startTestServer((req, body, res) => {
    let payload: any = null;
    try {
      payload = JSON.parse(body);
    } catch {
      payload = body;
    }
    const route = routes[payload?.action?.name ?? new URL(req.url ?? '/', 'http://x').pathname.slice(1)];
    const answer = route === undefined ? ([404, { message: 'no route' }] as const) : route(payload, req);
    if (answer === 'hang') return; // never answers: the engine's timeout cuts it
    const [status, out] = answer;
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(typeof out === 'string' ? out : JSON.stringify(out));
  });
  for (const t of ['authors', 'articles']) expect((await f.md('pg_track_table', { table: t })).status).toBe(200);
  expect(
    (
      await f.md('pg_create_select_permission', {
        table: 'articles',
        role: 'user',
        permission: { columns: ['id', 'title', 'author_id'], filter: { author_id: { _eq: 'X-Engine-User-Id' } } },
      })
    ).status,
  ).toBe(200);
  expect((await f.md('pg_create_select_permission', { table: 'authors', role: 'user', permission: { columns: ['id', 'name'], filter: {} } })).status).toBe(200);
});
afterAll(async () => {
  await handler?.close();
  await f?.close();
});

const customTypes = {
  scalars: [{ name: 'Date' }],
  enums: [{ name: 'Mood', values: [{ value: 'happy' }, { value: 'sad' }] }],
  input_objects: [
    {
      name: 'LoginInput',
      fields: [
        { name: 'username', type: 'String!' },
        { name: 'password', type: 'String!' },
      ],
    },
  ],
  objects: [
    {
      name: 'LoginOutput',
      fields: [
        { name: 'token', type: 'String!' },
        { name: 'user_id', type: 'Int!' },
        { name: 'mood', type: 'Mood' },
        { name: 'when', type: 'Date' },
        { name: 'tags', type: '[String!]' },
      ],
      relationships: [
        { name: 'author', type: 'object', remote_table: 'authors', field_mapping: { user_id: 'id' } },
        { name: 'articles', type: 'array', remote_table: { schema: 'public', name: 'articles' }, field_mapping: { user_id: 'author_id' } },
      ],
    },
  ],
};

function action(name: string, extra: Record<string, unknown> = {}, definition: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    definition: {
      kind: 'synchronous',
      type: 'mutation',
      arguments: [{ name: 'credentials', type: 'LoginInput!' }],
      output_type: 'LoginOutput',
      handler: handler.url.replace(/\/$/, ''),
      ...definition,
    },
    ...extra,
  };
}

describe('custom types and action metadata', () => {
  it('refuses actions whose types are not defined, then sets custom types', async () => {
    const early = await f.md('create_action', action('login'));
    expect(early.status).toBe(400);
    expect(early.body.error).toContain('LoginInput');
    expect((await f.exported()).actions).toBeUndefined();
    const set = await f.md('set_custom_types', customTypes);
    expect(set.status).toBe(200);
    expect((await f.md('create_action', action('login', { comment: 'logs in' }))).body).toEqual({ message: 'success' });
    const again = await f.md('create_action', action('login'));
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: 'already-exists', path: '$.args.name' });
  });

  it('refuses bad custom types with a clear 400 and stores nothing', async () => {
    const before = await f.exported();
    const withObject = (o: unknown): unknown => ({ ...customTypes, objects: [...customTypes.objects, o] });
    const cases: Array<[unknown, string]> = [
      [withObject({ name: 'authors', fields: [{ name: 'x', type: 'Int' }] }), 'authors'],
      [withObject({ name: 'O', fields: [{ name: 'x', type: 'Nope' }] }), 'Nope'],
      [
        withObject({
          name: 'O',
          fields: [{ name: 'x', type: 'Int' }],
          relationships: [{ name: 'r', type: 'object', remote_table: 'profiles', field_mapping: { x: 'author_id' } }],
        }),
        'not tracked',
      ],
      [
        withObject({
          name: 'O',
          fields: [{ name: 'x', type: 'Int' }],
          relationships: [{ name: 'r', type: 'object', remote_table: 'authors', field_mapping: { x: 'nope' } }],
        }),
        'nope',
      ],
      [withObject({ name: 'LoginInput', fields: [{ name: 'x', type: 'Int' }] }), 'twice'],
      [{ ...customTypes, scalars: [{ name: 'Date' }, { name: 'String' }] }, 'built-in'],
    ];
    for (const [args, words] of cases) {
      const r = await f.md('set_custom_types', args);
      expect(r.status, JSON.stringify(args)).toBe(400);
      expect(r.body.error).toContain(words);
    }
    // Dropping a type an action still uses.
    const drop = await f.md('set_custom_types', { objects: customTypes.objects });
    expect(drop.status).toBe(400);
    expect(drop.body).toMatchObject({ code: 'dependency-error' });
    expect(drop.body.error).toContain('LoginInput');
    expect(await f.exported()).toEqual(before);
  });

  it('refuses an action whose name is a table root field, or whose output is an input type', async () => {
    const clash = await f.md('create_action', action('authors'));
    expect(clash.status).toBe(400);
    expect(clash.body.error).toContain('root field "authors"');
    const input = await f.md('create_action', action('bad', {}, { output_type: 'LoginInput' }));
    expect(input.status).toBe(400);
    expect(input.body.error).toContain('input object');
    expect((await f.exported()).actions.map((a: any) => a.name)).toEqual(['login']);
  });

  it('exports actions and custom types, and replace_metadata round-trips them', async () => {
    const doc = await f.exported();
    expect(doc.custom_types).toEqual(customTypes);
    expect(doc.actions).toEqual([{ ...action('login', { comment: 'logs in' }) }]);
    const r = await f.md('replace_metadata', doc);
    expect(r.status).toBe(200);
    expect(await f.exported()).toEqual(doc);
  });

  it('manages permissions, also through the legacy API', async () => {
    expect((await f.md('create_action_permission', { action: 'login', role: 'user' })).status).toBe(200);
    const twice = await f.md('create_action_permission', { action: 'login', role: 'user' });
    expect(twice.body).toMatchObject({ code: 'already-exists' });
    expect((await f.md('create_action_permission', { action: 'nope', role: 'user' })).body).toMatchObject({ code: 'not-exists', path: '$.args.action' });
    expect((await f.q1('create_action_permission', { action: 'login', role: 'guest' })).status).toBe(200);
    expect((await f.q1('drop_action_permission', { action: 'login', role: 'guest' })).status).toBe(200);
    expect((await f.md('drop_action_permission', { action: 'login', role: 'guest' })).body).toMatchObject({ code: 'not-exists' });
    expect((await f.exported()).actions[0].permissions).toEqual([{ role: 'user' }]);
  });
});

describe('synchronous actions', () => {
  const login = `mutation($u: String!) { login(credentials: {username: $u, password: "pw"}) { token t: user_id mood when tags __typename } }`;

  it('posts {action, input, session_variables, request_query} and answers the selection', async () => {
    routes['login'] = (p) => [200, { token: `tok-${p.input.credentials.username}`, user_id: 1, mood: 'happy', when: { d: 1 }, tags: ['a'] }];
    const r = await f.engine.graphql<any>(login, { u: 'ann' }, { 'x-engine-role': 'user', 'x-engine-user-id': '1' });
    expect(r.body).toEqual({ data: { login: { token: 'tok-ann', t: 1, mood: 'happy', when: { d: 1 }, tags: ['a'], __typename: 'LoginOutput' } } });
    const sent = JSON.parse(handler.requests.at(-1)?.body ?? '{}');
    expect(sent).toEqual({
      action: { name: 'login' },
      input: { credentials: { username: 'ann', password: 'pw' } },
      session_variables: { 'x-engine-role': 'user', 'x-engine-user-id': '1' },
      request_query: expect.stringContaining('login(credentials:'),
    });
  });

  it('a role without permission does not see the action; admin always does', async () => {
    const r = await f.engine.graphql<any>(login, { u: 'x' }, { 'x-engine-role': 'other' });
    expect(r.body.errors[0].extensions.code).toBe('validation-failed');
    const admin = await f.engine.graphql<any>(login, { u: 'adm' });
    expect(admin.body.data.login.token).toBe('tok-adm');
  });

  it('a 4xx {message, extensions} is a GraphQL error with that message and extensions', async () => {
    routes['login'] = () => [400, { message: 'wrong password', extensions: { code: 'bad-login', tries: 2 } }];
    const r = await f.engine.graphql<any>(login, { u: 'ann' }, { 'x-engine-role': 'user', 'x-engine-user-id': '1' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ errors: [{ message: 'wrong password', extensions: { code: 'bad-login', tries: 2 } }] });
  });

  it('5xx, invalid JSON and outputs that do not fit the type are clean unexpected errors', async () => {
    const bad: Array<[number, unknown, string]> = [
      [500, { message: 'boom' }, 'status 500'],
      [200, 'not json{', 'invalid JSON'],
      [200, { token: 'x' }, 'user_id'],
      [200, { token: 'x', user_id: 'one' }, 'expected an Int'],
      [200, { token: 'x', user_id: 1, mood: 'angry' }, 'enum Mood'],
      [200, [1], 'expected an object'],
    ];
    for (const [status, body, words] of bad) {
      routes['login'] = () => [status, body];
      const r = await f.engine.graphql<any>(login, { u: 'ann' }, { 'x-engine-role': 'user', 'x-engine-user-id': '1' });
      expect(r.status).toBe(200);
      expect(r.body.errors[0].extensions.code, JSON.stringify(body)).toBe('unexpected');
      expect(r.body.errors[0].message).toContain(words);
      expect(r.body.errors[0].extensions.internal).toBeUndefined();
    }
  });

  it('a hanging handler is cut at the timeout', async () => {
    routes['slow'] = () => 'hang';
    expect((await f.md('create_action', action('slow', {}, { timeout: 1, handler: `${handler.url}slow` }))).status).toBe(200);
    const started = Date.now();
    const r = await f.engine.graphql<any>(`mutation { slow(credentials: {username: "a", password: "b"}) { token } }`);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.body.errors[0].extensions.code).toBe('unexpected');
    expect(r.body.errors[0].message).toContain('within 1 s');
  });

  it('resolves output relationships with the caller select permission in one statement', async () => {
    routes['login'] = (p) => [200, { token: 't', user_id: Number(p.input.credentials.username) }];
    const q = `mutation($u: String!) { login(credentials: {username: $u, password: "p"}) { user_id author { name } articles(order_by: {id: asc}) { title } } }`;
    const admin = await f.engine.graphql<any>(q, { u: '2' });
    expect(admin.body).toEqual({ data: { login: { user_id: 2, author: { name: 'Bob' }, articles: [{ title: 'World' }] } } });
    // user 1 may only read articles of author 1: author 2's articles are filtered out.
    const user = await f.engine.graphql<any>(q, { u: '2' }, { 'x-engine-role': 'user', 'x-engine-user-id': '1' });
    expect(user.body).toEqual({ data: { login: { user_id: 2, author: { name: 'Bob' }, articles: [] } } });
    const own = await f.engine.graphql<any>(q, { u: '1' }, { 'x-engine-role': 'user', 'x-engine-user-id': '1' });
    expect(own.body.data.login.articles).toEqual([{ title: 'Hello' }]);
  });

  it('query actions, list outputs and scalar outputs', async () => {
    routes['whoami'] = (p) => [
      200,
      [
        { token: p.session_variables['x-engine-role'], user_id: 1 },
        { token: 'b', user_id: 2 },
      ],
    ];
    routes['count'] = () => [200, 42];
    expect((await f.md('create_action', action('whoami', {}, { type: 'query', arguments: [], output_type: '[LoginOutput!]!' }))).status).toBe(200);
    expect((await f.md('create_action', action('count', {}, { type: 'query', arguments: [], output_type: 'Int!' }))).status).toBe(200);
    const r = await f.engine.graphql<any>('{ whoami { token author { name } } count authors(order_by: {id: asc}) { name } }');
    expect(r.body).toEqual({
      data: {
        whoami: [
          { token: 'admin', author: { name: 'Ann' } },
          { token: 'b', author: { name: 'Bob' } },
        ],
        count: 42,
        authors: [{ name: 'Ann' }, { name: 'Bob' }],
      },
    });
  });

  it('request and response transforms shape the call', async () => {
    routes['tx'] = (p, req) => [200, { wrapped: { tok: `${req.method}:${req.url}:${JSON.stringify(p)}` } }];
    const def = {
      handler: `${handler.url}tx`,
      request_transform: {
        version: 2,
        template_engine: 'Kriti',
        method: 'PUT',
        url: '{{$base_url}}',
        query_params: { u: '{{$body.input.credentials.username}}' },
        body: { action: 'transform', template: '{"name": {{$body.input.credentials.username}}}' },
      },
      response_transform: { version: 2, body: { action: 'transform', template: '{"token": {{$body.wrapped.tok}}, "user_id": 7}' } },
    };
    expect((await f.md('create_action', action('tx', {}, def))).status).toBe(200);
    const r = await f.engine.graphql<any>('mutation { tx(credentials: {username: "zed", password: "p"}) { token user_id } }');
    expect(r.body).toEqual({ data: { tx: { token: 'PUT:/tx?u=zed:{"name":"zed"}', user_id: 7 } } });
  });

  it('handler URL templates, headers from values and the environment, forwarded client headers', async () => {
    process.env['ENGINE_TEST_ACTION_BASE'] = handler.url.replace(/\/$/, '');
    process.env['ENGINE_TEST_ACTION_SECRET'] = 's3cret';
    routes['env'] = (_p, req) => [
      200,
      {
        token: `${req.headers['x-secret'] as string}|${req.headers['x-fixed'] as string}|${(req.headers['x-client'] as string | undefined) ?? 'none'}`,
        user_id: 1,
      },
    ];
    const def = {
      handler: '{{ENGINE_TEST_ACTION_BASE}}/env',
      forward_client_headers: true,
      headers: [
        { name: 'x-secret', value_from_env: 'ENGINE_TEST_ACTION_SECRET' },
        { name: 'x-fixed', value: 'v' },
      ],
    };
    expect((await f.md('create_action', action('env', {}, def))).status).toBe(200);
    const r = await f.engine.graphql<any>('mutation { env(credentials: {username: "a", password: "b"}) { token } }', undefined, { 'x-client': 'c1' });
    expect(r.body).toEqual({ data: { env: { token: 's3cret|v|c1' } } });
    const missing = await f.md('create_action', action('env2', {}, { handler: '{{ENGINE_TEST_ACTION_UNSET_17}}/x' }));
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain('ENGINE_TEST_ACTION_UNSET_17');
  });

  it('inherited roles get the actions of their parents', async () => {
    // A role known only from an action permission may be a parent.
    expect((await f.md('create_action_permission', { action: 'env', role: 'actor' })).status).toBe(200);
    expect((await f.md('add_inherited_role', { role_name: 'staff', role_set: ['user', 'actor'] })).status).toBe(200);
    routes['login'] = () => [200, { token: 'inh', user_id: 1 }];
    const r = await f.engine.graphql<any>('mutation { login(credentials: {username: "a", password: "b"}) { token } }', undefined, {
      'x-engine-role': 'staff',
      'x-engine-user-id': '1',
    });
    expect(r.body).toEqual({ data: { login: { token: 'inh' } } });
  });

  it('update_action replaces the definition and drop_action removes the field', async () => {
    expect((await f.md('update_action', action('count', {}, { type: 'query', arguments: [], output_type: 'String' }))).status).toBe(200);
    routes['count'] = () => [200, JSON.stringify('forty-two')];
    const counted = await f.engine.graphql<any>('{ count }');
    expect(counted.body, JSON.stringify(counted.body)).toEqual({ data: { count: 'forty-two' } });
    expect((await f.md('drop_action', { name: 'count' })).status).toBe(200);
    expect((await f.engine.graphql<any>('{ count }')).body.errors[0].extensions.code).toBe('validation-failed');
    expect((await f.md('drop_action', { name: 'count' })).body).toMatchObject({ code: 'not-exists' });
  });
});
