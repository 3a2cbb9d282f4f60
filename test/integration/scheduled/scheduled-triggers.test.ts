/**
 * Scheduled triggers end to end: the metadata operations of cron triggers and
 * one-off events, and their delivery to real webhook servers on loopback
 * (retries, Retry-After, timeouts, tolerance across a restart, two engines,
 * an engine killed mid-delivery). One test waits for a real minute boundary.
 */
import type http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { spawnEngine } from '../../support/engine-process.ts';
import { startTestServer, type TestServer } from '../../support/http-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

interface Delivery {
  readonly id: string;
  readonly name: string | null;
  readonly scheduled_time: string;
  readonly payload: unknown;
  readonly comment: string | null;
}

interface EventRow {
  id: string;
  status: string;
  tries: number;
  scheduled_time: string;
  trigger_name?: string;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const inSeconds = (s: number): string => new Date(Date.now() + s * 1000).toISOString();
const deliveries = (server: TestServer): Delivery[] => server.requests.map((r) => JSON.parse(r.body) as Delivery);
const ok = (_req: http.IncomingMessage, _body: string, res: http.ServerResponse): void => void res.writeHead(200).end('{"ok":true}');

let db: TestDatabase;
let engine: TestEngine;
let hook: TestServer;

async function events(e: TestEngine, type: 'one_off' | 'cron', extra: Record<string, unknown> = {}): Promise<EventRow[]> {
  const r = await e.metadata<{ events: EventRow[] }>({ type: 'get_scheduled_events', args: { type, ...extra } });
  expect(r.status, r.text).toBe(200);
  return r.body.events;
}

async function eventById(e: TestEngine, id: string): Promise<EventRow | undefined> {
  return (await events(e, 'one_off')).find((x) => x.id === id);
}

async function schedule(e: TestEngine, args: Record<string, unknown>): Promise<string> {
  const r = await e.metadata<{ message: string; event_id: string }>({ type: 'create_scheduled_event', args });
  expect(r.status, r.text).toBe(200);
  expect(r.body.message).toBe('success');
  return r.body.event_id;
}

beforeAll(async () => {
  db = await createTestDatabase('sched');
  engine = await startTestEngine({ databaseUrl: db.url });
  hook = await startTestServer(ok);
});

afterAll(async () => {
  await engine?.close();
  await hook?.close();
  await db?.drop();
});

describe('cron trigger metadata', () => {
  it('creates, lists, exports and replaces cron triggers as v2 does', async () => {
    const created = await engine.metadata({
      type: 'create_cron_trigger',
      args: { name: 'nightly', webhook: hook.url, schedule: '0 3 * * *', payload: { k: 1 }, include_in_metadata: true, comment: 'c' },
    });
    expect(created.status, created.text).toBe(200);
    const hidden = await engine.metadata({
      type: 'create_cron_trigger',
      args: { name: 'hidden', webhook: hook.url, schedule: '*/5 * * * *', include_in_metadata: false },
    });
    expect(hidden.status, hidden.text).toBe(200);

    const dup = await engine.metadata({
      type: 'create_cron_trigger',
      args: { name: 'nightly', webhook: hook.url, schedule: '0 4 * * *', include_in_metadata: true },
    });
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({ code: 'already-exists', error: 'cron trigger with name: nightly already exists' });

    const all = await engine.metadata<{ cron_triggers: Array<{ name: string }> }>({ type: 'get_cron_triggers', args: {} });
    expect(all.body.cron_triggers.map((c) => c.name).sort()).toEqual(['hidden', 'nightly']);
    const exported = await engine.metadata<{ cron_triggers: Array<{ name: string }> }>({ type: 'export_metadata', args: {} });
    expect(exported.body.cron_triggers.map((c) => c.name)).toEqual(['nightly']);

    // Fire times are stored once the call returns: the next three at least.
    const stored = await events(engine, 'cron', { trigger_name: 'nightly' });
    expect(stored.length).toBeGreaterThanOrEqual(3);
    for (const e of stored) expect(e.scheduled_time).toMatch(/T03:00:00\.000Z$/);

    // replace_metadata replaces what export shows: the unexported trigger stays.
    const doc = { ...(exported.body as Record<string, unknown>), cron_triggers: [] };
    const replaced = await engine.metadata({ type: 'replace_metadata', args: doc });
    expect(replaced.status, replaced.text).toBe(200);
    const after = await engine.metadata<{ cron_triggers: Array<{ name: string }> }>({ type: 'get_cron_triggers', args: {} });
    expect(after.body.cron_triggers.map((c) => c.name)).toEqual(['hidden']);
    // The removed trigger's pending fire times went with it.
    await until('pending times of the removed trigger to go', async () =>
      (await events(engine, 'cron', { trigger_name: 'nightly' })).length === 0 ? true : undefined,
    );
    const cleared = await engine.metadata({ type: 'clear_metadata', args: {} });
    expect(cleared.status).toBe(200);
    const afterClear = await engine.metadata<{ cron_triggers: Array<{ name: string }> }>({ type: 'get_cron_triggers', args: {} });
    expect(afterClear.body.cron_triggers.map((c) => c.name)).toEqual(['hidden']);
  });

  it('replacing a trigger recomputes its fire times; deleting it removes its pending events', async () => {
    const mk = (schedule: string, replace?: boolean) =>
      engine.metadata({
        type: 'create_cron_trigger',
        args: { name: 'every', webhook: hook.url, schedule, include_in_metadata: true, ...(replace ? { replace } : {}) },
      });
    expect((await mk('0 1 * * *')).status).toBe(200);
    expect((await events(engine, 'cron', { trigger_name: 'every' })).every((e) => e.scheduled_time.includes('T01:00:00'))).toBe(true);
    expect((await mk('30 2 * * *', true)).status).toBe(200);
    const now = await events(engine, 'cron', { trigger_name: 'every' });
    expect(now.length).toBeGreaterThanOrEqual(3);
    expect(now.every((e) => e.scheduled_time.includes('T02:30:00'))).toBe(true);

    const del = await engine.metadata({ type: 'delete_cron_trigger', args: { name: 'every' } });
    expect(del.status).toBe(200);
    expect(await events(engine, 'cron', { trigger_name: 'every' })).toEqual([]);
    const again = await engine.metadata({ type: 'delete_cron_trigger', args: { name: 'every' } });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: 'not-exists', path: '$.args.name' });
  });

