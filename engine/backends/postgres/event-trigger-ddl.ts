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
 * - INSERT and DELETE are captured once per statement (`FOR EACH STATEMENT`
 *   with a transition table): one `INSERT … SELECT` writes an event per row,
 *   in the order the statement changed them, and one NOTIFY follows when
 *   it wrote any. UPDATE stays a row trigger, which pairs OLD with NEW.
 *   Payloads are built as jsonb (`to_jsonb`, `jsonb_build_object`), the
 *   column's type, where they used to be built as json text and parsed again
 *   into the jsonb column; the stored payload is the same. Measured with
 *   `node test/bench/event-log-cost.ts --engine-root <before>,<after>`
 *   (BEGIN, an engine-style `WITH … INSERT … RETURNING` statement setting
 *   `engine.session`, COMMIT; PostgreSQL CPU of the server process, median
 *   of three alternated rounds), issue 35: a statement of 100 rows 3.07 ms
 *   with the row trigger and json, 1.60-1.67 ms with the statement trigger
 *   (0.27-0.33 without a trigger); a single-row statement 0.15-0.17 ms
 *   either way (0.08-0.10 without): for one row the cost is the event row
 *   itself (each of its five index entries 5-10 µs under pgbench at 16
 *   clients), not how it is built.
 * - An update fires only when one of the `columns` changed: listed columns
 *   are compared by their text form, whole rows (`*`) with `*<>` (binary
 *   image inequality). Unlike `=` both work for every type, `json` included,
 *   at the price of a spurious event when a value is rewritten in another
 *   form of the same value (`1.0` → `1.00`).
 * - The session of the writing GraphQL request is the transaction-local
 *   setting `engine.session`, which each mutation statement sets
 *   (compile-mutation.ts); other writers have none, so it is null.
 * - Every capturing statement (or updated row) sends `NOTIFY engine_events`;
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
 * The jsonb of a row's payload: all columns, or the listed ones (names as identifiers). `row` is
 * OLD/NEW or a transition table's alias; `.*` keeps it a whole-row reference even when the table
 * has a column of that name.
 */
function rowJson(row: string, payload: CaptureOperation['payload']): string {
  if (payload === '*') return `to_jsonb(${row}.*)`;
  const cols = payload.map((c) => `${row}.${q(c)} AS ${q(c)}`).join(', ');
  return `(SELECT to_jsonb(x.*) FROM (SELECT ${cols}) AS x)`;
}

/** True when one of `columns` differs between OLD and NEW (see Note [Capture triggers]). */
function changed(columns: CaptureOperation['columns']): string {
  if (columns === '*') return 'OLD *<> NEW';
  if (columns.length === 0) return 'false';
  return columns.map((c) => `(OLD.${q(c)})::text IS DISTINCT FROM (NEW.${q(c)})::text`).join(' OR ');
}

/** The text naming the changed row `row` (primary key values), or NULL for a table without one. */
function rowKey(columns: readonly string[], row: string): string {
  if (columns.length === 0) return 'NULL';
  return columns.length === 1 ? `(${row}.${q(columns[0] ?? '')})::text` : `json_build_array(${columns.map((c) => `${row}.${q(c)}`).join(', ')})::text`;
}

/** The event trigger's name, from the database trigger's (prefix and `_<OP>` cut off). */
const TRIGGER_NAME = `substr(TG_NAME, ${TRIGGER_PREFIX.length + 1}, length(TG_NAME) - ${TRIGGER_PREFIX.length + 1} - length(TG_OP))`;

/** The event's payload from its `data` object. */
const payloadOf = (data: string): string => `jsonb_build_object('op', TG_OP, 'data', ${data}, 'session_variables', _session)`;

/** The statement of a statement-level capture: one event per row of the transition table `rows`. */
function captureRows(spec: CaptureSpec, rows: string, data: (alias: string) => string): string {
  return (
    `INSERT INTO ${EVENTS_SCHEMA}.event_log (schema_name, table_name, trigger_name, row_key, payload) ` +
    `SELECT TG_TABLE_SCHEMA, TG_TABLE_NAME, _name, ${rowKey(spec.rowKey, 'r')}, ${payloadOf(data('r'))} FROM ${rows} AS r;`
  );
}

