/**
 * Runs bound statements and turns database failures into v2 error codes.
 * The SQL text and database details go to `internal`, which only admins see.
 */
import { TransactionStatementError, type BoundStatement, type SourceConnection } from '../backends/backend.ts';
import { toPostgresError } from '../backends/postgres/errors.ts';
import type { EngineError } from '../errors/engine-error.ts';

/** Wraps a failure of `stmt` as an EngineError. */
export function toDatabaseError(e: unknown, stmt: BoundStatement): EngineError {
  return toPostgresError(e, stmt);
}

/** Runs one statement and returns its JSON text (`null` when it returned no row). */
export async function runStatement(conn: SourceConnection, stmt: BoundStatement): Promise<string | null> {
  try {
    return await conn.queryJsonText(stmt);
  } catch (e) {
    throw toDatabaseError(e, stmt);
  }
}

/**
 * Runs the statements of one transaction and returns each one's JSON text.
 * A lone statement runs by itself (a statement is atomic on its own).
 */
export async function runTransaction(conn: SourceConnection, stmts: readonly BoundStatement[]): Promise<(string | null)[]> {
  const only = stmts[0];
  if (stmts.length === 1 && only !== undefined) return [await runStatement(conn, only)];
  try {
    return await conn.transactionJsonText(stmts);
  } catch (e) {
    if (e instanceof TransactionStatementError) {
      const failed = stmts[e.index];
      throw toDatabaseError(e.cause, failed ?? { text: '', values: [] });
    }
    throw toDatabaseError(e, { text: '', values: [] });
  }
}
