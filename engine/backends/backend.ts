/**
 * The backend interface: what the rest of the engine may ask of a database.
 * SQL text exists only under engine/backends/. See architecture.md, "Backend
 * abstraction".
 */
import type { SourceKind } from '../catalog/types.ts';

/** A statement with its parameter values bound, ready to run. */
export interface BoundStatement {
  readonly text: string;
  readonly values: readonly unknown[];
}

/**
 * An open connection pool to one source. Callers hand it bound statements;
 * JSON comes back as text, built by the database and never parsed here.
 */
export interface SourceConnection {
  readonly kind: SourceKind;
  /** Runs a statement returning one row with one JSON/text column, and returns that text (null for no row). */
  queryJsonText(stmt: BoundStatement): Promise<string | null>;
  /**
   * Runs statements in order in one transaction; returns the JSON text of
   * each. Any failure rolls back all and is thrown as a
   * {@link TransactionStatementError} naming the statement that failed.
   */
  transactionJsonText(stmts: readonly BoundStatement[]): Promise<(string | null)[]>;
  /** Closes the pool after in-flight queries finish. */
  close(): Promise<void>;
}

/** The failure of one statement of a transaction (everything was rolled back). */
export class TransactionStatementError extends Error {
  /** Index of the failed statement in the list given. */
  readonly index: number;

  constructor(index: number, cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'TransactionStatementError';
    this.index = index;
  }
}
