/**
 * Bench cell: event triggers. An engine process with one event trigger on
 * `items` and a local webhook (in this process) that answers 200 at once.
 *
 * - Throughput: N rows inserted in one statement; events delivered per
 *   second from the commit to the last webhook request.
 * - Latency: a steady 500 inserts/s (single-row statements spread over a few
 *   connections) for the run's seconds; each row's latency is from sending
 *   its INSERT to the webhook receiving its event (so it includes the
 *   INSERT's own round trip: an upper bound of commit → webhook). The same
 *   steady writes run first on `items_plain`: PostgreSQL CPU per insert with
 *   the trigger (capture and delivery) against without, at a rate the load
 *   of the machine does not change.
 * - Writer cost: `insert_items_one` mutation RPS (autocannon) on `items`
 *   (with the trigger, delivery running) and on `items_plain` (same shape,
 *   no trigger).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { startEngine } from '../lib/engine.ts';
import { runLoad } from '../lib/load.ts';
import { statStatements } from '../lib/postgres.ts';
import { cpuMs, postgresCpuMs } from '../lib/process.ts';
import type { CapabilityBench, CapabilityContext } from './types.ts';

const SCHEMA = `
CREATE TABLE items (id serial PRIMARY KEY, n int NOT NULL, name text NOT NULL DEFAULT 'x');
CREATE TABLE items_plain (id serial PRIMARY KEY, n int NOT NULL, name text NOT NULL DEFAULT 'x');
`;

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

const round = (x: number, d = 1): number => Math.round(x * 10 ** d) / 10 ** d;

/** A webhook answering 200 at once, calling `onEvent` with the row's `n` at arrival. */
async function startWebhook(onEvent: (n: number) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { event: { data: { new: { n: number } } } };
      onEvent(body.event.data.new.n);
      res.writeHead(200).end('{}');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
  return true;
}

/**
 * This database's statements since `pg_stat_statements_reset()`, most total execution time first,
 * per mutation of a run of `mutations` (trigger bodies included: the bench's server tracks nested
 * statements), then a reset.
 */
async function statementsPerMutation(db: pg.Client, mutations: number): Promise<Array<Record<string, string | number>>> {
  const r = await db.query<{ calls: string; total: number; rows: string; blocks: string; query: string }>(
    `SELECT s.calls::text AS calls, s.total_exec_time + s.total_plan_time AS total, s.rows::text AS rows,
       (s.shared_blks_hit + s.shared_blks_read)::text AS blocks, s.query FROM pg_stat_statements s
     WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND s.query NOT LIKE '%pg_stat_statements%'
     ORDER BY s.total_exec_time + s.total_plan_time DESC LIMIT 10`,
  );
  await db.query('SELECT pg_stat_statements_reset()');
  const n = Math.max(1, mutations);
  return r.rows.map((x) => ({
    'calls/mutation': round(Number(x.calls) / n, 3),
    'rows/call': round(Number(x.rows) / Math.max(1, Number(x.calls)), 1),
    'µs/mutation': round((x.total * 1000) / n, 1),
    // Buffers touched per call tell a plan that reads the whole log from one that probes it.
    'blocks/call': round(Number(x.blocks) / Math.max(1, Number(x.calls)), 1),
    statement: x.query.replace(/\s+/g, ' ').slice(0, 140),
  }));
}

async function metadata(url: string, type: string, args: unknown): Promise<void> {
  const res = await fetch(`${url}/v1/metadata`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type, args }) });
  if (res.status !== 200) throw new Error(`${type}: ${await res.text()}`);
}

