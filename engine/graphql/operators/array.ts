/**
 * Operators of array columns: the column's value is a list, so every operand
 * is a list of the element type, and `_in`/`_nin` take a list of such lists
 * (sent as one JSON parameter; the backend's bool-exp translation casts it).
 */
import type { OperatorSpec } from './operator.ts';

/** `_contained_in _contains _eq _gt _gte _in _is_null _lt _lte _neq _nin`. */
export const ARRAY_OPERATORS: readonly OperatorSpec[] = [
  { field: '_contained_in', op: 'contained_in', operand: 'value' },
  { field: '_contains', op: 'contains', operand: 'value' },
  { field: '_eq', op: 'eq', operand: 'value' },
  { field: '_gt', op: 'gt', operand: 'value' },
  { field: '_gte', op: 'gte', operand: 'value' },
  { field: '_in', op: 'in', operand: 'array-list' },
  { field: '_is_null', op: 'is_null', operand: 'boolean' },
  { field: '_lt', op: 'lt', operand: 'value' },
  { field: '_lte', op: 'lte', operand: 'value' },
  { field: '_neq', op: 'neq', operand: 'value' },
  { field: '_nin', op: 'nin', operand: 'array-list' },
];
