/**
 * Operators of array columns: the column's value is a list, so every operand
 * is a list of the element type. `_in`/`_nin` are left out: Postgres `= ANY`
 * cannot take a list of arrays as one parameter.
 */
import type { OperatorSpec } from './operator.ts';

/** `_contained_in _contains _eq _gt _gte _is_null _lt _lte _neq`. */
export const ARRAY_OPERATORS: readonly OperatorSpec[] = [
  { field: '_contained_in', op: 'contained_in', operand: 'value' },
  { field: '_contains', op: 'contains', operand: 'value' },
  { field: '_eq', op: 'eq', operand: 'value' },
  { field: '_gt', op: 'gt', operand: 'value' },
  { field: '_gte', op: 'gte', operand: 'value' },
  { field: '_is_null', op: 'is_null', operand: 'boolean' },
  { field: '_lt', op: 'lt', operand: 'value' },
  { field: '_lte', op: 'lte', operand: 'value' },
  { field: '_neq', op: 'neq', operand: 'value' },
];
