/**
 * SQL Server failures → Engine errors, by error number (tedious'
 * RequestError.number), in the wire codes the PostgreSQL backend uses for the
 * same classes; a mutation's permission check (THROW 50001, our message)
 * becomes v2's `permission-error`. The SQL text and the server's details go
 * to `internal`, which only admins see.
 */
import type { BoundStatement } from '../backend.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError, isEngineError } from '../../errors/engine-error.ts';
import { ASSERTION_ERROR } from './translate/written.ts';

interface TediousErrorLike {
  readonly number?: unknown;
  readonly code?: unknown;
  readonly message?: unknown;
  readonly state?: unknown;
  readonly class?: unknown;
}

/** Error numbers of integrity violations, with v2's (PostgreSQL) wording of each class. */
const VIOLATIONS: Readonly<Record<number, string>> = {
  2627: 'Uniqueness violation. ',
  2601: 'Uniqueness violation. ',
  547: 'Foreign key violation. ',
  515: 'Not-NULL violation. ',
};

/** Conversion, overflow, truncation and malformed JSON input. */
const DATA_ERRORS = new Set([8114, 8115, 245, 241, 242, 220, 232, 8152, 2628, 8134, 13609, 9413, 517, 295]);

/** Permission denied on an object or a statement. */
const DENIED = new Set([229, 230, 262, 300]);

/** Wraps a failure of `stmt` as an EngineError. */
export function classifyMssqlError(e: unknown, stmt: BoundStatement): EngineError {
  if (isEngineError(e)) return e;
  const d = (typeof e === 'object' && e !== null ? e : {}) as TediousErrorLike;
  const number = typeof d.number === 'number' ? d.number : null;
  const message = typeof d.message === 'string' ? d.message : String(e);
  if (number === ASSERTION_ERROR) return new EngineError(ErrorCode.PermissionError, message, { path: '$', status: 200, cause: e });
  let code: ErrorCode = ErrorCode.Unexpected;
  let shown = 'database query error';
  if (d.code === 'ETIMEOUT' || d.code === 'ECANCEL') {
    code = ErrorCode.Timeout;
    shown = d.code === 'ETIMEOUT' ? 'the statement timed out' : 'the statement was cancelled';
  } else if (number !== null && VIOLATIONS[number] !== undefined) {
    code = ErrorCode.ConstraintViolation;
    shown = `${VIOLATIONS[number]}${message}`;
  } else if (number !== null && DATA_ERRORS.has(number)) {
    code = ErrorCode.DataException;
    shown = message;
  } else if (number !== null && DENIED.has(number)) {
    code = ErrorCode.PermissionError;
    shown = message;
  }
  return new EngineError(code, shown, {
    path: '$',
    status: 200,
    internal: {
      statement: stmt.text,
      prepared: true,
      arguments: stmt.values,
      error: { message, status_code: number === null ? String(d.code ?? '') : String(number), state: d.state ?? null, class: d.class ?? null },
    },
    cause: e,
  });
}
