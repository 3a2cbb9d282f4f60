/**
 * The event log of a PostgreSQL source (tables made by event-trigger-ddl.ts):
 * the queue delivery takes events from, and the reads and changes of the
 * metadata API (`pg_get_event_logs`, `pg_redeliver_event`...).
 *
 * Note [Event log]
 * Captures write batches, which become events here before a take or a read
 * (`expandBatches`, Note [Capture batches]). Several engines share one log.
 * `take` picks due events in capture order
 * (`seq`) with `FOR UPDATE SKIP LOCKED`, so two engines taking at once never
 * get the same row, and in the same statement leases them: `locked` is the
 * lease's end and `locked_by` the owner. A leased event is not due until its
 * lease runs out, so an event taken by an engine that dies (kill -9, lost
 * network) is taken again by another once the lease ends; a live engine
 * renews the leases of what it is still sending (`renew`). `record` writes
 * attempts in one statement per batch (the invocation logs, and tries,
 * `delivered`, `error`, `next_retry_at` of the events), and changes an event
 * only while its lease is still the recorder's: an engine that lost a lease
 * (stalled past it) cannot undo the newer owner's record. Delivery is
 * therefore at least once: a lost lease may send an event twice, never zero
 * times. v2's `locked` is when an event was taken; here it is when the lease
 * ends.
 *
 * Order per row: the capture writes the row's primary key as `row_key`, and
 * an event is not due while an earlier event of the same trigger and row is
 * still pending (being sent, or waiting for a retry): events of one row are
 * sent one at a time, in capture order, across engines. A failing event
 * holds back the later events of its row until it is delivered or in error
 * (then the next one goes; redelivering it later sends it after them).
 * Tables without a primary key, and manual events, have no order. The check
 * is one probe of a partial index per candidate event.
 *
 * `take` must walk the due index in `seq` order and stop after `limit` rows
 * whatever the statistics say: right after a burst of events, before
 * autoanalyze, an indexable `trigger_name = ANY($1)` led the planner to read
 * every pending row through a trigger_name index and sort them (measured on
 * 20,000 pending events: 66-103 ms per take of 100, against 3.6 ms once
 * analyzed). The trigger test is therefore written so that no index can
 * serve it (`array_position`), and the row index leads with `row_key`.
 */
import pg from 'pg';
import type { AttemptRecord, EventLog, EventLogQuery, LoggedEvent } from '../backend.ts';
import { BATCH, DONE, EVENTS_CHANNEL, EVENTS_SCHEMA, upgradeEventLog } from './event-trigger-ddl.ts';

const LOG = `${EVENTS_SCHEMA}.event_log`;
const INVOCATIONS = `${EVENTS_SCHEMA}.event_invocation_logs`;

/** v2 compat: timestamps as UTC without a zone. */
const utc = (col: string): string => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;

const EVENT_COLUMNS = `id, schema_name, table_name, trigger_name, payload, delivered, error, tries, ${utc('created_at')} AS created_at,
  ${utc('locked')} AS locked, ${utc('next_retry_at')} AS next_retry_at, archived`;

const INVOCATION_COLUMNS = `id, trigger_name, event_id, status, request, response, ${utc('created_at')} AS created_at`;

/** The due events of the log, oldest first, at most `limit` (Note [Event log]). */
const dueSql = (limit: number): string => `
  SELECT id FROM ${LOG} AS e
  WHERE NOT delivered AND NOT error AND NOT archived
    AND array_position($1::text[], trigger_name) IS NOT NULL
    AND (next_retry_at IS NULL OR next_retry_at <= clock_timestamp())
    AND (locked IS NULL OR locked < clock_timestamp())
    AND (row_key IS NULL OR NOT EXISTS (
      SELECT 1 FROM ${LOG} AS p
      WHERE p.trigger_name = e.trigger_name AND p.row_key = e.row_key AND p.seq < e.seq AND NOT p.delivered AND NOT p.error AND NOT p.archived))
  ORDER BY seq
  LIMIT ${limit}
  FOR UPDATE SKIP LOCKED`;

/** Leases the due events of `due`. */
const LEASE = `UPDATE ${LOG} AS e SET locked = clock_timestamp() + $2 * interval '1 millisecond', locked_by = $3
FROM due WHERE e.id = due.id
RETURNING e.id, e.seq, e.schema_name, e.table_name, e.trigger_name, e.payload, e.tries, e.created_at`;

