/* eslint-disable @typescript-eslint/no-explicit-any -- webhook bodies are JSON, asserted structurally */
/**
 * A backlog larger than the HTTP pool (Note [Event delivery]): while the last
 * take came back full, delivery waits for more free slots before taking
 * again, but never for slots held by a webhook that hangs.
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';
import { startTestServer, type TestServer } from '../../support/http-server.ts';

const SCHEMA = `
CREATE TABLE items (id serial PRIMARY KEY, n int NOT NULL);
CREATE TABLE stuck_items (id serial PRIMARY KEY, n int NOT NULL);`;

async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('event delivery with a backlog', () => {
  let s: SeededEngine;
  let fast: TestServer;
  let hanging: TestServer;
  const held: http.ServerResponse[] = [];

  beforeAll(async () => {
    fast = await startTestServer((_req, _body, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    // Never answers: each request holds one of the engine's HTTP slots until its timeout.
    hanging = await startTestServer((_req, _body, res) => held.push(res));
    s = await startSeededEngine({
      prefix: 'ev_backlog',
      sql: SCHEMA,
      track: {
        type: 'bulk',
        args: [
          { type: 'pg_track_table', args: { table: 'items' } },
          { type: 'pg_track_table', args: { table: 'stuck_items' } },
        ],
      },
      settings: { eventsHttpPoolSize: 4, eventsFetchInterval: 200 },
    });
    for (const [name, table, hook] of [
      ['stuck', 'stuck_items', hanging],
      ['quick', 'items', fast],
    ] as const) {
      const r = await s.engine.metadata({
        type: 'pg_create_event_trigger',
        args: { name, table, webhook: hook.url, insert: { columns: '*' }, retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 } },
      });
      expect(r.status, r.text).toBe(200);
    }
  });
  afterAll(async () => {
    // The hanging server first: its open requests end, so the engine's close does not wait for them.
    await hanging.close();
    await s.close();
    await fast.close();
  });

  it('delivers every event of a backlog once while most slots are held by a webhook that hangs', async () => {
    // Three of the four slots held for the 60 s timeout.
    await s.db.sql('INSERT INTO stuck_items (n) SELECT g FROM generate_series(1, 3) AS g');
    await until(() => hanging.requests.length === 3, 10_000, 'the three hanging requests');
    // Forty events through the one free slot: each take finds more events than free slots.
    await s.db.sql('INSERT INTO items (n) SELECT g FROM generate_series(1, 40) AS g');
    await until(() => fast.requests.length >= 40, 20_000, 'the forty deliveries');
    const ns = fast.requests.map((r) => (JSON.parse(r.body) as any).event.data.new.n as number);
    expect(ns.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(hanging.requests).toHaveLength(3);
  });
});
