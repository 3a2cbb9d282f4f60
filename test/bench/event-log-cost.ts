/**
 * `node test/bench/event-log-cost.ts [--engine-root <a>[,<b>]] [--statements N] [--events N] [--only TEXT]`:
 * what event triggers cost PostgreSQL, without HTTP or an engine process, for
 * one checkout or two side by side (`git worktree add /tmp/before <commit>`
 * with a node_modules symlink), on the bench's own PostgreSQL:
 *
 * - capture: CPU of the server process per writing transaction (BEGIN, an
 *   engine-style `WITH i AS (INSERT … RETURNING) SELECT …, set_config(
 *   'engine.session', …)`, COMMIT; the same with UPDATE and DELETE of a
 *   range of ids), 1 and 100 rows per statement, on a table without a
 *   trigger and on one with the checkout's capture of all three operations
 *   (Note [Capture triggers]);
 * - life: CPU of one event from a single-row insert to its recorded
 *   delivery (capture, take, record: the PostgreSQL side of a mutation with
 *   a trigger at a low rate);
 * - delivery: CPU per event of the checkout's `take` and `record` (Note
 *   [Event log], Note [Take limits]; with the expansion of batches, Note
 *   [Capture batches], where the checkout has it) over a log of pending
 *   events, taken 1, 4 and 16 at a time.
 * - stream: the bench's writer cell without HTTP: single-row engine-style
 *   inserts committed one by one on a writer connection, delivered (take,
 *   record) every k commits, k = 20 and 80; CPU of every backend of the
 *   checkout's database (writer, delivery, LISTEN) per mutation, against the
 *   same inserts into the table without a trigger; the parts (capture on the
 *   writer, take with its expansion, record, the listener) are printed under
 *   the table (Note [Where a mutation's event costs go] in event-delivery.ts).
 * - logical (with BENCH_PG_WAL_LEVEL=logical and pg_recvlogical on PATH): the
 *   same stream on the table without a trigger, its changes streamed from a
 *   pgoutput slot by a walsender (and one invocation log row written per
 *   change, k at a time): what capture by logical decoding would cost,
 *   measured for that Note; the engine has no such capture.
 *
 * The engine-style statements are planned again on every execution (their
 * `generate_series($1)` has a row estimate, so PostgreSQL keeps custom plans:
 * EVENT_LOG_COST_PLANS=1 counts 900 custom plans of 900), about 30 µs of each
 * cell's base: 0.064 against 0.033 ms a single-row insert without a trigger
 * with `plan_cache_mode=force_generic_plan` (2026-11-28). Ratios to the
 * no-trigger cells therefore understate the trigger's share; the figures of
 * earlier Notes are on this same base.
 *
 * CPU is read from /proc (schedstat, in nanoseconds) for the one server
 * process the client talks to, so other work on the machine changes it little. Rounds alternate between the
 * checkouts; the median of the rounds is shown. `--only` runs the cells
 * whose label contains TEXT. EVENT_LOG_COST_PG_OPTIONS
 * passes connection options (`-c plan_cache_mode=force_generic_plan`);
 * EVENT_LOG_COST_PLANS=1 prints each prepared statement's generic and custom
 * plan counts at the end.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { startBenchPostgres } from './lib/postgres.ts';
import { ROOT } from './lib/process.ts';

const args = process.argv.slice(2);
const option = (name: string, dflt: string): string => {
  const i = args.indexOf(name);
  return i >= 0 ? (args[i + 1] ?? dflt) : dflt;
};
const roots = option('--engine-root', ROOT)
  .split(',')
  .map((r) => path.resolve(r));
const statements = Number(option('--statements', '1500'));
const events = Number(option('--events', '2000'));
const only = option('--only', '');
const ROUNDS = 3;

interface CaptureModule {
  installCapture(client: pg.ClientBase, spec: unknown): Promise<void>;
}
interface LogModule {
  postgresEventLog(
    pool: pg.Pool,
    url: string,
  ): {
    take(triggers: string[], limit: number, leaseMs: number, owner: string): Promise<Array<{ id: string }>>;
    record(attempts: unknown[], owner: string): Promise<void>;
    listen(wake: () => void, onError: (e: unknown) => void): Promise<() => Promise<void>>;
  };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

/**
 * CPU milliseconds used so far by server process `pid`: schedstat's nanoseconds on a CPU where the
 * kernel has it (stat's 10 ms ticks made a 150-statement cell of 0.4 ms read in steps of 0.067 ms).
 */