const eventTriggersBench: CapabilityBench = async (ctx: CapabilityContext) => {
  const dbUrl = await ctx.postgres.createDatabase('event_triggers');
  const c = new pg.Client({ connectionString: dbUrl });
  await c.connect();
  await c.query(SCHEMA);
  const arrivals = new Map<number, number>();
  let received = 0;
  const hook = await startWebhook((n) => {
    received++;
    arrivals.set(n, performance.now());
  });
  const engine = await startEngine(dbUrl);
  try {
    await metadata(engine.url, 'bulk', [
      { type: 'pg_track_table', args: { table: 'items' } },
      { type: 'pg_track_table', args: { table: 'items_plain' } },
      { type: 'pg_create_event_trigger', args: { name: 'items_ins', table: 'items', webhook: hook.url, insert: { columns: '*' } } },
    ]);

    // Throughput: one statement, N events.
    const total = ctx.quick ? 2000 : 20_000;
    ctx.log(`throughput: ${total} events in one INSERT`);
    arrivals.clear();
    await c.query('INSERT INTO items (n) SELECT g FROM generate_series(1, $1) AS g', [total]);
    const committed = performance.now();
    const [engineCpu0, pgCpu0, selfCpu0] = [await cpuMs(engine.child.pid), await postgresCpuMs(ctx.postgres.postmasterPid), process.cpuUsage()];
    const all = await waitFor(() => arrivals.size >= total, 300_000);
    const last = Math.max(...arrivals.values());
    // Let the last attempts be recorded before reading CPU.
    await new Promise((r) => setTimeout(r, 300));
    const engineCpu = ((await cpuMs(engine.child.pid)) ?? NaN) - (engineCpu0 ?? NaN);
    const pgCpu = (await postgresCpuMs(ctx.postgres.postmasterPid)) - pgCpu0;
    const self = process.cpuUsage(selfCpu0);
    const throughput = {
      events: total,
      delivered: arrivals.size,
      seconds: round((last - committed) / 1000, 2),
      'events/s': all ? Math.round(total / ((last - committed) / 1000)) : null,
      'engine CPU µs/event': Math.round((engineCpu * 1000) / total),
      'PG CPU µs/event': Math.round((pgCpu * 1000) / total),
      'webhook CPU µs/event': Math.round((self.user + self.system) / total),
    };

    // Latency at a steady 500 changes/s, and what the same steady writes cost PostgreSQL on a table
    // without a trigger and on one with it (capture and delivery): at a fixed rate the delivery
    // takes events as it would at that rate, whatever the machine's load, unlike the writer cell below.
    const seconds = ctx.quick ? 2 : Math.max(5, ctx.seconds);
    const rate = 500;
    const clients = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const k = new pg.Client({ connectionString: dbUrl });
        await k.connect();
        return k;
      }),
    );
    const count = rate * seconds;
    const steady = async (table: 'items' | 'items_plain', base: number, sent: Map<number, number>) => {
      const [engine0, pg0] = [await cpuMs(engine.child.pid), await postgresCpuMs(ctx.postgres.postmasterPid)];
      const t0 = performance.now();
      const inserts: Promise<unknown>[] = [];
      for (let i = 0; i < count; i++) {
        const due = t0 + (i * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
        const n = base + i;
        sent.set(n, performance.now());
        inserts.push((clients[i % clients.length] as pg.Client).query(`INSERT INTO ${table} (n) VALUES ($1)`, [n]));
      }
      await Promise.all(inserts);
      const achieved = count / ((performance.now() - t0) / 1000);
      if (table === 'items') await waitFor(() => arrivals.size >= count, 60_000);
      // Let the last attempts be recorded before reading CPU (the same wait without a trigger).
      await new Promise((r) => setTimeout(r, 300));
      const pgMs = (await postgresCpuMs(ctx.postgres.postmasterPid)) - pg0;
      const engineMs = ((await cpuMs(engine.child.pid)) ?? NaN) - (engine0 ?? NaN);
      return { achieved, pgMsPerInsert: pgMs / count, engineMsPerInsert: engineMs / count };
    };
    ctx.log(`steady writes: ${rate} inserts/s for ${seconds} s without a trigger, then with it`);
    const plain = await steady('items_plain', 0, new Map());
    arrivals.clear();
    const sent = new Map<number, number>();
    const triggered = await steady('items', 1_000_000, sent);
    for (const k of clients) await k.end();
    const lat = [...sent].flatMap(([n, s]) => {
      const a = arrivals.get(n);
      return a === undefined ? [] : [a - s];
    });
    lat.sort((a, b) => a - b);
    const latency = {
      'target/s': rate,
      'achieved/s': Math.round(triggered.achieved),
      delivered: `${lat.length}/${count}`,
      'p50 ms': round(percentile(lat, 50)),
      'p99 ms': round(percentile(lat, 99)),
      'max ms': round(lat.at(-1) ?? NaN),
      'PG CPU ms/insert': round(triggered.pgMsPerInsert, 3),
      'PG CPU ms/insert, no trigger': round(plain.pgMsPerInsert, 3),
      'engine CPU ms/insert': round(triggered.engineMsPerInsert, 3),
    };

    // Writer cost: mutation RPS with and without a trigger.
    const runSeconds = ctx.quick ? 2 : ctx.seconds;
    const writer: Array<Record<string, string | number | null>> = [];
    const pgss = await statStatements(c);
    let statements: Array<Record<string, string | number>> = [];
    for (const table of ['items_plain', 'items'] as const) {
      ctx.log(`writer: insert_${table}_one for ${runSeconds} s`);
      if (pgss) await c.query('SELECT pg_stat_statements_reset()');
      const [pg0, engine0, received0] = [await postgresCpuMs(ctx.postgres.postmasterPid), await cpuMs(engine.child.pid), received];
      const body = JSON.stringify({ query: `mutation { insert_${table}_one(object: {n: 1}) { id } }` });
      const r = await runLoad(
        { url: `${engine.url}/v1/graphql`, body, headers: {} },
        { connections: ctx.connections, seconds: runSeconds },
        engine.child.pid,
        ctx.postgres.postmasterPid,
      );
      // Delivery may lag behind the load: what it does after the load is the run's cost too.
      if (table === 'items') await waitFor(() => received - received0 >= r.requests, 120_000);
      await new Promise((res) => setTimeout(res, 300));
      const untilDelivered = ((await postgresCpuMs(ctx.postgres.postmasterPid)) - pg0) / Math.max(1, r.requests);
      const engineUntilDelivered = (((await cpuMs(engine.child.pid)) ?? NaN) - (engine0 ?? NaN)) / Math.max(1, r.requests);
      // Where the trigger's PostgreSQL time goes, statement by statement (its delivery's included).
      if (pgss && table === 'items') statements = await statementsPerMutation(c, r.requests);
      writer.push({
        table,
        trigger: table === 'items' ? 'yes (delivery on)' : 'no',
        rps: Math.round(r.rps),
        'p50 ms': r.p50,
        'p99 ms': r.p99,
        errors: r.errors + r.non2xx,
        'engine CPU ms/req': r.serverCpuMsPerReq === null ? null : round(r.serverCpuMsPerReq, 3),
        'PG CPU ms/req': round(r.postgresCpuMsPerReq, 3),
        'PG CPU ms/req, until delivered': round(untilDelivered, 3),
        'engine CPU ms/req, until delivered': round(engineUntilDelivered, 3),
      });
    }
    return {
      tables: [
        { title: 'Delivered events per second (one INSERT of N rows, webhook answers at once)', rows: [throughput] },
        { title: 'INSERT sent → webhook received, at a steady rate; PostgreSQL CPU per insert with the trigger and without', rows: [latency] },
        { title: 'Mutation cost of a trigger (insert_<t>_one)', rows: writer },
        ...(statements.length > 0
          ? [{ title: 'Statements of the run with the trigger, per mutation (pg_stat_statements, time not CPU)', rows: statements }]
          : []),
      ],
      notes: [
        'Engine defaults: ENGINE_GRAPHQL_EVENTS_HTTP_POOL_SIZE 100, FETCH_BATCH_SIZE 100; the webhook runs in the bench process.',
        'CPU per event (engine process, all PostgreSQL processes, the webhook side of this process) is what to read on a shared machine: two cores give at most 2,000,000 / (sum of the three) events/s.',
        'Latency includes the INSERT round trip (measured from sending it), so it bounds commit → webhook from above.',
        'v2 polls every second (performance-anchors.md A7), so its commit → webhook p50 is about half a second.',
        'The writer run with the trigger also delivers every event it makes (the same engine process). "PG CPU ms/req" and "engine CPU ms/req" are read over the load alone; "until delivered" until the webhook has every event of the run (plus 300 ms for the last records), since delivery may lag behind the load.',
        'BENCH_PG_STAT_STATEMENTS=1 adds the statements of that run (capture, take, record, the mutation), per mutation.',
      ],
    };
  } finally {
    await engine.stop();
    await hook.close();
    await c.end();
  }
};

export default eventTriggersBench;
