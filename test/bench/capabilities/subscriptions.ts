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
import { readdir, readFile } from 'node:fs/promises';
import { statStatements } from '../lib/postgres.ts';
import { cpuMs, postgresCpuMs, rssMiB } from '../lib/process.ts';
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

/*
 * Note [Idle cost by process]
 * An idle window's PostgreSQL CPU is a few ms in 30 s, and what PostgreSQL does on its own timers
 * is of the same size: an autovacuum worker visiting another database (template1: 20-40 ms each
 * visit, one visit per database per autovacuum_naptime), the background writer and WAL writer
 * waking. Those fall into one window or another at random, and an exited process is counted only
 * in the postmaster's cutime, in 10 ms ticks (one tick is 0.033% of a core over 30 s, while 5% of
 * polling's idle cost is about 0.015%). So each window is split by process (PgWindow): every child
 * of the postmaster is read from schedstat (ns) at the start, every 50 ms, and at the end, under
 * its title; one that exits is counted up to its last reading (a lower bound; the rest of the
 * cutime ticks is shown as unattributed). The groups:
 * - `backends`: the bench database's client backends: the engine's pools, its LISTEN
 *   connection, and the bench's own counter reads (the same in every window);
 * - `autovacuum`: autovacuum workers of the bench database;
 * - `other databases`: backends and autovacuum workers of any other database;
 * - `background`: the postmaster, checkpointer, background writer, WAL writer, launchers, I/O workers.
 * Whether the engine's idle statements can cause background or autovacuum work at all is shown by
 * what the window wrote: WAL bytes (pg_current_wal_lsn), rows inserted, updated or deleted in the
 * bench database (pg_stat_all_tables, catalogs included) and its autovacuum/autoanalyze runs, per
 * table. With none written, background and autovacuum CPU are PostgreSQL's own timers, and the idle
 * cost of subscriptions is the `backends` group's, above the same group with no subscribers. Two
 * runs caught an autovacuum worker of the bench database in the on-change idle window (2 runs, of
 * pg_attribute among others, up to 121 kB of WAL), set off by catalog rows written just before it:
 * the bench's own CREATE EXTENSION pg_stat_statements (672-699 rows: pg_attribute, pg_depend,
 * pg_proc, …) and the change triggers' DDL. So the extension is made before the setup's pause,
 * and the pause is followed by a VACUUM ANALYZE of the database, then a VACUUM of pg_statistic
 * (whose rows the ANALYZE rewrote: a third run saw autovacuum vacuum it in the window). Those runs
 * counted every PostgreSQL process at 40% and 8% of polling's idle cost, and the backends at
 * -1.8% and -1.5%.
 */

type Group = 'backends' | 'autovacuum' | 'other databases' | 'background';

/** The group of a PostgreSQL process by its title (Note [Idle cost by process]). */
function groupOf(title: string, db: string, postmaster: boolean): Group {
  if (postmaster) return 'background';
  const av = /autovacuum worker (\S+)/.exec(title);
  if (av !== null) return av[1] === db ? 'autovacuum' : 'other databases';
  // A client backend: `postgres: <user> <database> <host>(<port>) <state>`.
  const m = /^postgres: \S+ (\S+) \S+/.exec(title);
  if (m !== null && !/^postgres: (autovacuum|logical|background|io worker|walwriter|checkpointer|walsummarizer)/.test(title))
    return m[1] === db ? 'backends' : 'other databases';
  return 'background';
}

/** Per process: title and CPU ms (schedstat) of every child of `postmasterPid` and of the postmaster itself; exited children's ticks. */
async function readProcesses(postmasterPid: number): Promise<{ procs: Map<number, { title: string; ms: number }>; exitedTicksMs: number }> {
  const procs = new Map<number, { title: string; ms: number }>();
  let exitedTicksMs = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (pid !== postmasterPid && Number(fields[1]) !== postmasterPid) continue;
      if (pid === postmasterPid) exitedTicksMs = (Number(fields[13]) + Number(fields[14])) * 10;
      const title = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).replaceAll('\0', ' ').trim();
      let ns = 0;
      for (const tid of await readdir(`/proc/${entry}/task`)) ns += Number((await readFile(`/proc/${entry}/task/${tid}/schedstat`, 'utf8')).split(' ')[0]);
      procs.set(pid, { title, ms: ns / 1e6 });
    } catch {
      // gone meanwhile
    }
  }
  return { procs, exitedTicksMs };
}

