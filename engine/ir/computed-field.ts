/**
 * Computed fields in the IR: a call of a function that takes the current
 * row (and possibly the session and further arguments). Scalar ones read like
 * columns (selected, compared, sorted on); table-returning ones are nested
 * selects whose rows come from the call.
 */
import type { BoolExp } from './bool-exp.ts';
import type { CallArgument, Select } from './select.ts';
import type { QualifiedName } from './table.ts';

/** A computed field's function called on the current row. */
export interface ComputedFieldCall {
  readonly function: QualifiedName;
  /** The row argument's name; null passes the row first, by position. */
  readonly tableArgument: string | null;
  /** Further arguments by name or position (the session argument among them, as a `session-object` slot). */
  readonly args: readonly CallArgument[];
  /** BigQuery: the row's columns passed to these arguments by name, instead of the row (`tableArgument` unused). */
  readonly argumentMapping?: Readonly<Record<string, string>>;
  /** The database types of the arguments in `args`, by name, for a dialect whose parameters are typed. */
  readonly argTypes?: Readonly<Record<string, string>>;
}

/** A scalar computed field's value. */
export interface ComputedScalarField {
  readonly kind: 'computed-scalar';
  readonly alias: string;
  readonly call: ComputedFieldCall;
  /** Render as a JSON string (stringify-numeric-types). */
  readonly asText: boolean;
  /** Inherited roles: the value reads as null where this fails (Note [Inherited computed fields]). */
  readonly visible?: BoolExp;
}

/** The rows of a table-returning computed field (its `select.from.table` is the returned table). */
export interface ComputedRowsField {
  readonly kind: 'computed-rows';
  readonly alias: string;
  readonly call: ComputedFieldCall;
  readonly select: Select;
}