function cpuMs(pid: number): number {
  try {
    const ns = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
    if (Number.isFinite(ns)) return ns / 1e6;
  } catch {
    // No schedstat: the ticks below.
  }
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const SESSION = JSON.stringify({ 'x-engine-role': 'admin', 'x-engine-user-id': '1' });
const REQUEST = JSON.stringify({
  payload: { event: { op: 'INSERT', data: { old: null, new: { id: 1, n: 1, name: 'x' } } }, trigger: { name: 'items_ins' } },
  headers: [],
  version: '2',
});
const RESPONSE = JSON.stringify({ type: 'webhook_response', data: { head: [], body: '{}', status: 200 }, version: '2' });

/** One checkout's database: a plain table and one with its capture. */
async function prepare(bench: Awaited<ReturnType<typeof startBenchPostgres>>, root: string, i: number) {
  const capture = (await import(path.join(root, 'engine/backends/postgres/event-trigger-ddl.ts'))) as CaptureModule;
  const log = (await import(path.join(root, 'engine/backends/postgres/event-log.ts'))) as LogModule;
  const url = await bench.createDatabase(`event_log_cost_${i}`);
  const pool = new pg.Pool({
    connectionString: url,
    max: 1,
    // One backend for the whole run: its CPU is what is read (the default closes it after 10 s idle).
    idleTimeoutMillis: 0,
    ...(process.env['EVENT_LOG_COST_PG_OPTIONS'] ? { options: process.env['EVENT_LOG_COST_PG_OPTIONS'] } : {}),
  });
  // The server stops at the end; an idle client it ends must not crash the run.
  pool.on('error', () => {});
  const c = await pool.connect();
  await c.query(`CREATE TABLE items (id serial PRIMARY KEY, n int NOT NULL, name text NOT NULL DEFAULT 'x');
    CREATE TABLE items_plain (id serial PRIMARY KEY, n int NOT NULL, name text NOT NULL DEFAULT 'x')`);
  await c.query('BEGIN');
  const all = { payload: '*', columns: '*' };
  await capture.installCapture(c, { name: 'items_ins', table: { schema: 'public', name: 'items' }, rowKey: ['id'], insert: all, update: all, delete: all });
  await c.query('COMMIT');
  const pid = (await c.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]?.p ?? 0;
  c.release();
  // The stream cells' writer: a connection of its own, so that capture and delivery are read apart.
  const writer = new pg.Client({ connectionString: url });
  writer.on('error', () => {});
  await writer.connect();
  const writerPid = (await writer.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]?.p ?? 0;
  const eventLog = log.postgresEventLog(pool, url);
  // Listening, as delivery does: a log that expands batches does so after a notification only.
  const notified: { next: (() => void) | null } = { next: null };
  const stopListening = await eventLog.listen(
    () => {
      notified.next?.();
      notified.next = null;
    },
    () => {},
  );
  /** Resolves at the next notification (or after a second). */
  const notification = (): Promise<void> =>
    new Promise((r) => {
      const timer = setTimeout(r, 1000);
      notified.next = () => {
        clearTimeout(timer);
        r();
      };
    });
  const listenerPid =
    (await pool.query<{ p: number }>(`SELECT pid AS p FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'`)).rows[0]?.p ?? 0;
  // With BENCH_PG_WAL_LEVEL=logical: the plain table's changes decoded from the WAL instead (the logical cells).
  let slot: string | null = null;
  if ((await pool.query<{ wal_level: string }>('SHOW wal_level')).rows[0]?.wal_level === 'logical') {
    slot = `event_log_cost_${i}`;
    await pool.query('CREATE PUBLICATION event_log_cost FOR TABLE items_plain');
    await pool.query(`SELECT pg_create_logical_replication_slot($1, 'pgoutput')`, [slot]);
  }
  return { root, url, pool, pid, eventLog, stopListening, notification, writer, writerPid, listenerPid, streamed: false, slot };
}
type Target = Awaited<ReturnType<typeof prepare>>;

type Op = 'insert' | 'update' | 'delete';

/** The engine-style statement of `op` on `table`: $1 rows, from id $3 for updates and deletes. */
function writeSql(table: string, op: Op): string {
  const change =
    op === 'insert'
      ? `INSERT INTO ${table} (n) SELECT g FROM generate_series(1, $1::int) AS g RETURNING id`
      : op === 'update'
        ? `UPDATE ${table} SET n = n + 1 WHERE id >= $3::int AND id < $3::int + $1::int RETURNING id`
        : `DELETE FROM ${table} WHERE id >= $3::int AND id < $3::int + $1::int RETURNING id`;
  return `WITH i AS (${change})
    SELECT json_build_object('affected_rows', (SELECT count(*) FROM i))::text, set_config('engine.session', $2, true)`;
}

/** ms of server CPU per writing transaction of `rows` rows of `op` on `table`. */
async function captureCost(t: Target, table: string, rows: number, op: Op = 'insert'): Promise<number> {
  const n = rows === 1 ? statements : Math.max(10, Math.floor(statements / 10));
  const c = await t.pool.connect();
  try {
    // Updates and deletes change rows made for them here (not measured), each range once.
    let first = 0;
    if (op !== 'insert') {
      const made = await c.query<{ lo: number }>(
        `WITH i AS (INSERT INTO ${table} (n) SELECT g FROM generate_series(1, $1::int) AS g RETURNING id) SELECT min(id) AS lo FROM i`,
        [n * rows],
      );
      first = made.rows[0]?.lo ?? 0;
    }
    const text = writeSql(table, op);
    const values = (i: number): unknown[] => (op === 'insert' ? [rows, SESSION] : [rows, SESSION, first + i * rows]);
    const t0 = cpuMs(t.pid);
    for (let i = 0; i < n; i++) {
      await c.query('BEGIN');
      await c.query({ name: `${op}_${table}_${rows}`, text, values: values(i) });
      await c.query('COMMIT');
    }
    return (cpuMs(t.pid) - t0) / n;
  } finally {
    c.release();
  }
}

/**
 * ms of server CPU for one event's whole life: a single-row engine-style insert with the capture,
 * then, at its notification, its take and record (each take finds this event alone, as at a low
 * write rate).
 */
async function lifeCost(t: Target): Promise<number> {
  const batched = await t.pool.query<{ ok: boolean }>(`SELECT to_regclass('engine_events.event_batch') IS NOT NULL AS ok`);
  await t.pool.query(`TRUNCATE engine_events.event_log${batched.rows[0]?.ok === true ? ', engine_events.event_batch' : ''}`);
  const n = Math.max(10, Math.floor(statements / 3));
  const text = writeSql('items', 'insert');
  let missed = 0;
  const t0 = cpuMs(t.pid);
  for (let i = 0; i < n; i++) {
    // As delivery does: take once the commit's notification arrives.
    const woken = t.notification();
    const c = await t.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query({ name: 'insert_items_1', text, values: [1, SESSION] });
      await c.query('COMMIT');
    } finally {
      c.release();
    }
    await woken;
    const taken = await t.eventLog.take(['items_ins'], 1, 60_000, 'bench');
    if (taken.length === 0) missed++;
    await t.eventLog.record(deliveredAttempts(taken), 'bench');
  }
  if (missed > 0) console.log(`  (${t.root}: ${missed} events not taken at once)`);
  return (cpuMs(t.pid) - t0) / n;
}

