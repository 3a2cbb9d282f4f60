/**
 * Runs one bound statement, or one transaction's, on a source and turns
 * database failures into v2 error codes (the source's backend words them).
 * The SQL text and database details go to `internal`, which only admins see.
 * Below run.ts: the steps run.ts calls (mutation-plan.ts) run their
 * statements through here without importing run.ts back.
 */
import { TransactionStatementError, type BoundStatement, type RunOptions, type SourceConnection } from '../backends/backend.ts';
import { backendFor } from '../backends/registry.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';

/** Wraps a failure of `stmt` on `conn` as an EngineError: the source's backend words it (Note [Backend seam]). */
export function toDatabaseError(conn: SourceConnection, e: unknown, stmt: BoundStatement): EngineError {
  return backendFor(conn.kind).toEngineError(e, stmt);
}

/** Runs one statement and returns its JSON text (`null` when it returned no row). */
export async function runStatement(conn: SourceConnection, stmt: BoundStatement, opts?: RunOptions): Promise<string | null> {
  try {
    return await conn.queryJsonText(stmt, opts);
  } catch (e) {
    throw toDatabaseError(conn, e, stmt);
  }
}

/**
 * Runs the statements of one transaction and returns each one's JSON text.
 * A lone statement runs by itself (a statement is atomic on its own).
 */
export async function runTransaction(
  conn: SourceConnection,
  stmts: readonly BoundStatement[],
  opts?: RunOptions,
  /** Told the index of the statement that failed, before the error is thrown. */
  failedAt?: (index: number) => void,
): Promise<(string | null)[]> {
  const only = stmts[0];
  if (stmts.length === 1 && only !== undefined) return [await runStatement(conn, only, opts)];
  // A backend without transactions offers no mutations, so no plan has several statements for it.
  if (conn.transactionJsonText === undefined) throw new EngineError(ErrorCode.NotSupported, `no transactions on ${conn.kind} sources`);
  try {
    return await conn.transactionJsonText(stmts, opts);
  } catch (e) {
    if (e instanceof TransactionStatementError) {
      failedAt?.(e.index);
      const failed = stmts[e.index];
      throw toDatabaseError(conn, e.cause, failed ?? { text: '', values: [] });
    }
    throw toDatabaseError(conn, e, { text: '', values: [] });
  }
}
