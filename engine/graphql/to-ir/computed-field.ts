/**
 * Computed fields → IR calls: the field's function on the current row, with
 * the `args: {...}` the query gives (absent ones take their defaults) and
 * the session variables for its session argument.
 */
import type * as ir from '../../ir/index.ts';
import type { ComputedFieldInfo } from '../../catalog/types.ts';

/** The call of `cf` with the arguments `given` (toIrFunctionArgs; none for bool_exp and order_by uses). */
export function toIrComputedCall(cf: ComputedFieldInfo, given: readonly ir.CallArgument[]): ir.ComputedFieldCall {
  const args = cf.sessionArgument === null ? given : [...given, { name: cf.sessionArgument, value: { kind: 'session-object' } as const }];
  if (cf.argumentMapping === undefined) return { function: cf.function, tableArgument: cf.tableArgument, args };
  const argTypes = Object.fromEntries(cf.args.map((a) => [a.name, a.dbType]));
  return { function: cf.function, tableArgument: null, args, argumentMapping: cf.argumentMapping, argTypes };
}
