/**
 * Subscriptions over WebSocket (issue 21): 10,000 live-query subscribers of
 * one query with 1,000 distinct variable values on one engine process (1,000
 * sockets of 10 subscriptions, graphql-transport-ws), once with refetch on
 * change (the default) and once polling as v2; then streaming subscribers on
 * a table receiving rows. Figures: setup time, SQL statements per second
 * (the database's committed transactions: each statement outside a
 * transaction is one), change → client latency, engine RSS, PostgreSQL CPU
 * while idle and while one row per second changes.
 */
import pg from 'pg';
import WebSocket from 'ws';
import { startEngine, type BenchEngine } from '../lib/engine.ts';
import { cpuMs, postgresCpuByProcess, postgresCpuMs, rssMiB, watchShortLivedChildren } from '../lib/process.ts';
import type { CapabilityBench, CapabilityContext, CapabilityTable } from './types.ts';

const SUBS_PER_SOCKET = 10;
const LIVE = 'subscription($id: Int!) { counters_by_pk(id: $id) { id value } }';
const STREAM = 'subscription { events_stream(batch_size: 100, cursor: {initial_value: {id: 0}}) { id at } }';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? null;
}

const round = (n: number | null, digits = 1): number | null => (n === null ? null : Number(n.toFixed(digits)));

/** A socket of the bench client: graphql-transport-ws, messages handed to `onNext`. */
async function openSocket(url: string, onNext: (id: string, payload: unknown) => void, onError: (e: string) => void): Promise<WebSocket> {
  const ws = new WebSocket(`${url.replace('http', 'ws')}/v1/graphql`, 'graphql-transport-ws');
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const acked = new Promise<void>((resolve) => {
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString()) as { type: string; id?: string; payload?: unknown };
      if (m.type === 'connection_ack') resolve();
      else if (m.type === 'next') onNext(m.id ?? '', m.payload);
      else if (m.type === 'error') onError(JSON.stringify(m.payload));
      else if (m.type === 'ping') ws.send('{"type":"pong"}');
    });
  });
  ws.on('close', (code) => {
    if (code !== 1000 && code !== 1005) onError(`closed ${code}`);
  });
  ws.send('{"type":"connection_init"}');
  await acked;
  return ws;
}

/** Tracks `table` (metadata lives in the database: a second engine finds it tracked already). */
async function track(engine: BenchEngine, table: string): Promise<void> {
  const r = await fetch(`${engine.url}/v1/metadata`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'pg_track_table', args: { source: 'default', table } }),
  });
  const text = await r.text();
  if (r.status !== 200 && !text.includes('already-tracked')) throw new Error(`track ${table}: ${text}`);
}

/** Database-wide committed transactions and the engine's CPU, for rates over a window. */
async function counters(db: pg.Client, engine: BenchEngine, pgPid: number): Promise<{ xacts: number; pgCpu: number; engineCpu: number; at: number }> {
  const r = await db.query<{ x: string }>('SELECT xact_commit::text AS x FROM pg_stat_database WHERE datname = current_database()');
  return { xacts: Number(r.rows[0]?.x ?? 0), pgCpu: await postgresCpuMs(pgPid), engineCpu: (await cpuMs(engine.child.pid)) ?? 0, at: performance.now() };
}

/** Whether pg_stat_statements is loaded (BENCH_PG_STAT_STATEMENTS=1) and created in this database. */
async function statStatements(db: pg.Client): Promise<boolean> {
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await db.query('SELECT pg_stat_statements_reset()');
    return true;
  } catch {
    return false;
  }
}

