/**
 * WebSocket authentication through the engine's one auth path: the admin
 * secret and JWTs from the upgrade's headers or connection_init's payload,
 * a JWT's expiry closing the socket, CORS on the upgrade's Origin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { SignJWT } from 'jose';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';
import { openRawSocket, wsUrl } from '../../support/ws-client.ts';
import { startTestEngine } from '../../support/engine.ts';
import { startTestServer } from '../../support/http-server.ts';

const SECRET = 'ws-admin-secret';
const KEY = 'a-websocket-hmac-key-of-at-least-thirty-two-chars';
const SQL = `CREATE TABLE notes (id serial PRIMARY KEY, owner text NOT NULL, body text NOT NULL);
INSERT INTO notes (owner, body) VALUES ('alice', 'a1'), ('bob', 'b1');`;
const TRACK = {
  type: 'bulk',
  args: [
    { type: 'pg_track_table', args: { source: 'default', table: 'notes' } },
    {
      type: 'pg_create_select_permission',
      args: {
        source: 'default',
        table: 'notes',
        role: 'user',
        permission: { columns: ['id', 'owner', 'body'], filter: { owner: { _eq: 'X-Engine-User-Id' } } },
      },
    },
  ],
};

let s: SeededEngine;

beforeAll(async () => {
  s = await startSeededEngine({
    prefix: 'ws_auth',
    sql: SQL,
    track: TRACK,
    settings: { adminSecret: SECRET, jwtSecret: JSON.stringify({ type: 'HS256', key: KEY }), corsDomain: 'https://app.example.com' },
  });
});

afterAll(async () => {
  await s?.close();
});

async function token(user: string, expiresInSeconds: number): Promise<string> {
  return await new SignJWT({
    'https://engine.dev/jwt/claims': { 'x-engine-allowed-roles': ['user'], 'x-engine-default-role': 'user', 'x-engine-user-id': user },
  })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime(Math.floor(Date.now() / 1000) + expiresInSeconds)
    .sign(new TextEncoder().encode(KEY));
}

const SUB = { type: 'subscribe', id: '1', payload: { query: 'subscription { notes { owner body } }' } };

describe('WebSocket authentication', () => {
  it('takes a JWT from connection_init and applies its session; the socket closes when the token expires', async () => {
    const ws = await openRawSocket(s.engine.url, 'graphql-transport-ws');
    ws.send({ type: 'connection_init', payload: { headers: { Authorization: `Bearer ${await token('alice', 3)}` } } });
    await ws.waitFor((m) => m['type'] === 'connection_ack');
    ws.send(SUB);
    const first = await ws.waitFor((m) => m['type'] === 'next');
    expect(first['payload']).toEqual({ data: { notes: [{ owner: 'alice', body: 'a1' }] } });
    const closed = await ws.waitClosed(8000);
    expect(closed.code).toBe(4403);
  });

  it('takes the admin secret from the upgrade headers; a wrong one or no credentials is refused with 4403', async () => {
    const admin = await openRawSocket(s.engine.url, 'graphql-transport-ws', { 'x-engine-admin-secret': SECRET });
    admin.send({ type: 'connection_init' });
    await admin.waitFor((m) => m['type'] === 'connection_ack');
    admin.send(SUB);
    const r = await admin.waitFor((m) => m['type'] === 'next');
    expect((r['payload'] as { data: { notes: unknown[] } }).data.notes).toHaveLength(2);
    admin.close();
    const wrong = await openRawSocket(s.engine.url, 'graphql-transport-ws');
    wrong.send({ type: 'connection_init', payload: { headers: { 'X-Engine-Admin-Secret': 'nope' } } });
    expect((await wrong.waitClosed()).code).toBe(4403);
    const none = await openRawSocket(s.engine.url, 'graphql-transport-ws');
    none.send({ type: 'connection_init', payload: {} });
    expect((await none.waitClosed()).code).toBe(4403);
    const expired = await openRawSocket(s.engine.url, 'graphql-ws');
    expired.send({ type: 'connection_init', payload: { headers: { Authorization: `Bearer ${await token('bob', -60)}` } } });
    const err = await expired.waitFor((m) => m['type'] === 'connection_error');
    expect(err).toEqual({ type: 'connection_error', payload: { message: 'Could not verify JWT: JWTExpired' } });
    expect((await expired.waitClosed()).code).toBe(4403);
  });

  it("checks the upgrade's Origin against the CORS setting", async () => {
    const refused = new WebSocket(wsUrl(s.engine.url), 'graphql-transport-ws', { headers: { origin: 'https://evil.example.org' } });
    const status = await new Promise<number>((resolve) => refused.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    expect(status).toBe(403);
    const ok = await openRawSocket(s.engine.url, 'graphql-transport-ws', { origin: 'https://app.example.com' });
    ok.send({ type: 'connection_init', payload: { 'x-engine-admin-secret': SECRET } });
    await ok.waitFor((m) => m['type'] === 'connection_ack');
    ok.close();
  });
});

describe('auth webhook over WebSocket', () => {
  it("calls the webhook with connection_init's headers; the socket closes when its answer expires", async () => {
    const seen: string[] = [];
    const hook = await startTestServer((req, _body, res) => {
      seen.push(String(req.headers['authorization'] ?? ''));
      if (req.headers['authorization'] !== 'Bearer good') {
        res.writeHead(401).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=2' });
      res.end(JSON.stringify({ 'X-Engine-Role': 'user', 'X-Engine-User-Id': 'bob' }));
    });
    const engine = await startTestEngine({ databaseUrl: s.db.url, adminSecret: SECRET, authHook: `${hook.url}/auth` });
    try {
      const ws = await openRawSocket(engine.url, 'graphql-transport-ws');
      ws.send({ type: 'connection_init', payload: { headers: { Authorization: 'Bearer good' } } });
      await ws.waitFor((m) => m['type'] === 'connection_ack');
      ws.send(SUB);
      expect((await ws.waitFor((m) => m['type'] === 'next'))['payload']).toEqual({ data: { notes: [{ owner: 'bob', body: 'b1' }] } });
      expect((await ws.waitClosed(8000)).code).toBe(4403);
      const bad = await openRawSocket(engine.url, 'graphql-transport-ws');
      bad.send({ type: 'connection_init', payload: { headers: { Authorization: 'Bearer bad' } } });
      expect((await bad.waitClosed()).code).toBe(4403);
      expect(seen).toEqual(['Bearer good', 'Bearer bad']);
    } finally {
      await engine.close();
      await hook.close();
    }
  });
});
