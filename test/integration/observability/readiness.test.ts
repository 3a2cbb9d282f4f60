/**
 * GET /readyz (the metadata database and each source reached) against real
 * engines; the readiness failure is a real source going away (a TCP proxy closed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import net from 'node:net';

/** A TCP proxy to PostgreSQL that can be switched off (connections cut and refused) and on again. */
async function switchableProxy(url: string): Promise<{ url: string; off(): void; on(): void; close(): Promise<void> }> {
  const target = new URL(url);
  const sockets = new Set<net.Socket>();
  let down = false;
  const server = net.createServer((client) => {
    if (down) return void client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const s of [client, upstream]) s.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((server.address() as net.AddressInfo).port);
  return {
    url: proxied.toString(),
    off() {
      down = true;
      for (const s of sockets) s.destroy();
    },
    on() {
      down = false;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

let db: TestDatabase;
let engine: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase('readiness');
  await db.sql(`CREATE TABLE item (id int PRIMARY KEY); INSERT INTO item VALUES (1), (2);`);
  engine = await startTestEngine({ databaseUrl: db.url, adminSecret: 'adm' });
  expect((await engine.metadata({ type: 'pg_track_table', args: { source: 'default', table: 'item' } })).status).toBe(200);
});

afterAll(async () => {
  await engine?.close();
  await db?.drop();
});

describe('/readyz', () => {
  it('is ready when the metadata database and every source answer; /healthz stays v2', async () => {
    const res = await fetch(`${engine.url}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      status: 'ready',
      checks: [
        { kind: 'metadata', name: 'metadata database', ok: true },
        { kind: 'source', name: 'default', ok: true },
      ],
    });
    const h = await fetch(`${engine.url}/healthz`);
    expect([h.status, await h.text()]).toEqual([200, 'OK']);
  });

  it('answers 503 naming the source that stopped answering, and 200 again once it is back', async () => {
    const proxy = await switchableProxy(db.url);
    const e = await startTestEngine({ databaseUrl: db.url, adminSecret: 'adm' });
    try {
      const add = await e.metadata({
        type: 'pg_add_source',
        args: { name: 'far', configuration: { connection_info: { database_url: proxy.url, pool_settings: { idle_timeout: 1 } } } },
      });
      expect(add.status).toBe(200);
      expect((await fetch(`${e.url}/readyz`)).status).toBe(200);
      proxy.off();
      const down = await fetch(`${e.url}/readyz`);
      expect(down.status).toBe(503);
      const body = (await down.json()) as { status: string; checks: Array<{ name: string; ok: boolean; error?: string }> };
      expect(body.status).toBe('not ready');
      expect(body.checks.find((c) => c.name === 'far')).toMatchObject({ ok: false });
      expect(body.checks.find((c) => c.name === 'default')).toMatchObject({ ok: true });
      // Liveness does not depend on the databases.
      expect((await fetch(`${e.url}/healthz`)).status).toBe(200);
      proxy.on();
      const deadline = Date.now() + 10_000;
      let status = 0;
      while (status !== 200 && Date.now() < deadline) status = (await fetch(`${e.url}/readyz`)).status;
      expect(status).toBe(200);
    } finally {
      await e.close();
      await proxy.close();
    }
  });
});
