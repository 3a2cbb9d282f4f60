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
  type GraphQLEnumType,
  type GraphQLInputObjectType,
  type GraphQLObjectType,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
} from 'graphql';
import type { ColumnInfo } from '../../catalog/types.ts';
import { aggregateOpExtensions, boolAggregateExtensions, BOOL_AGGREGATES, columnExtensions, COUNT_EXTENSIONS } from './descriptors.ts';
import { generatedEnumType, generatedInputObjectType, generatedObjectType, listOfNonNull, nonNull, nonNullListOfNonNull } from './lean-types.ts';
import { AGGREGATE_OPS, ARG, FIELD, type AggregateOpName } from './names.ts';
import { isNumeric, isOrdered, typeNames } from './scalars.ts';
import type { SchemaTypes } from './table-types.ts';
import type { TableView } from './table-view.ts';

/** The aggregate types of one table. */
export interface AggregateTypes {
  readonly aggregate: GraphQLObjectType;
  readonly fields: GraphQLObjectType;
  readonly orderBy: GraphQLInputObjectType;
  /** `<t>_aggregate_bool_exp`: filters a parent by an aggregate of its related rows (v2 compat). */
  readonly boolExp: GraphQLInputObjectType;
}

/** The columns an aggregate function applies to. */
export function columnsForOp(view: TableView, op: AggregateOpName): ColumnInfo[] {
  return view.columns.filter((c) => {
    if (c.elementType !== null || c.enumTable !== null) return false;
    return op === 'max' || op === 'min' ? isOrdered(view.source, c.dbType, c.typeCategory) : isNumeric(view.source, c.dbType);
  });
}

function outputsColumnType(op: AggregateOpName): boolean {
  return op === 'sum' || op === 'max' || op === 'min';
}

/** The description of every `<t>_<op>_fields`: one string per operator, not one per table. */
const OP_FIELDS_DESCRIPTION = Object.fromEntries(AGGREGATE_OPS.map((op) => [op, `aggregate ${op} on columns`])) as Record<AggregateOpName, string>;

/**
 * Operators whose `<t>_<op>_fields` have the same fields (same columns, same
 * output types): avg, stddev..., variance (Float over the numeric columns);
 * max and min (the column's type over the ordered ones); sum. Their types
 * share one field map (Note [Shared fields] in lean-types.ts).
 */
function fieldsFamily(op: AggregateOpName): 'ordered' | 'sum' | 'float' {
  return op === 'max' || op === 'min' ? 'ordered' : op === 'sum' ? 'sum' : 'float';
}

/** Operators whose `<t>_<op>_order_by` have the same fields (same columns). */
function orderByFamily(op: AggregateOpName): 'ordered' | 'numeric' {
  return op === 'max' || op === 'min' ? 'ordered' : 'numeric';
}

