/** `_eq _neq _gt _gte _lt _lte _in _nin _is_null`: every comparable scalar. */
import type { OperatorSpec } from './operator.ts';

/** The equality and ordering operators. */
export const EQUALITY_OPERATORS: readonly OperatorSpec[] = [
  { field: '_eq', op: 'eq', operand: 'value' },
  { field: '_gt', op: 'gt', operand: 'value' },
  { field: '_gte', op: 'gte', operand: 'value' },
  { field: '_in', op: 'in', operand: 'list' },
  { field: '_is_null', op: 'is_null', operand: 'boolean' },
  { field: '_lt', op: 'lt', operand: 'value' },
  { field: '_lte', op: 'lte', operand: 'value' },
  { field: '_neq', op: 'neq', operand: 'value' },
  { field: '_nin', op: 'nin', operand: 'list' },
];

/** Enum-table columns compare only for (in)equality. */
export const ENUM_OPERATORS: readonly OperatorSpec[] = EQUALITY_OPERATORS.filter((o) => ['eq', 'neq', 'in', 'nin', 'is_null'].includes(o.op));
