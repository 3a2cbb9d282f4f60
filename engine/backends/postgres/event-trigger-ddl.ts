/**
 * The capture side of event triggers on PostgreSQL: the event log's schema
 * and, per event trigger, one trigger function and one trigger per captured
 * operation on its table.
 *
 * Note [Capture triggers]
 * A change and its event commit together because the event is written by an
 * AFTER trigger in the changing transaction (v2 does the same, with row
 * triggers): a rolled-back change leaves no event, a committed one always
 * has it. Per event trigger `<name>` there is a function
 * `engine_events."notify_<name>"()` and triggers
 * `notify_engine_<name>_INSERT|UPDATE|DELETE` on the table (v2 names:
 * `notify_hasura_<name>_<OP>`; the 42-character bound on names keeps them
 * within PostgreSQL's 63). Only quoted identifiers from metadata enter this
 * SQL text: the function finds its event trigger's name in `TG_NAME`
 * (prefix and `_<OP>` cut off) rather than in a string literal, and builds a
 * `payload` list as `SELECT r."a" AS "a"` so that column names are
 * identifiers, not JSON keys written as literals.
 *
 * - Every operation is captured once per statement (`FOR EACH STATEMENT`
 *   with transition tables): one `INSERT … SELECT` writes one batch row
 *   holding the statement's rows (Note [Capture batches]), and one NOTIFY
 *   follows when it wrote one. Updates pair OLD with NEW by position (Note
 *   [Update pairs]). Row triggers writing one event row each, with its
 *   payload built as jsonb, cost 3.07 ms (json text) then 1.47-1.63 ms
 *   (jsonb, statement level) per 100-row insert against 0.23-0.33 without
 *   a trigger: the event rows themselves, not only how they were built, were
 *   most of it (Note [Lean event log]).
 * - An update fires only for the rows where one of the `columns` changed:
 *   listed columns are compared by their text form, whole rows (`*`) with
 *   `*<>` (binary image inequality). Unlike `=` both work for every type, `json` included,
 *   at the price of a spurious event when a value is rewritten in another
 *   form of the same value (`1.0` → `1.00`).
 * - The session of the writing GraphQL request is the transaction-local
 *   setting `engine.session`, which each mutation statement sets
 *   (compile-mutation.ts); other writers have none, so it is null.
 * - Every capturing statement sends `NOTIFY engine_events`;
 *   PostgreSQL folds equal notifications of one transaction into one, so a
 *   transaction wakes the delivery workers once, at commit.
 */
import type pg from 'pg';
import type { CaptureOperation, CaptureSpec } from '../backend.ts';
import { POSTGRES_DIALECT } from './dialect.ts';

/** The schema holding the event log and the capture functions. */
export const EVENTS_SCHEMA = 'engine_events';

/** The channel every capture notifies on. */
export const EVENTS_CHANNEL = 'engine_events';

/** v2 compat: the prefix of database trigger names (`notify_hasura_` in v2). */
const TRIGGER_PREFIX = 'notify_engine_';

const OPERATIONS = ['INSERT', 'UPDATE', 'DELETE'] as const;

const q = POSTGRES_DIALECT.quoteIdent;

/** A key for the advisory lock that serializes event-log DDL between engines. */
const DDL_LOCK_KEY = 7_245_001;

