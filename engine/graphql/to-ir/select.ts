/**
 * Selections on table types → ir.Select / ir.AggregateSelect, with the
 * role's permission (filter, limit cap) folded into every row source.
 */
import {
  getNamedType,
  GraphQLInt,
  GraphQLString,
  type FieldNode,
  type GraphQLEnumType,
  type GraphQLField,
  type GraphQLInputObjectType,
  type GraphQLObjectType,
} from 'graphql';
import type * as ir from '../../ir/index.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { negativeRowCount } from '../../errors/row-count.ts';
import { parseJsonPath } from '../../ir/json-path.ts';
import { andAll, isTrue } from '../../ir/bool-exp.ts';
import { descriptorOf, type AggregateFieldDescriptor, type TableFieldDescriptor } from '../schema/descriptors.ts';
import { ARG, FIELD } from '../schema/names.ts';
import { isBigNumeric } from '../schema/scalars.ts';
import { toIrFunctionArgs } from './function.ts';
import type { TableView } from '../schema/table-view.ts';
import { toIrBoolExp } from './bool-exp.ts';
import { toIrComputedCall } from './computed-field.ts';
import { argumentOf, collectFields, selectedFields } from './collect-fields.ts';
import { readView, type ToIrContext } from './context.ts';
import { deeper } from './depth.ts';
import { astInput, booleanValue, enumValue, leafParam, listItems } from './input.ts';
import { toIrOrderBy, type KeyPath } from './order-by.ts';
import { toIrConnection } from './connection.ts';
import { remoteKeysVisible } from './visibility.ts';
import { toIrRemoteJoin } from './remote.ts';
import { pathKeys, toIrSourceJoin } from './remote-table-join.ts';
import { joinColumnKey } from '../../ir/remote.ts';

function whereOf(filters: readonly (ir.BoolExp | null)[]): ir.BoolExp | null {
  const w = andAll(filters);
  return isTrue(w) ? null : w;
}

/** Rows of `view` with no arguments (object relationships, by_pk before its key). */
export function plainSource(view: TableView, extra: ir.BoolExp | null = null): ir.RowSource {
  return {
    table: view.info.name,
    where: whereOf([view.filter, extra]),
    ...(view.redact === null ? {} : { redact: view.redact }),
    orderBy: [],
    distinctOn: [],
    limit: null,
    limitCap: null,
    offset: null,
  };
}

/** The row source of a list field: its `where, order_by, distinct_on, limit, offset` and the permission. */
export function toIrRowSource(
  view: TableView,
  field: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  path: string,
  extra: ir.BoolExp | null = null,
  keyPaths: KeyPath[] | null = null,
): ir.RowSource {
  const argType = (name: string): GraphQLInputObjectType | GraphQLEnumType | undefined => {
    const arg = field.args.find((a) => a.name === name);
    return arg === undefined ? undefined : (getNamedType(arg.type) as GraphQLInputObjectType | GraphQLEnumType);
  };
  const whereNode = argumentOf(nodes, ARG.where);
  const whereType = argType(ARG.where) as GraphQLInputObjectType;
  const userWhere = whereNode === undefined ? null : toIrBoolExp(astInput(whereNode), view, whereType, ctx, `${path}.args.where`);
  const orderNode = argumentOf(nodes, ARG.orderBy);
  const orderBy = orderNode === undefined ? [] : toIrOrderBy(astInput(orderNode), argType(ARG.orderBy) as GraphQLInputObjectType, view, ctx, keyPaths);
  const distinctNode = argumentOf(nodes, ARG.distinctOn);
  const distinctType = argType(ARG.distinctOn) as GraphQLEnumType;
  const distinctOn =
    distinctNode === undefined
      ? []
      : listItems(astInput(distinctNode), ctx)
          .map((i) => enumValue(i, distinctType, ctx))
          .filter((c): c is string => c !== null);
  checkDistinctOn(distinctOn, orderBy, path);
  return {
    table: view.info.name,
    where: whereOf([view.filter, extra, userWhere]),
    ...(view.redact === null ? {} : { redact: view.redact }),
    orderBy,
    distinctOn,
    limit: rowCountArg(nodes, ARG.limit, ctx, path),
    limitCap: view.limitCap,
    offset: rowCountArg(nodes, ARG.offset, ctx, path),
  };
}

