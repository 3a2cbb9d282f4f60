/**
 * Multiplexed live queries on PostgreSQL: one statement answers a batch of
 * subscribers of one cohort, and statement-level triggers say when a table a
 * cohort reads changed. The backend half of Note [Refetch on change] in
 * subscriptions/live-queries.ts.
 *
 * Note [Multiplexed live queries]
 * A cohort's read statement (compiled once, placeholders `$1..$n` filled per
 * request from variables and session variables) becomes
 *
 *   SELECT "_subs"."__i", (<the statement, $k → ("_subs"."__p<k>")::<type k>>)
 *   FROM unnest($1::int4[], $2::text[], …, $n+1::text[]) AS "_subs"("__i", "__p1", …)
 *
 * one row per distinct set of values: parameter k of every subscriber of the
 * batch travels in the text array $k+1, in the text form the driver would
 * have sent for the single statement (pg's own prepareValue, arrays as array
 * literals), and is cast back to the type PostgreSQL infers for $k in the
 * single statement. Those types are asked once per cohort (PREPARE, then
 * pg_prepared_statements.parameter_types), so a subscriber's values mean
 * exactly what they mean over HTTP, permissions (session variables are
 * parameters like any other) included. `$k` is rewritten only outside quoted
 * identifiers and string literals, the only places the fragment compiler
 * writes text a user may have chosen.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { ChangedRows, ChangeFeed, LiveQuerySupport, MultiplexedStatement, RunOptions, SourceConnection, TableName, WatchedTable } from '../backend.ts';
import type { CompiledSql } from '../sql/fragment.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { PostgresConnection, type PgQueryable } from './connection.ts';
import { POSTGRES_DIALECT } from './dialect.ts';

/** The driver's own text form of a parameter value (arrays as array literals). */
const prepareValue = (pg as unknown as { utils: { prepareValue(v: unknown): unknown } }).utils.prepareValue;

/** Returns every value as its text form. */
const textTypes: pg.CustomTypesConfig = { getTypeParser: () => (value: string) => value };

/** The channel the change triggers notify on. */
export const CHANGE_CHANNEL = 'engine_live_change';
const LIVE_SCHEMA = 'engine_live';
const TRIGGER_NAME = 'engine_live_change';

/** Named prepared statements a process gives multiplexed texts at most (later ones run unnamed). */
const MAX_NAMED = 1000;
let namedCount = 0;
const names = new Map<string, string>();

function own(conn: SourceConnection): PostgresConnection {
  if (conn instanceof PostgresConnection) return conn;
  throw new EngineError(ErrorCode.Unexpected, `a ${conn.kind} connection was given to the postgres backend`);
}

