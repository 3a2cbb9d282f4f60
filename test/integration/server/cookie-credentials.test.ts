/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Issue 29, point 4: with the JWT in a cookie, a page of another site must
 * neither read a user's data nor make the engine act for the user (Note
 * [Cookie credentials] in engine/server/cookie-guard.ts). Three real engines
 * over one database: the JWT in a cookie under the default CORS setting, the
 * same with a named origin, and the JWT in the Authorization header under
 * the default setting; a real query action handler counts its calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { SignJWT } from 'jose';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startTestServer, type TestServer } from '../../support/http-server.ts';
import { openRawSocket, wsUrl } from '../../support/ws-client.ts';

const SECRET = 'cookie-credentials-admin-secret';
const KEY = 'a-cookie-credentials-hmac-key-of-32-chars-or-more';
const APP = 'https://app.test';
const EVIL = 'https://evil.test';
const QUERY = '{ notes { body } }';
const ACTION = '{ ping { ok } }';

let db: TestDatabase;
let handler: TestServer;
/** JWT in the cookie `engine_jwt`, CORS unset (every origin). */
let open: TestEngine;
/** JWT in the cookie, CORS naming APP. */
let named: TestEngine;
/** JWT in the Authorization header, CORS unset. */
let bearer: TestEngine;
let jwt: string;
let cookie: string;

const actionCalls = (): number => handler.requests.filter((r) => r.method === 'POST').length;

beforeAll(async () => {
  db = await createTestDatabase('cookie_creds');
  await db.sql(`CREATE TABLE notes (id serial PRIMARY KEY, owner text NOT NULL, body text NOT NULL);
    INSERT INTO notes (owner, body) VALUES ('alice', 'alice note'), ('bob', 'bob note');`);
  handler = await startTestServer((_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true }));
  });
  const cookieJwt = JSON.stringify({ type: 'HS256', key: KEY, header: { type: 'Cookie', name: 'engine_jwt' } });
  open = await startTestEngine({ databaseUrl: db.url, adminSecret: SECRET, jwtSecret: cookieJwt });
  const r = await open.metadata({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { source: 'default', table: 'notes' } },
      {
        type: 'pg_create_select_permission',
        args: { source: 'default', table: 'notes', role: 'user', permission: { columns: ['body'], filter: { owner: { _eq: 'X-Engine-User-Id' } } } },
      },
      { type: 'set_custom_types', args: { objects: [{ name: 'Pong', fields: [{ name: 'ok', type: 'Boolean!' }] }] } },
      { type: 'create_action', args: { name: 'ping', definition: { kind: 'synchronous', type: 'query', output_type: 'Pong', handler: handler.url } } },
      { type: 'create_action_permission', args: { action: 'ping', role: 'user' } },
      { type: 'create_query_collection', args: { name: 'rest', definition: { queries: [{ name: 'mine', query: 'query { notes { body } }' }] } } },
      {
        type: 'create_rest_endpoint',
        args: { name: 'mine', url: 'mine', methods: ['GET', 'POST'], definition: { query: { collection_name: 'rest', query_name: 'mine' } } },
      },
    ],
  });
  expect(r.status, r.text).toBe(200);
  named = await startTestEngine({ databaseUrl: db.url, adminSecret: SECRET, jwtSecret: cookieJwt, corsDomain: APP });
  bearer = await startTestEngine({ databaseUrl: db.url, adminSecret: SECRET, jwtSecret: JSON.stringify({ type: 'HS256', key: KEY }) });
  jwt = await new SignJWT({
    'https://engine.dev/jwt/claims': { 'x-engine-allowed-roles': ['user'], 'x-engine-default-role': 'user', 'x-engine-user-id': 'alice' },
  })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(KEY));
  cookie = `theme=dark; engine_jwt=${jwt}`;
}, 60_000);

afterAll(async () => {
  await open?.close();
  await named?.close();
  await bearer?.close();
  await handler?.close();
  await db?.drop();
});