/** The statements of this database since the last reset, most called first (`calls× text`), then a reset. */
async function statementsSinceReset(db: pg.Client): Promise<string> {
  const r = await db.query<{ calls: string; query: string; user: string }>(
    `SELECT s.calls::text AS calls, s.query, r.rolname AS user FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
     WHERE s.dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) AND s.query NOT LIKE '%pg_stat_statements%'
     ORDER BY s.calls DESC LIMIT 12`,
  );
  await db.query('SELECT pg_stat_statements_reset()');
  if (r.rows.length === 0) return 'none';
  return r.rows.map((x) => `${x.calls}× ${x.query.replace(/\s+/g, ' ').slice(0, 160)}`).join('; ');
}

/** The PostgreSQL processes that used CPU between two readings of postgresCpuByProcess, most first (ms). */
function cpuByProcess(a: Map<string, number>, b: Map<string, number>): { text: string; exitedMs: number } {
  const parts: [string, number][] = [];
  for (const [k, v] of b) {
    const d = v - (a.get(k) ?? 0);
    if (d >= 0.5) parts.push([k, d]);
  }
  parts.sort((x, y) => y[1] - x[1]);
  const exitedMs = (b.get('exited children') ?? 0) - (a.get('exited children') ?? 0);
  return { text: parts.length === 0 ? 'none' : parts.map(([k, d]) => `${k} ${d.toFixed(1)} ms`).join('; '), exitedMs };
}

interface Window {
  readonly statementsPerSecond: number;
  readonly pgCpuPercent: number;
  readonly engineCpuPercent: number;
}

function windowOf(a: Awaited<ReturnType<typeof counters>>, b: Awaited<ReturnType<typeof counters>>): Window {
  const s = (b.at - a.at) / 1000;
  // Our own two counter reads are transactions too.
  return {
    statementsPerSecond: (b.xacts - a.xacts - 1) / s,
    pgCpuPercent: ((b.pgCpu - a.pgCpu) / (b.at - a.at)) * 100,
    engineCpuPercent: ((b.engineCpu - a.engineCpu) / (b.at - a.at)) * 100,
  };
}

