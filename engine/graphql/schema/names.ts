/**
 * The v2 naming rules of the generated schema, in one place.
 * v2 compat: docs/compat.md, "Generated GraphQL schema".
 */

export {
  AGGREGATE_OPS,
  UPDATE_OPS,
  functionArgsTypeName,
  mutationTypeNames,
  tableTypeNames,
  type AggregateOpName,
  type MutationTypeNames,
  type TableTypeNames,
} from '../../catalog/graphql-names.ts';

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
export const NO_QUERIES_MESSAGE =
  "There are no queries available to the current role. Either there are no sources or remote schemas configured, or the current role doesn't have the required permissions.";

/** Argument names of list fields, in v2's order. */
export const ARG = {
  distinctOn: 'distinct_on',
  limit: 'limit',
  offset: 'offset',
  orderBy: 'order_by',
  where: 'where',
  columns: 'columns',
  distinct: 'distinct',
  /** json/jsonb columns: v2's JSON select path. */
  path: 'path',
  /** `<t>_aggregate_bool_exp_count`'s inputs. */
  arguments: 'arguments',
  filter: 'filter',
  predicate: 'predicate',
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

/** True when `s` is a valid GraphQL name. */
export function isGraphqlName(s: string): boolean {
  return /^[_A-Za-z][_0-9A-Za-z]*$/.test(s);
}

/** Argument and field names of mutation root fields and their input types (v2 compat). */
export const MUTATION = {
  objects: 'objects',
  object: 'object',
  onConflict: 'on_conflict',
  ifMatched: 'if_matched',
  matchColumns: 'match_columns',
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
