/**
 * Boolean expressions over the rows of one table: the GraphQL `where`
 * argument and permission filters both become this. Columns are database
 * names; relationships carry their target table and column mapping.
 */
import type { ComputedFieldCall } from './computed-field.ts';
import type { ParamSource } from './value.ts';
import type { QualifiedName } from './table.ts';

/** A comparison operator, named after its v2 GraphQL spelling without `_`. */
export type CompareOp =
  | 'eq'
  | 'neq'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'in'
  | 'nin'
  | 'like'
  | 'nlike'
  | 'ilike'
  | 'nilike'
  | 'similar'
  | 'nsimilar'
  | 'regex'
  | 'nregex'
  | 'iregex'
  | 'niregex'
  | 'contains'
  | 'contained_in'
  | 'has_key'
  | 'has_keys_any'
  | 'has_keys_all';

/** Comparisons between two columns of the same row (permission `_ceq`, `_cgt`, ...). */
export type ColumnCompareOp = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte';

/** A column of the current row, optionally cast (jsonb `_cast: {String: ...}`). */
export interface ColumnRef {
  readonly column: string;
  /** A database type name to cast the column to before comparing. */
  readonly cast: string | null;
  /** When set, the value compared is this scalar computed field of the row, not `column`. */
  readonly computed?: ComputedFieldCall;
}

/** `local = remote` column pairs joining a row to a related table. */
export type ColumnMapping = ReadonlyArray<readonly [string, string]>;

/** A boolean expression. */
export type BoolExp =
  | { readonly kind: 'and'; readonly items: readonly BoolExp[] }
  | { readonly kind: 'or'; readonly items: readonly BoolExp[] }
  | { readonly kind: 'not'; readonly item: BoolExp }
  | {
      readonly kind: 'compare';
      readonly left: ColumnRef;
      readonly op: CompareOp;
      readonly right: ParamSource;
      /** The column's database type, used when the operator needs an explicit cast of the value. */
      readonly dbType: string;
    }
  | { readonly kind: 'is-null'; readonly left: ColumnRef; readonly isNull: boolean }
  /**
   * An array column equal (`in`) or equal to none (`nin`) of a list of
   * arrays. `right` is ONE parameter: a JSON array of JSON arrays, each cast
   * to `dbType` (the column's array type) in SQL.
   */
  | { readonly kind: 'in-arrays'; readonly left: ColumnRef; readonly op: 'in' | 'nin'; readonly right: ParamSource; readonly dbType: string }
  /**
   * Two columns compared (permission `_ceq` and friends): of the current row, or `right` of the
   * row the enclosing `permission-root` was evaluated on (`rightRoot`, v2's `["$", column]`).
   */
  | { readonly kind: 'compare-columns'; readonly left: ColumnRef; readonly op: ColumnCompareOp; readonly right: ColumnRef; readonly rightRoot?: boolean }
  /** A permission expression whose `["$", column]` references read the row this is evaluated on. */
  | { readonly kind: 'permission-root'; readonly item: BoolExp }
  /** Some row of a related table (object or array relationship) satisfies `where`. */
  | { readonly kind: 'relationship'; readonly target: QualifiedName; readonly mapping: ColumnMapping; readonly where: BoolExp }
  /**
   * An aggregate of the related rows of an array relationship satisfies
   * `predicate` (v2's `<rel>_aggregate: {count: {predicate: {_gt: 1}}}`);
   * `predicate` compares the column {@link AGGREGATE_VALUE} of the one row
   * the aggregate gives.
   */
  | {
      readonly kind: 'aggregate';
      readonly target: QualifiedName;
      readonly mapping: ColumnMapping;
      /** The related rows aggregated: the target's permission filter and the `filter` argument. */
      readonly where: BoolExp;
      /** `count(*)` (no columns), `count(col)`, `count(DISTINCT (a, b))`…; `bool_and(col)`, `bool_or(col)` of a boolean column. */
      readonly aggregate: { readonly fn: 'count' | 'bool_and' | 'bool_or'; readonly columns: readonly string[]; readonly distinct: boolean };
      readonly predicate: BoolExp;
    }
  /** Some row a table-returning computed field gives for the current row satisfies `where`. */
  | { readonly kind: 'computed-rows'; readonly call: ComputedFieldCall; readonly where: BoolExp }
  /** Some row of an unrelated table satisfies `where` (permission `_exists`). */
  | { readonly kind: 'exists'; readonly target: QualifiedName; readonly where: BoolExp }
  /**
   * `item` holds: false where it is false or unknown (SQL null). A cell's
   * visibility condition is one, so that `_not` over it cannot turn an
   * unknown into a row that tells a hidden value (Note [Two-valued visibility]).
   */
  | { readonly kind: 'holds'; readonly item: BoolExp };

/** The column name under which an `aggregate` expression's predicate reads the aggregate's value. */
export const AGGREGATE_VALUE = 'aggregate_value';

/** The always-true expression. */
export const TRUE: BoolExp = { kind: 'and', items: [] };

/** Conjunction that drops trivially-true parts. */
export function andAll(items: readonly (BoolExp | null)[]): BoolExp {
  const kept: BoolExp[] = [];
  for (const i of items) {
    if (i === null || isTrue(i)) continue;
    if (i.kind === 'and') kept.push(...i.items);
    else kept.push(i);
  }
  if (kept.length === 1 && kept[0] !== undefined) return kept[0];
  return { kind: 'and', items: kept };
}

/** True for the empty conjunction. */
export function isTrue(e: BoolExp): boolean {
  return e.kind === 'and' && e.items.length === 0;
}