/** One live-query run: setup, idle window, change window. */
async function liveRun(
  ctx: CapabilityContext,
  url: string,
  mode: 'on change' | 'polling',
  subs: number,
  distinct: number,
  idleMs: number,
  changes: number,
): Promise<Record<string, string | number | null>> {
  const engine = await startEngine(url, [], mode === 'polling' ? { ENGINE_GRAPHQL_LIVE_QUERIES_REFETCH_ON_CHANGE: 'false' } : {});
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const sockets: WebSocket[] = [];
  try {
    await track(engine, 'counters');
    // Per row id: the value an update wrote and when it was sent.
    const sent = new Map<number, { value: number; at: number }>();
    const latencies: number[] = [];
    const firsts = new Set<string>();
    const errors: string[] = [];
    const onNext = (key: string, payload: unknown): void => {
      const row = (payload as { data?: { counters_by_pk?: { id: number; value: number } } }).data?.counters_by_pk;
      if (!firsts.has(key)) {
        firsts.add(key);
        return;
      }
      const s = row === undefined ? undefined : sent.get(row.id);
      if (row !== undefined && s !== undefined && s.value === row.value) latencies.push(performance.now() - s.at);
    };
    // The engine's own idle cost with no subscriber (its pools, the metadata store's version check): the floor of this run.
    await sleep(ctx.quick ? 1000 : 11_000);
    const fp0 = await postgresCpuByProcess(Number(ctx.postgres.postmasterPid));
    const f0 = await counters(db, engine, Number(ctx.postgres.postmasterPid));
    await sleep(idleMs);
    const floor = windowOf(f0, await counters(db, engine, Number(ctx.postgres.postmasterPid)));
    const floorCpu = cpuByProcess(fp0, await postgresCpuByProcess(Number(ctx.postgres.postmasterPid)));
    ctx.log(`${mode}: no subscribers: PostgreSQL CPU by process: ${floorCpu.text}`);
    const started = performance.now();
    const socketCount = Math.ceil(subs / SUBS_PER_SOCKET);
    for (let i = 0; i < socketCount; i += 50) {
      const opened = await Promise.all(
        Array.from({ length: Math.min(50, socketCount - i) }, async (_, k) => {
          const n = i + k;
          const ws = await openSocket(
            engine.url,
            (id, p) => onNext(`${n}:${id}`, p),
            (e) => errors.push(e),
          );
          for (let j = 0; j < SUBS_PER_SOCKET; j++) {
            const id = ((n * SUBS_PER_SOCKET + j) % distinct) + 1;
            ws.send(JSON.stringify({ type: 'subscribe', id: String(j), payload: { query: LIVE, variables: { id } } }));
          }
          return ws;
        }),
      );
      sockets.push(...opened);
    }
    const deadline = Date.now() + 300_000;
    while (firsts.size < subs && errors.length === 0 && Date.now() < deadline) await sleep(20);
    const setupMs = performance.now() - started;
    ctx.log(`${mode}: ${firsts.size} subscribers answered in ${(setupMs / 1000).toFixed(1)} s`);
    // Backends flush their statistics (xact_commit) up to 10 s after they go idle: let the setup's be counted before the idle window.
    await sleep(ctx.quick ? 2000 : 11_000);
    const rss = await rssMiB(engine.child.pid);
    const pgss = await statStatements(db);
    const p0 = await postgresCpuByProcess(Number(ctx.postgres.postmasterPid));
    const shortLived = watchShortLivedChildren(Number(ctx.postgres.postmasterPid));
    const i0 = await counters(db, engine, Number(ctx.postgres.postmasterPid));
    await sleep(idleMs);
    const i1 = await counters(db, engine, Number(ctx.postgres.postmasterPid));
    const transient = await shortLived.stop();
    ctx.log(`${mode}: PostgreSQL processes that came and went while idle: ${transient.length === 0 ? 'none' : transient.join('; ')}`);
    const idle = windowOf(i0, i1);
    const idleCpu = cpuByProcess(p0, await postgresCpuByProcess(Number(ctx.postgres.postmasterPid)));
    ctx.log(`${mode}: idle PostgreSQL CPU by process: ${idleCpu.text}`);
    const idleStatements = pgss ? await statementsSinceReset(db) : 'n/a (BENCH_PG_STAT_STATEMENTS=1 lists them)';
    ctx.log(`${mode}: idle statements: ${idleStatements}`);
    // One row changes per second.
    const c0 = await counters(db, engine, Number(ctx.postgres.postmasterPid));
    for (let k = 0; k < changes; k++) {
      const id = ((k * 7919) % distinct) + 1;
      // Values no earlier run wrote (the runs share the table).
      const value = (mode === 'polling' ? 1_000_000 : 0) + k + 1;
      sent.set(id, { value, at: performance.now() });
      await db.query('UPDATE counters SET value = $1 WHERE id = $2', [value, id]);
      await sleep(1000);
    }
    const c1 = await counters(db, engine, Number(ctx.postgres.postmasterPid));
    const busy = windowOf(c0, c1);
    latencies.sort((a, b) => a - b);
    const expected = changes * (subs / distinct);
    return {
      mode,
      subscribers: subs,
      'distinct variables': distinct,
      'setup s': round(setupMs / 1000, 2),
      'engine RSS MiB': round(rss, 0),
      'no subscribers: statements/s': round(floor.statementsPerSecond, 2),
      'no subscribers: PG CPU %': round(floor.pgCpuPercent, 3),
      'no subscribers: engine CPU %': round(floor.engineCpuPercent, 2),
      'idle statements/s': round(idle.statementsPerSecond, 2),
      'idle PG CPU %': round(idle.pgCpuPercent, 3),
      'idle engine CPU %': round(idle.engineCpuPercent, 2),
      '1 change/s statements/s': round(busy.statementsPerSecond, 2),
      '1 change/s PG CPU %': round(busy.pgCpuPercent, 2),
      deliveries: `${latencies.length}/${expected}`,
      'change→client p50 ms': round(percentile(latencies, 50), 0),
      'change→client p99 ms': round(percentile(latencies, 99), 0),
      errors: errors.length,
      'idle statements (pg_stat_statements)': idleStatements,
      'no subscribers: PG CPU % without exited processes': round(floor.pgCpuPercent - (floorCpu.exitedMs / idleMs) * 100, 3),
      'idle PG CPU % without exited processes': round(idle.pgCpuPercent - (idleCpu.exitedMs / idleMs) * 100, 3),
      'no subscribers: PG CPU by process': floorCpu.text,
      'idle: PG CPU by process': idleCpu.text,
      'idle: PostgreSQL processes that came and went': transient.length === 0 ? 'none' : transient.join('; '),
    };
  } finally {
    for (const ws of sockets) ws.terminate();
    await db.end();
    await engine.stop();
  }
}