  it('refuses bad definitions with a 400 and stores nothing', async () => {
    const before = await engine.metadata({ type: 'export_metadata', args: {} });
    const bad: Array<[Record<string, unknown>, string, string]> = [
      [{ schedule: '61 * * * *' }, 'parse-failed', '$.args.schedule'],
      [{ schedule: '* * * * * *' }, 'parse-failed', '$.args.schedule'],
      [{ schedule: 'every minute' }, 'parse-failed', '$.args.schedule'],
      [{ webhook: '{{NO_SUCH_ENGINE_TEST_VARIABLE}}/x' }, 'not-found', '$.args.webhook'],
      [{ webhook: 'ftp://example.com' }, 'parse-failed', '$.args.webhook'],
      [{ headers: [{ name: 'x', value_from_env: 'NO_SUCH_ENGINE_TEST_VARIABLE' }] }, 'not-found', '$.args.headers'],
      [{ retry_conf: { num_retries: -1 } }, 'parse-failed', '$.args.retry_conf.num_retries'],
    ];
    for (const [override, code, path] of bad) {
      const r = await engine.metadata({
        type: 'create_cron_trigger',
        args: { name: 'bad', webhook: hook.url, schedule: '* * * * *', include_in_metadata: true, ...override },
      });
      expect(r.status, JSON.stringify(override)).toBe(400);
      expect(r.body, JSON.stringify(override)).toMatchObject({ code, path });
    }
    const after = await engine.metadata({ type: 'export_metadata', args: {} });
    expect(after.body).toEqual(before.body);
    expect(await events(engine, 'cron', { trigger_name: 'bad' })).toEqual([]);
  });

  it('an invalid cron trigger in replace_metadata is reported inconsistent, not scheduled', async () => {
    const doc = (await engine.metadata<Record<string, unknown>>({ type: 'export_metadata', args: {} })).body;
    const r = await engine.metadata({
      type: 'replace_metadata',
      args: {
        allow_inconsistent_metadata: true,
        metadata: { ...doc, cron_triggers: [{ name: 'broken', webhook: hook.url, schedule: '99 * * * *', include_in_metadata: true }] },
      },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ is_consistent: false, inconsistent_objects: [{ type: 'cron_trigger', name: 'cron trigger broken' }] });
    expect(await events(engine, 'cron', { trigger_name: 'broken' })).toEqual([]);
    expect((await engine.metadata({ type: 'replace_metadata', args: doc })).status).toBe(200);
  });
});

