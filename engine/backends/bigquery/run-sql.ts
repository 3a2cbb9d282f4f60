/**
 * `bigquery_run_sql` on the BigQuery side (v2 compat: Hasura.Backends.BigQuery.DDL.RunSQL):
 * the SQL runs as one query job, with no transaction, and the answer is
 * `{result_type: "TuplesOk", result: [header, ...rows]}`, the header being the
 * first row's column names (`[[]]` when there is no row, as v2). Cells are
 * JSON values as the GraphQL answers type them (Note [BigQuery output typing]
 * in scalars.ts): INT64 and NUMERIC as strings, FLOAT64 as a number, BOOL as a
 * boolean, dates and times as BigQuery's text, BYTES as base64, STRUCTs as
 * objects and arrays as arrays. Note [SQL without a transaction] in
 * metadata/operations/sql/run-sql.ts says what the engine does around it.
 */
import type { RunOptions, RunSqlResult } from '../backend.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { JobCancelledError, type BigQueryConnection } from './connection.ts';

interface ApiError {
  readonly message?: string;
  readonly errors?: ReadonlyArray<{ readonly reason?: string; readonly message?: string }>;
}

/** A cell of the client's parsed rows as JSON. */
function cell(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'object') return v;
  if (Buffer.isBuffer(v)) return v.toString('base64');
  if (Array.isArray(v)) return v.map(cell);
  const proto = Object.getPrototypeOf(v) as unknown;
  if (proto === Object.prototype || proto === null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cell(x)]));
  // The client's wrappers: BigQueryDate/Datetime/Time/Timestamp and Geography carry BigQuery's text in
  // `value`; NUMERIC and BIGNUMERIC are Big numbers, whose text is exact.
  const value = (v as { value?: unknown }).value;
  return typeof value === 'string' ? value : String(v);
}

/** Runs `sql` on `conn` as one job; v2's answer, or a `bigquery-error` (400) with BigQuery's message. */
export async function runBigQuerySql(conn: BigQueryConnection, sql: string, opts?: RunOptions): Promise<RunSqlResult> {
  let rows: Record<string, unknown>[];
  try {
    // INT64 as its exact text, as the GraphQL answers give it.
    rows = await conn.run({ query: sql }, opts, { wrapIntegers: { integerTypeCastFunction: (text: string) => text } });
  } catch (e) {
    if (e instanceof JobCancelledError) throw new EngineError(ErrorCode.Unexpected, 'the request was cancelled');
    const err = (typeof e === 'object' && e !== null ? e : {}) as ApiError;
    const message = err.errors?.[0]?.message ?? err.message ?? String(e);
    throw new EngineError(ErrorCode.BigQueryError, message, { status: 400, internal: { statement: sql, reason: err.errors?.[0]?.reason ?? null } });
  }
  const [first] = rows;
  const header = first === undefined ? [] : Object.keys(first);
  return { result_type: 'TuplesOk', result: [header, ...rows.map((r) => Object.values(r).map(cell))] };
}
