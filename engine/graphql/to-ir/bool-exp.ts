/** A `<t>_bool_exp` argument value → ir.BoolExp. */
import { getNamedType, type GraphQLEnumType, type GraphQLInputObjectType, type GraphQLInputType } from 'graphql';
import type * as ir from '../../ir/index.ts';
import type { ColumnInfo, SourceInfo } from '../../catalog/types.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { AGGREGATE_VALUE, andAll } from '../../ir/bool-exp.ts';
import { ARG } from '../schema/names.ts';
import { OPERATOR_EXTENSION, type OperatorSpec } from '../operators/operator.ts';
import { descriptorOf, type AggregateFieldDescriptor, type TableFieldDescriptor } from '../schema/descriptors.ts';
import type { TableView } from '../schema/table-view.ts';
import { toIrComputedCall } from './computed-field.ts';
import { readView, type ToIrContext } from './context.ts';
import { deeper } from './depth.ts';
import { columnsVisible, localKeysVisible, remoteKeysVisible } from './visibility.ts';
import { booleanValue, enumValue, isNullInput, leafParam, listItems, objectFields, type Input } from './input.ts';
import { docParam, valueDoc } from './mutation-input.ts';
import { typeNames, valueEncoding } from '../schema/scalars.ts';

function encodingFor(op: OperatorSpec, source: SourceInfo, dbType: string): ir.ValueEncoding {
  if (valueEncoding(source, dbType) !== 'json') return 'plain';
  if (op.operand === 'list') return 'json-each';
  return op.operand === 'value' ? 'json' : 'plain';
}

/**
 * The list of arrays of an array column's `_in`/`_nin` as ONE JSON parameter:
 * a literal is a constant, a variable (the whole list, one array or one
 * element) stays a bind-time value inside the document.
 */
function arraysParam(input: Input, type: GraphQLInputType, ctx: ToIrContext, path: string): ir.ParamSource {
  const doc: ir.JsonDoc = input.kind === 'json' ? { kind: 'const', value: input.value ?? null } : valueDoc(input.node, type, ctx);
  if (doc.kind === 'variable') return { kind: 'variable', name: doc.name, encoding: 'json', allowNull: false };
  if (doc.kind === 'const' && doc.value === null) {
    throw new EngineError(ErrorCode.ValidationFailed, 'unexpected null value for a comparison operator', { path });
  }
  return docParam(doc);
}

function inputObjectOf(t: GraphQLInputType): GraphQLInputObjectType {
  return getNamedType(t) as GraphQLInputObjectType;
}

/** A `<scalar>_comparison_exp` value over one column (or a cast of it). */
function comparisonExp(
  input: Input,
  type: GraphQLInputObjectType,
  ref: ir.ColumnRef,
  source: SourceInfo,
  dbType: string,
  ctx: ToIrContext,
  path: string,
): ir.BoolExp {
  const parts: ir.BoolExp[] = [];
  const defs = type.getFields();
  for (const [name, value] of objectFields(input, ctx)) {
    const def = defs[name];
    const op = def === undefined ? undefined : (def.extensions[OPERATOR_EXTENSION] as OperatorSpec | undefined);
    if (def === undefined || op === undefined) continue;
    const p = `${path}.${name}`;
    if (op.op === 'is_null') {
      const b = booleanValue(value, ctx);
      if (b !== null) parts.push({ kind: 'is-null', left: ref, isNull: b });
      continue;
    }
    if (op.op === 'cast') {
      for (const [target, sub] of objectFields(value, ctx)) {
        const castDef = inputObjectOf(def.type).getFields()[target];
        if (castDef === undefined) continue;
        const text = typeNames(source).text;
        parts.push(comparisonExp(sub, inputObjectOf(castDef.type), { column: ref.column, cast: text }, source, text, ctx, `${p}.${target}`));
      }
      continue;
    }
    if (op.operand === 'array-list') {
      if (op.op === 'in' || op.op === 'nin') parts.push({ kind: 'in-arrays', left: ref, op: op.op, right: arraysParam(value, def.type, ctx, p), dbType });
      continue;
    }
    const right = leafParam(value, def.type, encodingFor(op, source, dbType), ctx, false, p);
    if (right !== null) parts.push({ kind: 'compare', left: ref, op: op.op, right, dbType });
  }
  return andAll(parts);
}

/** Converts a `where` value on `view`. Null or absent means no condition. */
export function toIrBoolExp(input: Input, view: TableView, type: GraphQLInputObjectType, ctx: ToIrContext, path: string): ir.BoolExp {
  return deeper(ctx, 'boolExp', path, () => boolExpLevel(input, view, type, ctx, path));
}