/**
 * Note [Expanding take]
 * A take after a notification first expands the batches (`expandBatches`,
 * its own statement), then takes as any other take does. Up to 085f259
 * both were one statement, the new events inserted already leased; it
 * saved a round trip, but its plan
 * (the new rows numbered per row and in capture order, then joined back:
 * two sorts, two window aggregates, a merge join, re-initialised on every
 * call) was the largest part of the PostgreSQL CPU of a mutation with a
 * trigger: perf over every backend during the bench's writer cell (`npm
 * run bench -- --capabilities event-triggers`) put 16-17% each under its
 * merge join, sorts and window aggregates, against 17% for the capture
 * trigger. The plain expansion sorts once; the take walks the due index
 * and leases with a HOT update. Measured with `node
 * test/bench/event-log-cost.ts --engine-root <085f259>,<this>` (PostgreSQL
 * CPU of one backend, median of three alternated rounds, load 11-15,
 * together with Note [Statistics after a burst]): take + record 4 at a time
 * 90 → 75 µs an event, 16 at a time 170 → 55, one event's life 0.70 →
 * 0.64 ms. In the bench's event cell (load 4-10, alternated with 085f259):
 * PostgreSQL CPU per insert at a steady 500/s 0.91-1.15 → 0.70-0.78 ms
 * (0.14-0.16 without a trigger); the writer cell until every event is
 * delivered, PostgreSQL the same (0.24-0.28 ms a mutation either way) but
 * engine CPU 0.135-0.138 → 0.155-0.160 ms: two statements a take, and takes
 * more often, since each is quicker.
 */

/** The take statement for at most `limit` events (an integer: see Note [Take limits]). */
const takeSql = (limit: number): string => `
WITH due AS (${dueSql(limit)}
), leased AS (
${LEASE}
)
SELECT id, seq, schema_name, table_name, trigger_name, payload, tries, ${utc('created_at')} AS created_at FROM leased`;

const RENEW = `UPDATE ${LOG} SET locked = clock_timestamp() + $2 * interval '1 millisecond' WHERE id = ANY($1::uuid[]) AND locked_by = $3`;

/**
 * Note [Record by key]
 * `record` finds its events through the primary key whatever the log's
 * statistics say: its update names them twice, joined to the attempts and as
 * `id = ANY($3)`. Joined to the attempts alone (a `jsonb_to_recordset`, which
 * the planner counts as 100 rows whatever it holds), a log analyzed at a few
 * thousand events is planned as a sequential scan of the whole log hashed
 * against the attempts, at the default random_page_cost of 4 (the bench's
 * server has 1.1, where the crossing comes later): take-plan.test.ts, on a
 * log analyzed at 3,000 events. An array the planner counts as a few elements
 * makes the key probe the cheaper plan at every size but a log of a page or
 * two. Measured with `EVENT_LOG_COST_PG_OPTIONS='-c random_page_cost=4' node
 * test/bench/event-log-cost.ts --engine-root <d9ebab6>,<this> --only
 * "delivered 20" --statements 5000` (2026-11-28 22:35 UTC, load 8-10; 10,000
 * single-row events a round): the first round, right after the analyze of
 * its 2,000-event burst, records at 108 µs an event before, 37 after; with
 * Note [Statistics of a growing log] the later rounds, each on a log truncated
 * and refilled, go 77-79 → 43-56 µs (record) and 84-88 → 57-60 (take),
 * 0.310-0.339 → 0.261-0.285 ms of PostgreSQL CPU per mutation in all.
 */
const RECORD = `
WITH r AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS r(event_id uuid, trigger_name text, outcome text, retry_in_ms double precision,
    status integer, request jsonb, response jsonb, duration_ms double precision)
), changed AS (
  UPDATE ${LOG} AS e SET tries = e.tries + 1, delivered = r.outcome = 'delivered', error = r.outcome = 'error',
    next_retry_at = CASE WHEN r.outcome = 'retry' THEN clock_timestamp() + r.retry_in_ms * interval '1 millisecond' END,
    locked = NULL, locked_by = NULL
  FROM r WHERE e.id = ANY($3::uuid[]) AND e.id = r.event_id AND e.locked_by = $2
)
INSERT INTO ${INVOCATIONS} (event_id, trigger_name, status, request, response, duration_ms)
SELECT event_id, trigger_name, status, request, response, duration_ms FROM r`;

