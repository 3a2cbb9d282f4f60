/**
 * Selections on table types → ir.Select / ir.AggregateSelect, with the
 * role's permission (filter, limit cap) folded into every row source.
 */
import { getNamedType, GraphQLString, type FieldNode, type GraphQLEnumType, type GraphQLField, type GraphQLObjectType } from 'graphql';
import type * as ir from '../../ir/index.ts';
import { parseJsonPath } from '../../ir/json-path.ts';
import { descriptorOf, type AggregateFieldDescriptor, type TableFieldDescriptor } from '../schema/descriptors.ts';
import { ARG, FIELD } from '../schema/names.ts';
import { isBigNumeric } from '../schema/scalars.ts';
import { toIrFunctionArgs } from './function-args.ts';
import type { TableView } from '../schema/table-view.ts';
import { toIrComputedCall } from './computed-field.ts';
import { argumentOf, collectFields, selectedFields } from './collect-fields.ts';
import { readView, type ToIrContext } from './context.ts';
import { deeper } from './depth.ts';
import { astInput, booleanValue, enumValue, leafParam, listItems } from './input.ts';
import { toIrConnection } from './connection.ts';
import { remoteKeysVisible } from './visibility.ts';
import { toIrRemoteJoin } from './remote.ts';
import { pathKeys, toIrSourceJoin } from './remote-table-join.ts';
import { joinColumnKey } from '../../ir/remote.ts';
import { objectTypeOf, plainSource, toIrRowSource } from './row-source.ts';

/** A literal `path` parsed now (errors at the selecting field, as v2), a variable when bound; null = the whole value. */
function toIrJsonPath(p: ir.ParamSource | null, fieldPath: string): ir.ParamSource | null {
  if (p === null || p.kind !== 'const') return p;
  return { kind: 'const', value: parseJsonPath(String(p.value), fieldPath) };
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
