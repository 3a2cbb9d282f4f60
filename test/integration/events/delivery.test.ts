/* eslint-disable @typescript-eslint/no-explicit-any -- API answers and webhook bodies are JSON, asserted structurally */
/**
 * Event delivery to real webhook servers on loopback: the v2 payload and
 * headers, retries per retry_conf, Retry-After, timeouts, flapping servers,
 * invocation logs, redelivery and manual invocation.
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';
import { startTestServer, type TestServer } from '../../support/http-server.ts';

const SCHEMA = `CREATE TABLE items (id serial PRIMARY KEY, name text NOT NULL, qty int NOT NULL DEFAULT 0);`;

/** Polls `fn` until it returns a value that is not undefined, for at most `ms`. */
async function until<T>(fn: () => Promise<T | undefined>, ms = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function answer(res: http.ServerResponse, status: number, body = '{}', headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(body);
}

describe('event delivery', () => {
  let s: SeededEngine;
  let hook: TestServer;
  const md = async (type: string, args: unknown): Promise<any> => await s.engine.metadata({ type, args });
  const insert = async (name: string): Promise<void> => {
    const r = await s.engine.graphql<any>(
      'mutation ($n: String!) { insert_items_one(object: {name: $n}) { id } }',
      { n: name },
      { 'x-engine-role': 'admin', 'x-engine-user-id': '7' },
    );
    expect(r.body.errors).toBeUndefined();
  };
  const bodies = (): any[] => hook.requests.map((r) => JSON.parse(r.body));
  const trigger = async (name: string, extra: Record<string, unknown>): Promise<void> => {
    const r = await md('pg_create_event_trigger', { name, table: 'items', webhook: hook.url, insert: { columns: '*' }, replace: true, ...extra });
    expect(r.status, r.text).toBe(200);
  };
  const drop = async (name: string): Promise<void> => {
    expect((await md('pg_delete_event_trigger', { name })).status).toBe(200);
  };

  beforeAll(async () => {
    process.env['ENGINE_TEST_HOOK_SECRET'] = 's3cret';
    hook = await startTestServer((_req, _body, res) => answer(res, 200));
    s = await startSeededEngine({
      prefix: 'ev_delivery',
      sql: SCHEMA,
      track: { type: 'pg_track_table', args: { table: 'items' } },
      settings: { eventsFetchInterval: 200, eventsLeaseSeconds: 5 },
    });
  });
  afterAll(async () => {
    await s.close();
    await hook.close();
    delete process.env['ENGINE_TEST_HOOK_SECRET'];
  });

  it('POSTs the v2 payload with the configured headers as soon as the change commits', async () => {
    hook.requests.length = 0;
    await trigger('fast', {
      headers: [
        { name: 'x-plain', value: 'v' },
        { name: 'x-secret', value_from_env: 'ENGINE_TEST_HOOK_SECRET' },
      ],
    });
    const t0 = Date.now();
    await insert('apple');
    await until(async () => (hook.requests.length >= 1 ? true : undefined), 5000, 'the delivery');
    // Well under the 200 ms poll: the NOTIFY woke the worker.
    expect(Date.now() - t0).toBeLessThan(2000);
    const req = hook.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.headers['x-plain']).toBe('v');
    expect(req.headers['x-secret']).toBe('s3cret');
    expect(req.headers['content-type']).toBe('application/json');
    const body = JSON.parse(req.body);
    expect(body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+$/),
      trigger: { name: 'fast' },
      table: { schema: 'public', name: 'items' },
      event: {
        op: 'INSERT',
        data: { old: null, new: { id: 1, name: 'apple', qty: 0 } },
        session_variables: { 'x-engine-role': 'admin', 'x-engine-user-id': '7' },
      },
      delivery_info: { current_retry: 0, max_retries: 0 },
    });
    const logs = await until(async () => {
      const r = await md('pg_get_event_logs', { name: 'fast', status: 'processed' });
      return r.body.length === 1 ? r.body : undefined;
    });
    expect(logs[0]).toMatchObject({ id: body.id, delivered: true, error: false, tries: 1, trigger_name: 'fast' });
    const inv = await md('pg_get_event_invocation_logs', { name: 'fast' });
    expect(inv.body[0]).toMatchObject({ event_id: body.id, status: 200, trigger_name: 'fast' });
    expect(inv.body[0].request.payload).toEqual(body);
    expect(inv.body[0].response).toMatchObject({ type: 'webhook_response', data: { status: 200, body: '{}' } });
    // The answer's headers as the webhook wrote them.
    expect(inv.body[0].response.data.headers).toContainEqual({ name: 'content-type', value: 'application/json' });
    await drop('fast');
  });

  it('retries a failing webhook num_retries times, then marks the event error until it is redelivered', async () => {
    hook.requests.length = 0;
    hook.handler = (_req, _body, res) => answer(res, 500, '{"boom":true}');
    await trigger('failing', { retry_conf: { num_retries: 2, interval_sec: 0, timeout_sec: 5 } });
    await insert('pear');
    const errored = await until(async () => {
      const r = await md('pg_get_event_logs', { name: 'failing' });
      return r.body[0]?.error === true ? r.body[0] : undefined;
    });
    expect(errored.tries).toBe(3);
    expect(bodies().map((b) => b.delivery_info)).toEqual([
      { current_retry: 0, max_retries: 2 },
      { current_retry: 1, max_retries: 2 },
      { current_retry: 2, max_retries: 2 },
    ]);
    const byId = await md('pg_get_event_by_id', { event_id: errored.id });
    expect(byId.body.event).toMatchObject({ id: errored.id, error: true });
    expect(byId.body.invocations.map((i: any) => i.status)).toEqual([500, 500, 500]);
    expect(byId.body.invocations[0].response.data.body).toBe('{"boom":true}');

    hook.handler = (_req, _body, res) => answer(res, 200);
    expect((await md('pg_redeliver_event', { event_id: errored.id })).body).toEqual({ message: 'success' });
    const delivered = await until(async () => {
      const r = await md('pg_get_event_by_id', { event_id: errored.id });
      return r.body.event.delivered === true ? r.body : undefined;
    });
    expect(delivered.event.tries).toBe(1);
    expect(bodies().at(-1).delivery_info).toEqual({ current_retry: 0, max_retries: 2 });
    expect((await md('pg_redeliver_event', { event_id: '00000000-0000-0000-0000-000000000000' })).body).toMatchObject({ code: 'not-exists' });
    await drop('failing');
  });

  it('waits as Retry-After says rather than interval_sec', async () => {
    hook.requests.length = 0;
    let calls = 0;
    hook.handler = (_req, _body, res) => (calls++ === 0 ? answer(res, 503, '{}', { 'Retry-After': '1' }) : answer(res, 200));
    await trigger('polite', { retry_conf: { num_retries: 1, interval_sec: 3600, timeout_sec: 5 } });
    await insert('plum');
    await until(async () => (hook.requests.length >= 2 ? true : undefined), 10_000, 'the retry');
    const inv = await md('pg_get_event_invocation_logs', { name: 'polite' });
    expect(inv.body.map((i: any) => i.status).sort()).toEqual([200, 503]);
    await drop('polite');
  });

  it('cuts a webhook that hangs at timeout_sec and logs the failure', async () => {
    hook.requests.length = 0;
    hook.handler = () => {}; // never answers
    await trigger('slow', { retry_conf: { num_retries: 0, interval_sec: 0, timeout_sec: 1 } });
    const t0 = Date.now();
    await insert('fig');
    const ev = await until(async () => {
      const r = await md('pg_get_event_logs', { name: 'slow' });
      return r.body[0]?.error === true ? r.body[0] : undefined;
    });
    expect(Date.now() - t0).toBeLessThan(8000);
    const byId = await md('pg_get_event_by_id', { event_id: ev.id });
    expect(byId.body.invocations[0]).toMatchObject({ status: null, response: { type: 'client_error' } });
    expect(byId.body.invocations[0].response.data.message).toContain('no answer within 1000 ms');
    hook.handler = (_req, _body, res) => answer(res, 200);
    await drop('slow');
  });

  it('delivers every event through a flapping webhook, and truncates large answers in the log', async () => {
    hook.requests.length = 0;
    let n = 0;
    hook.handler = (_req, _body, res) => (n++ % 2 === 0 ? answer(res, 502) : answer(res, 200, 'x'.repeat(200_000)));
    await trigger('flappy', { retry_conf: { num_retries: 10, interval_sec: 0, timeout_sec: 5 } });
    for (let i = 0; i < 20; i++) await insert(`item${i}`);
    const delivered = await until(
      async () => {
        const r = await md('pg_get_event_logs', { name: 'flappy', status: 'processed', limit: 100 });
        return r.body.length === 20 ? r.body : undefined;
      },
      20_000,
      'all 20 events',
    );
    expect(delivered.every((e: any) => e.delivered === true)).toBe(true);
    const ok = (await md('pg_get_event_invocation_logs', { name: 'flappy', limit: 200 })).body.find((i: any) => i.status === 200);
    expect(ok.response.data.body).toHaveLength(64 * 1024);
    expect(ok.response.data).toMatchObject({ truncated: true, size: 200_000 });
    hook.handler = (_req, _body, res) => answer(res, 200);
    await drop('flappy');
  });

  it('keeps the events of one row in order: a retried insert holds back the update of its row, not other rows', async () => {
    hook.requests.length = 0;
    const ok: string[] = [];
    let failedOnce = false;
    hook.handler = (_req, body, res) => {
      const e = JSON.parse(body).event;
      const row = e.data.new?.name ?? e.data.old?.name;
      if (row === 'ordered' && e.op === 'INSERT' && !failedOnce) {
        failedOnce = true;
        answer(res, 503, '{}', { 'retry-after': '1' });
        return;
      }
      ok.push(`${e.op} ${row}`);
      answer(res, 200);
    };
    await trigger('ordered', { update: { columns: '*' }, retry_conf: { num_retries: 3, interval_sec: 0, timeout_sec: 5 } });
    await insert('ordered');
    await s.db.sql(`UPDATE items SET qty = 1 WHERE name = 'ordered'`);
    await insert('other');
    await until(async () => (ok.length >= 3 ? true : undefined), 10_000, 'three deliveries');
    // The other row is not held back by the retried one.
    expect(ok).toEqual(['INSERT other', 'INSERT ordered', 'UPDATE ordered']);
    hook.handler = (_req, _body, res) => answer(res, 200);
    await drop('ordered');
  });

  it('applies request_transform (method, URL, query, headers, body from the event and its session)', async () => {
    hook.requests.length = 0;
    const seen: Array<{ method: string; url: string; body: string; key: string | undefined }> = [];
    hook.handler = (req, body, res) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', body, key: req.headers['x-key'] as string | undefined });
      answer(res, 200, '{"ok":true,"n":1}');
    };
    await trigger('shaped', {
      request_transform: {
        version: 2,
        template_engine: 'Kriti',
        method: 'PUT',
        url: '{{$base_url}}/items/{{$body.event.data.new.id}}',
        query_params: { source: 'engine' },
        request_headers: { add_headers: { 'x-key': '{{$body.trigger.name}}' }, remove_headers: [] },
        body: { action: 'transform', template: '{"name": {{$body.event.data.new.name}}, "user": {{$session_variables["x-engine-user-id"]}}}' },
      },
      response_transform: { version: 2, body: { action: 'transform', template: '{"seen": {{$body.n}}}' } },
    });
    await insert('shaped');
    await until(async () => (seen.length >= 1 ? true : undefined), 5000, 'the transformed delivery');
    expect(seen[0]).toMatchObject({ method: 'PUT', key: 'shaped' });
    expect(seen[0]!.url).toMatch(/^\/+items\/\d+\?source=engine$/);
    expect(JSON.parse(seen[0]!.body)).toEqual({ name: 'shaped', user: '7' });
    const inv = await until(async () => {
      const r = await md('pg_get_event_invocation_logs', { name: 'shaped' });
      return r.body.length === 1 ? r.body[0] : undefined;
    });
    expect(inv.request.payload).toEqual({ name: 'shaped', user: '7' });
    expect(JSON.parse(inv.response.data.body)).toEqual({ seen: 1 });
    const bad = await md('pg_create_event_trigger', {
      name: 'badly_shaped',
      table: 'items',
      webhook: hook.url,
      insert: { columns: '*' },
      request_transform: { version: 2, body: { action: 'transform', template: '{{ $body.x ' } },
    });
    expect(bad.body).toMatchObject({ code: 'validation-failed' });
    expect(bad.body.path).toMatch(/^\$\.args\.request_transform/);
    hook.handler = (_req, _body, res) => answer(res, 200);
    await drop('shaped');
  });

  it('invokes a trigger by hand when enable_manual is set', async () => {
    hook.requests.length = 0;
    await trigger('manual', { insert: undefined, enable_manual: true });
    const r = await md('pg_invoke_event_trigger', { name: 'manual', payload: { hello: 'world' } });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ event_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    await until(async () => (hook.requests.length >= 1 ? true : undefined), 5000, 'the manual delivery');
    expect(bodies()[0]).toMatchObject({
      id: r.body.event_id,
      event: { op: 'MANUAL', data: { old: null, new: { hello: 'world' } }, session_variables: { 'x-engine-role': 'admin' } },
    });
    await trigger('automatic', {});
    expect((await md('pg_invoke_event_trigger', { name: 'automatic', payload: {} })).body).toMatchObject({ code: 'not-supported', path: '$.args.name' });
    expect((await md('pg_invoke_event_trigger', { name: 'nope', payload: {} })).body).toMatchObject({ code: 'not-exists' });
    const legacy = await s.engine.post('/v1/query', { type: 'invoke_event_trigger', args: { name: 'manual', payload: { legacy: true } } });
    expect(legacy.status, legacy.text).toBe(200);
    await drop('manual');
    await drop('automatic');
  });
});