const INSERT_MANUAL = `
WITH i AS (
  INSERT INTO ${LOG} (schema_name, table_name, trigger_name, payload)
  VALUES ($1, $2, $3, jsonb_build_object('op', 'MANUAL', 'data', jsonb_build_object('old', NULL, 'new', $4::jsonb), 'session_variables', $5::jsonb))
  RETURNING id
)
SELECT id, pg_notify('${EVENTS_CHANNEL}', '') FROM i`;

const REDELIVER = `
WITH u AS (
  UPDATE ${LOG} SET tries = 0, delivered = false, error = false, archived = false, next_retry_at = NULL, locked = NULL, locked_by = NULL
  WHERE id = $1 RETURNING id
)
SELECT id, pg_notify('${EVENTS_CHANNEL}', '') FROM u`;

/** One trigger's events, newest first: its pending ones through the due index, processed ones through `event_log_done` (Note [Lean event log]). */
const EVENTS = `SELECT ${EVENT_COLUMNS} FROM (
  (SELECT * FROM ${LOG} WHERE trigger_name = $1 AND NOT delivered AND NOT error AND NOT archived AND $2 <> 'processed' ORDER BY seq DESC LIMIT $3::bigint + $4::bigint)
  UNION ALL
  (SELECT * FROM ${LOG} WHERE trigger_name = $1 AND (${DONE}) AND ($2 = 'all' OR ($2 = 'pending') = NOT (delivered OR error)) ORDER BY seq DESC LIMIT $3::bigint + $4::bigint)
) AS e
ORDER BY seq DESC LIMIT $3 OFFSET $4`;

const INVOCATIONS_OF = `SELECT ${INVOCATION_COLUMNS} FROM ${INVOCATIONS} WHERE trigger_name = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`;

const EVENT_BY_ID = `SELECT ${EVENT_COLUMNS} FROM ${LOG} WHERE id = $1`;

const INVOCATIONS_OF_EVENT = `SELECT ${INVOCATION_COLUMNS} FROM ${INVOCATIONS} WHERE event_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3`;

const CLEANUP = `
WITH old AS (
  SELECT id FROM ${LOG} WHERE trigger_name = $1 AND (delivered OR error) AND created_at < clock_timestamp() - $2 * interval '1 hour'
  ORDER BY seq LIMIT $3
), d AS (
  DELETE FROM ${LOG} WHERE id IN (SELECT id FROM old) RETURNING id
), i AS (
  DELETE FROM ${INVOCATIONS} WHERE $4 AND event_id IN (SELECT id FROM d)
)
SELECT count(*)::int AS n FROM d`;

/** The advisory lock one expansion of batches holds at a time (Note [Capture batches]). */
const EXPAND_LOCK_KEY = 7_245_002;

/**
 * The rows of the batches `b` as events, one per captured row: `image` turns a row's json into the
 * payload's jsonb. `bseq, i` is the capture order.
 */
function expandedRows(image: (j: string) => string): string {
  return `SELECT b.seq AS bseq, x.i, b.schema_name, b.table_name, b.trigger_name, x.k AS row_key,
  jsonb_build_object('op', b.op, 'data', jsonb_build_object('old', ${image('x.o')}, 'new', ${image('x.n')}), 'session_variables', b.session) AS payload,
  b.created_at
FROM b, ROWS FROM (json_array_elements(b.old_rows), json_array_elements(b.new_rows), unnest(b.row_keys)) WITH ORDINALITY AS x(o, n, k, i)`;
}

/**
 * Moves batches into the log, one event per captured row, in capture order. `which` picks the
 * batches; `image` as in `expandedRows`, and `failed` says whether the event goes in as an error.
 */
const expandSql = (which: string, image: (j: string) => string, failed: string): string => `
WITH b AS (
  DELETE FROM ${BATCH} WHERE ${which} AND (SELECT pg_try_advisory_xact_lock(${EXPAND_LOCK_KEY})) RETURNING *
)
INSERT INTO ${LOG} (schema_name, table_name, trigger_name, row_key, payload, created_at, error)
SELECT r.schema_name, r.table_name, r.trigger_name, r.row_key, r.payload, r.created_at, ${failed}
FROM (${expandedRows(image)}) AS r
ORDER BY r.bseq, r.i`;