/** µs of server CPU per event delivered `batch` at a time (take, then record as delivered). */
async function deliveryCost(t: Target, batch: number): Promise<number> {
  // Only this cell's events: what the capture cells left is removed first.
  const batched = await t.pool.query<{ ok: boolean }>(`SELECT to_regclass('engine_events.event_batch') IS NOT NULL AS ok`);
  await t.pool.query(`TRUNCATE engine_events.event_log${batched.rows[0]?.ok === true ? ', engine_events.event_batch' : ''}`);
  await t.pool.query(`INSERT INTO items (n) SELECT g FROM generate_series(1, $1::int) AS g`, [events]);
  // Time for the notification to reach the listener (not measured: CPU is).
  await new Promise((r) => setTimeout(r, 100));
  const t0 = cpuMs(t.pid);
  let done = 0;
  while (done < events) {
    const taken = await t.eventLog.take(['items_ins'], batch, 60_000, 'bench');
    if (taken.length === 0) break;
    await t.eventLog.record(deliveredAttempts(taken), 'bench');
    done += taken.length;
  }
  return ((cpuMs(t.pid) - t0) * 1000) / Math.max(1, done);
}

/** Takes up to `limit` due events and records them delivered; how many. */
async function deliverDue(t: Target, limit: number): Promise<number> {
  const taken = await t.eventLog.take(['items_ins'], limit, 60_000, 'bench');
  await t.eventLog.record(deliveredAttempts(taken), 'bench');
  return taken.length;
}