/** What one window of a PostgreSQL server cost, by group (Note [Idle cost by process]). */
interface WindowCost {
  /** ms of CPU per group. */
  readonly groups: Record<Group, number>;
  /** ms of exited processes' cutime not attributed to a process seen (ticks; may be negative by rounding). */
  readonly unattributedMs: number;
  /** The processes that used CPU, most first. */
  readonly text: string;
  /** Titles of the processes that exited in the window. */
  readonly exited: string[];
}

/** Watches a PostgreSQL server's processes from `start()` to `stop()` (Note [Idle cost by process]). */
class PgWindow {
  readonly #pid: number;
  readonly #db: string;
  #first = new Map<number, { title: string; ms: number }>();
  readonly #last = new Map<number, { title: string; ms: number }>();
  #ticks0 = 0;
  #timer: NodeJS.Timeout | null = null;
  #busy = false;

  constructor(postmasterPid: number, db: string) {
    this.#pid = postmasterPid;
    this.#db = db;
  }

  async start(): Promise<void> {
    const r = await readProcesses(this.#pid);
    this.#first = r.procs;
    this.#ticks0 = r.exitedTicksMs;
    for (const [k, v] of r.procs) this.#last.set(k, v);
    this.#timer = setInterval(() => {
      if (this.#busy) return;
      this.#busy = true;
      void readProcesses(this.#pid)
        .then((x) => {
          // A zombie's cmdline is empty: its title stays the one read before.
          for (const [k, v] of x.procs) this.#last.set(k, v.title === '' ? { title: this.#last.get(k)?.title ?? '', ms: v.ms } : v);
        })
        .finally(() => (this.#busy = false));
    }, 50);
  }

  async stop(): Promise<WindowCost> {
    if (this.#timer !== null) clearInterval(this.#timer);
    const end = await readProcesses(this.#pid);
    for (const [k, v] of end.procs) this.#last.set(k, v.title === '' ? { title: this.#last.get(k)?.title ?? '', ms: v.ms } : v);
    const groups: Record<Group, number> = { backends: 0, autovacuum: 0, 'other databases': 0, background: 0 };
    const used: [string, number][] = [];
    const exited: string[] = [];
    let exitedSeenMs = 0;
    for (const [pid, last] of this.#last) {
      const ms = last.ms - (this.#first.get(pid)?.ms ?? 0);
      const gone = !end.procs.has(pid);
      if (gone) {
        exited.push(last.title);
        exitedSeenMs += last.ms;
      }
      groups[groupOf(last.title, this.#db, pid === this.#pid)] += ms;
      if (ms >= 0.5)
        used.push([
          `${pid === this.#pid ? 'postgres: postmaster' : last.title.replace(/\(\d+\)/, '').replace(/ (idle|idle in transaction|active|SELECT|UPDATE|INSERT|LISTEN|waiting)( .*)?$/, '')}${gone ? ' (exited)' : ''}`,
          ms,
        ]);
    }
    used.sort((x, y) => y[1] - x[1]);
    // Of the cutime added in the window (exited processes' whole lives), what no reading explains: an exited process's last 50 ms, one never seen.
    const unattributedMs = end.exitedTicksMs - this.#ticks0 - exitedSeenMs;
    return { groups, unattributedMs, text: used.length === 0 ? 'none' : used.map(([k, d]) => `${k} ${d.toFixed(1)} ms`).join('; '), exited };
  }
}

/** Writes in a window: WAL bytes of the server; rows written and autovacuum/autoanalyze runs per table of this database. */
interface Writes {
  readonly wal: bigint;
  readonly tables: Map<string, { rows: number; vacuums: number }>;
}

async function writes(db: pg.Client): Promise<Writes> {
  const r = await db.query<{ wal: string; t: string; rows: string; vacuums: string }>(
    `SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::text AS wal, schemaname || '.' || relname AS t,
            (n_tup_ins + n_tup_upd + n_tup_del)::text AS rows, (autovacuum_count + autoanalyze_count)::text AS vacuums
     FROM pg_stat_all_tables`,
  );
  const tables = new Map(r.rows.map((x) => [x.t, { rows: Number(x.rows), vacuums: Number(x.vacuums) }]));
  return { wal: BigInt(String(r.rows[0]?.wal ?? '0').split('.')[0] ?? '0'), tables };
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

/** A window's CPU per process group as % of a core (Note [Idle cost by process]). */
function groupColumns(prefix: string, w: WindowCost, ms: number): Record<string, number | null> {
  const pct = (v: number): number | null => round((v / ms) * 100, 4);
  return {
    [`${prefix}: PG CPU % backends`]: pct(w.groups.backends),
    [`${prefix}: PG CPU % autovacuum`]: pct(w.groups.autovacuum),
    [`${prefix}: PG CPU % other databases`]: pct(w.groups['other databases']),
    [`${prefix}: PG CPU % background`]: pct(w.groups.background),
    [`${prefix}: PG CPU % exited, unattributed`]: pct(w.unattributedMs),
  };
}

function writesText(a: Writes, b: Writes): string {
  let rows = 0;
  let vacuums = 0;
  const where: string[] = [];
  for (const [t, v] of b.tables) {
    const was = a.tables.get(t) ?? { rows: 0, vacuums: 0 };
    const dr = v.rows - was.rows;
    const dv = v.vacuums - was.vacuums;
    rows += dr;
    vacuums += dv;
    if (dr !== 0 || dv !== 0) where.push(`${t} ${dr} rows${dv !== 0 ? `, ${dv} autovacuum runs` : ''}`);
  }
  return `${(b.wal - a.wal).toString()} B, ${rows} rows, ${vacuums} runs${where.length > 0 ? ` (${where.join('; ')})` : ''}`;
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
    const sent = new Map<number, { value: number; at: number; k: number }>();
    const latencies: number[] = [];
    // Per change, in order: its first subscriber's latency (a delay carried from one change to the next shows here).
    const firstLatency: number[] = [];
    const firsts = new Set<string>();
    const errors: string[] = [];
    const onNext = (key: string, payload: unknown): void => {
      const row = (payload as { data?: { counters_by_pk?: { id: number; value: number } } }).data?.counters_by_pk;
      if (!firsts.has(key)) {
        firsts.add(key);
        return;
      }
      const s = row === undefined ? undefined : sent.get(row.id);
      if (row === undefined || s === undefined || s.value !== row.value) return;
      const ms = performance.now() - s.at;
      latencies.push(ms);
      firstLatency[s.k] ??= ms;
    };
    // The engine's own idle cost with no subscriber (its pools, the metadata store's version check): the floor of this run.
    await sleep(ctx.quick ? 1000 : 11_000);
    const dbName = url.slice(url.lastIndexOf('/') + 1);
    const fw = new PgWindow(Number(ctx.postgres.postmasterPid), dbName);
    await fw.start();
    const fw0 = await writes(db);
    const f0 = await counters(db, engine, Number(ctx.postgres.postmasterPid));
    await sleep(idleMs);
    const floor = windowOf(f0, await counters(db, engine, Number(ctx.postgres.postmasterPid)));
    const floorWrites = await writes(db);
    const floorCpu = await fw.stop();
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
    // The extension's catalog rows are written here, not in the idle window (its reset there is all it does).
    const pgss = await statStatements(db);
    // Backends flush their statistics (xact_commit) up to 10 s after they go idle: let the setup's be counted before the idle window.
    await sleep(ctx.quick ? 2000 : 11_000);
    // What the setup wrote (the change triggers' DDL: catalog rows) would bring autovacuum into the idle window; done here
    // instead, and its statistics flushed now (Note [Idle cost by process]).
    await db.query('VACUUM ANALYZE');
    // ANALYZE rewrote pg_statistic's rows: its dead ones would bring autovacuum in as well.
    await db.query('VACUUM pg_catalog.pg_statistic');
    await db.query('SELECT pg_stat_force_next_flush()');
    if (pgss) await db.query('SELECT pg_stat_statements_reset()');
    const rss = await rssMiB(engine.child.pid);
    const iw = new PgWindow(Number(ctx.postgres.postmasterPid), dbName);
    await iw.start();
    const iw0 = await writes(db);
    const i0 = await counters(db, engine, Number(ctx.postgres.postmasterPid));
    await sleep(idleMs);
    const i1 = await counters(db, engine, Number(ctx.postgres.postmasterPid));
    const idleWrites = await writes(db);
    const idleCpu = await iw.stop();
    const idle = windowOf(i0, i1);
    ctx.log(`${mode}: idle PostgreSQL CPU by process: ${idleCpu.text}`);
    const idleStatements = pgss ? await statementsSinceReset(db) : 'n/a (BENCH_PG_STAT_STATEMENTS=1 lists them)';
    ctx.log(`${mode}: idle statements: ${idleStatements}`);
    // One row changes per second.
    const c0 = await counters(db, engine, Number(ctx.postgres.postmasterPid));
    for (let k = 0; k < changes; k++) {
      const id = ((k * 7919) % distinct) + 1;
      // Values no earlier run wrote (the runs share the table).
      const value = (mode === 'polling' ? 1_000_000 : 0) + k + 1;
      sent.set(id, { value, at: performance.now(), k });
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
      'change→first client ms, per change in order': Array.from({ length: changes }, (_, k) =>
        firstLatency[k] === undefined ? '-' : firstLatency[k].toFixed(0),
      ).join(' '),
      errors: errors.length,
      'idle statements (pg_stat_statements)': idleStatements,
      ...groupColumns('no subscribers', floorCpu, idleMs),
      ...groupColumns('idle', idleCpu, idleMs),
      'no subscribers: writes (WAL bytes, rows, autovacuum runs)': writesText(fw0, floorWrites),
      'idle: writes (WAL bytes, rows, autovacuum runs)': writesText(iw0, idleWrites),
      'no subscribers: PG CPU by process': floorCpu.text,
      'idle: PG CPU by process': idleCpu.text,
      'idle: PostgreSQL processes that exited': idleCpu.exited.length === 0 ? 'none' : idleCpu.exited.join('; '),
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
  const over = (r: Record<string, string | number | null> | undefined, column: string): number | null => {
    const v = r?.[`idle ${column}`] ?? r?.[`idle: ${column}`];
    const f = r?.[`no subscribers: ${column}`];
    return typeof v === 'number' && typeof f === 'number' ? v - f : null;
  };
  const share = (a: number | null, b: number | null): string => (a !== null && b !== null && b > 0 ? `${((a / b) * 100).toFixed(1)}%` : 'n/a');
  const onOver = over(on, 'PG CPU %');
  const pollOver = over(poll, 'PG CPU %');
  const onBackends = over(on, 'PG CPU % backends');
  const pollBackends = over(poll, 'PG CPU % backends');
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
      `PostgreSQL CPU with no engine running (its background work): ${baseline.toFixed(2)}% of a core. Above each run's engine without subscribers, idle PostgreSQL CPU of the database's backends (Note [Idle cost by process] in subscriptions.ts) with refetch on change is ${onBackends?.toFixed(4) ?? 'n/a'}% against ${pollBackends?.toFixed(4) ?? 'n/a'}% polling: ${share(onBackends, pollBackends)} of polling's (goal: under 5%; CPU read in nanoseconds from /proc/<pid>/task/*/schedstat).`,
      `Every PostgreSQL process (background work, other databases' autovacuum and exited processes' 10 ms ticks included: one tick = ${((10 / idleMs) * 100).toFixed(3)}% of a core): ${onOver?.toFixed(3) ?? 'n/a'}% against ${pollOver?.toFixed(3) ?? 'n/a'}%, ${share(onOver, pollOver)} of polling's. The groups and "writes" columns tell whether anything but the backends could be the engine's doing; "PG CPU by process" which processes used CPU; "idle statements" what ran (BENCH_PG_STAT_STATEMENTS=1).`,
      'Latency: from just before the UPDATE is sent until a subscriber of that row receives the new value (client and engine on this machine).',
      "statements/s: committed transactions of the database per second (each multiplexed statement is one; the bench client's UPDATEs count too; the engine's metadata store checks its version every 10 s even while listening).",
      'PostgreSQL on the same 2-core machine as the engine and the client; engine and PostgreSQL CPU % are of one core.',
    ],
  };
};

export default bench;