/** Every batch, rows converted to jsonb as they are. */
const EXPAND = expandSql('true', (j) => `${j}::jsonb`, 'false');
/** The oldest batch alone, the same way. */
const EXPAND_FIRST = expandSql(`seq = (SELECT min(seq) FROM ${BATCH})`, (j) => `${j}::jsonb`, 'false');
/** The oldest batch alone, its rows kept as JSON strings of their text and its events in error. */
const EXPAND_FIRST_AS_TEXT = expandSql(`seq = (SELECT min(seq) FROM ${BATCH})`, (j) => `to_jsonb(${j}::text)`, 'true');

/** A data exception (SQLSTATE class 22): what a row jsonb refuses raises, unlike a lost connection or a timeout. */
function isDataError(e: unknown): boolean {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('22');
}

/**
 * Expands the batches waiting in the log of `pool` (Note [Capture batches]). A batch whose rows
 * jsonb refuses (a \u0000 in a `json` column's string) makes the statement fail with a data
 * exception; the batches are then expanded one at a time and a batch that fails so alone goes in
 * with its rows as JSON strings, its events in error, so that it never holds back the others. Any
 * other failure is thrown, with the batches left as they were.
 */
export async function expandBatches(pool: pg.Pool | pg.ClientBase): Promise<void> {
  let expanded = 0;
  try {
    expanded = (await pool.query({ name: 'engine_events_expand', text: EXPAND })).rowCount ?? 0;
  } catch (e) {
    if (isMissingLog(e)) return;
    if (!isDataError(e)) throw e;
    for (;;) {
      let res: pg.QueryResult;
      try {
        res = await pool.query(EXPAND_FIRST);
      } catch (one) {
        if (!isDataError(one)) throw one;
        res = await pool.query(EXPAND_FIRST_AS_TEXT);
      }
      if ((res.rowCount ?? 0) === 0) break;
      expanded += res.rowCount ?? 0;
    }
  }
  // A burst the statistics do not know of yet (Note [Statistics after a burst]).
  if (expanded >= ANALYZE_AFTER && (analyzedAt.get(pool) ?? -Infinity) < performance.now() - ANALYZE_EVERY_MS) {
    analyzedAt.set(pool, performance.now());
    growth.set(pool, { since: 0, check: ANALYZE_AFTER });
    await pool.query(`ANALYZE ${LOG}`);
    return;
  }
  // A log that grew past twice what its statistics say (Note [Statistics of a growing log]).
  const grown = growth.get(pool) ?? { since: 0, check: ANALYZE_AFTER };
  growth.set(pool, grown);
  grown.since += expanded;
  if (grown.since < grown.check) return;
  const stats = await pool.query<{ n: number }>(`SELECT greatest(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = '${LOG}'::regclass`);
  const known = Number(stats.rows[0]?.n ?? 0);
  if (grown.since <= known) {
    grown.check = known + 1;
    return;
  }
  growth.set(pool, { since: 0, check: ANALYZE_AFTER });
  await pool.query(`ANALYZE ${LOG}`);
}

/**
 * Note [Statistics after a burst]
 * `take` must walk `event_log_due` in `seq` order and stop at its limit (Note [Event log]). The
 * planner does so only while it knows that many events are pending: right after a burst is
 * expanded, before autoanalyze, the statistics still describe the log before it (or none, on a new
 * log), and the plan cached for the take reads every pending event through a bitmap scan, probes
 * each one's row order and sorts them all, for every take. On 2,000 pending events a take of 16
 * cost 24 ms so, 0.35 ms after `ANALYZE` (EXPLAIN ANALYZE, PostgreSQL 18); `node
 * test/bench/event-log-cost.ts --only delivery`, 16 at a time: 175 µs an event before. So an
 * expansion of ANALYZE_AFTER events or more analyzes the log at once, which also replans the
 * takes prepared on every connection. At most once per ANALYZE_EVERY_MS for a pool: an
 * analyze samples up to 30,000 rows, and while delivery lagged behind a sustained stream
 * (expansions of 1,000 events one after another) analyzing after each one was 64 µs of a
 * mutation's 233 in the bench's writer cell (pg_stat_statements, BENCH_PG_STAT_STATEMENTS=1).
 */