/** Each taken event's attempt, recorded as a first delivery that succeeded. */
function deliveredAttempts(taken: ReadonlyArray<{ id: string }>): Parameters<Target['eventLog']['record']>[0] {
  return taken.map((e) => ({
    eventId: e.id,
    triggerName: 'items_ins',
    outcome: 'delivered',
    retryInMs: 0,
    status: 200,
    requestJson: REQUEST,
    responseJson: RESPONSE,
    durationMs: 1,
  }));
}

/** The parts of each stream run, by checkout and cell, printed under the table. */
const streamParts = new Map<string, Array<Record<string, number>>>();

/**
 * ms of server CPU per mutation of a stream of single-row engine-style inserts on `table`, committed
 * one by one on the writer connection; with the trigger, every `k` commits the delivery connection
 * takes (with the expansion of the batches) and records what is due, as delivery does under a
 * steady write load. Every backend of the checkout's database is counted: writer, delivery, listener.
 */
async function streamCost(t: Target, table: 'items' | 'items_plain', k: number): Promise<number> {
  const batched = await t.pool.query<{ ok: boolean }>(`SELECT to_regclass('engine_events.event_batch') IS NOT NULL AS ok`);
  await t.pool.query(`TRUNCATE engine_events.event_log${batched.rows[0]?.ok === true ? ', engine_events.event_batch' : ''}`);
  if (table === 'items' && !t.streamed) {
    // Once per checkout, as in the bench's event cell: a burst first, so the log's statistics (and the
    // plans made on them) are those of a used log rather than an empty one (Note [Statistics after a burst]).
    t.streamed = true;
    await t.pool.query(`INSERT INTO items (n) SELECT g FROM generate_series(1, 2000) AS g`);
    await new Promise((r) => setTimeout(r, 100));
    while ((await deliverDue(t, 100)) > 0);
  }
  const n = Math.max(100, statements * 2);
  const text = writeSql(table, 'insert');
  const parts = { capture: 0, take: 0, record: 0, listener: 0 };
  const [w0, d0, l0] = [cpuMs(t.writerPid), cpuMs(t.pid), cpuMs(t.listenerPid)];
  let delivered = 0;
  const deliver = async (): Promise<number> => {
    const a = cpuMs(t.pid);
    const taken = await t.eventLog.take(['items_ins'], 2 * k, 60_000, 'bench');
    const b = cpuMs(t.pid);
    await t.eventLog.record(deliveredAttempts(taken), 'bench');
    parts.take += b - a;
    parts.record += cpuMs(t.pid) - b;
    return taken.length;
  };
  for (let i = 0; i < n; i++) {
    await t.writer.query('BEGIN');
    await t.writer.query({ name: `stream_${table}`, text, values: [1, SESSION] });
    await t.writer.query('COMMIT');
    // The commit's notification reaches the listener (as it would while a worker waits).
    if (table === 'items' && (i + 1) % k === 0) {
      await new Promise((r) => setImmediate(r));
      delivered += await deliver();
    }
  }
  if (table === 'items') {
    // What the last notifications brought: taken as a worker would, until nothing is due.
    for (let tries = 0; delivered < n && tries < 50; tries++) {
      const got = await deliver();
      delivered += got;
      if (got === 0) await new Promise((r) => setTimeout(r, 20));
    }
    if (delivered !== n) console.log(`  (${t.root}: ${delivered} of ${n} events delivered)`);
  }
  parts.capture = cpuMs(t.writerPid) - w0;
  parts.listener = cpuMs(t.listenerPid) - l0;
  const total = parts.capture + cpuMs(t.pid) - d0 + parts.listener;
  if (table === 'items') {
    const key = `${t.root} k=${k}`;
    const list = streamParts.get(key) ?? [];
    list.push(Object.fromEntries(Object.entries({ ...parts, total }).map(([x, v]) => [x, Math.round((v * 1000) / n)])));
    streamParts.set(key, list);
  }
  return total / n;
}

/**
 * The stream cell with no trigger, its changes streamed from the WAL by logical decoding instead:
 * `pg_recvlogical` (PostgreSQL's client, on PATH) receives the slot's pgoutput stream, as a
 * replication client would, through a walsender whose CPU is counted; with `record`, every `k`
 * commits the delivery connection writes one invocation log row per change in one statement.
 * What a capture without a trigger would cost PostgreSQL (Note [Where a mutation's event costs go]);
 * no engine code does this. Needs BENCH_PG_WAL_LEVEL=logical.
 */