/**
 * Note [Lean event log]
 * (Written before Note [Capture batches]: the event row described here is
 * now written by the expansion of a batch, not by the capture itself.)
 * A captured event is written to three indexes: the primary key (`id`, read
 * by record, renew, redeliver and `get_event_by_id`) and the two partial
 * indexes of pending events that `take` needs (`event_log_due`,
 * `event_log_row`: Note [Event log] in event-log.ts). The index by trigger
 * that `get_event_logs` and cleanup read, `event_log_done`, holds only
 * processed events (`DONE`): a pending event is found through
 * `event_log_due` instead, and the delivery's update enters the event there
 * at no extra cost, because an update of `delivered`/`error` (columns of the
 * partial indexes' predicates) is never HOT and already wrote a new entry
 * into every full index. It was a full index (`event_log_trigger`), written
 * by every capture.
 *
 * Measured (issue 35; `node test/bench/event-log-cost.ts --engine-root
 * <before>,<after>`, three runs of three alternated rounds, PostgreSQL CPU
 * of the server process): a 100-row capturing statement 1.57/1.77/1.67 ms
 * before, 1.47/1.63/1.63 after (0.23-0.33 without a trigger); a single-row
 * one 0.12-0.20 either way (0.06-0.09 without), delivery unchanged. The gain
 * is small because the indexes are not most of the cost. Inserting 100
 * events straight into logs of other layouts: 0.93-1.07 ms with the primary
 * key alone, 0.73-0.87 with no index, 0.60-0.73 with no index and a constant
 * id (gen_random_uuid is 1-2 µs an event). In the capture itself, a
 * constant payload instead of the built one took a 100-row statement from
 * 1.47 to 1.00 ms: building the jsonb payload (to_jsonb of the row and the
 * two jsonb_build_object around it) is the largest single part, about 4.5
 * µs an event, then the event row (wider than the captured one), then the
 * three index entries (about 2 µs each). Building the insert payload as
 * text (`'{"op":"INSERT","data":{"old":null,"new":' || row_to_json(r.*)::text
 * || …)::jsonb`) saved only 5-9% (1.33-1.40 against 1.40-1.53 ms) and would
 * rest on row_to_json and to_jsonb agreeing for every column type: not kept.
 * A time-ordered id (UUIDv7 built in
 * SQL, so that primary key entries append) cost more CPU to build than it
 * saved on logs that fit in memory (1.73 against 1.60 ms per 100-row
 * statement) and was not kept; it may still pay on a log much larger than
 * shared_buffers, not measured.
 * `upgradeEventLog` moves a log of the old layout to this one.
 */
/**
 * Note [Capture batches]
 * A capturing statement writes one row into `engine_events.event_batch`:
 * its rows as `json` arrays (`json_agg` over the transition tables, which
 * writes each row as row_to_json does: no jsonb built, no event id, no
 * index entry per row), their primary keys (`row_keys`, for Note [Event
 * log]'s order per row), the operation, the session and the time. The log
 * expands batches into events (`expandBatches` in event-log.ts): delivery
 * before a take when a notification came since its last expansion (or when
 * it has no listener), `get_event_logs` before it reads. One statement
 * deletes the batches and inserts one event per row, in capture order
 * (batch, then position), each with its own id, `row_key`, the batch's
 * `created_at`, and the payload v2 stores, built as jsonb from the row's
 * json (v2 builds it with row_to_json as well). From there an event is what
 * it always was: its own delivery, retries, invocation logs, redelivery.
 * - What was captured is delivered: the rows are written out at capture, so
 *   a column added, dropped or retyped before the expansion changes nothing
 *   in the events of earlier statements (batches.test.ts).
 * - One expansion at a time per database (a try-advisory lock): an engine
 *   finding it held skips, and sees the events at the other's commit. One
 *   statement under the lock keeps `seq` in capture order across engines.
 * - A row jsonb refuses (json accepts `\u0000` in a string, jsonb does not)
 *   used to fail the writing statement, as in v2; now the write succeeds,
 *   the expansion fails, and the batches are expanded one by one: the one
 *   that fails alone goes in with its rows as JSON strings of their text and
 *   its events in error (listed by get_event_logs, never sent), so that it
 *   holds back nothing.
 * - Until expanded, a statement's events are in its batch: a direct read of
 *   `event_log` does not see them, `get_event_logs` does.
 * - A log of the earlier layout gets the batch table when upgraded
 *   (`upgradeEventLog`); capture functions of the earlier kind, still
 *   writing events directly, keep working until their trigger is
 *   installed again (a metadata change of it, or `reload_metadata` with
 *   `recreate_event_triggers`).
 *
 * Measured (issue 35, `node test/bench/event-log-cost.ts --engine-root
 * <before>,<after>`, PostgreSQL CPU of the server process per transaction,
 * median of three alternated rounds; 2026-11-28 17:26-17:35 UTC, load average
 * 5-12, so read ratios to the no-trigger cell of the same run), before →
 * after (no trigger):
 *
 *   insert 100 rows   1.67 → 0.47 ms (0.27)       insert 1 row   0.17 → 0.14 (0.08-0.09)
 *   update 100 rows   3.47 → 0.73 ms (0.27-0.33)  update 1 row   0.15 → 0.12 (0.05)
 *   delete 100 rows   1.60 → 0.33 ms (0.07-0.13)  delete 1 row   0.14 → 0.09 (0.04-0.05)
 *
 * Delivery pays the expansion instead: take + record per event 360 → 380
 * µs one at a time, 130 → 150 four at a time, 120 → 130 sixteen at a time
 * (the expansion of 1,000 rows included), and one event's whole life at a
 * low rate (capture, take, record) 0.70 → 0.78 ms: the batch row's insert
 * and delete (Note [Expanding take]). A single-row update still costs
 * about 2.5 times the bare one: the pairing's plan (two window
 * aggregates, a hash join) is a fixed cost of its own.
 * Other forms of the batch, measured on one server with a scratch copy of
 * the capture cells: as jsonb (`jsonb_agg(to_jsonb(r.*))`) instead of json
 * 0.45-0.60 ms against 0.35-0.50 per 100-row insert, and `array_agg(r.*)::text`
 * (record text, typed only by the table as it is at expansion) 0.30-0.40 for
 * no gain worth that dependency.
 */