/** The plpgsql body of one capture function. */
function functionBody(spec: CaptureSpec): string {
  const branches: string[] = [];
  const { insert, update } = spec;
  const del = spec.delete;
  if (insert !== undefined)
    branches.push(`IF TG_OP = 'INSERT' THEN ${captureRows(spec, NEW_ROWS, (r) => `jsonb_build_object('old', NULL, 'new', ${rowJson(r, insert.payload)})`)}`);
  if (del !== undefined)
    branches.push(`IF TG_OP = 'DELETE' THEN ${captureRows(spec, OLD_ROWS, (r) => `jsonb_build_object('old', ${rowJson(r, del.payload)}, 'new', NULL)`)}`);
  if (update !== undefined) {
    branches.push(
      `IF TG_OP = 'UPDATE' THEN IF NOT (${changed(update.columns)}) THEN RETURN NULL; END IF; ` +
        `INSERT INTO ${EVENTS_SCHEMA}.event_log (schema_name, table_name, trigger_name, row_key, payload) VALUES (TG_TABLE_SCHEMA, TG_TABLE_NAME, _name, ` +
        `${rowKey(spec.rowKey, 'NEW')}, ${payloadOf(`jsonb_build_object('old', ${rowJson('OLD', update.payload)}, 'new', ${rowJson('NEW', update.payload)})`)});`,
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

function functionName(trigger: string): string {
  return `${EVENTS_SCHEMA}.${q(`notify_${trigger}`)}`;
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
}

/** Brings a log of an earlier layout to the current one; the caller holds DDL_LOCK_KEY in its transaction. */
async function upgradeLayout(client: pg.ClientBase): Promise<void> {
  // A log made before rows were keyed (Note [Event log]) gets the column and its index; one with
  // the full index by trigger gets the partial one instead (Note [Lean event log]).
  await client.query(`ALTER TABLE ${EVENTS_SCHEMA}.event_log ADD COLUMN IF NOT EXISTS row_key text;
    CREATE INDEX IF NOT EXISTS event_log_row ON ${EVENTS_SCHEMA}.event_log (row_key, trigger_name, seq) WHERE NOT delivered AND NOT error AND NOT archived;
    CREATE INDEX IF NOT EXISTS event_log_done ON ${EVENTS_SCHEMA}.event_log (trigger_name, created_at) WHERE ${DONE};
    DROP INDEX IF EXISTS ${EVENTS_SCHEMA}.event_log_trigger`);
}

/**
 * Upgrades an existing log of an earlier layout (Note [Lean event log]); false when there was
 * nothing to do (no log, or already current). Delivery calls it once before its first take, so an
 * engine started on an older log upgrades it without a metadata change; the index is built under
 * the DDL lock, which holds back captures on a large log for the time of the build, once.
 */
export async function upgradeEventLog(client: pg.ClientBase): Promise<boolean> {
  const state = await client.query<{ old: boolean; done: boolean; keyed: boolean; log: boolean }>(
    `SELECT to_regclass('${EVENTS_SCHEMA}.event_log_trigger') IS NOT NULL AS old, to_regclass('${EVENTS_SCHEMA}.event_log_done') IS NOT NULL AS done,
       to_regclass('${EVENTS_SCHEMA}.event_log_row') IS NOT NULL AS keyed, to_regclass('${EVENTS_SCHEMA}.event_log') IS NOT NULL AS log`,
  );
  const row = state.rows[0];
  if (row === undefined || !row.log || (!row.old && row.done && row.keyed)) return false;
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
  await client.query(`DROP FUNCTION IF EXISTS ${functionName(name)}() CASCADE`);
}

/** Creates or replaces the capture of one event trigger (Note [Capture triggers]). */
export async function installCapture(client: pg.ClientBase, spec: CaptureSpec): Promise<void> {
  await ensureEventLog(client);
  const table = `${q(spec.table.schema)}.${q(spec.table.name)}`;
  // Dropping the function first also drops triggers left on another table by an earlier definition.
  await client.query(`DROP FUNCTION IF EXISTS ${functionName(spec.name)}() CASCADE`);
  // A trigger for manual invocation only captures nothing; it needs the log alone.
  if (spec.insert === undefined && spec.update === undefined && spec.delete === undefined) return;
  await client.query(`CREATE FUNCTION ${functionName(spec.name)}() RETURNS trigger LANGUAGE plpgsql AS ${dollarQuoted(functionBody(spec))}`);
  for (const op of OPERATIONS) {
    if (spec[op.toLowerCase() as 'insert' | 'update' | 'delete'] === undefined) continue;
    // Inserts and deletes: once per statement, over its transition table; updates: per row (Note [Capture triggers]).
    const each =
      op === 'INSERT'
        ? `REFERENCING NEW TABLE AS ${NEW_ROWS} FOR EACH STATEMENT`
        : op === 'DELETE'
          ? `REFERENCING OLD TABLE AS ${OLD_ROWS} FOR EACH STATEMENT`
          : 'FOR EACH ROW';
    await client.query(`CREATE TRIGGER ${q(databaseTriggerName(spec.name, op))} AFTER ${op} ON ${table} ${each} EXECUTE FUNCTION ${functionName(spec.name)}()`);
  }
}
