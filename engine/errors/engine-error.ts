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
  /** GraphQL `extensions` to answer instead of `{path, code}` (an action handler's own, v2 compat). */
  extensions?: Readonly<Record<string, unknown>>;
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
  readonly extensions: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, message: string, options: EngineErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EngineError';
    this.code = code;
    this.path = options.path ?? '$';
    this.status = options.status ?? defaultStatus(code);
    this.internal = options.internal;
    this.extensions = options.extensions;
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
 * an EngineError (the database error, the SQL); name, message, code, detail,
 * hint and stack of any other error; then its cause, the same way, down the
 * chain. `String(e)` logged `[object Object]` for an EngineError whose
 * `internal` is an object and dropped every cause (issue 12). The logger
 * (logger.ts) applies this to any Error-valued field, so callers may pass the
 * error itself.
 */
export function errorDetails(e: unknown, depth = 0): Record<string, unknown> {
  if (!(e instanceof Error)) return { message: typeof e === 'string' ? e : (safeJson(e) ?? String(e)) };
  const out: Record<string, unknown> = isEngineError(e) ? { message: e.message, code: e.code, path: e.path } : { name: e.name, message: e.message };
  if (isEngineError(e)) {
    if (e.internal !== undefined) out['internal'] = e.internal;
  } else {
    // pg's DatabaseError and Node's system errors carry these.
    const x = e as Error & { code?: unknown; detail?: unknown; hint?: unknown };
    if (x.code !== undefined) out['code'] = x.code;
    if (x.detail !== undefined) out['detail'] = x.detail;
    if (x.hint !== undefined) out['hint'] = x.hint;
    if (e.stack !== undefined) out['stack'] = e.stack;
  }
  if (e.cause !== undefined && depth < 8) out['cause'] = errorDetails(e.cause, depth + 1);
  return out;
}

function safeJson(v: unknown): string | undefined {
  try {
    return JSON.stringify(v);
  } catch {
    return undefined;
  }
}
