/** An `order_by` argument value → ir.OrderBy[]. */
import { getNamedType, type GraphQLEnumType, type GraphQLInputObjectType } from 'graphql';
import type * as ir from '../../ir/index.ts';
import { descriptorOf, type AggregateFieldDescriptor, type TableFieldDescriptor } from '../schema/descriptors.ts';
import { nullsDefaults, typeNames } from '../schema/scalars.ts';
import type { NullsDefaults } from '../../backends/backend.ts';
import { ORDER_BY_VALUES } from '../schema/table-types.ts';
import { toIrComputedCall } from './computed-field.ts';
import { readView, type ToIrContext } from './context.ts';
import { enumValue, listItems, objectFields, type Input } from './input.ts';
import type { TableView } from '../schema/table-view.ts';
import { columnsVisible, localKeysVisible, remoteKeysVisible, withVisible } from './visibility.ts';
import { andAll, isTrue } from '../../ir/bool-exp.ts';

type Wrap = (key: ir.OrderTarget) => ir.OrderTarget;

/** Relay: where each sort key sits in a cursor's JSON, and its type (ir.CursorKey without its index). */
export interface KeyPath {
  readonly path: readonly string[];
  readonly dbType: string | null;
}

/** Collects the KeyPath of each key pushed, in step with the keys (Relay cursors). */
type Paths = { readonly prefix: readonly string[]; readonly out: KeyPath[] } | null;

function pushKey(out: ir.OrderBy[], key: ir.OrderBy, paths: Paths, path: readonly string[], dbType: string | null): void {
  out.push(key);
  paths?.out.push({ path: [...paths.prefix, ...path], dbType });
}

function under(paths: Paths, name: string): Paths {
  return paths === null ? null : { prefix: [...paths.prefix, name], out: paths.out };
}

/**
 * The direction and nulls order of an `order_by` value; `asc` and `desc`
 * name no nulls order and take the source's backend's (v2 compat: MSSQL's
 * `asc` is nulls first, PostgreSQL's nulls last).
 */
function direction(input: Input, type: GraphQLEnumType, ctx: ToIrContext, defaults: NullsDefaults): { direction: ir.Direction; nulls: ir.Nulls } | null {
  const v = enumValue(input, type, ctx);
  if (v === null || !(v in ORDER_BY_VALUES)) return null;
  const d = ORDER_BY_VALUES[v as keyof typeof ORDER_BY_VALUES];
  return { direction: d.direction, nulls: v === 'asc' || v === 'desc' ? defaults[v] : d.nulls };
}

/** The target's filter with the visibility of its join columns (Note [Cells a sort key reads]). */
function targetFilter(target: TableView, mapping: ir.ColumnMapping): ir.BoolExp | null {
  const f = andAll([target.filter, remoteKeysVisible(target, mapping)]);
  return isTrue(f) ? null : f;
}

/**
 * The sort keys of one `<t>_order_by` object over rows of `view`. `nested`:
 * those rows are a relationship's target, whose cells the keys redact
 * themselves (the select's own rows are redacted by the select).
 */
