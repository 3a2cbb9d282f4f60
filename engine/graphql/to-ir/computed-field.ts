/**
 * Computed fields → IR calls: the field's function on the current row, with
 * the `args: {...}` the query gives (absent ones take their defaults) and
 * the session variables for its session argument.
 */
import type { FieldNode, GraphQLField } from 'graphql';
import type * as ir from '../../ir/index.ts';
import type { ComputedFieldInfo } from '../../catalog/types.ts';
import type { ToIrContext } from './context.ts';
import { toIrFunctionArgs } from './function.ts';

/** The call of `cf` with the arguments given on `field` (none for bool_exp and order_by uses). */
export function toIrComputedCall(
  cf: ComputedFieldInfo,
  field: GraphQLField<unknown, unknown> | null,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  path: string,
): ir.ComputedFieldCall {
  const given = field === null ? [] : toIrFunctionArgs(cf.args, field, nodes, ctx, path);
  const args = cf.sessionArgument === null ? given : [...given, { name: cf.sessionArgument, value: { kind: 'session-object' } as const }];
  return { function: cf.function, tableArgument: cf.tableArgument, args };
}
