/**
 * Which operators a column type gets (the backend names the family: ScalarInfo.operators).
 *
 * Note [Comparison operators per backend]
 * A backend offers only the comparison operators its compilers translate, as
 * v2's schema does per backend: PostgreSQL's text types have every pattern
 * operator (`_like`, `_ilike`, `_similar`, `_regex`...), v2's MSSQL only
 * `_like` and `_nlike` (Backend.comparisons.text). So that one scalar's
 * comparison types of two backends never meet under one name with different
 * fields, a backend that says which it has also names its types with an
 * infix (v2's `String_MSSQL_comparison_exp`): the schema of an engine with a
 * PostgreSQL and an MSSQL source has both `String_comparison_exp` and
 * `String_MSSQL_comparison_exp`, as v2's does.
 */
import type { ComparisonSupport, ScalarInfo } from '../../backends/backend.ts';
import { EQUALITY_OPERATORS } from './equality.ts';
import { JSONB_OPERATORS } from './json.ts';
import type { OperatorSpec } from './operator.ts';
import { TEXT_OPERATORS } from './text.ts';

/** Operators of a scalar (non-array, non-enum-table) column type; `support`: its backend's (absent: PostgreSQL's, all of them). */
export function operatorsForScalar(family: ScalarInfo['operators'], support?: ComparisonSupport): readonly OperatorSpec[] {
  if (family === 'json') return [...EQUALITY_OPERATORS, ...JSONB_OPERATORS].sort(byField);
  if (family === 'text') {
    const text = support === undefined ? TEXT_OPERATORS : TEXT_OPERATORS.filter((op) => support.text.includes(op.field));
    return [...EQUALITY_OPERATORS, ...text].sort(byField);
  }
  return EQUALITY_OPERATORS;
}

function byField(a: OperatorSpec, b: OperatorSpec): number {
  return a.field < b.field ? -1 : a.field > b.field ? 1 : 0;
}
