/**
 * BigQuery failures → Engine errors in v2's shapes. The API's reason
 * (`notFound`, `invalidQuery`, `quotaExceeded`, `rateLimitExceeded`,
 * `accessDenied`, `responseTooLarge`...) picks the code; the message is
 * BigQuery's; the statement and the API's errors go to `internal`. Never an
 * engine 500 for a failure of the database or the network.
 */
import type { BoundStatement } from '../backend.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { JobCancelledError } from './connection.ts';

interface ApiError {
  readonly message?: string;
  readonly code?: number | string;
  readonly errors?: ReadonlyArray<{ readonly reason?: string; readonly message?: string }>;
}

/** The EngineError users see for a failure of `stmt`. */
export function classifyBigQueryError(e: unknown, stmt: BoundStatement): EngineError {
  if (e instanceof EngineError) return e;
  if (e instanceof JobCancelledError) return new EngineError(ErrorCode.Unexpected, 'the request was cancelled', { internal: { statement: stmt.text } });
  const err = (typeof e === 'object' && e !== null ? e : {}) as ApiError;
  const reason = err.errors?.[0]?.reason ?? null;
  const message = err.errors?.[0]?.message ?? err.message ?? String(e);
  const internal = { statement: stmt.text, prepared_arguments: stmt.values, reason, errors: err.errors ?? null, http_status: err.code ?? null };
  switch (reason) {
    case 'invalidQuery':
    case 'invalid':
    case 'notFound':
      return new EngineError(ErrorCode.BadRequest, message, { internal });
    case 'accessDenied':
    case 'quotaExceeded':
    case 'rateLimitExceeded':
    case 'responseTooLarge':
    case 'resourcesExceeded':
    case 'stopped':
    case 'timeout':
      return new EngineError(ErrorCode.Unexpected, `BigQuery: ${message}`, { internal });
    default:
      return new EngineError(ErrorCode.Unexpected, `BigQuery request failed: ${message}`, { internal });
  }
}
