/** State shared while translating one T-SQL statement, and its small shared pieces. */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { ident, raw, seq, type Fragment } from '../../sql/fragment.ts';

/** Hands out the statement's table aliases `_0`, `_1`, ... */
export class AliasCounter {
  #next = 0;

  /** A new alias name, unique within the statement. */
  fresh(): string {
    return `_${this.#next++}`;
  }
}

/** `[alias].[column]`. */
export function columnOf(alias: string, column: string): Fragment {
  return seq([ident(alias), raw('.'), ident(column)]);
}

/**
 * What the IR may ask that SQL Server (or this backend) has no form for; the
 * schema of an MSSQL source does not offer it (capabilities, operator families),
 * so reaching this is a request the schema should have refused.
 */
export function unsupported(what: string): EngineError {
  return new EngineError(ErrorCode.NotSupported, `${what} is not supported on MSSQL sources`);
}
