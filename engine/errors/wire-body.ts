/**
 * EngineError → wire shapes. v2 compat (docs/compat.md, "Errors"):
 * the metadata/query APIs answer `{path, error, code}`, GraphQL answers
 * `{errors: [{message, extensions: {path, code}}]}`. `internal` is shown to
 * admins only; stack traces never.
 */
import { ErrorCode } from './codes.ts';
import { EngineError, isEngineError } from './engine-error.ts';

/** Wraps anything thrown into an EngineError (unknown faults become `unexpected`). */
export function toEngineError(e: unknown): EngineError {
  if (isEngineError(e)) return e;
  return new EngineError(ErrorCode.Unexpected, 'unexpected error', { status: 500, internal: String(e) });
}

/** The `{path, error, code}` body of the metadata and query APIs. */
export function apiErrorBody(e: EngineError, isAdmin: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { path: e.path, error: e.message, code: e.code };
  if (isAdmin && e.internal !== undefined) body['internal'] = e.internal;
  return body;
}

/** The `{errors: [...]}` body of the GraphQL API. */
export function graphqlErrorBody(e: EngineError, isAdmin: boolean): Record<string, unknown> {
  const extensions: Record<string, unknown> = e.extensions === undefined ? { path: e.path, code: e.code } : { ...e.extensions };
  if (isAdmin && e.internal !== undefined) extensions['internal'] = e.internal;
  return { errors: [{ message: e.message, extensions }] };
}
