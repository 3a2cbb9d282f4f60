/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Webhook mode against real HTTP webhook servers, GET and POST.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestDatabase } from '../../support/pg.ts';
import type { TestEngine } from '../../support/engine.ts';
import { startTestServer, type TestServer } from '../../support/http-server.ts';
import { ADMIN_SECRET, createProfileDatabase, PROFILE_IDS, startProfileEngine } from '../../support/profile-schema.ts';

let db: TestDatabase;
const engines: TestEngine[] = [];
const servers: TestServer[] = [];

/** A webhook that answers per Authorization header: `user-N` → role user, `guest`, `deny` → 401, `boom` → 500, `norole` → 200 without role. */
function decide(headers: Record<string, string | string[] | undefined>, res: ServerResponse, extraHeaders: Record<string, string | string[]> = {}): void {
  const auth = String(headers['authorization'] ?? '');
  if (auth.startsWith('user-')) {
    res.writeHead(200, { 'content-type': 'application/json', ...extraHeaders });
    res.end(JSON.stringify({ 'X-Engine-Role': 'user', 'X-Engine-User-Id': auth.slice(5) }));
  } else if (auth === 'guest') {
    res.writeHead(200, { 'content-type': 'application/json', ...extraHeaders });
    res.end(JSON.stringify({ 'x-engine-role': 'guest' }));
  } else if (auth === 'norole') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  } else if (auth === 'boom') {
    res.writeHead(503);
    res.end();
  } else {
    res.writeHead(401);
    res.end();
  }
}

async function setup(mode: 'GET' | 'POST', handler: TestServer['handler'], timeout?: number): Promise<{ engine: TestEngine; hook: TestServer }> {
  const hook = await startTestServer(handler);
  servers.push(hook);
  const engine = await startProfileEngine(db, { authHook: hook.url, authHookMode: mode, ...(timeout !== undefined ? { authHookTimeout: timeout } : {}) });
  engines.push(engine);
  return { engine, hook };
}

beforeAll(async () => {
  db = await createProfileDatabase();
});

afterAll(async () => {
  for (const e of engines) await e.close();
  for (const s of servers) await s.close();
  await db?.drop();
});

describe('GET mode', () => {
  let engine: TestEngine;
  let hook: TestServer;
  beforeAll(async () => {
    ({ engine, hook } = await setup('GET', (req, _body, res) => decide(req.headers, res, { 'set-cookie': ['sid=abc; HttpOnly', 'seen=1'] })));
  });

  it('forwards client headers except the listed ones, and uses the answered session', async () => {
    hook.requests.length = 0;
    const res = await engine.graphql(PROFILE_IDS, undefined, {
      authorization: 'user-2',
      'x-custom': 'yes',
      'user-agent': 'tests',
      accept: 'application/json',
      origin: 'http://x.test',
    });
    expect(res.body).toEqual({ data: { profile: [{ id: 2 }] } });
    const seen = hook.requests[0];
    expect(seen?.method).toBe('GET');
    expect(seen?.headers['authorization']).toBe('user-2');
    expect(seen?.headers['x-custom']).toBe('yes');
    for (const dropped of ['user-agent', 'accept', 'origin', 'content-type', 'content-length']) {
      expect(seen?.headers[dropped] === 'tests' || seen?.headers[dropped] === 'application/json' || seen?.headers[dropped] === 'http://x.test').toBe(false);
    }
  });

  it("forwards the webhook's Set-Cookie headers to the client", async () => {
    const res = await engine.graphql(PROFILE_IDS, undefined, { authorization: 'guest' });
    expect(res.headers.getSetCookie()).toEqual(['sid=abc; HttpOnly', 'seen=1']);
  });

  // v2 answers every /v1/graphql error with 200 (its allMod200), a failing webhook too.
  it('answers access-denied when the webhook says 401 (HTTP 200 on /v1/graphql as v2, 401 elsewhere), and an error for any other status or a missing role', async () => {
    const denied = await engine.graphql(PROFILE_IDS, undefined, { authorization: 'deny' });
    expect(denied.status).toBe(200);
    expect((await engine.graphql(PROFILE_IDS, undefined, { authorization: 'deny', accept: 'application/graphql-response+json' })).status).toBe(401);
    expect((await engine.metadata({ type: 'export_metadata', args: {} }, { authorization: 'deny' })).status).toBe(401);
    expect(denied.body).toMatchObject({ errors: [{ extensions: { code: 'access-denied' } }] });
    for (const authorization of ['boom', 'norole']) {
      const failed = await engine.graphql(PROFILE_IDS, undefined, { authorization });
      expect(failed.status, authorization).toBe(200);
      expect((failed.body as any).errors[0].message, authorization).toBeTruthy();
      expect((failed.body as any).data, authorization).toBeUndefined();
      expect((await engine.graphql(PROFILE_IDS, undefined, { authorization, accept: 'application/graphql-response+json' })).status).toBe(500);
      expect((await engine.post('/v1alpha1/graphql', { query: PROFILE_IDS }, { authorization })).status).toBe(500);
    }
  });

  it('does not call the webhook when the admin secret is given', async () => {
    hook.requests.length = 0;
    const res = await engine.graphql(PROFILE_IDS, undefined, { 'x-engine-admin-secret': ADMIN_SECRET });
    expect(res.body).toEqual({ data: { profile: [{ id: 1 }, { id: 2 }, { id: 3 }] } });
    expect(hook.requests).toHaveLength(0);
  });
});

