/** Ordering of the rows of a select. */
import type { BoolExp, ColumnMapping } from './bool-exp.ts';
import type { ComputedFieldCall } from './computed-field.ts';
import type { QualifiedName } from './table.ts';

/** Sort direction. */
export type Direction = 'asc' | 'desc';
/** Where nulls go. */
export type Nulls = 'first' | 'last';

/** An aggregate over an array relationship used as a sort key. */
export type AggregateKey =
  | { readonly kind: 'count' }
  | {
      readonly kind: 'op';
      readonly op: AggregateOp;
      readonly column: string;
      /** Inherited roles: the column reads as null in target rows where this fails (Note [Cells a sort key reads]). */
      readonly visible?: BoolExp;
    };

/** Aggregate functions with a column argument. */
export type AggregateOp = 'sum' | 'avg' | 'max' | 'min' | 'stddev' | 'stddev_pop' | 'stddev_samp' | 'var_pop' | 'var_samp' | 'variance';

/**
 * Note [Cells a sort key reads]
 * An inherited role sees some cells as null (RowSource.redact). A sort key
 * must read exactly those cells, or a row's position tells a hidden value:
 * ordering by `owner.nick` through a hidden `owner_id` would join through it.
 * So a key reached through a relationship carries the visibility conditions
 * it needs: `keyVisible` over the row the relationship starts from (its join
 * columns; failing it, the related row is absent, as the selected
 * relationship reads null), visibility of the target's join columns in
 * `filter`, and `visible` on a column (or aggregate argument) of the target,
 * which reads as null where it fails. Columns of the select's own rows are
 * redacted by the select itself (RowSource.redact), so they carry none.
 */

/** What a sort key is computed from. */
export type OrderTarget =
  | {
      readonly kind: 'column';
      readonly column: string;
      /** Inherited roles, columns of a relationship's target: null where this fails (Note [Cells a sort key reads]). */
      readonly visible?: BoolExp;
    }
  /** A scalar computed field of the row; inherited roles: null where `visible` fails. */
  | { readonly kind: 'computed-field'; readonly call: ComputedFieldCall; readonly visible?: BoolExp }
  /** A value of the (single) row an object relationship points at. */
  | {
      readonly kind: 'object-relationship';
      readonly target: QualifiedName;
      readonly mapping: ColumnMapping;
      /** The target's permission filter for the role, and the visibility of its join columns (null = all rows). */
      readonly filter: BoolExp | null;
      /** Inherited roles: where this fails on the starting row, its join columns are hidden and no row is related. */
      readonly keyVisible?: BoolExp;
      readonly key: OrderTarget;
    }
  /** An aggregate over the rows a table-returning computed field gives for the row (`<cf>_aggregate`). */
  | {
      readonly kind: 'computed-aggregate';
      readonly call: ComputedFieldCall;
      /** The returned table's permission filter for the role (null = all rows). */
      readonly filter: BoolExp | null;
      readonly aggregate: AggregateKey;
    }
  /** An aggregate over the rows of an array relationship. */
  | {
      readonly kind: 'array-aggregate';
      readonly target: QualifiedName;
      readonly mapping: ColumnMapping;
      readonly filter: BoolExp | null;
      readonly keyVisible?: BoolExp;
      readonly aggregate: AggregateKey;
    };

/** One sort key. */
export interface OrderBy {
  readonly target: OrderTarget;
  readonly direction: Direction;
  readonly nulls: Nulls;
}