async function send(
  engine: TestEngine,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; json: any; headers: Headers }> {
  const res = await fetch(engine.url + path, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  return { status: res.status, json: text.length > 0 ? JSON.parse(text) : null, headers: res.headers };
}
const json = { 'content-type': 'application/json' };
const gqlBody = (query: string): string => JSON.stringify({ query });
const getPath = (query: string): string => `/v1/graphql?query=${encodeURIComponent(query)}`;

describe('CORS credentials', () => {
  it('gives no credentials to an origin the setting does not name, answer or preflight', async () => {
    const pre = await send(open, 'OPTIONS', '/v1/graphql', {
      origin: EVIL,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(EVIL);
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    const res = await send(open, 'POST', '/v1/graphql', { ...json, origin: EVIL, cookie }, gqlBody(QUERY));
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(JSON.stringify(res.json)).not.toContain('alice note');
  });

  it("gives credentials to a named origin, which reads the cookie user's data", async () => {
    const pre = await send(named, 'OPTIONS', '/v1/graphql', {
      origin: APP,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    });
    expect(pre.headers.get('access-control-allow-origin')).toBe(APP);
    expect(pre.headers.get('access-control-allow-credentials')).toBe('true');
    const res = await send(named, 'POST', '/v1/graphql', { ...json, origin: APP, cookie }, gqlBody(QUERY));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { notes: [{ body: 'alice note' }] } });
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
  });

  it('refuses cookie credentials from an origin the setting does not name, with 403 in v2 shapes', async () => {
    for (const engine of [open, named]) {
      const res = await send(engine, 'POST', '/v1/graphql', { ...json, origin: EVIL, cookie }, gqlBody(QUERY));
      expect(res.status).toBe(403);
      expect(res.json).toEqual({
        errors: [
          {
            message: `cookie credentials are refused from origin "${EVIL}": only origins named in ENGINE_GRAPHQL_CORS_DOMAIN may send them`,
            extensions: { path: '$', code: 'access-denied' },
          },
        ],
      });
      const rest = await send(engine, 'POST', '/api/rest/mine', { ...json, origin: EVIL, cookie }, '{}');
      expect(rest.status).toBe(403);
      expect(rest.json).toMatchObject({ path: '$', code: 'access-denied' });
    }
    // No Origin (an <img>), but the browser says the request is cross-site.
    const img = await send(named, 'GET', getPath(ACTION), { cookie, 'sec-fetch-site': 'cross-site', 'x-requested-with': 'x' });
    expect(img.status).toBe(403);
    expect(img.json.errors[0].message).toMatch(/^cookie credentials are refused from a cross-site request/);
  });

  it('keeps clients that send the JWT or the admin secret in a header working from any origin', async () => {
    const res = await send(bearer, 'POST', '/v1/graphql', { ...json, origin: EVIL, authorization: `Bearer ${jwt}` }, gqlBody(QUERY));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { notes: [{ body: 'alice note' }] } });
    expect(res.headers.get('access-control-allow-origin')).toBe(EVIL);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    const get = await send(bearer, 'GET', getPath(QUERY), { origin: EVIL, authorization: `Bearer ${jwt}` });
    expect(get.json).toEqual({ data: { notes: [{ body: 'alice note' }] } });
    // The admin secret wins over a cookie the browser happened to attach, under each of its names (v2's deprecated one too).
    for (const name of ['x-engine-admin-secret', 'x-hasura-admin-secret', 'x-hasura-access-key']) {
      const admin = await send(open, 'POST', '/v1/graphql', { ...json, origin: EVIL, cookie, [name]: SECRET }, gqlBody(QUERY));
      expect(admin.status, name).toBe(200);
      expect(admin.json.data.notes, name).toHaveLength(2);
    }
  });
});