/** A literal `path` parsed now (errors at the selecting field, as v2), a variable when bound; null = the whole value. */
function toIrJsonPath(p: ir.ParamSource | null, fieldPath: string): ir.ParamSource | null {
  if (p === null || p.kind !== 'const') return p;
  return { kind: 'const', value: parseJsonPath(String(p.value), fieldPath) };
}

/**
 * A row-count argument (`limit`, `offset`; Relay's `first`, `last`) of the field at `path`, null
 * when absent: a literal must not be negative, a variable is checked when bound (Note [Row counts]).
 */
export function rowCountArg(nodes: readonly FieldNode[], name: string, ctx: ToIrContext, path: string): ir.ParamSource | null {
  const node = argumentOf(nodes, name);
  if (node === undefined) return null;
  const argPath = `${path}.args.${name}`;
  const p = leafParam(astInput(node), GraphQLInt, 'row-count', ctx, true, argPath);
  if (p !== null && p.kind === 'const' && typeof p.value === 'number' && p.value < 0) throw negativeRowCount(argPath);
  return p;
}

/*
 * Note [distinct_on leads order_by]
 * PostgreSQL requires the DISTINCT ON expressions to be the leftmost ORDER BY
 * expressions. v2 refuses a request whose `order_by` starts with other keys
 * (a validation error) rather than reordering the sort behind the client's
 * back, which would change which row of each group is kept. Without any
 * `order_by` there is nothing to contradict, and the translator sorts by the
 * distinct columns itself (as v2 does).
 */
function checkDistinctOn(distinctOn: readonly string[], orderBy: readonly ir.OrderBy[], path: string): void {
  if (distinctOn.length === 0 || orderBy.length === 0) return;
  const lead = orderBy.slice(0, distinctOn.length);
  const cols = new Set(lead.map((o) => (o.target.kind === 'column' ? o.target.column : null)));
  const covered = lead.length === distinctOn.length && lead.every((o) => o.target.kind === 'column') && distinctOn.every((c) => cols.has(c));
  if (!covered) {
    throw new EngineError(ErrorCode.ValidationFailed, '"distinct_on" columns must match initial "order_by" columns', { path });
  }
}

/** The fields selected on a table's object type. */
export function toIrFields(view: TableView, type: GraphQLObjectType, nodes: readonly FieldNode[], ctx: ToIrContext, path: string): ir.Field[] {
  return deeper(ctx, 'selection', path, () => fieldsLevel(view, type, nodes, ctx, path));
}

