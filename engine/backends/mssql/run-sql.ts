/**
 * `mssql_run_sql` on SQL Server: the user's T-SQL runs as one batch
 * (tedious' execSqlBatch, several statements allowed) on a connection in a
 * transaction, and its answer is shaped as v2's (Note [MSSQL run_sql result]).
 */
import type Tedious from 'tedious';
import { tedious } from './driver.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError, isEngineError } from '../../errors/engine-error.ts';
import type { RunSqlResult } from '../backend.ts';

type TediousConnection = Tedious.Connection;

interface ColumnLike {
  readonly colName?: unknown;
  readonly type?: { readonly name?: unknown };
}

/*
 * Note [MSSQL run_sql result]
 * v2 (Hasura.Backends.MSSQL.DDL.RunSQL.toResult) answers the rows ODBC read:
 * none is `CommandOk` with a null result, even for a SELECT that matched no
 * row; else `TuplesOk` with the header (column names) then the rows, each
 * cell a JSON value (odbcValueToJValue): numbers and bits as JSON numbers and
 * booleans, text as strings, binary as base64. Of a batch of several
 * statements the engine answers the last result set (as run_sql does on
 * PostgreSQL). tedious reads dates and times as JS Dates (in UTC, its
 * default): they are written back as the ISO text of their SQL type, `date`
 * as `YYYY-MM-DD`, `time` as `HH:MM:SS.sss`, `datetimeoffset` with its `Z`,
 * the other date-times without a zone; bigint comes as text from tedious and
 * stays text.
 */

/** One cell of a run_sql row as a JSON value (Note [MSSQL run_sql result]). */
export function runSqlCell(value: unknown, typeName: string): unknown {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) {
    const iso = value.toISOString();
    if (typeName === 'Date') return iso.slice(0, 10);
    if (typeName === 'Time') return iso.slice(11, 23);
    if (typeName === 'DateTimeOffset') return iso;
    return iso.slice(0, 23);
  }
  if (Buffer.isBuffer(value)) return value.toString('base64');
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/** The rows of a batch's last result set, as `mssql_run_sql` answers them. */
export class RunSqlCollector {
  #header: string[] = [];
  #types: string[] = [];
  #rows: unknown[][] = [];

  /** A new result set begins. */
  columns(columns: readonly ColumnLike[]): void {
    this.#header = columns.map((c) => String(c.colName ?? ''));
    this.#types = columns.map((c) => (typeof c.type?.name === 'string' ? c.type.name : ''));
    this.#rows = [];
  }

  row(cells: ReadonlyArray<{ readonly value: unknown }>): void {
    this.#rows.push(cells.map((c, i) => runSqlCell(c.value, this.#types[i] ?? '')));
  }

  /** v2 compat: no row is `CommandOk` (Note [MSSQL run_sql result]). */
  result(): RunSqlResult {
    if (this.#rows.length === 0) return { result_type: 'CommandOk', result: null };
    return { result_type: 'TuplesOk', result: [this.#header, ...this.#rows] };
  }
}

interface TediousErrorLike {
  readonly number?: unknown;
  readonly message?: unknown;
}

interface ErrorClass {
  readonly code: ErrorCode;
  readonly text: string;
}

const SYNTAX = 'Syntax error or access violation.';

/** v2's error classes of SQLSTATE (Hasura.Backends.MSSQL.SQL.Error), by SQL Server error number. */
const CLASSES: ReadonlyMap<number, ErrorClass> = new Map(
  (
    [
      [ErrorCode.DataException, 'Data exception. String data, right-truncated.', [8152, 2628]],
      [ErrorCode.DataException, 'Data exception. Numeric value out of range.', [8115, 220, 232, 8134]],
      [ErrorCode.DataException, 'Data exception. Invalid datetime format.', [241, 295]],
      [ErrorCode.DataException, 'Data exception. Datetime field overflow.', [242, 517]],
      [ErrorCode.DataException, 'Data exception.', [245, 8114, 13609, 9413]],
      [ErrorCode.ConstraintViolation, 'Integrity constraint violation.', [2627, 2601, 547, 515]],
      [ErrorCode.AlreadyExists, `${SYNTAX} Table or view already exists.`, [2714]],
      [ErrorCode.NotFound, `${SYNTAX} Table or view not found.`, [208, 3701]],
      [ErrorCode.AlreadyExists, `${SYNTAX} Index already exists.`, [1913]],
      [ErrorCode.AlreadyExists, `${SYNTAX} Column already exists.`, [2705]],
      [ErrorCode.NotFound, `${SYNTAX} Column not found.`, [207]],
      [ErrorCode.BadRequest, SYNTAX, [102, 105, 156, 170, 195, 229, 230, 262, 300, 4902]],
    ] satisfies ReadonlyArray<readonly [ErrorCode, string, readonly number[]]>
  ).flatMap(([code, text, numbers]) => numbers.map((n): [number, ErrorClass] => [n, { code, text }])),
);

/**
 * v2 compat (mkMSSQLTxErrorHandler, every class expected for run_sql): a
 * failure of the user's SQL in one of v2's classes is a 400 with the class
 * then the server's message, the SQL in `internal.query`; any other is
 * `unexpected` "database query error" with the exception.
 */
export function toRunSqlError(e: unknown, sql: string): EngineError {
  if (isEngineError(e)) return e;
  const d = (typeof e === 'object' && e !== null ? e : {}) as TediousErrorLike;
  const message = typeof d.message === 'string' ? d.message : String(e);
  const cls = typeof d.number === 'number' ? CLASSES.get(d.number) : undefined;
  if (cls !== undefined) return new EngineError(cls.code, `${cls.text} ${message}`, { path: '$', status: 400, internal: { query: sql }, cause: e });
  return new EngineError(ErrorCode.Unexpected, 'database query error', {
    path: '$',
    status: 500,
    internal: { query: sql, exception: { type: 'unsuccessful_return_code', message } },
    cause: e,
  });
}

/** Runs `sql` as one batch on `conn` (in whatever transaction it is in). */
export function runSqlBatch(conn: TediousConnection, sql: string): Promise<RunSqlResult> {
  return new Promise((resolve, reject) => {
    const out = new RunSqlCollector();
    const req = new (tedious().Request)(sql, (err) => {
      if (err !== undefined && err !== null) reject(toRunSqlError(err, sql));
      else resolve(out.result());
    });
    req.on('columnMetadata', (columns: unknown) => out.columns((Array.isArray(columns) ? columns : Object.values(columns as object)) as ColumnLike[]));
    req.on('row', (cells: unknown) => out.row((Array.isArray(cells) ? cells : Object.values(cells as object)) as Array<{ value: unknown }>));
    conn.execSqlBatch(req);
  });
}