function boolExpLevel(input: Input, view: TableView, type: GraphQLInputObjectType, ctx: ToIrContext, path: string): ir.BoolExp {
  const parts: ir.BoolExp[] = [];
  const defs = type.getFields();
  for (const [name, value] of objectFields(input, ctx)) {
    const def = defs[name];
    const d = def === undefined ? undefined : descriptorOf<TableFieldDescriptor>(def.extensions);
    if (def === undefined || d === undefined || isNullInput(value, ctx)) continue;
    const p = `${path}.${name}`;
    switch (d.kind) {
      case 'and':
        parts.push(andAll(listItems(value, ctx).map((v, i) => toIrBoolExp(v, view, type, ctx, `${p}[${i}]`))));
        break;
      case 'or':
        parts.push({ kind: 'or', items: listItems(value, ctx).map((v, i) => toIrBoolExp(v, view, type, ctx, `${p}[${i}]`)) });
        break;
      case 'not':
        parts.push({ kind: 'not', item: toIrBoolExp(value, view, type, ctx, p) });
        break;
      case 'computed-rows': {
        const target = readView(ctx, d.target);
        const where = andAll([target.filter, toIrBoolExp(value, target, inputObjectOf(def.type), ctx, p)]);
        parts.push({ kind: 'computed-rows', call: toIrComputedCall(d.cf, []), where });
        break;
      }
      case 'computed-scalar': {
        const ref: ir.ColumnRef = { column: d.cf.name, cast: null, computed: toIrComputedCall(d.cf, []) };
        const dbType = d.cf.returns.kind === 'scalar' ? d.cf.returns.dbType : typeNames(view.source).text;
        const cmp = comparisonExp(value, inputObjectOf(def.type), ref, view.source, dbType, ctx, p);
        // Inherited roles: a hidden value only matches where it is visible (Note [Inherited computed fields]).
        const visible = view.redact?.get(d.cf.name);
        parts.push(visible === undefined ? cmp : andAll([visible, cmp]));
        break;
      }
      case 'column': {
        const cmp = columnComparison(value, d.column, view.source, inputObjectOf(def.type), ctx, p);
        // Inherited roles: a hidden cell must not be filterable, so it only matches where it is visible.
        const visible = view.redact?.get(d.column.name);
        parts.push(visible === undefined ? cmp : andAll([visible, cmp]));
        break;
      }
      case 'object-relationship':
      case 'array-relationship': {
        const target = readView(ctx, d.rel.target);
        const mapping = d.rel.info.columnMapping;
        // Inherited roles: following a hidden join column (at either end) would reveal it, so only rows where it is visible match.
        const where = andAll([target.filter, remoteKeysVisible(target, mapping), toIrBoolExp(value, target, inputObjectOf(def.type), ctx, p)]);
        const rel: ir.BoolExp = { kind: 'relationship', target: target.info.name, mapping, where };
        parts.push(andAll([localKeysVisible(view, mapping), rel]));
        break;
      }
      case 'array-aggregate': {
        const target = readView(ctx, d.rel.target);
        const mapping = d.rel.info.columnMapping;
        const agg = aggregateBoolExp(value, target, mapping, inputObjectOf(def.type), ctx, p);
        parts.push(andAll([localKeysVisible(view, mapping), agg]));
        break;
      }
    }
  }
  return andAll(parts);
}

/**
 * v2 compat: `<rel>_aggregate: {count: {arguments, distinct, filter, predicate}}`, the parent
 * rows whose related rows (those the role may read, narrowed by `filter`) aggregate to a
 * value satisfying `predicate`.
 */
function aggregateBoolExp(
  input: Input,
  target: TableView,
  mapping: ir.ColumnMapping,
  type: GraphQLInputObjectType,
  ctx: ToIrContext,
  path: string,
): ir.BoolExp {
  const parts: ir.BoolExp[] = [];
  for (const [fn, value] of objectFields(input, ctx)) {
    const fnDef = type.getFields()[fn];
    const kind = fnDef === undefined ? undefined : descriptorOf<AggregateFieldDescriptor>(fnDef.extensions);
    if (fnDef === undefined || kind === undefined || kind.kind === 'op') continue;
    const p = `${path}.${fn}`;
    const defs = inputObjectOf(fnDef.type).getFields();
    let columns: string[] = [];
    let distinct = false;
    let filter: ir.BoolExp | null = null;
    let predicate: ir.BoolExp | null = null;
    for (const [name, v] of objectFields(value, ctx)) {
      const def = defs[name];
      if (def === undefined || isNullInput(v, ctx)) continue;
      if (name === ARG.arguments) {
        const enumType = getNamedType(def.type) as GraphQLEnumType;
        columns = listItems(v, ctx)
          .map((i) => enumValue(i, enumType, ctx))
          .filter((c): c is string => c !== null);
      } else if (name === ARG.distinct) distinct = booleanValue(v, ctx) === true;
      else if (name === ARG.filter) filter = toIrBoolExp(v, target, inputObjectOf(def.type), ctx, `${p}.${name}`);
      else if (name === ARG.predicate) {
        // count compares as the backend's count type (bigint); bool_and / bool_or as a boolean.
        const dbType = kind.kind === 'count' ? typeNames(target.source).count : typeNames(target.source).boolean;
        predicate = comparisonExp(v, inputObjectOf(def.type), { column: AGGREGATE_VALUE, cast: null }, target.source, dbType, ctx, `${p}.${name}`);
      }
    }
    if (predicate === null) throw new EngineError(ErrorCode.ValidationFailed, 'missing required field "predicate"', { path: p });
    if (kind.kind === 'bool' && columns.length !== 1) {
      throw new EngineError(ErrorCode.ValidationFailed, 'missing required field "arguments"', { path: p });
    }
    const where = andAll([target.filter, remoteKeysVisible(target, mapping), columnsVisible(target, columns), filter]);
    const aggregate = { fn: kind.kind === 'count' ? ('count' as const) : kind.fn, columns, distinct };
    parts.push({ kind: 'aggregate', target: target.info.name, mapping, where, aggregate, predicate });
  }
  return andAll(parts);
}

function columnComparison(value: Input, column: ColumnInfo, source: SourceInfo, type: GraphQLInputObjectType, ctx: ToIrContext, path: string): ir.BoolExp {
  return comparisonExp(value, type, { column: column.name, cast: null }, source, column.dbType, ctx, path);
}
