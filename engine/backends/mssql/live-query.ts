/**
 * Multiplexed live queries on SQL Server: one statement answers a batch of
 * subscribers of one cohort. There is no change feed (no LISTEN): every
 * cohort is polled (`tables: null`), as v2 polls its MSSQL subscriptions.
 *
 * Note [MSSQL multiplexed live queries]
 * As v2's MSSQL (multiplexRootReselect in its Instances/Execute.hs), the
 * subscribers' values travel as one JSON array read with OPENJSON, and the
 * cohort's read statement (compile.ts: `SELECT (... FOR JSON ...) AS [data]`)
 * is evaluated once per row of it:
 *
 *   SELECT [_subs].[__i], (<the statement, @pk → [_subs].[__pk]>) AS [data]
 *   FROM OPENJSON(@p1) WITH ([__i] INT N'$."i"', [__p2] INT N'$."p2"', ...) AS [_subs]
 *
 * one row per subscriber, `__i` its place in the batch, `data` its JSON text
 * (a scalar subquery: one nvarchar(max) value, never split across rows).
 * Each parameter's column has the type its value would have been sent with
 * (connection.ts, tediousParameter), so a subscriber's values mean what they
 * mean over HTTP, permissions (session variables) included; JSON carries them
 * as tediousParameter converts them (bigint as text, binary as base64, which
 * OPENJSON reads back exactly).
 * - SQL Server refuses an outer column in `OFFSET`/`FETCH` (a limit, an
 *   offset): the parameters there stay parameters of the batch statement
 *   (`@p2`, ...), and the subscribers of a batch are grouped by their values
 *   (in practice one group: a cohort's limits are mostly literals).
 * - An untyped parameter's type follows its value (tediousParameter): the
 *   subscribers are grouped by those types too, one statement per group.
 * - `@pk` is rewritten only outside `[identifiers]` and `N'strings'`, the
 *   only places the fragment compiler writes text a user may have chosen.
 */
import { tedious } from './driver.ts';
import type { LiveQuerySupport, MultiplexedStatement, RunOptions, SourceConnection } from '../backend.ts';
import type { CompiledSql, ParamType } from '../sql/fragment.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { MssqlConnection, tediousParameter } from './connection.ts';

function own(conn: SourceConnection): MssqlConnection {
  if (conn instanceof MssqlConnection) return conn;
  throw new EngineError(ErrorCode.Unexpected, `a ${conn.kind} connection was given to the mssql backend`);
}

/** The spans of `text` outside `[...]` and `'...'` (a doubled `]` or `'` stays inside), as [start, end) pairs. */
function unquoted(text: string): Array<readonly [number, number]> {
  const out: Array<readonly [number, number]> = [];
  let start = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c !== '[' && c !== "'") {
      i++;
      continue;
    }
    out.push([start, i]);
    const close = c === '[' ? ']' : "'";
    let j = i + 1;
    for (;;) {
      const k = text.indexOf(close, j);
      if (k === -1) {
        j = text.length;
        break;
      }
      if (text[k + 1] === close) {
        j = k + 2;
        continue;
      }
      j = k + 1;
      break;
    }
    i = j;
    start = j;
  }
  out.push([start, text.length]);
  return out;
}

const PLACEHOLDER = /@p(\d+)/g;

/** `text` with each placeholder `@pN` outside quotes replaced by `replace(N)`. */
export function rewritePlaceholders(text: string, replace: (n: number) => string): string {
  let out = '';
  let last = 0;
  for (const [from, to] of unquoted(text)) {
    out += text.slice(last, from);
    out += text.slice(from, to).replace(PLACEHOLDER, (_, n: string) => replace(Number(n)));
    last = to;
  }
  return out + text.slice(last);
}

/** The parameters (1-based) inside `OFFSET ... ROWS` and `FETCH NEXT ... ROWS ONLY`, which may not read an outer column. */
export function rowCountParameters(text: string): Set<number> {
  // Quoted text blanked out (same length), so that only the compiler's own keywords and placeholders are seen.
  let masked = '';
  let last = 0;
  for (const [from, to] of unquoted(text)) {
    masked += ' '.repeat(from - last) + text.slice(from, to);
    last = to;
  }
  masked += ' '.repeat(text.length - last);
  const out = new Set<number>();
  for (const m of masked.matchAll(/ OFFSET (.*?) ROWS(?: FETCH NEXT (.*?) ROWS ONLY)?/g)) {
    for (const part of [m[1], m[2]]) for (const p of (part ?? '').matchAll(PLACEHOLDER)) out.add(Number(p[1]));
  }
  return out;
}