/** Streaming subscribers while rows arrive at `rate` per second. */
async function streamRun(ctx: CapabilityContext, url: string, subs: number, rate: number, seconds: number): Promise<Record<string, string | number | null>> {
  const engine = await startEngine(url);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  const sockets: WebSocket[] = [];
  try {
    await track(engine, 'events');
    let rows = 0;
    const lags: number[] = [];
    const errors: string[] = [];
    const onNext = (_key: string, payload: unknown): void => {
      const batch = (payload as { data?: { events_stream?: { id: number; at: number }[] } }).data?.events_stream ?? [];
      rows += batch.length;
      const now = Date.now();
      for (const r of batch) lags.push(now - Number(r.at));
    };
    for (let i = 0; i < Math.ceil(subs / SUBS_PER_SOCKET); i++) {
      const ws = await openSocket(
        engine.url,
        (id, p) => onNext(id, p),
        (e) => errors.push(e),
      );
      for (let j = 0; j < SUBS_PER_SOCKET; j++) ws.send(JSON.stringify({ type: 'subscribe', id: String(j), payload: { query: STREAM } }));
      sockets.push(ws);
    }
    await sleep(1000);
    const perTick = Math.max(1, Math.round(rate / 10));
    const started = performance.now();
    let inserted = 0;
    while (performance.now() - started < seconds * 1000) {
      const tick = performance.now();
      await db.query('INSERT INTO events (at) SELECT $1::bigint FROM generate_series(1, $2::int)', [Date.now(), perTick]);
      inserted += perTick;
      await sleep(Math.max(0, 100 - (performance.now() - tick)));
    }
    const deadline = Date.now() + 30_000;
    while (rows < inserted * subs && Date.now() < deadline) await sleep(50);
    const elapsed = (performance.now() - started) / 1000;
    lags.sort((a, b) => a - b);
    ctx.log(`stream: ${rows} rows to ${subs} subscribers`);
    return {
      subscribers: subs,
      'rows inserted/s': round(inserted / seconds, 0),
      'rows delivered/s (all subscribers)': round(rows / elapsed, 0),
      'delivered/expected': `${rows}/${inserted * subs}`,
      'lag p50 ms': round(percentile(lags, 50), 0),
      'lag p99 ms': round(percentile(lags, 99), 0),
      errors: errors.length,
    };
  } finally {
    for (const ws of sockets) ws.terminate();
    await db.end();
    await engine.stop();
  }
}

