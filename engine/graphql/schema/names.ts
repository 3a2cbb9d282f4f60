/**
 * The v2 naming rules of the generated schema, in one place.
 * v2 compat: shared/design/compat.md, "Generated GraphQL schema".
 */

/** Root operation type names. */
export const QUERY_ROOT = 'query_root';
/** Root type for mutations (present once mutations are generated). */
export const MUTATION_ROOT = 'mutation_root';
/** Root type for subscriptions. */
export const SUBSCRIPTION_ROOT = 'subscription_root';
/** The shared sort-direction enum. */
export const ORDER_BY_ENUM = 'order_by';
/** The query field of a schema in which a role can read nothing. */
export const NO_QUERIES_FIELD = 'no_queries_available';
/** The value that field answers. */
export const NO_QUERIES_MESSAGE = 'There are no queries available to the current role. Either there are no sources or remote schemas configured, or the current role doesn\'t have the required permissions.';

/** Argument names of list fields, in v2's order. */
export const ARG = {
  distinctOn: 'distinct_on',
  limit: 'limit',
  offset: 'offset',
  orderBy: 'order_by',
  where: 'where',
  columns: 'columns',
  distinct: 'distinct',
} as const;

/** Field names of `<t>_aggregate` and combinators of bool_exp. */
export const FIELD = {
  aggregate: 'aggregate',
  nodes: 'nodes',
  count: 'count',
  and: '_and',
  or: '_or',
  not: '_not',
  cast: '_cast',
} as const;

/** Aggregate functions with column arguments, as v2 names them. */
export const AGGREGATE_OPS = [
  'avg', 'max', 'min', 'stddev', 'stddev_pop', 'stddev_samp', 'sum', 'var_pop', 'var_samp', 'variance',
] as const;

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
    opFields: (op) => `${base}_${op}_fields`,
    opOrderBy: (op) => `${base}_${op}_order_by`,
    enumType: `${base}_enum`,
    enumComparison: `${base}_enum_comparison_exp`,
  };
}

/** `<rel>_aggregate`, the aggregate field of an array relationship. */
export function relationshipAggregateField(rel: string): string {
  return `${rel}_aggregate`;
}

/** `<scalar>_comparison_exp`. */
export function comparisonExpName(scalar: string): string {
  return `${scalar}_comparison_exp`;
}

/** `<scalar>_array_comparison_exp` for array columns. */
export function arrayComparisonExpName(scalar: string): string {
  return `${scalar}_array_comparison_exp`;
}

/** `<scalar>_cast_exp` (jsonb `_cast`). */
export function castExpName(scalar: string): string {
  return `${scalar}_cast_exp`;
}

/** The argument of function fields (tracked functions, computed fields) holding the function's arguments. */
export const FUNCTION_ARGS = 'args';

/** `<fn>_args`, the input type of a function's arguments. */
export function functionArgsTypeName(fn: string): string {
  return `${fn}_args`;
}

/** True when `s` is a valid GraphQL name. */
export function isGraphqlName(s: string): boolean {
  return /^[_A-Za-z][_0-9A-Za-z]*$/.test(s);
}

/** Argument and field names of mutation root fields and their input types (v2 compat). */
export const MUTATION = {
  objects: 'objects',
  object: 'object',
  onConflict: 'on_conflict',
  constraint: 'constraint',
  updateColumns: 'update_columns',
  where: 'where',
  data: 'data',
  pkColumns: 'pk_columns',
  updates: 'updates',
  affectedRows: 'affected_rows',
  returning: 'returning',
  /** v2 compat: the only value of an `<t>_update_column` enum when no column may be updated. */
  placeholder: '_PLACEHOLDER',
} as const;

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