/** The T-SQL type OPENJSON reads a value as: the type tedious would have sent it with. */
function sqlTypeOf(type: ParamType | null, value: unknown): string {
  const T = tedious().TYPES;
  switch (tediousParameter(type, value).type) {
    case T.Bit:
      return 'BIT';
    case T.TinyInt:
      return 'TINYINT';
    case T.SmallInt:
      return 'SMALLINT';
    case T.Int:
      return 'INT';
    case T.BigInt:
      return 'BIGINT';
    case T.Float:
      return 'FLOAT';
    case T.VarChar:
      return 'VARCHAR(MAX)';
    case T.VarBinary:
      return 'VARBINARY(MAX)';
    default:
      return 'NVARCHAR(MAX)';
  }
}

/** A value as the JSON of the batch carries it (tediousParameter's value; binary as base64). */
function jsonValueOf(type: ParamType | null, value: unknown): unknown {
  const v = tediousParameter(type, value).value;
  return Buffer.isBuffer(v) ? v.toString('base64') : (v ?? null);
}

/**
 * The multiplexed text of `stmt` (Note [MSSQL multiplexed live queries]):
 * `types[k-1]` the column type of per-subscriber parameter k, `shared` the
 * parameters kept as parameters of the batch statement, in that order from `@p2`.
 */
export function multiplexedText(stmt: CompiledSql, types: readonly string[], shared: readonly number[]): string {
  const sharedAt = new Map(shared.map((n, i) => [n, i + 2]));
  const inner = rewritePlaceholders(stmt.text, (n) => {
    const at = sharedAt.get(n);
    return at === undefined ? `[_subs].[__p${n}]` : `@p${at}`;
  });
  const cols = ['[__i] INT N\'$."i"\''];
  types.forEach((t, k) => {
    if (!sharedAt.has(k + 1)) cols.push(`[__p${k + 1}] ${t} N'$."p${k + 1}"'`);
  });
  return `SELECT [_subs].[__i] AS [__i], (${inner}) AS [data] FROM OPENJSON(@p1) WITH (${cols.join(', ')}) AS [_subs]`;
}

class MssqlMultiplexed implements MultiplexedStatement {
  readonly text: string;
  readonly tables = null;
  readonly #conn: MssqlConnection;
  readonly #stmt: CompiledSql;
  readonly #shared: readonly number[];
  readonly #count: number;
  readonly #texts = new Map<string, string>();

  constructor(conn: MssqlConnection, stmt: CompiledSql) {
    this.#conn = conn;
    this.#stmt = stmt;
    this.#count = stmt.params.length;
    this.#shared = [...rowCountParameters(stmt.text)].filter((n) => n <= this.#count).sort((a, b) => a - b);
    this.text = this.#textFor(this.#typesOf(new Array<unknown>(this.#count).fill(null)));
  }

  #typesOf(values: readonly unknown[]): string[] {
    return Array.from({ length: this.#count }, (_, k) => sqlTypeOf(this.#stmt.paramTypes[k] ?? null, values[k]));
  }

  #textFor(types: readonly string[]): string {
    const key = types.join(',');
    let text = this.#texts.get(key);
    if (text === undefined) {
      text = multiplexedText(this.#stmt, types, this.#shared);
      this.#texts.set(key, text);
    }
    return text;
  }

  async run(batch: readonly (readonly unknown[])[], opts?: RunOptions): Promise<(string | null)[]> {
    const types = this.#stmt.paramTypes;
    // Subscribers whose statement is the same (column types) with the same shared values.
    const groups = new Map<string, { types: string[]; shared: unknown[]; members: number[] }>();
    batch.forEach((values, i) => {
      const colTypes = this.#typesOf(values);
      const shared = this.#shared.map((n) => values[n - 1] ?? null);
      const key = JSON.stringify([colTypes, shared]);
      const g = groups.get(key);
      if (g === undefined) groups.set(key, { types: colTypes, shared, members: [i] });
      else g.members.push(i);
    });
    const out = new Array<string | null>(batch.length).fill(null);
    for (const g of groups.values()) {
      const rows = g.members.map((i, at) => {
        const row: Record<string, unknown> = { i: at };
        const values = batch[i] as readonly unknown[];
        for (let k = 0; k < this.#count; k++) if (!this.#shared.includes(k + 1)) row[`p${k + 1}`] = jsonValueOf(types[k] ?? null, values[k]);
        return row;
      });
      const text = this.#textFor(g.types);
      const result = await this.#conn.queryRows(
        {
          text,
          values: [JSON.stringify(rows), ...g.shared],
          types: [{ dbType: 'nvarchar', list: false }, ...this.#shared.map((n) => types[n - 1] ?? null)],
        },
        opts,
      );
      for (const row of result) {
        const member = g.members[Number(row[0])];
        const cell = row[1];
        if (member !== undefined) out[member] = cell === null || cell === undefined ? null : String(cell);
      }
    }
    return out;
  }
}

/** Live queries of MSSQL sources: multiplexed and polled. */
export const mssqlLiveQueries: LiveQuerySupport = {
  multiplex: (conn, stmt) => Promise.resolve(new MssqlMultiplexed(own(conn), stmt)),
};