describe('one-off scheduled events', () => {
  it('refuses a malformed schedule_at', async () => {
    for (const schedule_at of ['tomorrow', '2026-13-01T00:00:00Z', '2030-01-01', '2001-01-01T00:00Z0']) {
      const r = await engine.metadata({ type: 'create_scheduled_event', args: { webhook: hook.url, schedule_at } });
      expect(r.status, schedule_at).toBe(400);
      expect(r.body, schedule_at).toMatchObject({ code: 'parse-failed', path: '$.args.schedule_at' });
    }
  });

  it('takes a past schedule_at as v2 does: due at once within its tolerance, dead beyond it', async () => {
    // A form filled in over a few minutes sends a time already past: v2 stores it and fires it.
    const recent = await schedule(engine, { webhook: hook.url, schedule_at: inSeconds(-180), payload: 'recent' });
    const old = await schedule(engine, { webhook: hook.url, schedule_at: '2001-01-01T00:00:00', payload: 'old' });
    await until('the recent event delivered', async () => ((await eventById(engine, recent))?.status === 'delivered' ? true : undefined));
    await until('the old event dead', async () => ((await eventById(engine, old))?.status === 'dead' ? true : undefined));
    expect(deliveries(hook).some((d) => d.id === recent)).toBe(true);
    expect(deliveries(hook).some((d) => d.id === old)).toBe(false);
  });

  it('fires at its time with the v2 payload and headers, and logs the invocation', async () => {
    const id = await schedule(engine, {
      webhook: hook.url,
      schedule_at: inSeconds(1),
      payload: { hello: 'world' },
      headers: [{ name: 'X-Custom', value: 'yes' }],
      comment: 'first',
    });
    await until('delivery', async () => (deliveries(hook).some((d) => d.id === id) ? true : undefined));
    const d = deliveries(hook).find((x) => x.id === id);
    expect(d).toMatchObject({ id, name: null, payload: { hello: 'world' }, comment: 'first' });
    const req = hook.requests.find((r) => r.body.includes(id));
    expect(req?.headers['x-custom']).toBe('yes');
    expect(req?.headers['content-type']).toBe('application/json');
    const row = await until('delivered status', async () => {
      const e = await eventById(engine, id);
      return e?.status === 'delivered' ? e : undefined;
    });
    expect(row.tries).toBe(1);
    const inv = await engine.metadata<{ invocations: Array<{ event_id: string; status: number; response: unknown }> }>({
      type: 'get_scheduled_event_invocations',
      args: { type: 'one_off', event_id: id },
    });
    expect(inv.body.invocations).toHaveLength(1);
    expect(inv.body.invocations[0]).toMatchObject({
      event_id: id,
      status: 200,
      response: { type: 'webhook_response', data: { status: 200, body: '{"ok":true}' } },
    });
  });

  it('applies a request transform (method, URL, query, headers, body) and refuses one that does not parse', async () => {
    const server = await startTestServer(ok);
    try {
      const id = await schedule(engine, {
        webhook: server.url,
        schedule_at: inSeconds(0.5),
        payload: { x: 7 },
        request_transform: {
          version: 2,
          template_engine: 'Kriti',
          method: 'PUT',
          url: '{{$base_url}}put',
          query_params: { a: '{{$body.payload.x}}' },
          request_headers: { add_headers: { 'X-From': 'kriti' }, remove_headers: [] },
          body: { action: 'transform', template: '{"wrapped": {{$body.payload}}, "event": {{$body.id}}}' },
        },
      });
      await until('the transformed request', async () => server.requests[0]);
      const req = server.requests[0];
      expect(req?.method).toBe('PUT');
      expect(req?.path).toBe('/put?a=7');
      expect(req?.headers['x-from']).toBe('kriti');
      expect(JSON.parse(req?.body ?? '')).toEqual({ wrapped: { x: 7 }, event: id });
      await until('delivered', async () => ((await eventById(engine, id))?.status === 'delivered' ? true : undefined));

      const bad = await engine.metadata({
        type: 'create_scheduled_event',
        args: { webhook: server.url, schedule_at: inSeconds(60), request_transform: { body: { action: 'transform', template: '{{ $body.' } } },
      });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: 'validation-failed' });
    } finally {
      await server.close();
    }
  });

  it('retries failures per retry_conf, and Retry-After wins over the interval', async () => {
    const flaky = await startTestServer(ok);
    let n = 0;
    flaky.handler = (_req, _body, res) => {
      n++;
      if (n === 1) res.writeHead(503, { 'retry-after': '1' }).end('busy');
      else if (n === 2) res.writeHead(500).end('boom');
      else res.writeHead(200).end('fine');
    };
    try {
      // The interval alone would leave an hour between tries: only Retry-After can make the second one come now.
      const id = await schedule(engine, {
        webhook: flaky.url,
        schedule_at: inSeconds(0.5),
        retry_conf: { num_retries: 3, retry_interval_seconds: 3600 },
      });
      await until('second attempt', async () => (flaky.requests.length >= 2 ? true : undefined));
      const row = await until('retry scheduled', async () => {
        const e = await eventById(engine, id);
        return e?.tries === 2 ? e : undefined;
      });
      expect(row.status).toBe('scheduled');
      const inv = await engine.metadata<{ invocations: Array<{ status: number }>; count: number }>({
        type: 'get_scheduled_event_invocations',
        args: { type: 'one_off', event_id: id, get_rows_count: true },
      });
      expect(inv.body.invocations.map((i) => i.status)).toEqual([503, 500]);
      expect(inv.body.count).toBe(2);
      const failed = await events(engine, 'one_off', { status: ['scheduled'], get_rows_count: true });
      expect(failed.some((e) => e.id === id)).toBe(true);
    } finally {
      await flaky.close();
    }
  });

  it('a webhook that hangs is cut at timeout_seconds and the event ends in error', async () => {
    const hang = await startTestServer(() => {});
    try {
      const id = await schedule(engine, { webhook: hang.url, schedule_at: inSeconds(0.5), retry_conf: { num_retries: 0, timeout_seconds: 1 } });
      const row = await until('error status', async () => {
        const e = await eventById(engine, id);
        return e?.status === 'error' ? e : undefined;
      });
      expect(row.tries).toBe(1);
      const inv = await engine.metadata<{ invocations: Array<{ status: number | null; response: { type: string; data: { message: string } } }> }>({
        type: 'get_scheduled_event_invocations',
        args: { type: 'one_off', event_id: id },
      });
      expect(inv.body.invocations[0]?.status).toBeNull();
      expect(inv.body.invocations[0]?.response.type).toBe('client_error');
      expect(inv.body.invocations[0]?.response.data.message).toMatch(/timed out/);
    } finally {
      await hang.close();
    }
  });

  it('is stored only when the whole bulk succeeds, and can be deleted', async () => {
    const before = (await events(engine, 'one_off')).length;
    const r = await engine.metadata({
      type: 'bulk',
      args: [
        { type: 'create_scheduled_event', args: { webhook: hook.url, schedule_at: inSeconds(3600) } },
        { type: 'delete_cron_trigger', args: { name: 'no-such-trigger' } },
      ],
    });
    expect(r.status).toBe(400);
    expect((await events(engine, 'one_off')).length).toBe(before);

    const id = await schedule(engine, { webhook: hook.url, schedule_at: inSeconds(3600) });
    expect((await eventById(engine, id))?.status).toBe('scheduled');
    const del = await engine.metadata({ type: 'delete_scheduled_event', args: { type: 'one_off', event_id: id } });
    expect(del.status, del.text).toBe(200);
    expect(await eventById(engine, id)).toBeUndefined();
    const again = await engine.metadata({ type: 'delete_scheduled_event', args: { type: 'one_off', event_id: id } });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ code: 'not-exists' });
  });
});

