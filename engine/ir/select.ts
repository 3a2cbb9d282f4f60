/**
 * Reads: a root field or a nested relationship field is a {@link Select}
 * (rows as a JSON array or one JSON object) or an {@link AggregateSelect}.
 * Permissions are already folded in (filter in `where`, limit cap in
 * `limitCap`, only permitted columns reachable), so dialects never see roles.
 */
import type { BoolExp, ColumnMapping } from './bool-exp.ts';
import type { ComputedRowsField, ComputedScalarField } from './computed-field.ts';
import type { ArrayConnectionField, NodeIdField } from './connection.ts';
import type { AggregateOp, OrderBy } from './order-by.ts';
import type { QualifiedName } from './table.ts';
import type { ParamSource } from './value.ts';

/** One argument of a function call: by name, or by position (`positional` ones come first, in order). */
export interface CallArgument {
  readonly name: string;
  readonly value: ParamSource;
  readonly positional?: boolean;
}

/**
 * A call of a function returning rows of `RowSource.table` (a tracked
 * function), read instead of the table itself. Arguments go by name, but for
 * those before an unnamed one (Note [Unnamed function arguments]).
 */
export interface FunctionCall {
  readonly name: QualifiedName;
  readonly args: readonly CallArgument[];
}

/** Which rows of a table a select reads. */
export interface RowSource {
  readonly table: QualifiedName;
  /** When set, the rows come from this function call (still rows of `table`). */
  readonly function?: FunctionCall;
  /** Permission filter and user `where`, conjoined; null = every row. */
  readonly where: BoolExp | null;
  /**
   * Inherited roles: columns whose value reads as null in rows where the
   * condition fails (a parent role admitting the row does not grant the column).
   */
  readonly redact?: ReadonlyMap<string, BoolExp>;
  readonly orderBy: readonly OrderBy[];
  /** `distinct_on` columns (database names). */
  readonly distinctOn: readonly string[];
  readonly limit: ParamSource | null;
  /** The role's permission limit, applied on top of `limit`. */
  readonly limitCap: number | null;
  readonly offset: ParamSource | null;
}

/** A column value, optionally rendered as a JSON string (stringify-numeric-types). */
export interface ColumnField {
  readonly kind: 'column';
  readonly alias: string;
  readonly column: string;
  readonly asText: boolean;
  /** json/jsonb: the value at this path (a text[] of elements), Note [JSON path argument]; absent = the whole value. */
  readonly path?: ParamSource;
}

/** A field filled after the statement ran (a remote relationship): null in the database's JSON. */
export interface RemoteJoinField {
  readonly kind: 'remote-join';
  readonly alias: string;
}

/** A constant string field (`__typename`). */
export interface TypenameField {
  readonly kind: 'typename';
  readonly alias: string;
  readonly typename: string;
}

/** The row of an object relationship (JSON object or null). */
export interface ObjectRelationshipField {
  readonly kind: 'object-relationship';
  readonly alias: string;
  readonly mapping: ColumnMapping;
  readonly select: Select;
}

/** Rows of an array relationship (JSON array). */
export interface ArrayRelationshipField {
  readonly kind: 'array-relationship';
  readonly alias: string;
  readonly mapping: ColumnMapping;
  readonly select: Select;
}

/** An aggregate over an array relationship (`<rel>_aggregate`). */
export interface ArrayAggregateField {
  readonly kind: 'array-aggregate';
  readonly alias: string;
  readonly mapping: ColumnMapping;
  readonly select: AggregateSelect;
}

/** A field of a row's JSON object. */
export type Field =
  | ColumnField
  | TypenameField
  | ObjectRelationshipField
  | ArrayRelationshipField
  | ArrayAggregateField
  | ComputedScalarField
  | ComputedRowsField
  | RemoteJoinField
  /** Relay (`/v1beta1/relay`): ir/connection.ts. */
  | ArrayConnectionField
  | NodeIdField;

/** Rows of a table rendered as JSON. */
export interface Select {
  readonly from: RowSource;
  readonly fields: readonly Field[];
  /** `many`: a JSON array of rows; `one`: the first row's object or null (by_pk, object relationships). */
  readonly cardinality: 'many' | 'one';
}

/** One column under an aggregate function (`sum { milliseconds }`). */
export type AggregateColumn = { readonly kind: 'column'; readonly alias: string; readonly column: string; readonly asText: boolean } | TypenameField;

/** A field of `<t>_aggregate_fields`. */
export type AggregateOpField =
  | { readonly kind: 'count'; readonly alias: string; readonly columns: readonly string[]; readonly distinct: boolean }
  | { readonly kind: 'op'; readonly alias: string; readonly op: AggregateOp; readonly columns: readonly AggregateColumn[] }
  | TypenameField;

/** A field of `<t>_aggregate`. */
export type AggregateField =
  | { readonly kind: 'aggregate'; readonly alias: string; readonly fields: readonly AggregateOpField[] }
  | { readonly kind: 'nodes'; readonly alias: string; readonly fields: readonly Field[] }
  | TypenameField;

/** `<t>_aggregate`: aggregates and/or nodes over the selected rows. */
export interface AggregateSelect {
  readonly from: RowSource;
  readonly fields: readonly AggregateField[];
}