export const BATCH = `${EVENTS_SCHEMA}.event_batch`;

/**
 * The batch table. `toast_tuple_target` at its maximum (the block size less the page header)
 * keeps a batch of up to about 8 kB in its row, uncompressed, instead of compressing it (the
 * default target is 2 kB: a 100-row statement of three short columns is about 4 kB).
 */
async function createBatchTable(client: pg.ClientBase): Promise<void> {
  const block = await client.query<{ b: string }>(`SELECT current_setting('block_size') AS b`);
  const target = Number(block.rows[0]?.b ?? '8192') - 32;
  await client.query(`CREATE TABLE IF NOT EXISTS ${BATCH} (
  seq bigint GENERATED ALWAYS AS IDENTITY,
  schema_name text NOT NULL,
  table_name text NOT NULL,
  trigger_name text NOT NULL,
  op text NOT NULL,
  session jsonb,
  old_rows json,
  new_rows json,
  row_keys text[],
  created_at timestamptz NOT NULL DEFAULT now()
) WITH (toast_tuple_target = ${target})`);
}

/** Processed events: the predicate of `event_log_done`, the complement of the pending indexes'. */
export const DONE = 'delivered OR error OR archived';

/** The event log and invocation log; `uuid` is the id default (gen_random_uuid from 13 on). */
function eventLogDdl(uuid: string): string {
  return `
CREATE SCHEMA IF NOT EXISTS ${EVENTS_SCHEMA};
CREATE TABLE IF NOT EXISTS ${EVENTS_SCHEMA}.event_log (
  id uuid PRIMARY KEY DEFAULT ${uuid},
  seq bigint GENERATED ALWAYS AS IDENTITY,
  schema_name text NOT NULL,
  table_name text NOT NULL,
  trigger_name text NOT NULL,
  payload jsonb NOT NULL,
  delivered boolean NOT NULL DEFAULT false,
  error boolean NOT NULL DEFAULT false,
  tries integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  locked timestamptz,
  locked_by text,
  next_retry_at timestamptz,
  archived boolean NOT NULL DEFAULT false,
  row_key text
) WITH (fillfactor = 70);
CREATE INDEX IF NOT EXISTS event_log_row ON ${EVENTS_SCHEMA}.event_log (row_key, trigger_name, seq) WHERE NOT delivered AND NOT error AND NOT archived;
CREATE INDEX IF NOT EXISTS event_log_due ON ${EVENTS_SCHEMA}.event_log (seq) WHERE NOT delivered AND NOT error AND NOT archived;
CREATE INDEX IF NOT EXISTS event_log_done ON ${EVENTS_SCHEMA}.event_log (trigger_name, created_at) WHERE ${DONE};
CREATE TABLE IF NOT EXISTS ${EVENTS_SCHEMA}.event_invocation_logs (
  id uuid PRIMARY KEY DEFAULT ${uuid},
  event_id uuid NOT NULL,
  trigger_name text NOT NULL,
  status integer,
  request jsonb,
  response jsonb,
  duration_ms double precision,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS event_invocation_logs_event ON ${EVENTS_SCHEMA}.event_invocation_logs (event_id);
CREATE INDEX IF NOT EXISTS event_invocation_logs_trigger ON ${EVENTS_SCHEMA}.event_invocation_logs (trigger_name, created_at);
`;
}

