/**
 * A function's `args: {...}` → call arguments: for tracked functions
 * (function.ts) and computed fields (select.ts), which both import it.
 */
import { getNamedType, type FieldNode, type GraphQLField, type GraphQLInputObjectType } from 'graphql';
import type * as ir from '../../ir/index.ts';
import type { FunctionArgInfo, SourceInfo } from '../../catalog/types.ts';
import { FUNCTION_ARGS } from '../schema/names.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { valueEncoding } from '../schema/scalars.ts';
import { argumentOf } from './collect-fields.ts';
import type { ToIrContext } from './context.ts';
import { astInput, leafParam, objectFields, type Input } from './input.ts';

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
