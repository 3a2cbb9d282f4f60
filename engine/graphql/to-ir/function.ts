/**
 * Tracked function root fields → IR: the return table's row source (the
 * role's filter and limit, the user's where/order_by/...) read from the
 * function call instead of the table.
 */
import { getNamedType, type FieldNode, type GraphQLField, type GraphQLInputObjectType, type GraphQLObjectType } from 'graphql';
import type * as ir from '../../ir/index.ts';
import type { FunctionArgInfo, FunctionInfo, SourceInfo } from '../../catalog/types.ts';
import type { RootFieldDescriptor } from '../schema/descriptors.ts';
import { FUNCTION_ARGS } from '../schema/names.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { valueEncoding } from '../schema/scalars.ts';
import { argumentOf } from './collect-fields.ts';
import { readView, type ToIrContext } from './context.ts';
import { astInput, leafParam, objectFields, type Input } from './input.ts';
import { toIrAggregate, toIrFields, toIrRowSource } from './select.ts';
import { toIrConnection } from './connection.ts';

type FunctionDescriptor = Extract<RootFieldDescriptor, { kind: 'function' | 'function-aggregate' | 'function-connection' }>;

/**
 * The arguments given in `args: {...}` (absent ones are left to their
 * defaults), as call arguments. `extra` are the engine's own (session, row).
 */
export function toIrFunctionArgs(
  source: SourceInfo,
  args: readonly FunctionArgInfo[],
  field: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  path: string,
): ir.CallArgument[] {
  const node = argumentOf(nodes, FUNCTION_ARGS);
  const argDef = field.args.find((a) => a.name === FUNCTION_ARGS);
  if (node === undefined || argDef === undefined) return [];
  const type = getNamedType(argDef.type) as GraphQLInputObjectType;
  const defs = type.getFields();
  const given = new Map<string, Input>(objectFields(astInput(node), ctx));
  const out: ir.CallArgument[] = [];
  // Positional arguments come first; one left out ends them (Note [Unnamed function arguments]).
  let skipped: FunctionArgInfo | null = null;
  for (const a of args) {
    const input = given.get(a.name);
    const def = defs[a.name];
    const p = `${path}.args.${FUNCTION_ARGS}.${a.name}`;
    if (input === undefined || def === undefined) {
      if (a.positional === true) skipped ??= a;
      continue;
    }
    if (a.positional === true && skipped !== null) {
      throw new EngineError(
        ErrorCode.ValidationFailed,
        `"${a.name}" cannot be given without "${skipped.name}": the arguments up to an unnamed one are passed by position`,
        { path: p },
      );
    }
    // An explicit null is passed as SQL NULL (unlike an absent argument, which takes the default).
    const value = leafParam(input, def.type, valueEncoding(source, a.dbType), ctx, true, p);
    out.push({ name: a.name, value: value ?? { kind: 'const', value: null }, ...(a.positional === true ? { positional: true } : {}) });
  }
  return out;
}

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
  return { kind: 'select', alias, source, select: { from, fields, cardinality: 'many' } };
}