async function logicalStreamCost(t: Target, k: number, record: boolean): Promise<number> {
  const slot = t.slot;
  if (slot === null) return NaN;
  // Start from now: what earlier cells wrote is not this cell's.
  await t.pool.query('SELECT pg_replication_slot_advance($1, pg_current_wal_lsn())', [slot]);
  const receiver = spawn(
    'pg_recvlogical',
    [
      '-d',
      t.url,
      '--slot',
      slot,
      '--start',
      '--no-loop',
      '-s',
      '1',
      '-F',
      '0',
      '-f',
      '/dev/null',
      '-o',
      'proto_version=1',
      '-o',
      'publication_names=event_log_cost',
    ],
    { stdio: 'ignore' },
  );
  try {
    let sender = 0;
    for (let tries = 0; sender === 0 && tries < 200; tries++) {
      const r = await t.pool.query<{ pid: number }>(`SELECT pid FROM pg_stat_replication WHERE application_name = 'pg_recvlogical'`);
      sender = r.rows[0]?.pid ?? 0;
      if (sender === 0) await new Promise((res) => setTimeout(res, 25));
    }
    if (sender === 0) throw new Error('pg_recvlogical did not connect');
    const n = Math.max(100, statements * 2);
    const text = writeSql('items_plain', 'insert');
    const parts = { capture: 0, decode: 0, record: 0 };
    const [w0, s0, d0] = [cpuMs(t.writerPid), cpuMs(sender), cpuMs(t.pid)];
    const recordBatch = async (changes: number): Promise<void> => {
      await t.pool.query(
        `INSERT INTO engine_events.event_invocation_logs (event_id, trigger_name, status, request, response, duration_ms)
           SELECT gen_random_uuid(), 'items_ins', 200, $1::jsonb, $2::jsonb, 1 FROM generate_series(1, $3::int)`,
        [REQUEST, RESPONSE, changes],
      );
    };
    for (let i = 0; i < n; i++) {
      await t.writer.query('BEGIN');
      await t.writer.query({ name: 'stream_items_plain', text, values: [1, SESSION] });
      await t.writer.query('COMMIT');
      if (record && (i + 1) % k === 0) await recordBatch(k);
    }
    // Until the walsender has sent everything the stream wrote (bounded).
    const end = (await t.pool.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]?.lsn ?? '0/0';
    for (let tries = 0; tries < 400; tries++) {
      const r = await t.pool.query<{ done: boolean }>(`SELECT sent_lsn >= $1::pg_lsn AS done FROM pg_stat_replication WHERE pid = $2`, [end, sender]);
      if (r.rows[0]?.done === true) break;
      await new Promise((res) => setTimeout(res, 25));
    }
    parts.capture = cpuMs(t.writerPid) - w0;
    parts.decode = cpuMs(sender) - s0;
    parts.record = cpuMs(t.pid) - d0;
    const total = parts.capture + parts.decode + parts.record;
    const key = `${t.root} logical${record ? ` k=${k} +record` : ''}`;
    const list = streamParts.get(key) ?? [];
    list.push(Object.fromEntries(Object.entries({ ...parts, total }).map(([x, v]) => [x, Math.round((v * 1000) / n)])));
    streamParts.set(key, list);
    return total / n;
  } finally {
    receiver.kill('SIGINT');
    await new Promise((res) => receiver.once('exit', res));
  }
}

