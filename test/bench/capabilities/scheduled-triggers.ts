/**
 * Bench cell of scheduled triggers (issue 19): how late events fire, with two
 * engine processes sharing one metadata database and a local webhook that
 * answers at once. Lateness = webhook receipt − the event's scheduled time,
 * both on this machine's clock. v2 polls once a minute (its issue 5584), so
 * its lateness is up to 60 s; the goal here is every first attempt within 1 s.
 *   - 1,000 one-off events due in the same second (quick: 200);
 *   - 100 cron triggers `* * * * *` due at the same minute (quick: 20; waits for the minute).
 * Also counts double firings (the same event id received twice): must be 0.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEngine, type BenchEngine } from '../lib/engine.ts';
import type { CapabilityBench } from './types.ts';

interface Received {
  readonly id: string;
  readonly name: string | null;
  readonly scheduledMs: number;
  readonly receivedMs: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function metadata(engine: BenchEngine, body: unknown): Promise<unknown> {
  const res = await fetch(`${engine.url}/v1/metadata`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json: unknown = await res.json();
  if (res.status !== 200) throw new Error(`metadata call failed (${res.status}): ${JSON.stringify(json)}`);
  return json;
}

async function waitFor(what: string, cond: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function lateness(rows: readonly Received[]): Record<string, number> {
  const late = rows.map((r) => r.receivedMs - r.scheduledMs).sort((a, b) => a - b);
  return {
    'p50 ms': Math.round(percentile(late, 50)),
    'p99 ms': Math.round(percentile(late, 99)),
    'max ms': Math.round(late[late.length - 1] ?? Number.NaN),
    'within 1 s': late.filter((l) => l <= 1000).length,
  };
}

const bench: CapabilityBench = async (ctx) => {
  const oneOffCount = ctx.quick ? 200 : 1000;
  const cronCount = ctx.quick ? 20 : 100;
  const url = await ctx.postgres.createDatabase('bench_scheduled');
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const receivedMs = Date.now();
      const p = JSON.parse(body) as { id: string; name: string | null; scheduled_time: string };
      received.push({ id: p.id, name: p.name, scheduledMs: Date.parse(p.scheduled_time), receivedMs });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const engines = [await startEngine(url), await startEngine(url)];
  const [a, b] = engines as [BenchEngine, BenchEngine];
  try {
    // One-off events: created through both engines, all due at the same whole second.
    const due = Math.ceil((Date.now() + 10_000) / 1000) * 1000;
    const at = new Date(due).toISOString();
    const started = performance.now();
    for (let i = 0; i < oneOffCount; i += 50) {
      const chunk = Array.from({ length: Math.min(50, oneOffCount - i) }, (_, j) => ({
        type: 'create_scheduled_event',
        args: { webhook: hook, schedule_at: at, payload: { i: i + j } },
      }));
      await metadata(i % 100 === 0 ? a : b, { type: 'bulk', args: chunk });
    }
    ctx.log(`${oneOffCount} one-off events created in ${((performance.now() - started) / 1000).toFixed(1)} s, due ${at}`);
    if (Date.now() > due) throw new Error('creating the events took past their due time; the lateness would be meaningless');
    await waitFor(
      'every one-off delivery',
      () => new Set(received.filter((r) => r.name === null).map((r) => r.id)).size >= oneOffCount,
      due - Date.now() + 60_000,
    );
    const oneOff = received.filter((r) => r.name === null);
    const oneOffDoubles = oneOff.length - new Set(oneOff.map((r) => r.id)).size;

    // Cron triggers: every minute, all due at the same minute boundary.
    for (let i = 0; i < cronCount; i++) {
      await metadata(a, { type: 'create_cron_trigger', args: { name: `bench_cron_${i}`, webhook: hook, schedule: '* * * * *', include_in_metadata: true } });
    }
    const firstMinute = Math.ceil((Date.now() + 1000) / 60_000) * 60_000;
    ctx.log(`${cronCount} cron triggers created; waiting for ${new Date(firstMinute).toISOString()}`);
    const cronAt = (r: Received): boolean => r.name !== null && r.scheduledMs === firstMinute;
    await waitFor('every cron delivery of the minute', () => received.filter(cronAt).length >= cronCount, firstMinute - Date.now() + 60_000);
    const cron = received.filter(cronAt);
    const cronDoubles = cron.length - new Set(cron.map((r) => r.id)).size;
    return {
      tables: [
        {
          title: 'Lateness of the first attempt (webhook receipt − scheduled time), two engine processes',
          rows: [
            { workload: `${oneOffCount} one-off events due in one second`, events: oneOff.length, ...lateness(oneOff), 'double firings': oneOffDoubles },
            { workload: `${cronCount} cron triggers due at one minute`, events: cron.length, ...lateness(cron), 'double firings': cronDoubles },
          ],
        },
      ],
      notes: [
        'Both engines run `engine serve` on the same embedded PostgreSQL (metadata and events in one database); the webhook is a node:http server in the bench process answering 200 at once.',
        'v2 fetches due scheduled events once a minute (graphql-engine issue 5584), so its lateness ranges up to 60 s; Engine arms one timer per process for the earliest due row and is woken by NOTIFY (Note [On-time firing]).',
      ],
    };
  } finally {
    for (const e of engines) await e.stop();
    await new Promise<void>((r) => server.close(() => r()));
  }
};

export default bench;
