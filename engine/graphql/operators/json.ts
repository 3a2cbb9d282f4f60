/** The jsonb operators. */
import type { OperatorSpec } from './operator.ts';

/** `_cast _contained_in _contains _has_key _has_keys_all _has_keys_any`. */
export const JSONB_OPERATORS: readonly OperatorSpec[] = [
  { field: '_cast', op: 'cast', operand: 'cast' },
  { field: '_contained_in', op: 'contained_in', operand: 'value' },
  { field: '_contains', op: 'contains', operand: 'value' },
  { field: '_has_key', op: 'has_key', operand: 'string' },
  { field: '_has_keys_all', op: 'has_keys_all', operand: 'string-list' },
  { field: '_has_keys_any', op: 'has_keys_any', operand: 'string-list' },
];
