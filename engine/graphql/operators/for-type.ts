/** Which operator families a column type gets (the backend names the family: ScalarInfo.operators). */
import type { ScalarInfo } from '../../backends/backend.ts';
import { EQUALITY_OPERATORS } from './equality.ts';
import { JSONB_OPERATORS } from './json.ts';
import type { OperatorSpec } from './operator.ts';
import { TEXT_OPERATORS } from './text.ts';

/** Operators of a scalar (non-array, non-enum-table) column type. */
export function operatorsForScalar(family: ScalarInfo['operators']): readonly OperatorSpec[] {
  if (family === 'json') return [...EQUALITY_OPERATORS, ...JSONB_OPERATORS].sort(byField);
  if (family === 'text') return [...EQUALITY_OPERATORS, ...TEXT_OPERATORS].sort(byField);
  return EQUALITY_OPERATORS;
}

function byField(a: OperatorSpec, b: OperatorSpec): number {
  return a.field < b.field ? -1 : a.field > b.field ? 1 : 0;
}