const bench: CapabilityBench = async (ctx) => {
  const subs = ctx.quick ? 1000 : 10_000;
  const distinct = ctx.quick ? 100 : 1000;
  const idleMs = ctx.quick ? 3000 : 30_000;
  const changes = ctx.quick ? 3 : 15;
  const url = await ctx.postgres.createDatabase(`subs_${Date.now()}`);
  await ctx.postgres.sql(
    url.slice(url.lastIndexOf('/') + 1),
    `
    CREATE TABLE counters (id int PRIMARY KEY, value int NOT NULL DEFAULT 0, label text NOT NULL DEFAULT 'x');
    INSERT INTO counters (id) SELECT generate_series(1, ${distinct});
    CREATE TABLE events (id bigserial PRIMARY KEY, at bigint NOT NULL);
  `,
  );
  // Autovacuum of the fresh table would otherwise land in the first idle window.
  await ctx.postgres.sql(url.slice(url.lastIndexOf('/') + 1), 'VACUUM ANALYZE counters');
  // PostgreSQL's own background work, with no engine running: the floor of every idle figure.
  const b0 = await postgresCpuMs(Number(ctx.postgres.postmasterPid));
  const bt = performance.now();
  await sleep(idleMs);
  const baseline = (((await postgresCpuMs(Number(ctx.postgres.postmasterPid))) - b0) / (performance.now() - bt)) * 100;
  const live: Record<string, string | number | null>[] = [];
  for (const mode of ['on change', 'polling'] as const) live.push(await liveRun(ctx, url, mode, subs, distinct, idleMs, changes));
  const streams = [await streamRun(ctx, url, ctx.quick ? 100 : 1000, ctx.quick ? 200 : 1000, ctx.quick ? 3 : 10)];
  const on = live[0];
  const poll = live[1];
  const over = (r: Record<string, string | number | null> | undefined, live = false): number | null => {
    const v = r?.[live ? 'idle PG CPU % without exited processes' : 'idle PG CPU %'];
    const f = r?.[live ? 'no subscribers: PG CPU % without exited processes' : 'no subscribers: PG CPU %'];
    return typeof v === 'number' && typeof f === 'number' ? v - f : null;
  };
  const onOver = over(on);
  const pollOver = over(poll);
  const ratio = onOver !== null && pollOver !== null && pollOver > 0 ? (onOver / pollOver) * 100 : null;
  const onLive = over(on, true);
  const pollLive = over(poll, true);
  const ratioLive = onLive !== null && pollLive !== null && pollLive > 0 ? (onLive / pollLive) * 100 : null;
  const tables: CapabilityTable[] = [
    {
      title: `Live queries: ${subs} subscribers, ${distinct} distinct variables, ${subs / SUBS_PER_SOCKET} sockets, refetch interval 1 s, batch 100`,
      rows: live,
    },
    { title: 'Streaming subscriptions (events_stream, batch_size 100)', rows: streams },
  ];
  return {
    tables,
    notes: [
      `PostgreSQL CPU with no engine running (its background work): ${baseline.toFixed(2)}% of a core. Above each run's engine without subscribers, idle PostgreSQL CPU with refetch on change is ${onOver?.toFixed(3) ?? 'n/a'}% against ${pollOver?.toFixed(3) ?? 'n/a'}% polling: ${ratio === null ? 'n/a' : `${ratio.toFixed(1)}%`} of polling's (goal: under 5%; CPU read in nanoseconds from /proc/<pid>/task/*/schedstat).`,
      `Without processes that exited during a window (autovacuum workers, closed connections: counted only in 10 ms ticks from the postmaster's cutime, one tick = ${((10 / idleMs) * 100).toFixed(3)}% of a core): ${onLive?.toFixed(3) ?? 'n/a'}% against ${pollLive?.toFixed(3) ?? 'n/a'}%, ${ratioLive === null ? 'n/a' : `${ratioLive.toFixed(1)}%`} of polling's. "PG CPU by process" tells which PostgreSQL processes used it; "idle statements" what ran (BENCH_PG_STAT_STATEMENTS=1).`,
      'Latency: from just before the UPDATE is sent until a subscriber of that row receives the new value (client and engine on this machine).',
      "statements/s: committed transactions of the database per second (each multiplexed statement is one; the bench client's UPDATEs count too; the engine's metadata store checks its version every 10 s even while listening).",
      'PostgreSQL on the same 2-core machine as the engine and the client; engine and PostgreSQL CPU % are of one core.',
    ],
  };
};

export default bench;
