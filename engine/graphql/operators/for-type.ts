/** Which operator families a column type gets. */
import { EQUALITY_OPERATORS } from './equality.ts';
import { JSONB_OPERATORS } from './json.ts';
import type { OperatorSpec } from './operator.ts';
import { TEXT_OPERATORS } from './text.ts';

/** Operators of a scalar (non-array, non-enum-table) column type. */
export function operatorsForScalar(dbType: string, isText: boolean): readonly OperatorSpec[] {
  if (dbType === 'jsonb') return [...EQUALITY_OPERATORS, ...JSONB_OPERATORS].sort(byField);
  if (isText) return [...EQUALITY_OPERATORS, ...TEXT_OPERATORS].sort(byField);
  return EQUALITY_OPERATORS;
}

function byField(a: OperatorSpec, b: OperatorSpec): number {
  return a.field < b.field ? -1 : a.field > b.field ? 1 : 0;
}
