/**
 * Runs bound statements and turns database failures into v2 error codes.
 * The SQL text and database details go to `internal`, which only admins see.
 */
import type { BoundStatement, SourceConnection } from '../backends/backend.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError, isEngineError } from '../errors/engine-error.ts';

interface DatabaseErrorLike {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly detail?: unknown;
  readonly hint?: unknown;
}

/** v2 compat: SQLSTATE class → wire code and whether the database message may be shown. */
function classify(sqlstate: string): { code: ErrorCode; showMessage: boolean } {
  if (sqlstate.startsWith('22')) return { code: ErrorCode.DataException, showMessage: true };
  if (sqlstate.startsWith('23')) return { code: ErrorCode.ConstraintViolation, showMessage: true };
  if (sqlstate === '42501') return { code: ErrorCode.PermissionError, showMessage: true };
  return { code: ErrorCode.Unexpected, showMessage: false };
}

/** Wraps a failure of `stmt` as an EngineError. */
export function toDatabaseError(e: unknown, stmt: BoundStatement): EngineError {
  if (isEngineError(e)) return e;
  const d = (typeof e === 'object' && e !== null ? e : {}) as DatabaseErrorLike;
  const sqlstate = typeof d.code === 'string' ? d.code : '';
  const message = typeof d.message === 'string' ? d.message : String(e);
  const { code, showMessage } = classify(sqlstate);
  return new EngineError(code, showMessage ? message : 'database query error', {
    path: '$',
    status: 200,
    internal: {
      statement: stmt.text,
      prepared: true,
      arguments: stmt.values,
      error: { message, status_code: sqlstate, description: d.detail ?? null, hint: d.hint ?? null },
    },
    cause: e,
  });
}

/** Runs one statement and returns its JSON text (`null` when it returned no row). */
export async function runStatement(conn: SourceConnection, stmt: BoundStatement): Promise<string | null> {
  try {
    return await conn.queryJsonText(stmt);
  } catch (e) {
    throw toDatabaseError(e, stmt);
  }
}
