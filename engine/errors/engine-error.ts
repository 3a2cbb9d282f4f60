import { ErrorCode } from './codes.ts';

/** Options of an {@link EngineError} beyond its code and message. */
export interface EngineErrorOptions {
  /** JSON path of the offending input, e.g. `$.args.table`. */
  path?: string;
  /** HTTP status for the metadata/query APIs (GraphQL errors are always 200). */
  status?: number;
  /** Details only admins may see: SQL text, database error fields, inconsistent objects. */
  internal?: unknown;
  cause?: unknown;
}

/**
 * The one error type every engine folder throws. Its code is a wire code from
 * `codes.ts`; `internal` never reaches a non-admin client.
 */
export class EngineError extends Error {
  readonly code: ErrorCode;
  readonly path: string;
  readonly status: number;
  readonly internal: unknown;

  constructor(code: ErrorCode, message: string, options: EngineErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EngineError';
    this.code = code;
    this.path = options.path ?? '$';
    this.status = options.status ?? defaultStatus(code);
    this.internal = options.internal;
  }
}

function defaultStatus(code: ErrorCode): number {
  switch (code) {
    case ErrorCode.AccessDenied:
    case ErrorCode.InvalidJwt:
    case ErrorCode.JwtInvalidClaims:
      return 401;
    case ErrorCode.Conflict:
      return 409;
    case ErrorCode.NotFound:
      return 404;
    case ErrorCode.Unexpected:
      return 500;
    default:
      return 400;
  }
}

/** True when `e` is an {@link EngineError}. */
export function isEngineError(e: unknown): e is EngineError {
  return e instanceof EngineError;
}

export { ErrorCode };

/**
 * A failure as a log field: message, wire code, path and internal details of
 * an EngineError (the database error, the SQL), its cause's message, or the
 * message and stack of any other error. `String(e)` logged `[object Object]`
 * for an EngineError whose `internal` is an object (issue 12).
 */
export function errorDetails(e: unknown): Record<string, unknown> {
  if (isEngineError(e)) {
    const out: Record<string, unknown> = { message: e.message, code: e.code, path: e.path };
    if (e.internal !== undefined) out['internal'] = e.internal;
    if (e.cause instanceof Error && e.cause.message !== e.message) out['cause'] = e.cause.message;
    return out;
  }
  if (e instanceof Error) return { message: e.message, ...(e.stack === undefined ? {} : { stack: e.stack }) };
  return { message: String(e) };
}