function fieldsLevel(view: TableView, type: GraphQLObjectType, nodes: readonly FieldNode[], ctx: ToIrContext, path: string): ir.Field[] {
  const out: ir.Field[] = [];
  const defs = type.getFields();
  for (const [alias, fieldNodes] of collectFields(
    type,
    nodes.map((n) => n.selectionSet),
    ctx,
  )) {
    const name = fieldNodes[0]?.name.value ?? alias;
    if (name === '__typename') {
      out.push({ kind: 'typename', alias, typename: type.name });
      continue;
    }
    const def = defs[name];
    const d = def === undefined ? undefined : descriptorOf<TableFieldDescriptor>(def.extensions);
    if (def === undefined || d === undefined) continue;
    const p = `${path}.selectionSet.${alias}`;
    switch (d.kind) {
      case 'column': {
        const asText = ctx.stringifyNumericTypes && isBigNumeric(view.source, d.column.dbType);
        const pathNode = argumentOf(fieldNodes, ARG.path);
        const jsonPath =
          pathNode === undefined ? null : toIrJsonPath(leafParam(astInput(pathNode), GraphQLString, 'json-path', ctx, true, `${p}.args.path`), path);
        out.push({ kind: 'column', alias, column: d.column.name, asText, ...(jsonPath === null ? {} : { path: jsonPath }) });
        break;
      }
      case 'object-relationship': {
        const target = readView(ctx, d.rel.target);
        const fields = toIrFields(target, getNamedType(def.type) as GraphQLObjectType, fieldNodes, ctx, p);
        // Inherited roles: a target row whose join column is hidden is not related (Note [Cells a sort key reads]).
        const select: ir.Select = { from: plainSource(target, remoteKeysVisible(target, d.rel.info.columnMapping)), fields, cardinality: 'one' };
        out.push({ kind: 'object-relationship', alias, mapping: d.rel.info.columnMapping, select });
        break;
      }
      case 'array-relationship': {
        const target = readView(ctx, d.rel.target);
        const from = toIrRowSource(target, def, fieldNodes, ctx, p, remoteKeysVisible(target, d.rel.info.columnMapping));
        const fields = toIrFields(target, getNamedType(def.type) as GraphQLObjectType, fieldNodes, ctx, p);
        out.push({ kind: 'array-relationship', alias, mapping: d.rel.info.columnMapping, select: { from, fields, cardinality: 'many' } });
        break;
      }
      case 'computed-scalar': {
        const asText = ctx.stringifyNumericTypes && d.cf.returns.kind === 'scalar' && isBigNumeric(view.source, d.cf.returns.dbType);
        const call = toIrComputedCall(d.cf, toIrFunctionArgs(view.source, d.cf.args, def, fieldNodes, ctx, p));
        const visible = view.redact?.get(d.cf.name);
        out.push({ kind: 'computed-scalar', alias, call, asText, ...(visible === undefined ? {} : { visible }) });
        break;
      }
      case 'computed-rows': {
        const many = d.cf.returns.kind === 'table' && d.cf.returns.returnsSet;
        const target = readView(ctx, d.target);
        const from = many ? toIrRowSource(target, def, fieldNodes, ctx, p) : plainSource(target);
        const fields = toIrFields(target, getNamedType(def.type) as GraphQLObjectType, fieldNodes, ctx, p);
        const select: ir.Select = { from, fields, cardinality: many ? 'many' : 'one' };
        out.push({ kind: 'computed-rows', alias, call: toIrComputedCall(d.cf, toIrFunctionArgs(view.source, d.cf.args, def, fieldNodes, ctx, p)), select });
        break;
      }
      case 'node-id':
        out.push({ kind: 'node-id', alias, schema: view.info.name.schema, table: view.info.name.name, columns: view.info.primaryKey });
        break;
      case 'array-connection': {
        const target = readView(ctx, d.rel.target);
        const select = toIrConnection(target, def, fieldNodes, ctx, p, remoteKeysVisible(target, d.rel.info.columnMapping));
        out.push({ kind: 'array-connection', alias, mapping: d.rel.info.columnMapping, select });
        break;
      }
      case 'array-aggregate': {
        const target = readView(ctx, d.rel.target);
        const select = toIrAggregate(target, def, fieldNodes, ctx, p, remoteKeysVisible(target, d.rel.info.columnMapping));
        out.push({ kind: 'array-aggregate', alias, mapping: d.rel.info.columnMapping, select });
        break;
      }
      case 'remote-relationship': {
        // The join columns ride along under hidden keys (once per row), the field keeps its place as null.
        for (const c of d.rr.lhsColumns) {
          const key = joinColumnKey(c);
          if (!out.some((f) => f.alias === key)) out.push({ kind: 'column', alias: key, column: c, asText: false });
        }
        out.push({ kind: 'remote-join', alias });
        ctx.remoteJoins?.push(toIrRemoteJoin(d.rr, d.join, def, fieldNodes, ctx, alias, path));
        break;
      }
      case 'source-relationship': {
        // As a remote relationship: join columns under hidden keys, the field null until the join fills it.
        for (const [c] of d.rel.info.columnMapping) {
          const key = joinColumnKey(c);
          if (!out.some((f) => f.alias === key)) out.push({ kind: 'column', alias: key, column: c, asText: false });
        }
        out.push({ kind: 'remote-join', alias });
        ctx.remoteJoins?.push(toIrSourceJoin(d.rel, def, fieldNodes, ctx, alias, pathKeys(path), p));
        break;
      }
      default:
        break;
    }
  }
  return out;
}

