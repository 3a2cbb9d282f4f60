/* eslint-disable @typescript-eslint/no-explicit-any -- webhook bodies and API answers are JSON */
/**
 * Delivery across processes: engines as child processes on one database.
 * A kill -9 in the middle of a flood loses nothing (its leased events are
 * taken again once the lease ends); two engines share the work without
 * sending an event twice; a replica with delivery off sends nothing.
 */
import type http from 'node:http';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnEngine, type EngineProcess } from '../../support/engine-process.ts';
import { startTestServer, type TestServer } from '../../support/http-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

async function until<T>(fn: () => Promise<T | undefined> | T | undefined, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function metadata(e: EngineProcess, type: string, args: unknown): Promise<any> {
  const res = await fetch(`${e.url}/v1/metadata`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type, args }) });
  return { status: res.status, body: await res.json() };
}

/** Inserts rows from..to from `workers` connections; resolves with the numbers committed. */
async function flood(url: string, from: number, count: number, workers: number): Promise<number[]> {
  const committed: number[] = [];
  let next = from;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        for (let n = next++; n <= count; n = next++) {
          await c.query('INSERT INTO flood (n) VALUES ($1)', [n]);
          committed.push(n);
        }
      } finally {
        await c.end();
      }
    }),
  );
  return committed;
}

describe('event delivery across engine processes', () => {
  let db: TestDatabase;
  let hook: TestServer;
  /** Row number → how many times the webhook received it; remote ports seen. */
  const received = new Map<number, number>();
  const ports = new Set<number>();
  const engines: EngineProcess[] = [];
  let delayMs = 0;

  const start = async (env: Record<string, string> = {}): Promise<EngineProcess> => {
    const e = await spawnEngine([], {
      ENGINE_GRAPHQL_DATABASE_URL: db.url,
      ENGINE_GRAPHQL_EVENTS_LEASE_SECONDS: '3',
      ENGINE_GRAPHQL_EVENTS_FETCH_INTERVAL: '250',
      ENGINE_GRAPHQL_LOG_LEVEL: 'error',
      ...env,
    });
    engines.push(e);
    return e;
  };

  beforeAll(async () => {
    db = await createTestDatabase('ev_crash');
    await db.sql('CREATE TABLE flood (id serial PRIMARY KEY, n int NOT NULL)');
    hook = await startTestServer((req: http.IncomingMessage, body: string, res: http.ServerResponse) => {
      const n = JSON.parse(body).event.data.new.n as number;
      ports.add(req.socket.remotePort ?? 0);
      setTimeout(() => {
        received.set(n, (received.get(n) ?? 0) + 1);
        res.writeHead(200).end('ok');
      }, delayMs);
    });
  });
  afterAll(async () => {
    for (const e of engines) await e.stop('SIGKILL');
    await hook.close();
    await db.drop();
  });

  it('a replica with delivery off sends nothing; two engines share the work and send each event once', async () => {
    const replica = await start({ ENGINE_GRAPHQL_EVENTS_DELIVERY: 'false' });
    expect((await metadata(replica, 'pg_track_table', { table: 'flood' })).status).toBe(200);
    const r = await metadata(replica, 'pg_create_event_trigger', {
      name: 'flood_ins',
      table: 'flood',
      webhook: hook.url,
      insert: { columns: '*' },
      retry_conf: { num_retries: 5, interval_sec: 1, timeout_sec: 5 },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const first = await flood(db.url, 1, 50, 5);
    // The replica is polling and listening for metadata, not for events: give it well over a fetch interval.
    await new Promise((res) => setTimeout(res, 1500));
    expect(received.size).toBe(0);

    delayMs = 5;
    await start({ ENGINE_GRAPHQL_EVENTS_HTTP_POOL_SIZE: '2' });
    await start({ ENGINE_GRAPHQL_EVENTS_HTTP_POOL_SIZE: '2' });
    const rest = await flood(db.url, 51, 600, 8);
    const all = [...first, ...rest];
    expect(all).toHaveLength(600);
    await until(() => (all.every((n) => received.has(n)) ? true : undefined), 60_000, 'every event');
    expect([...received.values()].filter((c) => c > 1)).toEqual([]);
    // Two engines with two connections each: more than two client sockets means both sent.
    expect(ports.size).toBeGreaterThan(2);
  }, 120_000);

  it('kill -9 in the middle of a flood loses no committed change', async () => {
    for (const e of engines.splice(0)) await e.stop('SIGKILL');
    await db.sql('TRUNCATE flood');
    received.clear();
    delayMs = 20;
    const victim = await start();
    const flooding = flood(db.url, 1, 2000, 8);
    await until(() => (received.size >= 200 ? true : undefined), 60_000, 'deliveries before the kill');
    expect(await victim.stop('SIGKILL')).toBeNull();
    const atKill = received.size;
    // Events the dead engine held: they come back only through the lease running out.
    const held = await db.sql('SELECT count(*)::int AS n FROM engine_events.event_log WHERE locked_by IS NOT NULL AND NOT delivered');
    expect(held.rows[0].n).toBeGreaterThan(0);
    const committed = await flooding;
    expect(committed).toHaveLength(2000);
    expect(atKill).toBeLessThan(2000);
    await start();
    await until(() => (committed.every((n) => received.has(n)) ? true : undefined), 90_000, 'every committed change');
    await until(
      async () => ((await db.sql('SELECT count(*)::int AS n FROM engine_events.event_log WHERE NOT delivered')).rows[0].n === 0 ? true : undefined),
      30_000,
      'all marked delivered',
    );
  }, 180_000);
});