const ANALYZE_AFTER = 1000;
const ANALYZE_EVERY_MS = 60_000;
/** When each pool last analyzed its log (performance.now()). */
const analyzedAt = new WeakMap<object, number>();

/**
 * Note [Statistics of a growing log]
 * Plans prepared on a log the statistics call empty or small (a new log, one
 * truncated or just cleaned up) stay in every pool connection's cache as the
 * log grows, since only an analyze (or DDL) invalidates them, and autoanalyze
 * comes at its next round (a minute by default); the burst rule above never
 * fires for a stream of small statements. So each pool counts the events it
 * expanded since it last analyzed (`since`), and past ANALYZE_AFTER reads
 * `reltuples`: when they outnumber what the statistics know of, the log more
 * than doubled and is analyzed, which also replans the take and the record
 * on every connection. So a log analyzes once per as many new events as it
 * holds: at doublings while it grows (1,000, 2,000, 4,000... events), every
 * `reltuples` events once a cleanup holds its size, each analyze sampling at
 * most 30,000 rows; no clock. `check` keeps the catalog read to one per
 * ANALYZE_AFTER or per `reltuples` events, whichever is more. The figures are
 * in Note [Record by key]; test: take-plan.test.ts (1,200 events from
 * 100-row statements into a log vacuumed empty: it is analyzed).
 */
const growth = new WeakMap<object, { since: number; check: number }>();

/** Statements whose plans test/integration/events/log-layout.test.ts checks against the indexes (Note [Lean event log]). */
export const PLANNED_STATEMENTS = { take: takeSql(16), events: EVENTS, cleanup: CLEANUP, record: RECORD };

/**
 * Note [Take limits]
 * `take`'s LIMIT is written in the statement text, not bound: with `LIMIT $2`
 * PostgreSQL planned the prepared statement again on every execution (its
 * generic plan, costed for an unknown limit, never looked as cheap as a
 * custom one: pg_prepared_statements counted 1,182 custom plans and no
 * generic one), and planning this statement costs more than running it on a
 * few rows. `node test/bench/event-log-cost.ts` (PostgreSQL CPU per event of
 * take + record, issue 35): 440 µs taking events one at a time, 135 four at a
 * time and 65 sixteen at a time with the bound limit; with plans forced
 * generic, 245, 95 and 55. The limit is therefore a literal: exact up to
 * EXACT_LIMITS, a multiple of it above (the rest, when the first statement
 * comes back full, is a second statement), so a connection prepares at most
 * EXACT_LIMITS + batch size / EXACT_LIMITS take statements, each planned
 * once; the other parameters do not change the plan.
 */
const EXACT_LIMITS = 16;

/** SQLSTATE of a missing table: the log does not exist before the first trigger is installed. */
const UNDEFINED_TABLE = '42P01';

function isMissingLog(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === UNDEFINED_TABLE;
}

/** `[]` (or `fallback`) when the log does not exist yet. */
async function orEmpty<T>(run: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (isMissingLog(e)) return fallback;
    throw e;
  }
}

interface TakenRow {
  id: string;
  seq: string;
  schema_name: string;
  table_name: string;
  trigger_name: string;
  payload: LoggedEvent['payload'];
  tries: number;
  created_at: string;
}

/**
 * The event log of the database behind `pool`; `listenWith`: the source's client settings for the LISTEN
 * connection, SSL included (a bare URL too, as test/bench/event-log-cost.ts passes to every checkout).
 */