/** Transition table names of the statement-level captures (Note [Capture triggers]). */
const NEW_ROWS = 'engine_new_rows';
const OLD_ROWS = 'engine_old_rows';

/**
 * A captured row as it reaches the batch, from `row`: a whole-row reference (`r.*` of a
 * transition table, or `o.r`, a composite column) and `field(c)`, the reference to its column
 * `c`. All columns, or the listed ones (names as identifiers, never as JSON keys written in
 * literals). `.*` and the `(x.*)` of the list keep them whole-row references even when the table
 * has a column named like the alias.
 */
function rowJson(row: string, field: (c: string) => string, payload: CaptureOperation['payload']): string {
  if (payload === '*') return row;
  const cols = payload.map((c) => `${field(c)} AS ${q(c)}`).join(', ');
  return `(SELECT row_to_json(x.*) FROM (SELECT ${cols}) AS x)`;
}

/**
 * Note [Update pairs]
 * An UPDATE statement's OLD and NEW transition tables are paired by
 * position: PostgreSQL appends a row's old and new versions to the two
 * tuplestores together (a row moved to another partition included), so the
 * n-th rows of each are one row's versions (batches.test.ts: 100 rows, and
 * rows moved between partitions). The pairing is a join on `row_number()`.
 * plpgsql caches the plan of the function's statement, made with the sizes
 * of the transition tables of its first runs: made on one-row tables it is a
 * nested loop, and a later 100-row update then cost 4.3 ms instead of 0.6
 * (quadratic; `node test/bench/event-log-cost.ts --only update`, which runs
 * the 1-row cells first). So updates have a function of their own,
 * `notify__update_<name>`, with `SET enable_nestloop = off`: a hash join at
 * every size, for the cost of setting it on each call, which inserts and
 * deletes (the other function) do not pay.
 */

/** True when one of `columns` differs between the paired rows `o.r` and `n.r` (see Note [Capture triggers]). */
function changed(columns: CaptureOperation['columns']): string {
  if (columns === '*') return 'o.r *<> n.r';
  if (columns.length === 0) return 'false';
  return columns.map((c) => `((o.r).${q(c)})::text IS DISTINCT FROM ((n.r).${q(c)})::text`).join(' OR ');
}

/** The text naming a changed row (primary key values through `field`), or NULL for a table without one. */
function rowKey(columns: readonly string[], field: (c: string) => string): string {
  if (columns.length === 0) return 'NULL';
  return columns.length === 1 ? `(${field(columns[0] ?? '')})::text` : `json_build_array(${columns.map(field).join(', ')})::text`;
}

/** The event trigger's name, from the database trigger's (prefix and `_<OP>` cut off). */
const TRIGGER_NAME = `substr(TG_NAME, ${TRIGGER_PREFIX.length + 1}, length(TG_NAME) - ${TRIGGER_PREFIX.length + 1} - length(TG_OP))`;

/** The batch row of one statement: `old_rows`/`new_rows` as given (`NULL` when the operation has none), keys of `key`. */
function captureBatch(spec: CaptureSpec, old: string, now: string, key: (c: string) => string, from: string): string {
  const keys = spec.rowKey.length === 0 ? 'NULL' : `array_agg(${rowKey(spec.rowKey, key)})`;
  return (
    `INSERT INTO ${BATCH} (schema_name, table_name, trigger_name, op, session, old_rows, new_rows, row_keys) ` +
    `SELECT TG_TABLE_SCHEMA, TG_TABLE_NAME, _name, TG_OP, _session, ${old}, ${now}, ${keys} FROM ${from} HAVING count(*) > 0;`
  );
}

