/**
 * POST /v1/graphql is answered before fastify (Note [GraphQL fast path] in
 * engine/server/graphql-fast-path.ts); what a client sees must not depend on
 * which of the two answered: the fastify route still takes the same request
 * with a query string, and through `inject`.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';

let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase('fastpath');
  await db.sql(`CREATE TABLE item (id int PRIMARY KEY, name text NOT NULL); INSERT INTO item VALUES (1, 'one'), (2, 'two');
    CREATE TABLE word (id int PRIMARY KEY, name text NOT NULL);
    INSERT INTO word SELECT i, 'w' || i || ' Beyoncé Дмитрий 東京 🎸 "q" \\ b' FROM generate_series(1, 3000) AS i;`);
  engine = await startTestEngine({ databaseUrl: db.url, adminSecret: 'sekret', corsDomain: 'https://app.test' });
  for (const table of ['item', 'word']) {
    const r = await engine.metadata({ type: 'pg_track_table', args: { source: 'default', table } });
    expect(r.status).toBe(200);
  }
});

afterAll(async () => {
  await engine?.close();
  await db?.drop();
});

const admin = { 'x-engine-admin-secret': 'sekret', 'content-type': 'application/json' };
const body = JSON.stringify({ query: '{ item(order_by: {id: asc}) { id name } }' });
/** What `body` is answered. */
const ITEMS = {
  data: {
    item: [
      { id: 1, name: 'one' },
      { id: 2, name: 'two' },
    ],
  },
};

async function post(path: string, headers: Record<string, string>, payload = body): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(engine.url + path, { method: 'POST', headers, body: payload });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

describe('GraphQL fast path', () => {
  it('answers like the fastify route: body, status, content type, CORS', async () => {
    const origin = 'https://app.test';
    const fast = await post('/v1/graphql', { ...admin, origin });
    const routed = await post('/v1/graphql?via=fastify', { ...admin, origin });
    expect(fast.status).toBe(200);
    expect(JSON.parse(fast.text)).toEqual(ITEMS);
    expect(fast.text).toBe(routed.text);
    for (const name of ['content-type', 'access-control-allow-origin', 'access-control-allow-credentials', 'vary']) {
      expect(fast.headers.get(name), name).toBe(routed.headers.get(name));
    }
    expect(fast.headers.get('access-control-allow-origin')).toBe(origin);
    const injected = await engine.engine.app.inject({ method: 'POST', url: '/v1/graphql', headers: admin, payload: body });
    expect(injected.body).toBe(fast.text);
  });

  it('sends a large answer with characters of every UTF-8 length as the database built it, with its byte length', async () => {
    // A lone read's answer goes out as the bytes PostgreSQL sent (Note [Answer bytes]); a mutation's as text.
    const query = JSON.stringify({ query: '{ word(order_by: {id: asc}) { id name } }' });
    const raw = async (path: string): Promise<{ bytes: Buffer; length: string | null }> => {
      // fetch asks for gzip and br by default; the bytes as sent are what this checks.
      const res = await fetch(engine.url + path, { method: 'POST', headers: { ...admin, 'accept-encoding': 'identity' }, body: query });
      return { bytes: Buffer.from(await res.arrayBuffer()), length: res.headers.get('content-length') };
    };
    const fast = await raw('/v1/graphql');
    const routed = await raw('/v1/graphql?via=fastify');
    expect(fast.bytes.length).toBeGreaterThan(200_000);
    expect(fast.length).toBe(String(fast.bytes.length));
    expect(routed.bytes.equals(fast.bytes)).toBe(true);
    const words = (JSON.parse(fast.bytes.toString('utf8')) as { data: { word: Array<{ id: number; name: string }> } }).data.word;
    expect(words).toHaveLength(3000);
    expect(words[2999]).toEqual({ id: 3000, name: 'w3000 Beyoncé Дмитрий 東京 🎸 "q" \\ b' });
    const none = await post('/v1/graphql', admin, JSON.stringify({ query: '{ word_by_pk(id: -1) { id } }' }));
    expect(JSON.parse(none.text)).toEqual({ data: { word_by_pk: null } });
    const injected = await engine.engine.app.inject({ method: 'POST', url: '/v1/graphql', headers: admin, payload: query });
    expect(injected.rawPayload.equals(fast.bytes)).toBe(true);
  });

  it('gives no CORS grant to an origin that is not allowed', async () => {
    const res = await post('/v1/graphql', { ...admin, origin: 'https://evil.test' });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('vary')).toBe('Origin, Accept-Encoding');
  });

  it('keeps error statuses and shapes: bad secret, bad JSON, errors in the query', async () => {
    const denied = await post('/v1/graphql', { 'x-engine-admin-secret': 'wrong', 'content-type': 'application/json' });
    expect(denied.status).toBe(200);
    expect(JSON.parse(denied.text)).toMatchObject({ errors: [{ extensions: { code: 'access-denied' } }] });
    const malformed = await post('/v1/graphql', admin, '{"query": ');
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.text)).toMatchObject({ errors: [{ extensions: { code: 'invalid-json' } }] });
    const invalid = await post('/v1/graphql', admin, JSON.stringify({ query: '{ nope }' }));
    expect(invalid.status).toBe(200);
    expect(JSON.parse(invalid.text)).toMatchObject({ errors: [{ extensions: { code: 'validation-failed' } }] });
  });

  it('reads a body sent in several chunks, each written once the previous one was sent', async () => {
    const url = new URL(`${engine.url}/v1/graphql`);
    // Chunked transfer coding, a piece per write: the reader gets them as separate 'data' events.
    const pieces = [body.slice(0, 5), body.slice(5, 20), body.slice(20)];
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: admin }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      const next = (i: number): void => {
        const piece = pieces[i];
        if (piece === undefined) return void req.end();
        req.write(piece, () => next(i + 1));
      };
      next(0);
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toEqual(ITEMS);
  });

  it('refuses a body declared over the limit with 413 without reading it', async () => {
    const url = new URL(`${engine.url}/v1/graphql`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...admin, 'content-length': String(200 * 1024 * 1024) } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write('{"query":');
    });
    expect(status).toBe(413);
  });
});
