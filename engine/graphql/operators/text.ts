/** The pattern operators of text types. */
import type { OperatorSpec } from './operator.ts';

/** `_like _nlike _ilike _nilike _similar _nsimilar _regex _nregex _iregex _niregex`. */
export const TEXT_OPERATORS: readonly OperatorSpec[] = [
  { field: '_ilike', op: 'ilike', operand: 'value' },
  { field: '_iregex', op: 'iregex', operand: 'value' },
  { field: '_like', op: 'like', operand: 'value' },
  { field: '_nilike', op: 'nilike', operand: 'value' },
  { field: '_niregex', op: 'niregex', operand: 'value' },
  { field: '_nlike', op: 'nlike', operand: 'value' },
  { field: '_nregex', op: 'nregex', operand: 'value' },
  { field: '_nsimilar', op: 'nsimilar', operand: 'value' },
  { field: '_regex', op: 'regex', operand: 'value' },
  { field: '_similar', op: 'similar', operand: 'value' },
];
