/**
 * GraphQL fields of computed fields on a table's types, for the computed
 * fields the role may select (TableView.computedFields):
 * - on `<t>`: a scalar one is a nullable scalar field, a table-returning one
 *   a list of the returned table's rows with `where, order_by, limit, offset,
 *   distinct_on`; both take `args: <fn>_args` when the function has further
 *   arguments;
 * - on `<t>_bool_exp`: scalar ones without required arguments compared like
 *   columns, table-returning ones matched like a relationship (some returned
 *   row satisfies the inner expression);
 * - on `<t>_order_by`: scalar ones without required arguments, and
 *   `<cf>_aggregate` of set-returning ones without required arguments whose
 *   rows the role may aggregate (v2 compat: `get_articles_aggregate: {count: desc}`).
 */
import { type GraphQLFieldConfigMap, type GraphQLInputFieldConfigMap, type GraphQLOutputType } from 'graphql';
import type { ComputedFieldInfo } from '../../catalog/types.ts';
import { customizeTypeName } from '../../catalog/stages/customization.ts';
import { computedFieldAsColumn } from '../../catalog/stages/computed-fields.ts';
import { withDescriptor, type TableFieldDescriptor } from './descriptors.ts';
import { functionArgsArgument } from './function-fields.ts';
import { nonNullListOfNonNull } from './lean-types.ts';
import { scalarInfo } from './scalars.ts';
import { functionArgsTypeName, relationshipAggregateField as computedAggregateField } from './names.ts';
import type { SchemaTypes } from './table-types.ts';
import type { TableView } from './table-view.ts';

/** True when the field can be used without arguments (filters, sorting). */
function argumentFree(cf: ComputedFieldInfo): boolean {
  return cf.args.every((a) => a.hasDefault);
}

function description(cf: ComputedFieldInfo): string {
  return cf.description ?? `A computed field, executes function "${cf.function.name}"`;
}

/** Fields of the object type `<t>`. */
export function computedObjectFields(view: TableView, types: SchemaTypes): GraphQLFieldConfigMap<unknown, unknown> {
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const cf of view.computedFields ?? []) {
    const argsType = customizeTypeName(view.source.customization, functionArgsTypeName(cf.function.name));
    const args = functionArgsArgument(argsType, cf.function.name, cf.args, view.source, types);
    const column = computedFieldAsColumn(cf);
    if (column !== null) {
      fields[cf.name] = {
        type: types.columns.output(view.source, column),
        description: description(cf),
        args,
        extensions: withDescriptor<TableFieldDescriptor>({ kind: 'computed-scalar', cf }),
      };
      continue;
    }
    const target = view.computedTargets?.get(cf.name);
    if (target === undefined || cf.returns.kind !== 'table') continue;
    const rows = types.of(target).object;
    const type: GraphQLOutputType = cf.returns.returnsSet ? nonNullListOfNonNull(rows) : rows;
    fields[cf.name] = {
      type,
      description: description(cf),
      args: { ...args, ...(cf.returns.returnsSet ? types.listArgs(target) : {}) },
      extensions: withDescriptor<TableFieldDescriptor>({ kind: 'computed-rows', cf, target }),
    };
  }
  return fields;
}

/** Fields of `<t>_bool_exp`. */
export function computedBoolExpFields(view: TableView, types: SchemaTypes): GraphQLInputFieldConfigMap {
  const fields: GraphQLInputFieldConfigMap = {};
  for (const cf of view.computedFields ?? []) {
    if (!argumentFree(cf)) continue;
    const column = computedFieldAsColumn(cf);
    const target = view.computedTargets?.get(cf.name);
    if (column !== null) {
      fields[cf.name] = {
        type: types.columns.comparison(view.source, column),
        extensions: withDescriptor<TableFieldDescriptor>({ kind: 'computed-scalar', cf }),
      };
    } else if (target !== undefined) {
      // Like a relationship: some returned row matches.
      fields[cf.name] = {
        type: types.of(target).boolExp,
        extensions: withDescriptor<TableFieldDescriptor>({ kind: 'computed-rows', cf, target }),
      };
    }
  }
  return fields;
}

/** Fields of `<t>_order_by`. */
export function computedOrderByFields(view: TableView, types: SchemaTypes): GraphQLInputFieldConfigMap {
  const fields: GraphQLInputFieldConfigMap = {};
  for (const cf of view.computedFields ?? []) {
    const column = computedFieldAsColumn(cf);
    if (column === null) {
      const target = view.computedTargets?.get(cf.name);
      const aggregate = target === undefined ? null : types.of(target).aggregate;
      if (target === undefined || aggregate === null || !argumentFree(cf) || cf.returns.kind !== 'table' || !cf.returns.returnsSet) continue;
      fields[computedAggregateField(cf.name)] = {
        type: aggregate.orderBy,
        extensions: withDescriptor<TableFieldDescriptor>({ kind: 'computed-aggregate', cf, target }),
      };
      continue;
    }
    // v2 compat: arrays and json cannot be sorted.
    if (!argumentFree(cf) || column.elementType !== null || !scalarInfo(view.source, column.dbType).sortable) continue;
    fields[cf.name] = {
      type: types.orderByEnum,
      description: cf.description ?? undefined,
      extensions: withDescriptor<TableFieldDescriptor>({ kind: 'computed-scalar', cf }),
    };
  }
  return fields;
}
