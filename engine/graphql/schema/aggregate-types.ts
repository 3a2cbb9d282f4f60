/**
 * `<t>_aggregate`, `<t>_aggregate_fields`, `<t>_<op>_fields` and
 * `<t>_aggregate_order_by` for a table whose role may aggregate.
 * v2 compat: avg/stddev/variance fields are Float; sum/max/min keep the
 * column's type; max/min also cover text and date/time columns.
 */
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLEnumType,
  type GraphQLInputObjectType,
  type GraphQLObjectType,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
} from 'graphql';
import type { ColumnInfo } from '../../catalog/types.ts';
import { aggregateOpExtensions, columnExtensions, COUNT_EXTENSIONS } from './descriptors.ts';
import { inputObjectType, objectType } from './lean-types.ts';
import { AGGREGATE_OPS, ARG, FIELD, type AggregateOpName } from './names.ts';
import { isNumeric, isOrdered } from './scalars.ts';
import type { SchemaTypes } from './table-types.ts';
import type { TableView } from './table-view.ts';

/** The aggregate types of one table. */
export interface AggregateTypes {
  readonly aggregate: GraphQLObjectType;
  readonly fields: GraphQLObjectType;
  readonly orderBy: GraphQLInputObjectType;
}

/** The columns an aggregate function applies to. */
export function columnsForOp(view: TableView, op: AggregateOpName): ColumnInfo[] {
  return view.columns.filter((c) => {
    if (c.elementType !== null || c.enumTable !== null) return false;
    return op === 'max' || op === 'min' ? isOrdered(c.dbType, c.typeCategory) : isNumeric(c.dbType);
  });
}

function outputsColumnType(op: AggregateOpName): boolean {
  return op === 'sum' || op === 'max' || op === 'min';
}

/** Builds the aggregate types of `view`. */
export function buildAggregateTypes(
  view: TableView,
  table: { readonly object: GraphQLObjectType; readonly selectColumn: GraphQLEnumType },
  types: SchemaTypes,
): AggregateTypes {
  const { names } = view;
  const name = `"${view.info.name.name}"`;
  const opFields: Partial<Record<AggregateOpName, GraphQLObjectType>> = {};
  const opOrderBy: Partial<Record<AggregateOpName, GraphQLInputObjectType>> = {};
  for (const op of AGGREGATE_OPS) {
    const cols = columnsForOp(view, op);
    if (cols.length === 0) continue;
    const outFields: GraphQLFieldConfigMap<unknown, unknown> = {};
    const inFields: GraphQLInputFieldConfigMap = {};
    for (const c of cols) {
      const type = outputsColumnType(op) ? types.columns.scalars.forDbType(c.dbType) : GraphQLFloat;
      outFields[c.gqlName] = { type, extensions: columnExtensions(c) };
      inFields[c.gqlName] = { type: types.orderByEnum, extensions: columnExtensions(c) };
    }
    opFields[op] = objectType({ name: names.opFields(op), description: `aggregate ${op} on columns`, fields: outFields });
    opOrderBy[op] = inputObjectType({ name: names.opOrderBy(op), description: `order by ${op}() on columns of table ${name}`, fields: inFields });
  }
  const aggFields: GraphQLFieldConfigMap<unknown, unknown> = {};
  const aggOrder: GraphQLInputFieldConfigMap = {
    [FIELD.count]: { type: types.orderByEnum, extensions: COUNT_EXTENSIONS },
  };
  for (const op of AGGREGATE_OPS) {
    const t = opFields[op];
    const o = opOrderBy[op];
    if (op === 'max') {
      aggFields[FIELD.count] = {
        type: new GraphQLNonNull(GraphQLInt),
        args: {
          [ARG.columns]: { type: new GraphQLList(new GraphQLNonNull(table.selectColumn)) },
          [ARG.distinct]: { type: GraphQLBoolean },
        },
        extensions: COUNT_EXTENSIONS,
      };
    }
    if (t !== undefined) aggFields[op] = { type: t, extensions: aggregateOpExtensions(op) };
    if (o !== undefined) aggOrder[op] = { type: o, extensions: aggregateOpExtensions(op) };
  }
  const fields = objectType({
    name: names.aggregateFields,
    description: `aggregate fields of ${name}`,
    fields: aggFields,
  });
  const aggregate = objectType({
    name: names.aggregate,
    description: `aggregated selection of ${name}`,
    fields: {
      [FIELD.aggregate]: { type: fields },
      [FIELD.nodes]: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(table.object))) },
    },
  });
  const orderBy = inputObjectType({
    name: names.aggregateOrderBy,
    description: `order by aggregate values of table ${name}`,
    fields: aggOrder,
  });
  return { aggregate, fields, orderBy };
}
