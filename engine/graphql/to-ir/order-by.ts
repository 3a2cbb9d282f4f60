/** An `order_by` argument value → ir.OrderBy[]. */
import { getNamedType, type GraphQLEnumType, type GraphQLInputObjectType } from 'graphql';
import type * as ir from '../../ir/index.ts';
import { descriptorOf, type AggregateFieldDescriptor, type TableFieldDescriptor } from '../schema/descriptors.ts';
import { ORDER_BY_VALUES } from '../schema/table-types.ts';
import { toIrComputedCall } from './computed-field.ts';
import { readView, type ToIrContext } from './context.ts';
import { enumValue, listItems, objectFields, type Input } from './input.ts';

type Wrap = (key: ir.OrderTarget) => ir.OrderTarget;

function direction(input: Input, type: GraphQLEnumType, ctx: ToIrContext): { direction: ir.Direction; nulls: ir.Nulls } | null {
  const v = enumValue(input, type, ctx);
  if (v === null || !(v in ORDER_BY_VALUES)) return null;
  const d = ORDER_BY_VALUES[v as keyof typeof ORDER_BY_VALUES];
  return { direction: d.direction, nulls: d.nulls };
}

function orderObject(input: Input, type: GraphQLInputObjectType, wrap: Wrap, ctx: ToIrContext, out: ir.OrderBy[]): void {
  const defs = type.getFields();
  for (const [name, value] of objectFields(input, ctx)) {
    const def = defs[name];
    const d = def === undefined ? undefined : descriptorOf<TableFieldDescriptor>(def.extensions);
    if (def === undefined || d === undefined) continue;
    switch (d.kind) {
      case 'column': {
        const dir = direction(value, getNamedType(def.type) as GraphQLEnumType, ctx);
        if (dir !== null) out.push({ target: wrap({ kind: 'column', column: d.column.name }), ...dir });
        break;
      }
      case 'computed-scalar': {
        const dir = direction(value, getNamedType(def.type) as GraphQLEnumType, ctx);
        if (dir !== null) out.push({ target: wrap({ kind: 'computed-field', call: toIrComputedCall(d.cf, null, [], ctx, '$') }), ...dir });
        break;
      }
      case 'object-relationship': {
        const t = readView(ctx, d.rel.target);
        const inner: Wrap = (key) =>
          wrap({ kind: 'object-relationship', target: t.info.name, mapping: d.rel.info.columnMapping, filter: t.filter, key });
        orderObject(value, getNamedType(def.type) as GraphQLInputObjectType, inner, ctx, out);
        break;
      }
      case 'array-aggregate':
        aggregateOrder(value, getNamedType(def.type) as GraphQLInputObjectType, d, wrap, ctx, out);
        break;
      default:
        break;
    }
  }
}

/** `<rel>_aggregate: {count: asc, max: {col: desc}}`. */
function aggregateOrder(
  input: Input,
  type: GraphQLInputObjectType,
  d: Extract<TableFieldDescriptor, { kind: 'array-aggregate' }>,
  wrap: Wrap,
  ctx: ToIrContext,
  out: ir.OrderBy[],
): void {
  const t = readView(ctx, d.rel.target);
  const key = (aggregate: ir.AggregateKey): ir.OrderTarget =>
    wrap({ kind: 'array-aggregate', target: t.info.name, mapping: d.rel.info.columnMapping, filter: t.filter, aggregate });
  const defs = type.getFields();
  for (const [name, value] of objectFields(input, ctx)) {
    const def = defs[name];
    const a = def === undefined ? undefined : descriptorOf<AggregateFieldDescriptor>(def.extensions);
    if (def === undefined || a === undefined) continue;
    if (a.kind === 'count') {
      const dir = direction(value, getNamedType(def.type) as GraphQLEnumType, ctx);
      if (dir !== null) out.push({ target: key({ kind: 'count' }), ...dir });
      continue;
    }
    const colDefs = (getNamedType(def.type) as GraphQLInputObjectType).getFields();
    for (const [col, v] of objectFields(value, ctx)) {
      const cd = colDefs[col];
      const c = cd === undefined ? undefined : descriptorOf<TableFieldDescriptor>(cd.extensions);
      if (cd === undefined || c?.kind !== 'column') continue;
      const dir = direction(v, getNamedType(cd.type) as GraphQLEnumType, ctx);
      if (dir !== null) out.push({ target: key({ kind: 'op', op: a.op, column: c.column.name }), ...dir });
    }
  }
}

/** Converts an `order_by` value (one object or a list of them). */
export function toIrOrderBy(input: Input, type: GraphQLInputObjectType, ctx: ToIrContext): ir.OrderBy[] {
  const out: ir.OrderBy[] = [];
  for (const item of listItems(input, ctx)) orderObject(item, type, (k) => k, ctx, out);
  return out;
}