export function postgresEventLog(pool: pg.Pool, listenWith: Readonly<pg.ClientConfig> | string): EventLog {
  // Once per log, before the first take: a log of an earlier layout is upgraded (Note [Lean event log]).
  let upgraded = false;
  // Batches may be waiting: set by every notification and whenever no listener is up (Note [Capture batches]).
  let notified = true;
  let listening = false;
  return {
    async take(triggers, limit, leaseMs, owner) {
      if (triggers.length === 0) return [];
      if (!upgraded) {
        const client = await pool.connect();
        try {
          await upgradeEventLog(client);
        } finally {
          client.release();
        }
        upgraded = true;
      }
      // Batches may be waiting (a notification since the last expansion, or no listener): they become
      // events first (Note [Expanding take]). Cleared first: a notification arriving meanwhile sets it
      // again; a failed expansion is tried again at the next take.
      if (notified || !listening) {
        notified = false;
        try {
          await expandBatches(pool);
        } catch (e) {
          notified = true;
          throw e;
        }
      }
      const taken: TakenRow[] = [];
      // One statement, or two when the limit is not one of the literal ones (Note [Take limits]).
      for (let left = Math.floor(limit); left > 0;) {
        const n = left <= EXACT_LIMITS ? left : left - (left % EXACT_LIMITS);
        const res = await orEmpty(
          async () => await pool.query<TakenRow>({ name: `engine_events_take_${n}`, text: takeSql(n), values: [triggers, leaseMs, owner] }),
          null,
        );
        if (res === null) return [];
        taken.push(...res.rows);
        if (res.rows.length < n) break;
        left -= n;
      }
      const rows = taken.sort((a, b) => Number(a.seq) - Number(b.seq));
      return rows.map((r) => ({
        id: r.id,
        triggerName: r.trigger_name,
        table: { schema: r.schema_name, name: r.table_name },
        payload: r.payload,
        tries: r.tries,
        createdAt: r.created_at,
      }));
    },
    async renew(ids, leaseMs, owner) {
      if (ids.length > 0) await pool.query(RENEW, [ids, leaseMs, owner]);
    },
    async record(attempts: readonly AttemptRecord[], owner) {
      if (attempts.length === 0) return;
      // Built as text so the JSON texts of requests and responses go in as they are.
      const rows = attempts.map(
        (a) =>
          `{"event_id":${JSON.stringify(a.eventId)},"trigger_name":${JSON.stringify(a.triggerName)},"outcome":"${a.outcome}",` +
          `"retry_in_ms":${a.retryInMs},"status":${a.status ?? 'null'},"request":${a.requestJson},"response":${a.responseJson},"duration_ms":${a.durationMs}}`,
      );
      // The ids again as an array: the events are found through the primary key, whatever the statistics (Note [Record by key]).
      await pool.query({ name: 'engine_events_record', text: RECORD, values: [`[${rows.join(',')}]`, owner, attempts.map((a) => a.eventId)] });
    },
    async listen(wake, onError) {
      const client = new pg.Client(typeof listenWith === 'string' ? { connectionString: listenWith } : { ...listenWith });
      const lost = (e: unknown): void => {
        listening = false;
        onError(e);
      };
      client.on('notification', () => {
        notified = true;
        wake();
      });
      client.on('error', lost);
      client.on('end', () => lost(new Error('event listener connection ended')));
      await client.connect();
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
      // Batches committed before LISTEN sent no notification this connection saw.
      listening = true;
      notified = true;
      return async () => {
        listening = false;
        client.removeAllListeners('end');
        client.removeAllListeners('notification');
        client.on('error', () => {});
        await client.end().catch(() => {});
      };
    },
    async insertManual(triggerName, table, payload, session) {
      const res = await pool.query<{ id: string }>(INSERT_MANUAL, [table.schema, table.name, triggerName, JSON.stringify(payload), JSON.stringify(session)]);
      return res.rows[0]?.id ?? '';
    },
    async redeliver(eventId) {
      const res = await orEmpty(async () => await pool.query(REDELIVER, [eventId]), null);
      return (res?.rowCount ?? 0) > 0;
    },
    async events(q: EventLogQuery) {
      // Events still in batches are pending events too.
      await expandBatches(pool);
      return await orEmpty(async () => (await pool.query(EVENTS, [q.triggerName, q.status, q.limit, q.offset])).rows, []);
    },
    async invocations(triggerName, limit, offset) {
      return await orEmpty(async () => (await pool.query(INVOCATIONS_OF, [triggerName, limit, offset])).rows, []);
    },
    async eventById(eventId, limit, offset) {
      return await orEmpty(async () => {
        const ev = await pool.query(EVENT_BY_ID, [eventId]);
        const event: unknown = ev.rows[0];
        if (event === undefined) return null;
        const inv = await pool.query(INVOCATIONS_OF_EVENT, [eventId, limit, offset]);
        return { event, invocations: inv.rows };
      }, null);
    },
    async cleanup(triggerName, hours, batch, invocations) {
      const res = await orEmpty(async () => await pool.query<{ n: number }>(CLEANUP, [triggerName, hours, batch, invocations]), null);
      return res?.rows[0]?.n ?? 0;
    },
  };
}
