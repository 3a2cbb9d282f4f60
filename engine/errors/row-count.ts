/**
 * Note [Row counts]
 * v2 parses `limit` and `offset` as non-negative integers, so a negative one
 * is a `validation-failed` error of the request, never a database error
 * (PostgreSQL would answer "LIMIT must not be negative", code data-exception).
 * A literal is refused while the operation is turned into IR (path of the
 * argument); a variable when the plan is bound to the request's values (path
 * of the variable, as the engine's other variable errors), so a cached plan
 * checks it too without a parse.
 */
import { ErrorCode } from './codes.ts';
import { EngineError } from './engine-error.ts';

/** The error for a negative `limit`/`offset` at `path`. */
export function negativeRowCount(path: string): EngineError {
  return new EngineError(ErrorCode.ValidationFailed, 'expected a non-negative 32-bit integer for type "Int", but found a negative integer', { path });
}
