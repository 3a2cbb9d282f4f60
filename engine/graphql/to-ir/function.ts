/**
 * Tracked function root fields → IR: the return table's row source (the
 * role's filter and limit, the user's where/order_by/...) read from the
 * function call instead of the table.
 */
import { getNamedType, type FieldNode, type GraphQLField, type GraphQLObjectType } from 'graphql';
import type * as ir from '../../ir/index.ts';
import type { FunctionInfo } from '../../catalog/types.ts';
import type { RootFieldDescriptor } from '../schema/descriptors.ts';
import { readView, type ToIrContext } from './context.ts';
import { toIrFunctionArgs } from './function-args.ts';
import { toIrRowSource } from './row-source.ts';
import { toIrAggregate, toIrFields } from './select.ts';
import { toIrConnection } from './connection.ts';

type FunctionDescriptor = Extract<RootFieldDescriptor, { kind: 'function' | 'function-aggregate' | 'function-connection' }>;

function functionCall(fn: FunctionInfo, args: ir.CallArgument[]): ir.FunctionCall {
  const all = fn.sessionArgument === null ? args : [...args, { name: fn.sessionArgument, value: { kind: 'session-object' } as const }];
  return { name: fn.name, args: all };
}

/** A `<fn>` or `<fn>_aggregate` root field. */
export function toIrFunctionField(
  d: FunctionDescriptor,
  def: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  alias: string,
  path: string,
): ir.DbRootField {
  const view = readView(ctx, d.table);
  const call = functionCall(d.fn, toIrFunctionArgs(view.source, d.fn.args, def, nodes, ctx, path));
  const source = view.source.name;
  if (d.kind === 'function-connection') {
    const c = toIrConnection(view, def, nodes, ctx, path);
    return { kind: 'connection', alias, source, select: { ...c, from: { ...c.from, function: call } } };
  }
  if (d.kind === 'function-aggregate') {
    const agg = toIrAggregate(view, def, nodes, ctx, path);
    return { kind: 'aggregate', alias, source, select: { ...agg, from: { ...agg.from, function: call } } };
  }
  const from = { ...toIrRowSource(view, def, nodes, ctx, path), function: call };
  const fields = toIrFields(view, getNamedType(def.type) as GraphQLObjectType, nodes, ctx, path);
  return { kind: 'select', alias, source, select: { from, fields, cardinality: d.fn.returnsSet ? 'many' : 'one' } };
}