/** The plpgsql body of a capture function of `spec`'s inserts and deletes, or of its updates: one batch row per statement (Note [Capture triggers]). */
function functionBody(spec: CaptureSpec, updates: boolean): string {
  const branches: string[] = [];
  const insert = updates ? undefined : spec.insert;
  const del = updates ? undefined : spec.delete;
  const update = updates ? spec.update : undefined;
  const inR = (c: string): string => `r.${q(c)}`;
  const inN = (c: string): string => `(n.r).${q(c)}`;
  const inO = (c: string): string => `(o.r).${q(c)}`;
  if (insert !== undefined)
    branches.push(`IF TG_OP = 'INSERT' THEN ${captureBatch(spec, 'NULL', `json_agg(${rowJson('r.*', inR, insert.payload)})`, inR, `${NEW_ROWS} AS r`)}`);
  if (del !== undefined)
    branches.push(`IF TG_OP = 'DELETE' THEN ${captureBatch(spec, `json_agg(${rowJson('r.*', inR, del.payload)})`, 'NULL', inR, `${OLD_ROWS} AS r`)}`);
  if (update !== undefined) {
    // OLD and NEW paired by position in the transition tables, which PostgreSQL fills row by row together.
    const paired =
      `(SELECT row_number() OVER () AS i, (r.*)::record AS r FROM ${OLD_ROWS} AS r) AS o ` +
      `JOIN (SELECT row_number() OVER () AS i, (r.*)::record AS r FROM ${NEW_ROWS} AS r) AS n ON o.i = n.i WHERE ${changed(update.columns)}`;
    branches.push(
      `IF TG_OP = 'UPDATE' THEN ${captureBatch(spec, `json_agg(${rowJson('o.r', inO, update.payload)})`, `json_agg(${rowJson('n.r', inN, update.payload)})`, inN, paired)}`,
    );
  }
  const dispatch = branches.map((b, i) => (i === 0 ? b : `ELS${b}`)).join('\n    ');
  return `
DECLARE
  _name text := ${TRIGGER_NAME};
  _session jsonb := nullif(current_setting('engine.session', true), '')::jsonb;
BEGIN
    ${dispatch}
    ELSE RETURN NULL;
    END IF;
  IF FOUND THEN PERFORM pg_notify('${EVENTS_CHANNEL}', ''); END IF;
  RETURN NULL;
END
`;
}

/** Dollar-quotes `body` with a tag that does not occur in it (column names may hold `$`). */
function dollarQuoted(body: string): string {
  let n = 0;
  while (body.includes(`$engine${n}$`)) n++;
  return `$engine${n}$${body}$engine${n}$`;
}

/** The capture function of an event trigger's inserts and deletes, or of its updates (Note [Update pairs]). */
function functionName(trigger: string, updates = false): string {
  // Event trigger names start with a letter: `notify__update_<name>` is never another trigger's `notify_<name>`.
  return `${EVENTS_SCHEMA}.${q(updates ? `notify__update_${trigger}` : `notify_${trigger}`)}`;
}

/** Drops both capture functions of `trigger`, and with them every database trigger calling them. */
async function dropFunctions(client: pg.ClientBase, trigger: string): Promise<void> {
  await client.query(`DROP FUNCTION IF EXISTS ${functionName(trigger)}() CASCADE; DROP FUNCTION IF EXISTS ${functionName(trigger, true)}() CASCADE`);
}

/** The database trigger name of one operation of an event trigger. */
export function databaseTriggerName(trigger: string, op: (typeof OPERATIONS)[number]): string {
  return `${TRIGGER_PREFIX}${trigger}_${op}`;
}

/** Creates the event log when missing (serialized between engines by an advisory lock). */
async function ensureEventLog(client: pg.ClientBase): Promise<void> {
  await client.query(`SELECT pg_advisory_xact_lock(${DDL_LOCK_KEY})`);
  const exists = await client.query<{ ok: boolean }>(`SELECT to_regclass('${EVENTS_SCHEMA}.event_invocation_logs') IS NOT NULL AS ok`);
  if (exists.rows[0]?.ok === true) {
    await upgradeLayout(client);
    return;
  }
  const version = await client.query<{ v: string }>(`SELECT current_setting('server_version_num') AS v`);
  const uuid = Number(version.rows[0]?.v ?? '0') >= 130000 ? 'gen_random_uuid()' : 'md5(random()::text || clock_timestamp()::text)::uuid';
  await client.query(eventLogDdl(uuid));
  await createBatchTable(client);
}

