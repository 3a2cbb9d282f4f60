/**
 * Mutation input objects (insert rows, `_set`/`_inc`/... arguments) as seen
 * by the translation: their structure, read with shape-only use of the
 * variables they come from, and their values as a {@link ir.JsonDoc} sent as
 * one parameter. See Note [Mutation inputs as JSON] in ir/mutation.ts.
 */
import { getNullableType, isListType, Kind, valueFromAST, type GraphQLInputType, type ValueNode } from 'graphql';
import type * as ir from '../../ir/index.ts';
import { useLeaf, useShape, type ToIrContext } from './context.ts';
import { astInput, type Input } from './input.ts';

/** The key under which `on_conflict` values are kept whole in a shape key. */
const ON_CONFLICT = 'on_conflict';

/**
 * The plan-cache key part of a shape variable's value: object keys (sorted)
 * and the set of distinct item shapes of each list, recursively; scalar
 * values do not count, except under `on_conflict`, whose values shape the
 * SQL and are kept whole. Two values with the same key give the same SQL.
 */
export function shapeKey(value: unknown): string {
  if (Array.isArray(value)) return `[${[...new Set(value.map(shapeKey))].sort().join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${k === ON_CONFLICT ? JSON.stringify(v) : shapeKey(v)}`).join(',')}}`;
  }
  return value === null ? 'n' : '_';
}

/** Follows a variable to its value, recording shape use. */
function resolveShape(input: Input, ctx: ToIrContext): Input {
  if (input.kind === 'ast' && input.node.kind === Kind.VARIABLE) return { kind: 'json', value: useShape(ctx, input.node.name.value) };
  return input;
}

/** True for null or an absent value. */
export function isNullShape(input: Input, ctx: ToIrContext): boolean {
  const r = resolveShape(input, ctx);
  return r.kind === 'ast' ? r.node.kind === Kind.NULL : r.value === null || r.value === undefined;
}

/** The fields of an input object, following variables with shape use. */
export function shapeFields(input: Input, ctx: ToIrContext): Array<readonly [string, Input]> {
  const r = resolveShape(input, ctx);
  if (r.kind === 'ast') return r.node.kind === Kind.OBJECT ? r.node.fields.map((f) => [f.name.value, astInput(f.value)] as const) : [];
  const v = r.value;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return [];
  return Object.entries(v)
    .filter(([, x]) => x !== undefined)
    .map(([k, x]) => [k, { kind: 'json', value: x }] as const);
}

/** The items of a list input (a single value is a one-item list), following variables with shape use. */
export function shapeItems(input: Input, ctx: ToIrContext): Input[] {
  if (isNullShape(input, ctx)) return [];
  const r = resolveShape(input, ctx);
  if (r.kind === 'ast') return r.node.kind === Kind.LIST ? r.node.values.map(astInput) : [r];
  return Array.isArray(r.value) ? r.value.map((value) => ({ kind: 'json', value })) : [r];
}

function hasVariable(node: ValueNode): boolean {
  if (node.kind === Kind.VARIABLE) return true;
  if (node.kind === Kind.LIST) return node.values.some(hasVariable);
  if (node.kind === Kind.OBJECT) return node.fields.some((f) => hasVariable(f.value));
  return false;
}

/**
 * A column value as a document: literals are constants (numbers keep their
 * source text, as the scalars parse them), variables stay variables.
 */
export function valueDoc(node: ValueNode, type: GraphQLInputType, ctx: ToIrContext): ir.JsonDoc {
  if (node.kind === Kind.VARIABLE) {
    useLeaf(ctx, node.name.value);
    return { kind: 'variable', name: node.name.value };
  }
  if (!hasVariable(node)) return { kind: 'const', value: valueFromAST(node, type) ?? null };
  const nullable = getNullableType(type);
  if (node.kind === Kind.LIST) {
    const item = isListType(nullable) ? nullable.ofType : nullable;
    return { kind: 'array', items: node.values.map((v) => valueDoc(v, item, ctx)) };
  }
  if (node.kind === Kind.OBJECT) return { kind: 'object', fields: node.fields.map((f) => [f.name.value, valueDoc(f.value, type, ctx)] as const) };
  return { kind: 'const', value: valueFromAST(node, type) ?? null };
}

/**
 * A whole input (row, list of rows, operator argument) as a document: a
 * variable anywhere above the leaves is taken whole (shape use); object
 * fields are converted by `field`, which returns null to leave one out.
 */
export function inputDoc(input: Input, ctx: ToIrContext, field: (name: string, value: ValueNode) => ir.JsonDoc | null): ir.JsonDoc {
  if (input.kind === 'json') return { kind: 'const', value: input.value };
  const node = input.node;
  switch (node.kind) {
    case Kind.VARIABLE:
      useShape(ctx, node.name.value);
      return { kind: 'variable', name: node.name.value };
    case Kind.LIST:
      return { kind: 'array', items: node.values.map((v) => inputDoc(astInput(v), ctx, field)) };
    case Kind.OBJECT: {
      const fields: Array<readonly [string, ir.JsonDoc]> = [];
      for (const f of node.fields) {
        const d = field(f.name.value, f.value);
        if (d !== null) fields.push([f.name.value, d]);
      }
      return { kind: 'object', fields };
    }
    default:
      return { kind: 'const', value: null };
  }
}

/** A document as a parameter: a constant when it holds no variable, else assembled at bind time. */
export function docParam(doc: ir.JsonDoc): ir.ParamSource {
  if (doc.kind === 'variable') return { kind: 'variable', name: doc.name, encoding: 'json', allowNull: true };
  if (isConstDoc(doc)) return { kind: 'const', value: JSON.stringify(constValue(doc)) };
  return { kind: 'json-doc', doc };
}

function isConstDoc(d: ir.JsonDoc): boolean {
  switch (d.kind) {
    case 'const':
      return true;
    case 'object':
      return d.fields.every(([, f]) => isConstDoc(f));
    case 'array':
      return d.items.every(isConstDoc);
    default:
      return false;
  }
}

function constValue(d: ir.JsonDoc): unknown {
  switch (d.kind) {
    case 'const':
      return d.value;
    case 'object':
      return Object.fromEntries(d.fields.map(([k, f]) => [k, constValue(f)]));
    case 'array':
      return d.items.map(constValue);
    default:
      return null;
  }
}
