/** State shared while translating one BigQuery statement: fresh aliases, and the tables' column types. */
import type { CompileTarget } from '../../backend.ts';
import type { QualifiedName } from '../../../ir/table.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { ident, raw, seq, type Fragment } from '../../sql/fragment.ts';

/** One statement's translation state. */
export class Ctx {
  #next = 0;
  readonly target: CompileTarget;

  constructor(target: CompileTarget) {
    this.target = target;
  }

  /** A new alias name, unique within the statement. */
  fresh(): string {
    return `_${this.#next++}`;
  }

  /** The type of `column` of `table` (Note [BigQuery output typing]); null when unknown. */
  columnType(table: QualifiedName, column: string): string | null {
    return this.target.table(table)?.columns.find((c) => c.name === column)?.dbType ?? null;
  }
}

/** `` `alias`.`column` ``. */
export function columnOf(alias: string, column: string): Fragment {
  return seq([ident(alias), raw('.'), ident(column)]);
}

/** `` `dataset`.`table` ``. */
export function tableOf(t: QualifiedName): Fragment {
  return seq([ident(t.schema), raw('.'), ident(t.name)]);
}

/** What BigQuery sources cannot do (v2 has it on no BigQuery source either). */
export function unsupported(what: string): EngineError {
  return new EngineError(ErrorCode.NotSupported, `${what} is not supported on BigQuery sources`);
}