/** Brings a log of an earlier layout to the current one; the caller holds DDL_LOCK_KEY in its transaction. */
async function upgradeLayout(client: pg.ClientBase): Promise<void> {
  // A log made before rows were keyed (Note [Event log]) gets the column and its index; one with
  // the full index by trigger gets the partial one instead (Note [Lean event log]).
  await client.query(`ALTER TABLE ${EVENTS_SCHEMA}.event_log ADD COLUMN IF NOT EXISTS row_key text;
    CREATE INDEX IF NOT EXISTS event_log_row ON ${EVENTS_SCHEMA}.event_log (row_key, trigger_name, seq) WHERE NOT delivered AND NOT error AND NOT archived;
    CREATE INDEX IF NOT EXISTS event_log_done ON ${EVENTS_SCHEMA}.event_log (trigger_name, created_at) WHERE ${DONE};
    DROP INDEX IF EXISTS ${EVENTS_SCHEMA}.event_log_trigger`);
  // A log made before captures wrote batches (Note [Capture batches]) gets the batch table.
  await createBatchTable(client);
}

/**
 * Upgrades an existing log of an earlier layout (Note [Lean event log]); false when there was
 * nothing to do (no log, or already current). Delivery calls it once before its first take, so an
 * engine started on an older log upgrades it without a metadata change; the index is built under
 * the DDL lock, which holds back captures on a large log for the time of the build, once.
 */
export async function upgradeEventLog(client: pg.ClientBase): Promise<boolean> {
  const state = await client.query<{ old: boolean; done: boolean; keyed: boolean; log: boolean; batched: boolean }>(
    `SELECT to_regclass('${EVENTS_SCHEMA}.event_log_trigger') IS NOT NULL AS old, to_regclass('${EVENTS_SCHEMA}.event_log_done') IS NOT NULL AS done,
       to_regclass('${EVENTS_SCHEMA}.event_log_row') IS NOT NULL AS keyed, to_regclass('${EVENTS_SCHEMA}.event_log') IS NOT NULL AS log,
       to_regclass('${BATCH}') IS NOT NULL AS batched`,
  );
  const row = state.rows[0];
  if (row === undefined || !row.log || (!row.old && row.done && row.keyed && row.batched)) return false;
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${DDL_LOCK_KEY})`);
    await upgradeLayout(client);
    await client.query('COMMIT');
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  }
  return true;
}

/** Drops the capture of event trigger `name` (its function, and with it every trigger calling it). */
export async function removeCapture(client: pg.ClientBase, name: string): Promise<void> {
  const exists = await client.query<{ ok: boolean }>(`SELECT to_regnamespace('${EVENTS_SCHEMA}') IS NOT NULL AS ok`);
  if (exists.rows[0]?.ok !== true) return;
  await dropFunctions(client, name);
}

/** Creates or replaces the capture of one event trigger (Note [Capture triggers]). */
export async function installCapture(client: pg.ClientBase, spec: CaptureSpec): Promise<void> {
  await ensureEventLog(client);
  const table = `${q(spec.table.schema)}.${q(spec.table.name)}`;
  // Dropping the functions first also drops triggers left on another table by an earlier definition.
  await dropFunctions(client, spec.name);
  // A trigger for manual invocation only captures nothing; it needs the log alone.
  if (spec.insert !== undefined || spec.delete !== undefined)
    await client.query(`CREATE FUNCTION ${functionName(spec.name)}() RETURNS trigger LANGUAGE plpgsql AS ${dollarQuoted(functionBody(spec, false))}`);
  // Hash or merge join of OLD and NEW whatever sizes the cached plan was made for (Note [Update pairs]).
  if (spec.update !== undefined)
    await client.query(
      `CREATE FUNCTION ${functionName(spec.name, true)}() RETURNS trigger LANGUAGE plpgsql SET enable_nestloop = off AS ${dollarQuoted(functionBody(spec, true))}`,
    );
  for (const op of OPERATIONS) {
    if (spec[op.toLowerCase() as 'insert' | 'update' | 'delete'] === undefined) continue;
    // Once per statement, over its transition tables (Note [Capture triggers]).
    const each =
      op === 'INSERT'
        ? `REFERENCING NEW TABLE AS ${NEW_ROWS} FOR EACH STATEMENT`
        : op === 'DELETE'
          ? `REFERENCING OLD TABLE AS ${OLD_ROWS} FOR EACH STATEMENT`
          : `REFERENCING OLD TABLE AS ${OLD_ROWS} NEW TABLE AS ${NEW_ROWS} FOR EACH STATEMENT`;
    await client.query(
      `CREATE TRIGGER ${q(databaseTriggerName(spec.name, op))} AFTER ${op} ON ${table} ${each} EXECUTE FUNCTION ${functionName(spec.name, op === 'UPDATE')}()`,
    );
  }
}
