/**
 * PostgreSQL failures → Engine errors: the SQLSTATE classes v2 shows, and the
 * assertions a mutation raises (compile-mutation.ts). The SQL text and
 * database details go to `internal`, which only admins see.
 */
import type { BoundStatement } from '../backend.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError, isEngineError } from '../../errors/engine-error.ts';
import { ASSERTION_DETAIL } from './compile-mutation.ts';
import { isBackendEnd } from './retries.ts';

interface DatabaseErrorLike {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly detail?: unknown;
  readonly hint?: unknown;
}

/** v2 compat: how v2 words each integrity violation ("Uniqueness violation. duplicate key value ..."). */
const VIOLATION_PREFIX: Readonly<Record<string, string>> = {
  '23502': 'Not-NULL violation. ',
  '23503': 'Foreign key violation. ',
  '23505': 'Uniqueness violation. ',
  '23514': 'Check constraint violation. ',
  '23P01': 'Exclusion violation. ',
};

/** v2 compat: SQLSTATE class → wire code and whether the database message may be shown. */
function classify(sqlstate: string): { code: ErrorCode; showMessage: boolean } {
  // invalid_escape_sequence (a LIKE pattern ending in its escape character): v2 answers bad-request.
  if (sqlstate === '22025') return { code: ErrorCode.BadRequest, showMessage: true };
  if (sqlstate.startsWith('22')) return { code: ErrorCode.DataException, showMessage: true };
  if (sqlstate.startsWith('23')) return { code: ErrorCode.ConstraintViolation, showMessage: true };
  if (sqlstate === '42501') return { code: ErrorCode.PermissionError, showMessage: true };
  // query_canceled: a statement timeout ("canceling statement due to statement timeout"), or a cancel after the client left.
  if (sqlstate === '57014') return { code: ErrorCode.Timeout, showMessage: true };
  return { code: ErrorCode.Unexpected, showMessage: false };
}

/** Node's socket failures when a connection cannot be made or is lost. */
const SOCKET_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);

/** pg's own words for a connection that could not be made or was lost (no SQLSTATE). */
const LOST_CONNECTION = /^Connection terminated|is not queryable$|^timeout expired$|^Cannot use a pool after calling end/;

/**
 * Whether `e` is a connection failure rather than a statement's error: one
 * that ended the backend (FATAL, PANIC: a terminated backend, a refused
 * login, too many clients), a socket failure, or pg's word for a lost
 * connection.
 */
function isConnectionFailure(d: DatabaseErrorLike & { readonly severity?: unknown }, message: string): boolean {
  if (isBackendEnd(d.severity, d.code)) return true;
  if (typeof d.code === 'string' && SOCKET_ERRORS.has(d.code)) return true;
  return d.severity === undefined && LOST_CONNECTION.test(message);
}

/**
 * v2 compat (Hasura.Base.Error, FromPGConnErr): a connection failure, after
 * its retries (Note [Retries after connection errors] in connection.ts), is
 * `postgres-error` "connection error", or "max connections reached on
 * postgres" for too many clients; the driver's message is `internal`, as v2's
 * libpq text.
 */
function connectionError(message: string, cause: unknown): EngineError {
  // v2 matches libpq's text: the server's max_connections ("sorry, too many clients already"), not a role's or a database's limit.
  const tooMany = message.includes('too many clients');
  return new EngineError(
    tooMany ? ErrorCode.PostgresMaxConnectionsError : ErrorCode.PostgresError,
    tooMany ? 'max connections reached on postgres' : 'connection error',
    { path: '$', status: 500, internal: message, cause },
  );
}

/** Wraps a failure of `stmt` as an EngineError. */
export function classifyPostgresError(e: unknown, stmt: BoundStatement): EngineError {
  if (isEngineError(e)) return e;
  const d = (typeof e === 'object' && e !== null ? e : {}) as DatabaseErrorLike;
  const sqlstate = typeof d.code === 'string' ? d.code : '';
  const message = typeof d.message === 'string' ? d.message : String(e);
  if (d.detail === ASSERTION_DETAIL && typeof d.hint === 'string') {
    // A mutation's assertion (permission check, skipped upsert): its message is ours, its HINT the wire code.
    const known = (Object.values(ErrorCode) as string[]).includes(d.hint);
    return new EngineError(known ? (d.hint as ErrorCode) : ErrorCode.Unexpected, message, { path: '$', status: 200, cause: e });
  }
  if (isConnectionFailure(d, message)) return connectionError(message, e);
  const { code, showMessage } = classify(sqlstate);
  const shown = showMessage ? `${VIOLATION_PREFIX[sqlstate] ?? ''}${message}` : 'database query error';
  return new EngineError(code, shown, {
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