// v2's HASURA_GRAPHQL_PRESERVE_401_ERRORS: authentication failures keep their 401 on /v1/graphql.
describe('ENGINE_GRAPHQL_PRESERVE_401_ERRORS', () => {
  it('answers a webhook 401 with HTTP 401 on /v1/graphql; other failures stay 200', async () => {
    const hook = await startTestServer((req, _body, res) => decide(req.headers, res));
    servers.push(hook);
    const engine = await startProfileEngine(db, { authHook: hook.url, authHookMode: 'GET', preserve401Errors: true });
    engines.push(engine);
    const denied = await engine.graphql(PROFILE_IDS, undefined, { authorization: 'deny' });
    expect(denied.status).toBe(401);
    expect(denied.body).toMatchObject({ errors: [{ extensions: { code: 'access-denied' } }] });
    expect((await engine.graphql(PROFILE_IDS, undefined, { authorization: 'boom' })).status).toBe(200);
    expect((await engine.graphql(PROFILE_IDS, undefined, { authorization: 'user-1' })).body).toEqual({ data: { profile: [{ id: 1 }] } });
  });
});

describe('POST mode', () => {
  it('posts the headers and the GraphQL request, and leaves the request out when the body is not JSON', async () => {
    const { engine, hook } = await setup('POST', (_req, body, res) => {
      const parsed = JSON.parse(body) as { headers: Record<string, string> };
      decide(parsed.headers, res, { 'set-cookie': 'post=1' });
    });
    const res = await engine.graphql(PROFILE_IDS, { a: 1 }, { authorization: 'user-3', 'user-agent': 'tests' }, undefined);
    expect(res.body).toEqual({ data: { profile: [{ id: 3 }] } });
    expect(res.headers.getSetCookie()).toEqual(['post=1']);
    const sent = JSON.parse(hook.requests.at(-1)?.body ?? '{}') as Record<string, unknown>;
    expect(hook.requests.at(-1)?.headers['content-type']).toBe('application/json');
    expect(sent).toMatchObject({ headers: { authorization: 'user-3', 'user-agent': 'tests' }, request: { query: PROFILE_IDS, variables: { a: 1 } } });

    const bad = await engine.post('/v1/graphql', '{"query": ', { authorization: 'user-3' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errors: [{ extensions: { code: 'invalid-json' } }] });
    const sentBad = JSON.parse(hook.requests.at(-1)?.body ?? '{}') as Record<string, unknown>;
    expect(sentBad['headers']).toBeDefined();
    expect('request' in sentBad).toBe(false);
  });
});

describe('caching', () => {
  it('reuses an answer for as long as Cache-Control max-age or Expires says, keyed by the forwarded headers', async () => {
    let expiresMode = false;
    const { engine, hook } = await setup('GET', (req, _body, res) =>
      decide(req.headers, res, expiresMode ? { expires: new Date(Date.now() + 60_000).toUTCString() } : { 'cache-control': 'max-age=1' }),
    );
    hook.requests.length = 0;
    await engine.graphql(PROFILE_IDS, undefined, { authorization: 'user-1' });
    await engine.graphql(PROFILE_IDS, undefined, { authorization: 'user-1' });
    expect(hook.requests).toHaveLength(1);
    await engine.graphql(PROFILE_IDS, undefined, { authorization: 'user-2' });
    expect(hook.requests).toHaveLength(2);
    await new Promise((r) => setTimeout(r, 1100));
    await engine.graphql(PROFILE_IDS, undefined, { authorization: 'user-1' });
    expect(hook.requests).toHaveLength(3);
    expiresMode = true;
    await engine.graphql(PROFILE_IDS, undefined, { authorization: 'user-3' });
    await engine.graphql(PROFILE_IDS, undefined, { authorization: 'user-3' });
    expect(hook.requests).toHaveLength(4);
  });

  it('does not cache answers without Cache-Control or Expires', async () => {
    const { engine, hook } = await setup('GET', (req, _body, res) => decide(req.headers, res));
    hook.requests.length = 0;
    await engine.graphql(PROFILE_IDS, undefined, { authorization: 'user-1' });
    await engine.graphql(PROFILE_IDS, undefined, { authorization: 'user-1' });
    expect(hook.requests).toHaveLength(2);
  });
});

describe('timeouts', () => {
  it('answers an error (HTTP 200 on /v1/graphql, as v2) when the webhook does not answer in time, instead of hanging', async () => {
    const { engine } = await setup('GET', () => {}, 1);
    const t0 = Date.now();
    const res = await engine.graphql(PROFILE_IDS, undefined, { authorization: 'user-1' });
    expect(res.status).toBe(200);
    expect((res.body as any).errors).toHaveLength(1);
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});