function orderObject(
  input: Input,
  type: GraphQLInputObjectType,
  view: TableView,
  nested: boolean,
  wrap: Wrap,
  ctx: ToIrContext,
  out: ir.OrderBy[],
  paths: Paths,
): void {
  const defs = type.getFields();
  for (const [name, value] of objectFields(input, ctx)) {
    const def = defs[name];
    const d = def === undefined ? undefined : descriptorOf<TableFieldDescriptor>(def.extensions);
    if (def === undefined || d === undefined) continue;
    switch (d.kind) {
      case 'column': {
        const dir = direction(value, getNamedType(def.type) as GraphQLEnumType, ctx, nullsDefaults(view.source));
        const visible = nested ? columnsVisible(view, [d.column.name]) : null;
        if (dir !== null)
          pushKey(out, { target: wrap(withVisible({ kind: 'column', column: d.column.name }, visible)), ...dir }, paths, [d.column.name], d.column.dbType);
        break;
      }
      case 'computed-scalar': {
        const dir = direction(value, getNamedType(def.type) as GraphQLEnumType, ctx, nullsDefaults(view.source));
        const visible = view.redact?.get(d.cf.name);
        const target: ir.OrderTarget = { kind: 'computed-field', call: toIrComputedCall(d.cf, []), ...(visible === undefined ? {} : { visible }) };
        if (dir !== null) pushKey(out, { target: wrap(target), ...dir }, paths, [d.cf.name], d.cf.returns.kind === 'scalar' ? d.cf.returns.dbType : null);
        break;
      }
      case 'object-relationship': {
        const t = readView(ctx, d.rel.target);
        const mapping = d.rel.info.columnMapping;
        const keyVisible = localKeysVisible(view, mapping);
        const inner: Wrap = (key) =>
          wrap({
            kind: 'object-relationship',
            target: t.info.name,
            mapping,
            filter: targetFilter(t, mapping),
            ...(keyVisible === null ? {} : { keyVisible }),
            key,
          });
        orderObject(value, getNamedType(def.type) as GraphQLInputObjectType, t, true, inner, ctx, out, under(paths, name));
        break;
      }
      case 'array-aggregate': {
        const t = readView(ctx, d.rel.target);
        const mapping = d.rel.info.columnMapping;
        const keyVisible = localKeysVisible(view, mapping);
        const key = (aggregate: ir.AggregateKey): ir.OrderTarget =>
          wrap({
            kind: 'array-aggregate',
            target: t.info.name,
            mapping,
            filter: targetFilter(t, mapping),
            ...(keyVisible === null ? {} : { keyVisible }),
            aggregate,
          });
        aggregateOrder(value, getNamedType(def.type) as GraphQLInputObjectType, t, key, ctx, out, under(paths, name));
        break;
      }
      case 'computed-aggregate': {
        // v2 compat: `<cf>_aggregate: {count: desc}` sorts by an aggregate of the rows the function returns.
        const t = readView(ctx, d.target);
        const call = toIrComputedCall(d.cf, []);
        const key = (aggregate: ir.AggregateKey): ir.OrderTarget =>
          wrap({ kind: 'computed-aggregate', call, filter: t.filter === null || isTrue(t.filter) ? null : t.filter, aggregate });
        aggregateOrder(value, getNamedType(def.type) as GraphQLInputObjectType, t, key, ctx, out, under(paths, name));
        break;
      }
      default:
        break;
    }
  }
}

/** `<rel>_aggregate: {count: asc, max: {col: desc}}` over rows of `t`; `key` makes the sort target of an aggregate. */
function aggregateOrder(
  input: Input,
  type: GraphQLInputObjectType,
  t: TableView,
  key: (aggregate: ir.AggregateKey) => ir.OrderTarget,
  ctx: ToIrContext,
  out: ir.OrderBy[],
  paths: Paths,
): void {
  const defs = type.getFields();
  for (const [name, value] of objectFields(input, ctx)) {
    const def = defs[name];
    const a = def === undefined ? undefined : descriptorOf<AggregateFieldDescriptor>(def.extensions);
    if (def === undefined || a === undefined || a.kind === 'bool') continue;
    if (a.kind === 'count') {
      const dir = direction(value, getNamedType(def.type) as GraphQLEnumType, ctx, nullsDefaults(t.source));
      if (dir !== null) pushKey(out, { target: key({ kind: 'count' }), ...dir }, paths, [name], typeNames(t.source).count);
      continue;
    }
    const colDefs = (getNamedType(def.type) as GraphQLInputObjectType).getFields();
    for (const [col, v] of objectFields(value, ctx)) {
      const cd = colDefs[col];
      const c = cd === undefined ? undefined : descriptorOf<TableFieldDescriptor>(cd.extensions);
      if (cd === undefined || c?.kind !== 'column') continue;
      const dir = direction(v, getNamedType(cd.type) as GraphQLEnumType, ctx, nullsDefaults(t.source));
      const visible = columnsVisible(t, [c.column.name]);
      const keyType = a.op === 'max' || a.op === 'min' ? c.column.dbType : null;
      if (dir !== null)
        pushKey(out, { target: key(withVisible({ kind: 'op', op: a.op, column: c.column.name }, visible)), ...dir }, paths, [name, c.column.name], keyType);
    }
  }
}

/** Converts an `order_by` value (one object or a list of them). */
export function toIrOrderBy(input: Input, type: GraphQLInputObjectType, view: TableView, ctx: ToIrContext, keyPaths: KeyPath[] | null = null): ir.OrderBy[] {
  const out: ir.OrderBy[] = [];
  const paths: Paths = keyPaths === null ? null : { prefix: [], out: keyPaths };
  for (const item of listItems(input, ctx)) orderObject(item, type, view, false, (k) => k, ctx, out, paths);
  return out;
}
