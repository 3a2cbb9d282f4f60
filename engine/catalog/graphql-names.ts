/**
 * The v2 names of the types generated for tables and functions: pure string
 * functions, here so that the catalog's names stage can claim every type name
 * a table will produce (it may not import graphql/) and graphql/schema/names.ts
 * re-exports them, so the names are still spelled in one place.
 * v2 compat: docs/compat.md, "Generated GraphQL schema".
 */
import type { ScalarInfo } from '../backends/backend.ts';

/** Aggregate functions with column arguments, as v2 names them. */
export const AGGREGATE_OPS = ['avg', 'max', 'min', 'stddev', 'stddev_pop', 'stddev_samp', 'sum', 'var_pop', 'var_samp', 'variance'] as const;

/** One of {@link AGGREGATE_OPS}. */
export type AggregateOpName = (typeof AGGREGATE_OPS)[number];

/** Type names derived from a table's GraphQL base name. */
export interface TableTypeNames {
  readonly object: string;
  readonly boolExp: string;
  readonly orderBy: string;
  readonly selectColumn: string;
  readonly aggregate: string;
  readonly aggregateFields: string;
  readonly aggregateOrderBy: string;
  /** `<t>_aggregate_bool_exp` and its `count` input. */
  readonly aggregateBoolExp: string;
  readonly aggregateBoolExpCount: string;
  /** `<t>_<op>_fields`. */
  opFields(op: AggregateOpName): string;
  /** `<t>_<op>_order_by`. */
  opOrderBy(op: AggregateOpName): string;
  /** `<t>_enum` for enum tables. */
  readonly enumType: string;
  readonly enumComparison: string;
}

/** The type names of a table whose GraphQL base name is `base`. */
export function tableTypeNames(base: string): TableTypeNames {
  return {
    object: base,
    boolExp: `${base}_bool_exp`,
    orderBy: `${base}_order_by`,
    selectColumn: `${base}_select_column`,
    aggregate: `${base}_aggregate`,
    aggregateFields: `${base}_aggregate_fields`,
    aggregateOrderBy: `${base}_aggregate_order_by`,
    aggregateBoolExp: `${base}_aggregate_bool_exp`,
    aggregateBoolExpCount: `${base}_aggregate_bool_exp_count`,
    opFields: (op) => `${base}_${op}_fields`,
    opOrderBy: (op) => `${base}_${op}_order_by`,
    enumType: `${base}_enum`,
    enumComparison: `${base}_enum_comparison_exp`,
  };
}

/** `<fn>_args`, the input type of a function's arguments. */
export function functionArgsTypeName(fn: string): string {
  return `${fn}_args`;
}

/** Update operator arguments in v2's order, keyed by the IR operator. */
export const UPDATE_OPS = {
  append: '_append',
  delete_at_path: '_delete_at_path',
  delete_elem: '_delete_elem',
  delete_key: '_delete_key',
  inc: '_inc',
  prepend: '_prepend',
  set: '_set',
} as const;

/** Type names of a table's mutation inputs and responses. */
export interface MutationTypeNames {
  readonly insertInput: string;
  readonly onConflict: string;
  /** v2's MSSQL upsert: `<t>_if_matched` and its `<t>_insert_match_column` enum. */
  readonly ifMatched: string;
  readonly insertMatchColumn: string;
  readonly constraint: string;
  readonly updateColumn: string;
  readonly objRelInsertInput: string;
  readonly arrRelInsertInput: string;
  readonly mutationResponse: string;
  readonly pkColumnsInput: string;
  readonly updates: string;
  /** `<t>_set_input`, `<t>_inc_input`, ... per operator argument name without `_`. */
  opInput(op: keyof typeof UPDATE_OPS): string;
}

/** The mutation type names of a table whose GraphQL base name is `base`. */
export function mutationTypeNames(base: string): MutationTypeNames {
  return {
    insertInput: `${base}_insert_input`,
    onConflict: `${base}_on_conflict`,
    ifMatched: `${base}_if_matched`,
    insertMatchColumn: `${base}_insert_match_column`,
    constraint: `${base}_constraint`,
    updateColumn: `${base}_update_column`,
    objRelInsertInput: `${base}_obj_rel_insert_input`,
    arrRelInsertInput: `${base}_arr_rel_insert_input`,
    mutationResponse: `${base}_mutation_response`,
    pkColumnsInput: `${base}_pk_columns_input`,
    updates: `${base}_updates`,
    opInput: (op) => `${base}_${op}_input`,
  };
}

/**
 * Every type name derived from a table's GraphQL base name (the object type
 * itself excluded): read, aggregate and mutation types, and the enum types
 * when `isEnum`. The names stage claims them all, so a table named like
 * another table's derived type (`x_bool_exp` beside `x`) is refused.
 */
export function derivedTableTypeNames(base: string, isEnum: boolean): string[] {
  const t = tableTypeNames(base);
  const m = mutationTypeNames(base);
  const out = [t.boolExp, t.orderBy, t.selectColumn, t.aggregate, t.aggregateFields, t.aggregateOrderBy, t.aggregateBoolExp, t.aggregateBoolExpCount];
  for (const op of AGGREGATE_OPS) out.push(t.opFields(op), t.opOrderBy(op));
  if (isEnum) out.push(t.enumType, t.enumComparison);
  out.push(m.insertInput, m.onConflict, m.constraint, m.updateColumn, m.objRelInsertInput, m.arrRelInsertInput);
  out.push(m.ifMatched, m.insertMatchColumn);
  out.push(m.mutationResponse, m.pkColumnsInput, m.updates);
  for (const op of Object.keys(UPDATE_OPS) as Array<keyof typeof UPDATE_OPS>) out.push(m.opInput(op));
  return out;
}

/**
 * The GraphQL scalar name of a database type, from its backend's ScalarInfo
 * (a name from the database made a GraphQL name; Note [Backend seam]).
 */
export function scalarName(scalar: Pick<ScalarInfo, 'graphqlName'>): string {
  const r = scalar.graphqlName;
  return /^[_A-Za-z][_0-9A-Za-z]*$/.test(r) ? r : r.replace(/[^_0-9A-Za-z]/g, '_').replace(/^([0-9])/, '_$1');
}

/**
 * Type names every schema may hold besides the tables' own: GraphQL's
 * scalars, the root types and the shared enums. A table may not take one
 * (a table named `String` or `order_by` would give a schema two types of
 * one name, which graphql-js refuses).
 */
export const RESERVED_TYPE_NAMES: readonly string[] = [
  'Int',
  'Float',
  'String',
  'Boolean',
  'ID',
  'query_root',
  'mutation_root',
  'subscription_root',
  'order_by',
];