describe('across restarts and engines', () => {
  it('after a restart, a missed event fires within its tolerance and is dead beyond it', async () => {
    const own = await createTestDatabase('sched_restart');
    const server = await startTestServer(ok);
    try {
      const first = await startTestEngine({ databaseUrl: own.url });
      const dueAt = Date.now() + 1500;
      const at = new Date(dueAt).toISOString();
      const within = await schedule(first, { webhook: server.url, schedule_at: at, payload: 'within', retry_conf: { tolerance_seconds: 3600 } });
      const beyond = await schedule(first, { webhook: server.url, schedule_at: at, payload: 'beyond', retry_conf: { tolerance_seconds: 1 } });
      await first.close();
      // The engine is down while both come due and the second's tolerance passes.
      await until('the tolerance of the second event to pass', async () => (Date.now() > dueAt + 2500 ? true : undefined));
      const second = await startTestEngine({ databaseUrl: own.url });
      try {
        await until('the event within tolerance', async () => ((await eventById(second, within))?.status === 'delivered' ? true : undefined));
        const dead = await until('the event beyond tolerance', async () => {
          const e = await eventById(second, beyond);
          return e?.status === 'dead' ? e : undefined;
        });
        expect(dead.tries).toBe(0);
        expect(deliveries(server).map((d) => d.payload)).toEqual(['within']);
      } finally {
        await second.close();
      }
    } finally {
      await server.close();
      await own.drop();
    }
  });

  it('two engines on one metadata database fire each event exactly once', async () => {
    const own = await createTestDatabase('sched_two');
    const server = await startTestServer(ok);
    const a = await startTestEngine({ databaseUrl: own.url });
    const b = await startTestEngine({ databaseUrl: own.url });
    try {
      const at = inSeconds(2);
      const ids = new Set<string>();
      for (let i = 0; i < 40; i++) ids.add(await schedule(i % 2 === 0 ? a : b, { webhook: server.url, schedule_at: at, payload: i }));
      await until('every delivery', async () => (new Set(deliveries(server).map((d) => d.id)).size === ids.size ? true : undefined));
      const delivered = await until('every event delivered', async () => {
        const rows = (await events(a, 'one_off')).filter((e) => ids.has(e.id));
        return rows.every((e) => e.status === 'delivered') ? rows : undefined;
      });
      expect(delivered).toHaveLength(40);
      expect(deliveries(server)).toHaveLength(40);
      expect(delivered.every((e) => e.tries === 1)).toBe(true);
    } finally {
      await a.close();
      await b.close();
      await server.close();
      await own.drop();
    }
  });

  it('an engine killed mid-delivery leaves the event to another engine after its lease', async () => {
    const own = await createTestDatabase('sched_kill');
    let calls = 0;
    const server = await startTestServer((_req, _body, res) => {
      calls++;
      // The first attempt never answers: its engine is killed while it waits.
      if (calls > 1) res.writeHead(200).end('ok');
    });
    const killed = await spawnEngine(['--database-url', own.url]);
    let survivor: TestEngine | undefined;
    try {
      const r = await fetch(`${killed.url}/v1/metadata`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'create_scheduled_event',
          args: { webhook: server.url, schedule_at: inSeconds(0.5), retry_conf: { timeout_seconds: 2 } },
        }),
      });
      const { event_id: id } = (await r.json()) as { event_id: string };
      await until('the first attempt', async () => (calls >= 1 ? true : undefined));
      await killed.stop('SIGKILL');
      survivor = await startTestEngine({ databaseUrl: own.url });
      const s = survivor;
      const row = await until('the event delivered by the survivor', async () => {
        const e = await eventById(s, id);
        return e?.status === 'delivered' ? e : undefined;
      });
      // The killed attempt was never recorded; the survivor's is the one try.
      expect(row.tries).toBe(1);
      expect(calls).toBe(2);
    } finally {
      await killed.stop('SIGKILL');
      await survivor?.close();
      await server.close();
      await own.drop();
    }
  });
});

describe('cron triggers on the real clock', () => {
  it('fires a every-minute trigger at the minute boundary with its name and payload', async () => {
    const server = await startTestServer(ok);
    try {
      const r = await engine.metadata({
        type: 'create_cron_trigger',
        args: { name: 'minutely', webhook: server.url, schedule: '* * * * *', payload: { from: 'cron' }, include_in_metadata: true, comment: 'tick' },
      });
      expect(r.status, r.text).toBe(200);
      const d = await until('a cron delivery', async () => deliveries(server)[0], 80_000);
      expect(d).toMatchObject({ name: 'minutely', payload: { from: 'cron' }, comment: 'tick' });
      expect(d.scheduled_time).toMatch(/:00\.000Z$/);
      // The webhook answers before the attempt is recorded: wait for the row.
      await until('the cron event delivered', async () =>
        (await events(engine, 'cron', { trigger_name: 'minutely', status: ['delivered'] })).some((e) => e.id === d.id) ? true : undefined,
      );
    } finally {
      await engine.metadata({ type: 'delete_cron_trigger', args: { name: 'minutely' } });
      await server.close();
    }
  }, 100_000);
});