describe('cookie-authenticated requests a page could forge', () => {
  it('refuses a GET with no custom header before anything runs: the query action is not called', async () => {
    const before = actionCalls();
    for (const engine of [open, named]) {
      const res = await send(engine, 'GET', getPath(ACTION), { cookie });
      expect(res.status).toBe(403);
      expect(res.json.errors).toHaveLength(1);
      expect(res.json.errors[0].extensions).toEqual({ path: '$', code: 'access-denied' });
      expect(res.json.errors[0].message).toMatch(/cross-site request forgery/);
      // A form's content type does not count.
      const form = await send(engine, 'GET', getPath(ACTION), { cookie, 'content-type': 'text/plain' });
      expect(form.status).toBe(403);
    }
    expect(actionCalls()).toBe(before);
    // The same GET with a header no page can add cross-site without a preflight runs.
    const ok = await send(named, 'GET', getPath(ACTION), { cookie, 'x-requested-with': 'XMLHttpRequest' });
    expect(ok.json).toEqual({ data: { ping: { ok: true } } });
    expect(actionCalls()).toBe(before + 1);
    const apollo = await send(named, 'GET', getPath(QUERY), { cookie, origin: APP, 'apollo-require-preflight': 'true' });
    expect(apollo.json).toEqual({ data: { notes: [{ body: 'alice note' }] } });
  });

  it('refuses REST GETs and form POSTs without a custom header; JSON and custom headers pass', async () => {
    const get = await send(named, 'GET', '/api/rest/mine', { cookie });
    expect(get.status).toBe(403);
    expect(get.json).toMatchObject({ path: '$', code: 'access-denied' });
    expect(get.json.error).toMatch(/cross-site request forgery/);
    const form = await send(named, 'POST', '/api/rest/mine', { cookie, 'content-type': 'text/plain' }, '{}');
    expect(form.status).toBe(403);
    const ok = await send(named, 'GET', '/api/rest/mine', { cookie, 'x-engine-role': 'user' });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ notes: [{ body: 'alice note' }] });
    const post = await send(named, 'POST', '/api/rest/mine', { cookie, ...json }, '{}');
    expect(post.json).toEqual({ notes: [{ body: 'alice note' }] });
  });

  it('answers same-origin requests (the console) and POSTs of JSON with a cookie', async () => {
    const res = await send(open, 'POST', '/v1/graphql', { ...json, cookie, origin: open.url }, gqlBody(QUERY));
    expect(res.json).toEqual({ data: { notes: [{ body: 'alice note' }] } });
    const fetchMeta = await send(
      open,
      'POST',
      '/v1/graphql',
      { ...json, cookie, origin: 'https://proxy.test', 'sec-fetch-site': 'same-origin' },
      gqlBody(QUERY),
    );
    expect(fetchMeta.json).toEqual({ data: { notes: [{ body: 'alice note' }] } });
  });
});

describe('WebSocket upgrades with a cookie', () => {
  async function upgradeStatus(engine: TestEngine, headers: Record<string, string>): Promise<number> {
    const ws = new WebSocket(wsUrl(engine.url), 'graphql-transport-ws', { headers });
    return await new Promise<number>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => {
        ws.close();
        resolve(101);
      });
    });
  }

  it('refuses a cross-site origin the setting does not name (cross-site WebSocket hijacking)', async () => {
    expect(await upgradeStatus(open, { origin: EVIL, cookie })).toBe(403);
    expect(await upgradeStatus(named, { origin: APP.replace('app', 'other'), cookie })).toBe(403);
    // Without a cookie, any origin the setting allows may open one and authenticate in connection_init.
    expect(await upgradeStatus(open, { origin: EVIL })).toBe(101);
    // The admin secret in a header (no page can add one), under any of its names, is no cookie credential.
    for (const name of ['x-engine-admin-secret', 'x-hasura-admin-secret', 'x-hasura-access-key']) {
      expect(await upgradeStatus(open, { origin: EVIL, cookie, [name]: SECRET }), name).toBe(101);
    }
  });

  it("serves a named origin with the cookie user's session", async () => {
    const s = await openRawSocket(named.url, 'graphql-transport-ws', { origin: APP, cookie });
    s.send({ type: 'connection_init', payload: {} });
    await s.waitFor((m) => m['type'] === 'connection_ack');
    s.send({ type: 'subscribe', id: '1', payload: { query: QUERY } });
    const next = await s.waitFor((m) => m['type'] === 'next');
    expect(next['payload']).toEqual({ data: { notes: [{ body: 'alice note' }] } });
    s.close();
  });
});
