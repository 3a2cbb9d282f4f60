/** Computed fields → Postgres: the function called on a row alias. */
import type * as ir from '../../../ir/index.ts';
import { ident, join, param, qualified, sql, type Fragment } from '../../sql/fragment.ts';

/** Call arguments: positional ones first, in order, then `"name" => value` (Note [Unnamed function arguments]). */
export function callArguments(args: readonly ir.CallArgument[]): Fragment[] {
  return args.map((a) => (a.positional === true ? param(a.value) : sql`${ident(a.name)} => ${param(a.value)}`));
}

/**
 * `"schema"."fn"("_0", "arg" => $1, ...)`: the row goes first by position
 * (or by name when the metadata names the table argument), the others by
 * name, so arguments left out take their defaults.
 */
export function translateComputedCall(call: ir.ComputedFieldCall, row: string): Fragment {
  const rowArg = call.tableArgument === null ? ident(row) : sql`${ident(call.tableArgument)} => ${ident(row)}`;
  const args = [rowArg, ...callArguments(call.args)];
  return sql`${qualified(call.function.schema, call.function.name)}(${join(args, ', ')})`;
}

/** A computed field's value needs the whole row, so it is computed where the base table is in scope. */
export interface InnerProjection {
  /** The output column name in the inner subquery (`__c0`, ...). */
  readonly name: string;
  /** The value, over the inner (base table) alias. */
  readonly expr: (inner: string) => Fragment;
}
