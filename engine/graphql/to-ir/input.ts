/**
 * Argument values seen uniformly whether they come from the query text (AST)
 * or from a structural variable (already-coerced JSON).
 */
import { getNullableType, isListType, Kind, valueFromAST, type GraphQLEnumType, type GraphQLInputType, type ValueNode } from 'graphql';
import type * as ir from '../../ir/index.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { useLeaf, useStructural, type ToIrContext } from './context.ts';

/** An input value from the document or from a variable's value. */
export type Input = { readonly kind: 'ast'; readonly node: ValueNode } | { readonly kind: 'json'; readonly value: unknown };

/** An AST value as an {@link Input}. */
export function astInput(node: ValueNode): Input {
  return { kind: 'ast', node };
}

/** Follows a variable at a non-leaf position to its value, marking it structural. */
export function resolveStructural(input: Input, ctx: ToIrContext): Input {
  if (input.kind === 'ast' && input.node.kind === Kind.VARIABLE) {
    return { kind: 'json', value: useStructural(ctx, input.node.name.value) };
  }
  return input;
}

/** True for null or an absent variable. */
export function isNullInput(input: Input, ctx: ToIrContext): boolean {
  const r = resolveStructural(input, ctx);
  return r.kind === 'ast' ? r.node.kind === Kind.NULL : r.value === null || r.value === undefined;
}

/** The fields of an input object, in the order given. */
export function objectFields(input: Input, ctx: ToIrContext): Array<readonly [string, Input]> {
  const r = resolveStructural(input, ctx);
  if (r.kind === 'ast') {
    return r.node.kind === Kind.OBJECT ? r.node.fields.map((f) => [f.name.value, astInput(f.value)] as const) : [];
  }
  const v = r.value;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return [];
  return Object.entries(v)
    .filter(([, x]) => x !== undefined)
    .map(([k, x]) => [k, { kind: 'json', value: x }] as const);
}

/** The items of a list input; a single value stands for a one-item list (GraphQL input coercion). */
export function listItems(input: Input, ctx: ToIrContext): Input[] {
  if (isNullInput(input, ctx)) return [];
  const r = resolveStructural(input, ctx);
  if (r.kind === 'ast') return r.node.kind === Kind.LIST ? r.node.values.map(astInput) : [r];
  return Array.isArray(r.value) ? r.value.map((value) => ({ kind: 'json', value })) : [r];
}

/** The internal value of an enum input (order_by direction, select_column). */
export function enumValue(input: Input, type: GraphQLEnumType, ctx: ToIrContext): string | null {
  const r = resolveStructural(input, ctx);
  if (r.kind === 'ast') {
    if (r.node.kind !== Kind.ENUM) return null;
    const v = type.getValue(r.node.value)?.value;
    return typeof v === 'string' ? v : null;
  }
  return typeof r.value === 'string' ? r.value : null;
}

/** A boolean input (`_is_null`, `distinct`); null when absent. */
export function booleanValue(input: Input, ctx: ToIrContext): boolean | null {
  const r = resolveStructural(input, ctx);
  if (r.kind === 'ast') return r.node.kind === Kind.BOOLEAN ? r.node.value : null;
  return typeof r.value === 'boolean' ? r.value : null;
}

function encode(value: unknown, encoding: ir.ValueEncoding): unknown {
  if (value === null || value === undefined) return null;
  if (encoding === 'json') return JSON.stringify(value);
  if (encoding === 'json-each') return Array.isArray(value) ? value.map((x) => JSON.stringify(x)) : [JSON.stringify(value)];
  return value;
}

/**
 * A leaf value as a parameter slot: a variable stays a bind-time slot, a
 * literal becomes a constant. Returns null for a null literal when
 * `allowNull`, and fails otherwise.
 */
export function leafParam(
  input: Input,
  type: GraphQLInputType,
  encoding: ir.ValueEncoding,
  ctx: ToIrContext,
  allowNull: boolean,
  path: string,
): ir.ParamSource | null {
  if (input.kind === 'ast' && input.node.kind === Kind.VARIABLE) {
    useLeaf(ctx, input.node.name.value);
    return { kind: 'variable', name: input.node.name.value, encoding, allowNull };
  }
  if (input.kind === 'ast' && input.node.kind === Kind.LIST && input.node.values.some((v) => v.kind === Kind.VARIABLE)) {
    const nullable = getNullableType(type);
    const itemType = isListType(nullable) ? getNullableType(nullable.ofType) : nullable;
    const itemEncoding = encoding === 'json-each' ? 'json' : encoding;
    const items = input.node.values.map(
      (v): ir.ParamSource => leafParam(astInput(v), itemType, itemEncoding, ctx, true, path) ?? { kind: 'const', value: null },
    );
    return { kind: 'list', items };
  }
  const value = input.kind === 'ast' ? valueFromAST(input.node, type, ctx.variables) : input.value;
  if (value === null || value === undefined) {
    if (allowNull) return null;
    throw new EngineError(ErrorCode.ValidationFailed, 'unexpected null value for a comparison operator', { path });
  }
  return { kind: 'const', value: encode(value, encoding) };
}
