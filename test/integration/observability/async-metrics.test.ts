/**
 * Metrics of the asynchronous parts (Note [Async metrics]), scraped over
 * HTTP from a real engine after real deliveries to a real webhook server:
 * an event trigger whose webhook answers 200, one whose webhook fails and is
 * retried once, and a one-off scheduled event; and `/v1/metrics` compressed
 * when the scraper asks.
 */
import { gunzipSync } from 'node:zlib';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startTestServer, type TestServer } from '../../support/http-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;
let hook: TestServer;

/** The value of one sample (`name{labels}`) in a scrape, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const i = line.lastIndexOf(' ');
    if (line.slice(0, i) === series) return Number(line.slice(i + 1));
  }
  return undefined;
}

async function scrape(): Promise<string> {
  const res = await fetch(`${engine.url}/v1/metrics`);
  expect(res.status).toBe(200);
  return await res.text();
}

/** Scrapes until `series` reaches `value` (bounded), and returns that scrape. */
async function scrapeUntil(series: string, value: number, ms = 20_000): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const text = await scrape();
    if (sample(text, series) === value) return text;
    if (Date.now() > deadline) throw new Error(`${series} is ${String(sample(text, series))}, not ${value}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  db = await createTestDatabase('async_metrics');
  await db.sql(`CREATE TABLE good (id int PRIMARY KEY); CREATE TABLE flaky (id int PRIMARY KEY);`);
  hook = await startTestServer((req, _body, res) => {
    res.writeHead(req.url === '/fail' ? 500 : 200, { 'content-type': 'application/json' });
    res.end('{}');
  });
  engine = await startTestEngine({ databaseUrl: db.url, eventsFetchInterval: 200 });
  for (const table of ['good', 'flaky']) expect((await engine.metadata({ type: 'pg_track_table', args: { table } })).status).toBe(200);
  const trigger = async (name: string, path: string, retry: Record<string, number>): Promise<void> => {
    const r = await engine.metadata({
      type: 'pg_create_event_trigger',
      args: { name, table: name, webhook: `${hook.url.replace(/\/$/, '')}${path}`, insert: { columns: '*' }, retry_conf: retry },
    });
    expect(r.status, r.text).toBe(200);
  };
  await trigger('good', '/ok', { num_retries: 0 });
  await trigger('flaky', '/fail', { num_retries: 1, interval_sec: 1 });
});

afterAll(async () => {
  await engine?.close();
  await hook?.close();
  await db?.drop();
});

describe('event trigger metrics', () => {
  it('count calls, retries and outcomes per trigger, and time them', async () => {
    await db.sql('INSERT INTO good VALUES (1); INSERT INTO flaky VALUES (1);');
    // The flaky event: a failed call, one retry a second later, failed again: out of retries.
    const text = await scrapeUntil('engine_event_processed_total{trigger_name="flaky",status="failed"}', 1);
    await scrapeUntil('engine_event_processed_total{trigger_name="good",status="success"}', 1);
    const after = await scrape();
    expect(sample(after, 'engine_event_invocations_total{trigger_name="good",status="success"}')).toBe(1);
    expect(sample(after, 'engine_event_invocations_total{trigger_name="flaky",status="failed"}')).toBe(2);
    expect(sample(after, 'engine_event_invocations_total{trigger_name="flaky",status="success"}')).toBeUndefined();
    expect(sample(after, 'engine_event_retries_total{trigger_name="flaky"}')).toBe(1);
    expect(sample(after, 'engine_event_retries_total{trigger_name="good"}')).toBeUndefined();
    expect(sample(after, 'engine_event_webhook_processing_time_seconds_count{trigger_name="flaky"}')).toBe(2);
    expect(sample(after, 'engine_event_webhook_processing_time_seconds_count{trigger_name="good"}')).toBe(1);
    // Queue time is observed once per event (its first attempt); processing time once it is done.
    expect(sample(after, 'engine_event_queue_time_seconds_count{trigger_name="flaky"}')).toBe(1);
    expect(sample(after, 'engine_event_processing_time_seconds_count{trigger_name="flaky"}')).toBe(1);
    // Done a retry interval (1 s) after its capture.
    expect(sample(after, 'engine_event_processing_time_seconds_sum{trigger_name="flaky"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'engine_event_trigger_http_workers')).toBe(0);
    expect(hook.requests.filter((r) => r.path === '/fail')).toHaveLength(2);
  });
});

describe('scheduled event metrics', () => {
  it('count a one-off event delivered', async () => {
    const r = await engine.metadata({
      type: 'create_scheduled_event',
      args: { webhook: `${hook.url}ok`, schedule_at: new Date(Date.now() + 500).toISOString() },
    });
    expect(r.status, r.text).toBe(200);
    const text = await scrapeUntil('engine_oneoff_events_processed_total{status="success"}', 1);
    expect(sample(text, 'engine_oneoff_events_invocation_total{status="success"}')).toBe(1);
    expect(sample(text, 'engine_scheduled_event_webhook_processing_time_seconds_count{type="one_off"}')).toBe(1);
    expect(sample(text, 'engine_scheduled_event_queue_time_seconds_count{type="one_off"}')).toBe(1);
  });
});

describe('GET /v1/metrics', () => {
  it('is gzip-compressed when the scraper accepts it, and plain otherwise', async () => {
    // node:http, not fetch: fetch would decode the body and hide whether it was compressed.
    const get = (headers: Record<string, string>): Promise<{ encoding: string | undefined; vary: string | undefined; body: Buffer }> =>
      new Promise((resolve, reject) => {
        http
          .get(`${engine.url}/v1/metrics`, { headers }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ encoding: res.headers['content-encoding'], vary: res.headers.vary, body: Buffer.concat(chunks) }));
          })
          .on('error', reject);
      });
    const zipped = await get({ 'accept-encoding': 'gzip' });
    expect(zipped.encoding).toBe('gzip');
    expect(zipped.vary).toMatch(/accept-encoding/i);
    const text = gunzipSync(zipped.body).toString();
    expect(text).toContain('# TYPE engine_event_invocations_total counter');
    expect(zipped.body.length).toBeLessThan(text.length / 3);
    const plain = await get({});
    expect(plain.encoding).toBeUndefined();
    expect(plain.body.toString()).toContain('# TYPE engine_event_invocations_total counter');
  });
});
