/** What a comparison operator field means, stored in its input field's `extensions`. */
import type * as ir from '../../ir/index.ts';

/** The shape of an operator's argument. */
export type OperandShape =
  /** One value of the column's type. */
  | 'value'
  /** A list of the column's values. */
  | 'list'
  /** A list of the values of an array column, each itself a list (array `_in`/`_nin`): one JSON parameter. */
  | 'array-list'
  /** `Boolean` (`_is_null`). */
  | 'boolean'
  /** One `String` (`_has_key`). */
  | 'string'
  /** A list of `String` (`_has_keys_any`). */
  | 'string-list'
  /** A cast expression (`_cast: {String: ...}`). */
  | 'cast';

/** One operator field of a `<scalar>_comparison_exp`. */
export interface OperatorSpec {
  /** GraphQL field name (`_eq`). */
  readonly field: string;
  /** The IR operation; `is_null` and `cast` are structural. */
  readonly op: ir.CompareOp | 'is_null' | 'cast';
  readonly operand: OperandShape;
}

/** The key under which an input field's {@link OperatorSpec} is stored in `extensions`. */
export const OPERATOR_EXTENSION = 'engineOperator';
