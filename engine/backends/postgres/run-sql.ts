/**
 * `run_sql` on PostgreSQL: runs the user's SQL text (several statements
 * allowed, simple query protocol) and shapes the last statement's result as
 * v2 does: `TuplesOk` with a header row and rows of text cells, or
 * `CommandOk` with a null result.
 */
import type pg from 'pg';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import type { RunSqlResult } from '../backend.ts';
import type { PgQueryable } from './connection.ts';

const textTypes: pg.CustomTypesConfig = { getTypeParser: () => (value: string) => value };

interface PgDatabaseError {
  message: string;
  code?: string;
  detail?: string;
  hint?: string;
}

function isDatabaseError(e: unknown): e is PgDatabaseError & Error {
  return e instanceof Error && typeof (e as { code?: unknown }).code === 'string';
}

/**
 * v2 compat: a database error as `postgres-error` "query execution failed",
 * with the statement and the error fields in `internal`.
 */
export function toPostgresError(e: unknown, statement: string): EngineError {
  if (!isDatabaseError(e)) return new EngineError(ErrorCode.Unexpected, 'database query error', { cause: e, status: 500 });
  return new EngineError(ErrorCode.PostgresError, 'query execution failed', {
    status: 400,
    internal: {
      statement,
      prepared: false,
      arguments: [],
      error: {
        exec_status: 'FatalError',
        message: e.message,
        status_code: e.code ?? null,
        description: e.detail ?? null,
        hint: e.hint ?? null,
      },
    },
  });
}

/** Runs `sql` on `client` (in whatever transaction the caller opened). */
export async function runSqlText(client: PgQueryable, sql: string): Promise<RunSqlResult> {
  let res: pg.QueryArrayResult | pg.QueryArrayResult[];
  try {
    const config: pg.QueryArrayConfig = { text: sql, rowMode: 'array', types: textTypes };
    res = (await (client as pg.ClientBase).query(config)) as pg.QueryArrayResult | pg.QueryArrayResult[];
  } catch (e) {
    throw toPostgresError(e, sql);
  }
  const last = Array.isArray(res) ? res[res.length - 1] : res;
  if (last === undefined || last.fields.length === 0) return { result_type: 'CommandOk', result: null };
  const header = last.fields.map((f) => f.name);
  const rows = last.rows.map((r) => (r as unknown[]).map((c) => (c === null || c === undefined ? null : String(c))));
  return { result_type: 'TuplesOk', result: [header, ...rows] };
}

/**
 * Runs `sql` read-only inside the transaction open on `client` (a `read_only`
 * run_sql after a writing one in the same bulk): in a savepoint with
 * `SET TRANSACTION READ ONLY`, rolled back to the savepoint afterwards, which
 * also restores read-write for the rest of the transaction.
 */
export async function runSqlReadOnlyIn(client: PgQueryable, sql: string): Promise<RunSqlResult> {
  const c = client as pg.ClientBase;
  await c.query('SAVEPOINT engine_read_only');
  try {
    await c.query('SET TRANSACTION READ ONLY');
    return await runSqlText(client, sql);
  } finally {
    await c.query('ROLLBACK TO SAVEPOINT engine_read_only');
    await c.query('RELEASE SAVEPOINT engine_read_only');
  }
}

/** Checks the deferred constraints of the open transaction now, so that its COMMIT is not where they fail. */
export async function checkDeferredConstraints(client: PgQueryable): Promise<void> {
  try {
    await (client as pg.ClientBase).query('SET CONSTRAINTS ALL IMMEDIATE');
  } catch (e) {
    throw toPostgresError(e, 'COMMIT');
  }
}