/** A `<t>_aggregate` field (root or relationship). */
export function toIrAggregate(
  view: TableView,
  field: GraphQLField<unknown, unknown>,
  nodes: readonly FieldNode[],
  ctx: ToIrContext,
  path: string,
  extra: ir.BoolExp | null = null,
): ir.AggregateSelect {
  const from = toIrRowSource(view, field, nodes, ctx, path, extra);
  const type = objectTypeOf(field);
  const fields: ir.AggregateField[] = [];
  for (const { alias, name, def, nodes: fieldNodes } of selectedFields(type, nodes, ctx)) {
    if (name === '__typename') fields.push({ kind: 'typename', alias, typename: type.name });
    else if (name === FIELD.nodes && def !== undefined)
      fields.push({ kind: 'nodes', alias, fields: toIrFields(view, objectTypeOf(def), fieldNodes, ctx, `${path}.selectionSet.${alias}`) });
    else if (name === FIELD.aggregate && def !== undefined)
      fields.push({ kind: 'aggregate', alias, fields: aggregateOps(view, objectTypeOf(def), fieldNodes, ctx) });
  }
  return { from, fields };
}

/** The object type a field returns (through lists and non-nulls): the type its selection selects on. */
export function objectTypeOf(field: GraphQLField<unknown, unknown>): GraphQLObjectType {
  return getNamedType(field.type) as GraphQLObjectType;
}

function aggregateOps(view: TableView, type: GraphQLObjectType, nodes: readonly FieldNode[], ctx: ToIrContext): ir.AggregateOpField[] {
  const out: ir.AggregateOpField[] = [];
  for (const { alias, name, def, nodes: fieldNodes } of selectedFields(type, nodes, ctx)) {
    if (name === '__typename') {
      out.push({ kind: 'typename', alias, typename: type.name });
      continue;
    }
    const d = def === undefined ? undefined : descriptorOf<AggregateFieldDescriptor>(def.extensions);
    if (def === undefined || d === undefined || d.kind === 'bool') continue;
    if (d.kind === 'count') {
      const colsNode = argumentOf(fieldNodes, ARG.columns);
      const distinctNode = argumentOf(fieldNodes, ARG.distinct);
      const colType = getNamedType(def.args.find((a) => a.name === ARG.columns)?.type) as GraphQLEnumType;
      const columns =
        colsNode === undefined
          ? []
          : listItems(astInput(colsNode), ctx)
              .map((i) => enumValue(i, colType, ctx))
              .filter((c): c is string => c !== null);
      const distinct = distinctNode === undefined ? false : booleanValue(astInput(distinctNode), ctx) === true;
      out.push({ kind: 'count', alias, columns, distinct });
      continue;
    }
    const opType = objectTypeOf(def);
    const columns: ir.AggregateColumn[] = [];
    for (const { alias: colAlias, name: colName, def: cd } of selectedFields(opType, fieldNodes, ctx)) {
      if (colName === '__typename') {
        columns.push({ kind: 'typename', alias: colAlias, typename: opType.name });
        continue;
      }
      const c = cd === undefined ? undefined : descriptorOf<TableFieldDescriptor>(cd.extensions);
      if (c?.kind !== 'column') continue;
      // v2 compat: every aggregate of a big-numeric column (avg and stddev too) is stringified; of an int4 column none.
      const asText = ctx.stringifyNumericTypes && isBigNumeric(view.source, c.column.dbType);
      columns.push({ kind: 'column', alias: colAlias, column: c.column.name, asText });
    }
    out.push({ kind: 'op', alias, op: d.op, columns });
  }
  return out;
}
