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
  | { readonly kind: 'op'; readonly op: AggregateOp; readonly column: string };

/** Aggregate functions with a column argument. */
export type AggregateOp =
  | 'sum' | 'avg' | 'max' | 'min' | 'stddev' | 'stddev_pop' | 'stddev_samp' | 'var_pop' | 'var_samp' | 'variance';

/** What a sort key is computed from. */
export type OrderTarget =
  | { readonly kind: 'column'; readonly column: string }
  /** A scalar computed field of the row. */
  | { readonly kind: 'computed-field'; readonly call: ComputedFieldCall }
  /** A value of the (single) row an object relationship points at. */
  | {
      readonly kind: 'object-relationship';
      readonly target: QualifiedName;
      readonly mapping: ColumnMapping;
      /** The target's permission filter for the role (null = all rows). */
      readonly filter: BoolExp | null;
      readonly key: OrderTarget;
    }
  /** An aggregate over the rows of an array relationship. */
  | {
      readonly kind: 'array-aggregate';
      readonly target: QualifiedName;
      readonly mapping: ColumnMapping;
      readonly filter: BoolExp | null;
      readonly aggregate: AggregateKey;
    };

/** One sort key. */
export interface OrderBy {
  readonly target: OrderTarget;
  readonly direction: Direction;
  readonly nulls: Nulls;
}