const bench = await startBenchPostgres();
try {
  const targets: Target[] = [];
  for (const [i, r] of roots.entries()) targets.push(await prepare(bench, r, i));
  const cells: Array<{ label: string; run: (t: Target) => Promise<number>; unit: string }> = [
    { label: 'capture: 1 row, no trigger', run: (t) => captureCost(t, 'items_plain', 1), unit: 'ms/statement' },
    { label: 'capture: 1 row, event trigger', run: (t) => captureCost(t, 'items', 1), unit: 'ms/statement' },
    { label: 'capture: 100 rows, no trigger', run: (t) => captureCost(t, 'items_plain', 100), unit: 'ms/statement' },
    { label: 'capture: 100 rows, event trigger', run: (t) => captureCost(t, 'items', 100), unit: 'ms/statement' },
    { label: 'update: 1 row, no trigger', run: (t) => captureCost(t, 'items_plain', 1, 'update'), unit: 'ms/statement' },
    { label: 'update: 1 row, event trigger', run: (t) => captureCost(t, 'items', 1, 'update'), unit: 'ms/statement' },
    { label: 'update: 100 rows, no trigger', run: (t) => captureCost(t, 'items_plain', 100, 'update'), unit: 'ms/statement' },
    { label: 'update: 100 rows, event trigger', run: (t) => captureCost(t, 'items', 100, 'update'), unit: 'ms/statement' },
    { label: 'delete: 1 row, no trigger', run: (t) => captureCost(t, 'items_plain', 1, 'delete'), unit: 'ms/statement' },
    { label: 'delete: 1 row, event trigger', run: (t) => captureCost(t, 'items', 1, 'delete'), unit: 'ms/statement' },
    { label: 'delete: 100 rows, no trigger', run: (t) => captureCost(t, 'items_plain', 100, 'delete'), unit: 'ms/statement' },
    { label: 'delete: 100 rows, event trigger', run: (t) => captureCost(t, 'items', 100, 'delete'), unit: 'ms/statement' },
    { label: 'delivery: take + record, 1 at a time', run: (t) => deliveryCost(t, 1), unit: 'µs/event' },
    { label: 'delivery: take + record, 4 at a time', run: (t) => deliveryCost(t, 4), unit: 'µs/event' },
    { label: 'delivery: take + record, 16 at a time', run: (t) => deliveryCost(t, 16), unit: 'µs/event' },
    { label: 'life: 1-row insert, its take and record', run: (t) => lifeCost(t), unit: 'ms/event' },
    { label: 'stream: 1-row inserts, no trigger', run: (t) => streamCost(t, 'items_plain', 20), unit: 'ms/mutation' },
    { label: 'stream: 1-row inserts, delivered 20 at a time', run: (t) => streamCost(t, 'items', 20), unit: 'ms/mutation' },
    { label: 'stream: 1-row inserts, delivered 80 at a time', run: (t) => streamCost(t, 'items', 80), unit: 'ms/mutation' },
    ...(targets.some((t) => t.slot !== null)
      ? [
          { label: 'stream: 1-row inserts, logical decoding', run: (t: Target) => logicalStreamCost(t, 20, false), unit: 'ms/mutation' },
          { label: 'stream: 1-row inserts, logical decoding, recorded 20 at a time', run: (t: Target) => logicalStreamCost(t, 20, true), unit: 'ms/mutation' },
          { label: 'stream: 1-row inserts, logical decoding, recorded 80 at a time', run: (t: Target) => logicalStreamCost(t, 80, true), unit: 'ms/mutation' },
        ]
      : []),
  ];
  console.log(`PostgreSQL server CPU (/proc: one backend; the stream cells: writer, delivery and listener); median of ${ROUNDS} rounds, checkouts alternated.`);
  console.log(`\n| cell | unit | ${targets.map((t) => t.root).join(' | ')} |\n|---|---|${targets.map(() => '---:|').join('')}`);
  for (const cell of cells.filter((c) => c.label.includes(only))) {
    const results = targets.map((): number[] => []);
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 === 0 ? targets.map((_, i) => i) : targets.map((_, i) => targets.length - 1 - i);
      for (const i of order) results[i]?.push(await cell.run(targets[i] as Target));
    }
    const digits = cell.unit.startsWith('ms') ? 3 : 0;
    console.log(
      `| ${cell.label} | ${cell.unit} | ${results.map((xs) => `${median(xs).toFixed(digits)} (${xs.map((x) => x.toFixed(digits)).join(', ')})`).join(' | ')} |`,
    );
  }
  if (streamParts.size > 0) {
    console.log('\nstream parts, µs per mutation (capture: writer backend; take: with the expansion; record; listener), each round:');
    for (const [key, rounds] of streamParts) console.log(`  ${key}: ${rounds.map((r) => JSON.stringify(r)).join(' ')}`);
  }
  if (process.env['EVENT_LOG_COST_PLANS'] === '1')
    for (const t of targets) console.log((await t.pool.query('SELECT name, generic_plans, custom_plans FROM pg_prepared_statements')).rows);
  for (const t of targets) {
    if (t.slot !== null) await t.pool.query('SELECT pg_drop_replication_slot($1)', [t.slot]);
    await t.stopListening();
    await t.writer.end();
    await t.pool.end();
  }
} finally {
  await bench.stop();
}