/** `text` with each placeholder `$n` outside quotes replaced by `replace(n)`. */
export function rewritePlaceholders(text: string, replace: (n: number) => string): string {
  let out = '';
  let i = 0;
  const len = text.length;
  while (i < len) {
    const c = text[i] as string;
    if (c === '"' || c === "'") {
      // A quoted identifier or a standard-conforming string literal; a doubled quote stays inside.
      let j = i + 1;
      for (;;) {
        const k = text.indexOf(c, j);
        if (k === -1) {
          j = len;
          break;
        }
        if (text[k + 1] === c) {
          j = k + 2;
          continue;
        }
        j = k + 1;
        break;
      }
      out += text.slice(i, j);
      i = j;
      continue;
    }
    if (c === '$') {
      let j = i + 1;
      while (j < len && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
      if (j > i + 1) {
        out += replace(Number(text.slice(i + 1, j)));
        i = j;
        continue;
      }
    }
    out += c;
    i++;
  }
  return out;
}

/** The types PostgreSQL infers for the parameters of `text` (as `regtype` text, usable in casts). */
async function parameterTypes(conn: PostgresConnection, text: string, count: number): Promise<string[]> {
  if (count === 0) return [];
  const client = await (conn.queryable as pg.Pool).connect();
  let broken = false;
  try {
    await client.query(`PREPARE engine_live_probe AS ${text}`);
    try {
      const res = await client.query<{ t: string[] }>({
        text: "SELECT parameter_types::text[] AS t FROM pg_prepared_statements WHERE name = 'engine_live_probe'",
      });
      const types = res.rows[0]?.t;
      if (types === undefined || types.length !== count) throw new EngineError(ErrorCode.Unexpected, 'the parameter types of a live query could not be read');
      return types;
    } finally {
      await client.query('DEALLOCATE engine_live_probe').catch(() => {
        broken = true;
      });
    }
  } finally {
    client.release(broken);
  }
}

/** The multiplexed text of `stmt` (Note [Multiplexed live queries]). */
export function multiplexedText(stmt: CompiledSql, types: readonly string[]): string {
  const inner = rewritePlaceholders(stmt.text, (n) => `("_subs"."__p${n}")::${types[n - 1] ?? 'text'}`);
  const cols = ['"__i"', ...types.map((_, k) => `"__p${k + 1}"`)].join(', ');
  const arrays = ['$1::int4[]', ...types.map((_, k) => `$${k + 2}::text[]`)].join(', ');
  return `SELECT "_subs"."__i", (${inner}) FROM unnest(${arrays}) AS "_subs"(${cols})`;
}

interface PlanNode {
  readonly 'Node Type'?: string;
  readonly 'Relation Name'?: string;
  readonly Schema?: string;
  readonly 'Function Name'?: string;
  readonly Alias?: string;
  readonly Plans?: readonly PlanNode[];
}

/**
 * The tables a plan reads, or null when it calls a function whose reads the
 * plan does not show (then only polling sees its changes).
 */
function tablesOf(root: PlanNode): TableName[] | null {
  const seen = new Map<string, TableName>();
  const stack: PlanNode[] = [root];
  while (stack.length > 0) {
    const n = stack.pop() as PlanNode;
    if (n['Relation Name'] !== undefined && n.Schema !== undefined)
      seen.set(JSON.stringify([n.Schema, n['Relation Name']]), { schema: n.Schema, name: n['Relation Name'] });
    // The batch's own unnest is `_subs` (a multi-array unnest shows no function name); any other function may read anything.
    if (n['Node Type'] === 'Function Scan' && n.Alias !== '_subs') return null;
    for (const c of n.Plans ?? []) stack.push(c);
  }
  return [...seen.values()];
}

/** The tables the multiplexed statement reads, from its plan for an empty batch. */
async function tablesRead(conn: PostgresConnection, text: string, count: number): Promise<TableName[] | null> {
  const values = new Array<unknown>(count + 1).fill([]);
  const res = await (conn.queryable as pg.Pool).query({ text: `EXPLAIN (VERBOSE, FORMAT JSON) ${text}`, values, rowMode: 'array', types: textTypes });
  const cell = (res.rows[0] as unknown[] | undefined)?.[0];
  const plan = (JSON.parse(String(cell)) as { Plan: PlanNode }[])[0]?.Plan;
  return plan === undefined ? null : tablesOf(plan);
}

class PostgresMultiplexed implements MultiplexedStatement {
  readonly text: string;
  readonly tables: readonly TableName[] | null;
  readonly #conn: PostgresConnection;
  readonly #count: number;
  readonly #name: string | undefined;

  constructor(conn: PostgresConnection, text: string, count: number, tables: readonly TableName[] | null) {
    this.#conn = conn;
    this.text = text;
    this.#count = count;
    this.tables = tables;
    let name = names.get(text);
    if (name === undefined && namedCount < MAX_NAMED) {
      name = `engine_lq_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
      names.set(text, name);
      namedCount++;
    }
    this.#name = name;
  }

  async run(batch: readonly (readonly unknown[])[], opts?: RunOptions): Promise<(string | null)[]> {
    const ids: number[] = [];
    const columns: unknown[][] = Array.from({ length: this.#count }, () => []);
    batch.forEach((values, i) => {
      ids.push(i);
      for (let k = 0; k < this.#count; k++) (columns[k] as unknown[]).push(prepareValue(values[k]));
    });
    const config: pg.QueryArrayConfig = { text: this.text, values: [ids, ...columns], rowMode: 'array', types: textTypes };
    if (this.#name !== undefined) config.name = this.#name;
    const rows = await this.#conn.queryRows(config, opts);
    const out = new Array<string | null>(batch.length).fill(null);
    for (const row of rows) {
      const cell = row[1];
      out[Number(row[0])] = cell === null || cell === undefined ? null : String(cell);
    }
    return out;
  }
}

/*
 * Note [Change reports with rows]
 * The backend half of Note [Row-level refetch] (subscriptions/live-queries.ts).
 * A watched table has either
 * - one statement-level trigger `engine_live_change` on INSERT, UPDATE,
 *   DELETE and TRUNCATE that notifies `[schema, table]` (any row may have
 *   changed), when no live query keys its rows; or
 * - statement-level triggers with transition tables, one per event
 *   (PostgreSQL allows transition tables only on single-event triggers):
 *   `engine_live_rows_{insert,update,delete}` run the table's own function
 *   `engine_live.rows_<hash of the table's name>(<columns>)`, whose query
 *   names the key columns (quoted identifiers, the body a string literal),
 *   which notifies `[schema, table, columns, keys]`, `keys` the tuples of
 *   those columns' values over the statement's old and new rows (each value
 *   `column::text`, for the key types the text `to_jsonb(row) ->> column`
 *   gives: the canonical text keyText compares with; duplicates, such as an
 *   UPDATE's old and new keys, are folded by the reader, and by the trigger
 *   only when the payload is too long), and `engine_live_truncate` notifies
 *   `[schema, table]`. A statement that changed no row notifies nothing.
 *   Past 100 rows (200 old and new for an UPDATE), a key column renamed or
 *   dropped since the function was made (its query fails with
 *   undefined_column inside a block that catches it) or a payload over
 *   7,900 bytes (NOTIFY's limit is 8,000) the report is `[schema, table]`
 *   again: the notification stays bounded and the write never fails for
 *   it. Only the first 101 rows of a transition table are read.
 * The columns are the trigger's arguments, the union of what every engine
 * asked for (read back from pg_trigger.tgargs): they only grow, and the
 * function is made again with them. A column is left out when its
 * collation is nondeterministic (equal values of another text) or its type
 * is not one keyText compares; a table whose triggers with transition
 * tables cannot be made (a partition, a view) keeps the plain one. Row
 * triggers of an older engine, on one generic function for every table
 * (notify_rows_<n>), are made again on the table's own.
 * The cost is the writing statement's: PostgreSQL keeps its rows in a
 * tuplestore for the trigger, which reads up to 101 of them. The generic
 * function read each row as `to_jsonb(row)` and its columns by name
 * (`j ->> TG_ARGV[k]`): converting a whole row to jsonb was most of its
 * cost. Measured with `node test/bench/live-trigger-cost.ts --before
 * <worktree of e4d23ec>` (one table per mode, single-row UPDATEs of the
 * modes interleaved, backend CPU from schedstat; 2026-11-28, two runs at
 * load average 7-9, which inflates every figure alike): over no trigger,
 * the table-only trigger +22.8 / +23.7 µs, the generic function +90.3 /
 * +94.4 µs, the table's own function +62.0 / +63.9 µs (-31%; over the
 * table-only trigger 67-71 → 39-40 µs). An earlier experiment on a quieter
 * machine (none 24.7 µs, table-only 35.9) put it at 54.7 µs, against about
 * 51 for the same query without the block that catches a renamed column
 * and without the bound checks (the block costs about 1 µs: it starts no
 * transaction id). A row-level trigger with the columns written in cost
 * about what the table-only one does, but notifies once per row: a
 * 10,000-row UPDATE would send 10,000 reports, so it was not taken. So
 * the row triggers are made only for tables some live query keys; against
 * their cost, a change refetches one group instead of every group of every
 * cohort reading the table (the subscriptions bench: 10 statements of 100
 * groups per change before, 1 after).
 */

/** The types whose `to_jsonb(row) ->> column` keyText reproduces from a bound value. */
const KEY_TYPES = new Set(['int2', 'int4', 'int8', 'serial', 'bigserial', 'smallserial', 'text', 'varchar', 'uuid', 'bool']);
const INTEGER_TYPES = new Set(['int2', 'int4', 'int8', 'serial', 'bigserial', 'smallserial']);
const ROW_TRIGGERS = ['engine_live_rows_insert', 'engine_live_rows_update', 'engine_live_rows_delete'] as const;
/** At most this many rows per statement are reported (twice that, old and new, for an UPDATE). */
const MAX_REPORTED_ROWS = 100;

/** The text `to_jsonb(row) ->> column` gives for a `dbType` column equal to `value`, or null when unsure. */
export function keyText(dbType: string, value: unknown): string | null {
  if (INTEGER_TYPES.has(dbType)) {
    if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : null;
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'string' && /^\s*[+-]?\d{1,19}\s*$/.test(value)) return BigInt(value.trim()).toString();
    return null;
  }
  if (dbType === 'text' || dbType === 'varchar') return typeof value === 'string' ? value : null;
  if (dbType === 'uuid') {
    if (typeof value !== 'string') return null;
    // PostgreSQL reads upper case, braces and hyphens after any group of four digits; it writes one form.
    const hex = value
      .trim()
      .replace(/^\{(.*)\}$/, '$1')
      .replaceAll('-', '')
      .toLowerCase();
    if (!/^[0-9a-f]{32}$/.test(hex)) return null;
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
  if (dbType === 'bool') return typeof value === 'boolean' ? String(value) : null;
  return null;
}

const NOTIFY_CHANGE_SQL = `CREATE OR REPLACE FUNCTION ${LIVE_SCHEMA}.notify_change() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN PERFORM pg_notify('${CHANGE_CHANNEL}', json_build_array(TG_TABLE_SCHEMA, TG_TABLE_NAME)::text); RETURN NULL; END $f$`;

/** The report function of one table (Note [Change reports with rows]): `rows_` and a hash of its name. */
export function rowsFunction(t: TableName): { schema: string; name: string } {
  return {
    schema: LIVE_SCHEMA,
    name: `rows_${createHash('sha1')
      .update(JSON.stringify([t.schema, t.name]))
      .digest('hex')
      .slice(0, 24)}`,
  };
}

/**
 * The report function of one table with its key columns written in (Note [Change reports with rows]);
 * engine_old / engine_new are the transition tables, TG_ARGV the same columns (what the payload names).
 */
export function rowsFunctionSql(fn: { schema: string; name: string }, columns: readonly string[]): string {
  const q = POSTGRES_DIALECT.quoteIdent;
  const pick = (rel: string): string => `(SELECT ${columns.map((c, i) => `${q(c)} AS k${i}`).join(', ')} FROM ${rel} LIMIT ${MAX_REPORTED_ROWS + 1})`;
  // `::text` of the KEY_TYPES is the text `to_jsonb(row) ->> column` gives, the form keyText reproduces.
  const key = `jsonb_build_array(${columns.map((_, i) => `k${i}::text`).join(', ')})`;
  const report = 'json_build_array(TG_TABLE_SCHEMA, TG_TABLE_NAME, to_json(TG_ARGV), keys)::text';
  const tableOnly = 'json_build_array(TG_TABLE_SCHEMA, TG_TABLE_NAME)::text';
  const body = `DECLARE
  n int;
  keys jsonb;
  payload text;
  sent boolean;
BEGIN
  BEGIN
    IF TG_OP = 'UPDATE' THEN
      SELECT count(*)::int / 2, jsonb_agg(${key}) INTO n, keys FROM (${pick('engine_old')} UNION ALL ${pick('engine_new')}) x;
    ELSIF TG_OP = 'INSERT' THEN
      SELECT count(*)::int, jsonb_agg(${key}) INTO n, keys FROM ${pick('engine_new')} x;
    ELSE
      SELECT count(*)::int, jsonb_agg(${key}) INTO n, keys FROM ${pick('engine_old')} x;
    END IF;
  EXCEPTION WHEN undefined_column THEN
    -- A key column renamed or dropped since the function was made: the table alone, the write goes on.
    n := -1;
  END;
  IF n BETWEEN 1 AND ${MAX_REPORTED_ROWS} THEN
    -- Duplicates (an UPDATE's old and new keys) are left to the reader unless the payload is too long.
    payload := ${report};
    IF octet_length(payload) > 7900 THEN
      SELECT jsonb_agg(DISTINCT k) INTO keys FROM jsonb_array_elements(keys) k;
      payload := ${report};
      IF octet_length(payload) > 7900 THEN payload := ${tableOnly}; END IF;
    END IF;
  ELSIF n = 0 THEN
    RETURN NULL;
  ELSE
    payload := ${tableOnly};
  END IF;
  -- An assignment, not PERFORM: evaluated without a query of its own.
  sent := pg_notify('${CHANGE_CHANNEL}', payload) IS NULL;
  RETURN NULL;
END`;
  return `CREATE OR REPLACE FUNCTION ${q(fn.schema)}.${q(fn.name)}() RETURNS trigger LANGUAGE plpgsql AS ${POSTGRES_DIALECT.quoteString(body)}`;
}

/** The arguments of a trigger as pg_trigger.tgargs stores them (each followed by a NUL byte). */
function triggerArgs(raw: unknown): string[] {
  const buf = Buffer.isBuffer(raw) ? raw : Buffer.from(String(raw ?? ''), 'latin1');
  const text = buf.toString('utf8');
  return text === '' ? [] : text.split('\0').slice(0, -1);
}

/** Installs the change triggers of one table (Note [Change reports with rows]). */
async function watchTable(c: PgQueryable, t: WatchedTable): Promise<void> {
  const q = POSTGRES_DIALECT.quoteIdent;
  const lit = POSTGRES_DIALECT.quoteString;
  const rel = `${q(t.table.schema)}.${q(t.table.name)}`;
  const fn = rowsFunction(t.table);
  const existing = await c.query<{ name: string; args: unknown; fn: string; fnSchema: string }>(
    `SELECT g.tgname AS name, g.tgargs AS args, p.proname AS fn, pn.nspname AS "fnSchema" FROM pg_trigger g JOIN pg_class r ON r.oid = g.tgrelid JOIN pg_namespace n ON n.oid = r.relnamespace
       JOIN pg_proc p ON p.oid = g.tgfoid JOIN pg_namespace pn ON pn.oid = p.pronamespace
     WHERE n.nspname = $1 AND r.relname = $2 AND g.tgname LIKE 'engine\\_live\\_%'`,
    [t.table.schema, t.table.name],
  );
  const names = new Set(existing.rows.map((r) => r.name));
  // Row triggers of an older engine (one generic function for every table) are made again with the table's own.
  const rowsInstalled =
    ROW_TRIGGERS.every((n) => existing.rows.some((r) => r.name === n && r.fn === fn.name && r.fnSchema === fn.schema)) && names.has('engine_live_truncate');
  const have = new Set(existing.rows.filter((r) => r.name === 'engine_live_rows_insert').flatMap((r) => triggerArgs(r.args)));
  let wanted = [...new Set([...have, ...t.columns])].sort();
  if (wanted.length > 0 && !(rowsInstalled && wanted.every((col) => have.has(col)))) {
    // Columns whose text equality is PostgreSQL's equality.
    const usable = await c.query<{ name: string }>(
      `SELECT a.attname AS name FROM pg_attribute a JOIN pg_type ty ON ty.oid = a.atttypid LEFT JOIN pg_collation co ON co.oid = a.attcollation
       WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attname = ANY($2::text[]) AND ty.typname = ANY($3::text[])
         AND (co.oid IS NULL OR co.collisdeterministic)`,
      [rel, wanted, [...KEY_TYPES]],
    );
    wanted = usable.rows.map((r) => r.name).sort();
  }
  if (wanted.length === 0) {
    if (names.size === 0)
      await c.query(
        `CREATE TRIGGER ${q(TRIGGER_NAME)} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${rel} FOR EACH STATEMENT EXECUTE PROCEDURE ${LIVE_SCHEMA}.notify_change()`,
      );
    return;
  }
  if (rowsInstalled && wanted.every((col) => have.has(col))) return;
  const args = wanted.map(lit).join(', ');
  const proc = `${q(fn.schema)}.${q(fn.name)}`;
  await c.query('SAVEPOINT engine_live_rows');
  try {
    await c.query(rowsFunctionSql(fn, wanted));
    for (const n of names) await c.query(`DROP TRIGGER ${q(n)} ON ${rel}`);
    await c.query(
      `CREATE TRIGGER engine_live_rows_insert AFTER INSERT ON ${rel} REFERENCING NEW TABLE AS engine_new FOR EACH STATEMENT EXECUTE PROCEDURE ${proc}(${args})`,
    );
    await c.query(
      `CREATE TRIGGER engine_live_rows_update AFTER UPDATE ON ${rel} REFERENCING OLD TABLE AS engine_old NEW TABLE AS engine_new FOR EACH STATEMENT EXECUTE PROCEDURE ${proc}(${args})`,
    );
    await c.query(
      `CREATE TRIGGER engine_live_rows_delete AFTER DELETE ON ${rel} REFERENCING OLD TABLE AS engine_old FOR EACH STATEMENT EXECUTE PROCEDURE ${proc}(${args})`,
    );
    await c.query(`CREATE TRIGGER engine_live_truncate AFTER TRUNCATE ON ${rel} FOR EACH STATEMENT EXECUTE PROCEDURE ${LIVE_SCHEMA}.notify_change()`);
    await c.query('RELEASE SAVEPOINT engine_live_rows');
  } catch {
    // Transition tables refused here (a partition, a view): whole-table reports, as before.
    await c.query('ROLLBACK TO SAVEPOINT engine_live_rows');
    if (names.size === 0)
      await c.query(
        `CREATE TRIGGER ${q(TRIGGER_NAME)} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${rel} FOR EACH STATEMENT EXECUTE PROCEDURE ${LIVE_SCHEMA}.notify_change()`,
      );
  }
}

/** Change triggers on `tables` (Note [Change reports with rows]). */
async function watchTables(conn: PostgresConnection, tables: readonly WatchedTable[]): Promise<void> {
  await conn.withTransaction(async (c) => {
    // One installer at a time across engines sharing the database.
    await c.query("SELECT pg_advisory_xact_lock(hashtext('engine_live_install'))");
    await c.query(`CREATE SCHEMA IF NOT EXISTS ${LIVE_SCHEMA}`);
    await c.query(NOTIFY_CHANGE_SQL);
    for (const t of tables) await watchTable(c, t);
  });
}

/** A change report's payload (Note [Change reports with rows]) as the table and its rows; null when not ours. */
export function parseChange(payload: string): { table: TableName; rows: ChangedRows | null } | null {
  let v: unknown;
  try {
    v = JSON.parse(payload);
  } catch {
    return null;
  }
  if (!Array.isArray(v) || typeof v[0] !== 'string' || typeof v[1] !== 'string') return null;
  const table = { schema: v[0], name: v[1] };
  const columns: unknown = v[2];
  const keys: unknown = v[3];
  if (!Array.isArray(columns) || !Array.isArray(keys) || !columns.every((c) => typeof c === 'string')) return { table, rows: null };
  const rows: (string | null)[][] = [];
  for (const k of keys) {
    if (!Array.isArray(k) || k.length !== columns.length || !k.every((x) => x === null || typeof x === 'string')) return { table, rows: null };
    rows.push(k as (string | null)[]);
  }
  return { table, rows: { columns: columns as string[], rows } };
}

/** A LISTEN connection on CHANGE_CHANNEL, reconnecting after a loss (each loss reported: changes may have been missed). */
class PostgresChangeFeed implements ChangeFeed {
  /** The source's own client settings (SSL included: Note [Source SSL] in ssl.ts). */
  readonly #config: Readonly<pg.ClientConfig>;
  readonly #changed: (t: TableName, rows: ChangedRows | null) => void;
  readonly #lost: () => void;
  #client: pg.Client | null = null;
  #closed = false;
  #retry: NodeJS.Timeout | null = null;

  constructor(config: Readonly<pg.ClientConfig>, changed: (t: TableName, rows: ChangedRows | null) => void, lost: () => void) {
    this.#config = config;
    this.#changed = changed;
    this.#lost = lost;
  }

  async connect(): Promise<void> {
    const client = new pg.Client({ ...this.#config });
    client.on('notification', (m) => {
      if (m.channel !== CHANGE_CHANNEL || m.payload === undefined) return;
      // Not ours: ignored.
      const change = parseChange(m.payload);
      if (change !== null) this.#changed(change.table, change.rows);
    });
    const onLoss = (): void => {
      if (this.#client !== client) return;
      this.#client = null;
      client.removeAllListeners('error');
      client.on('error', () => {});
      void client.end().catch(() => {});
      if (this.#closed) return;
      this.#lost();
      this.#retry = setTimeout(() => {
        this.#retry = null;
        this.connect().catch(() => onLoss());
      }, 500);
    };
    client.on('error', onLoss);
    client.on('end', onLoss);
    this.#client = client;
    await client.connect();
    await client.query(`LISTEN ${CHANGE_CHANNEL}`);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry !== null) clearTimeout(this.#retry);
    const c = this.#client;
    this.#client = null;
    if (c !== null) await c.end().catch(() => {});
  }
}

/** The live-query support of the postgres backend. */
export const postgresLiveQueries: LiveQuerySupport = {
  async multiplex(conn, stmt) {
    const pc = own(conn);
    const types = await parameterTypes(pc, stmt.text, stmt.params.length);
    const text = multiplexedText(stmt, types);
    return new PostgresMultiplexed(pc, text, types.length, await tablesRead(pc, text, types.length));
  },
  watchTables: async (conn, tables) => await watchTables(own(conn), tables),
  keyText,
  async listen(conn, changed, lost) {
    const feed = new PostgresChangeFeed(own(conn).clientConfig, changed, lost);
    try {
      await feed.connect();
    } catch (e) {
      await feed.close();
      throw e;
    }
    return feed;
  },
};