/** Builds the aggregate types of `view`. */
export function buildAggregateTypes(
  view: TableView,
  table: { readonly object: GraphQLObjectType; readonly selectColumn: GraphQLEnumType; readonly boolExp: GraphQLInputObjectType },
  types: SchemaTypes,
): AggregateTypes {
  const { names } = view;
  const name = `"${view.info.name.name}"`;
  const opFields: Partial<Record<AggregateOpName, GraphQLObjectType>> = {};
  const opOrderBy: Partial<Record<AggregateOpName, GraphQLInputObjectType>> = {};
  const fieldsOf = new Map<string, GraphQLObjectType>();
  const orderByOf = new Map<string, GraphQLInputObjectType>();
  for (const op of AGGREGATE_OPS) {
    const cols = columnsForOp(view, op);
    if (cols.length === 0) continue;
    const sameFields = fieldsOf.get(fieldsFamily(op));
    const outFields: GraphQLFieldConfigMap<unknown, unknown> = {};
    if (sameFields === undefined) {
      for (const c of cols) {
        const type = outputsColumnType(op) ? types.columns.scalars.forDbType(view.source, c.dbType) : GraphQLFloat;
        outFields[c.gqlName] = { type, extensions: columnExtensions(c) };
      }
    }
    const sameOrderBy = orderByOf.get(orderByFamily(op));
    const inFields: GraphQLInputFieldConfigMap = {};
    if (sameOrderBy === undefined) for (const c of cols) inFields[c.gqlName] = { type: types.orderByEnum, extensions: columnExtensions(c) };
    const fields = generatedObjectType({ name: names.opFields(op), description: OP_FIELDS_DESCRIPTION[op], fields: outFields }, sameFields);
    const orderBy = generatedInputObjectType(
      { name: names.opOrderBy(op), description: `order by ${op}() on columns of table ${name}`, fields: inFields },
      sameOrderBy,
    );
    if (sameFields === undefined) fieldsOf.set(fieldsFamily(op), fields);
    if (sameOrderBy === undefined) orderByOf.set(orderByFamily(op), orderBy);
    opFields[op] = fields;
    opOrderBy[op] = orderBy;
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
        type: nonNull(GraphQLInt),
        args: {
          [ARG.columns]: { type: listOfNonNull(table.selectColumn) },
          [ARG.distinct]: { type: GraphQLBoolean },
        },
        extensions: COUNT_EXTENSIONS,
      };
    }
    if (t !== undefined) aggFields[op] = { type: t, extensions: aggregateOpExtensions(op) };
    if (o !== undefined) aggOrder[op] = { type: o, extensions: aggregateOpExtensions(op) };
  }
  const fields = generatedObjectType({
    name: names.aggregateFields,
    description: `aggregate fields of ${name}`,
    fields: aggFields,
  });
  const aggregate = generatedObjectType({
    name: names.aggregate,
    description: `aggregated selection of ${name}`,
    fields: {
      [FIELD.aggregate]: { type: fields },
      [FIELD.nodes]: { type: nonNullListOfNonNull(table.object) },
    },
  });
  const orderBy = generatedInputObjectType({
    name: names.aggregateOrderBy,
    description: `order by aggregate values of table ${name}`,
    fields: aggOrder,
  });
  // v2 compat: `<t>_aggregate_bool_exp { count: {arguments, distinct, filter, predicate: Int_comparison_exp!} }`.
  const count = generatedInputObjectType({
    name: names.aggregateBoolExpCount,
    fields: {
      [ARG.arguments]: { type: listOfNonNull(table.selectColumn) },
      [ARG.distinct]: { type: GraphQLBoolean },
      [ARG.filter]: { type: table.boolExp },
      [ARG.predicate]: { type: nonNull(types.columns.scalarComparison(view.source, typeNames(view.source).aggregateCount)) },
    },
  });
  const boolFields: GraphQLInputFieldConfigMap = {};
  // v2 compat: `bool_and` / `bool_or` over a boolean column, for tables that have one.
  const boolType = typeNames(view.source).boolean;
  const bools = view.columns.filter((c) => c.dbType === boolType && c.elementType === null);
  if (bools.length > 0) {
    for (const fn of BOOL_AGGREGATES) {
      const columns = generatedEnumType({
        name: `${names.selectColumn}_${names.aggregateBoolExp}_${fn}_arguments_columns`,
        description: `select "${names.aggregateBoolExp}_${fn}_arguments_columns" columns of table ${name}`,
        values: Object.fromEntries(bools.map((c) => [c.gqlName, { value: c.name, description: 'column name' }])),
      });
      const input = generatedInputObjectType({
        name: `${names.aggregateBoolExp}_${fn}`,
        fields: {
          [ARG.arguments]: { type: nonNull(columns) },
          [ARG.distinct]: { type: GraphQLBoolean },
          [ARG.filter]: { type: table.boolExp },
          [ARG.predicate]: { type: nonNull(types.columns.scalarComparison(view.source, boolType)) },
        },
      });
      boolFields[fn] = { type: input, extensions: boolAggregateExtensions(fn) };
    }
  }
  boolFields[FIELD.count] = { type: count, extensions: COUNT_EXTENSIONS };
  const boolExp = generatedInputObjectType({ name: names.aggregateBoolExp, fields: boolFields });
  return { aggregate, fields, orderBy, boolExp };
}
