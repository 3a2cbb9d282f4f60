/**
 * The `query_root` fields of the tables a role reads: `<t>`, `<t>_by_pk`
 * (with a primary key) and `<t>_aggregate` (with aggregations), names after
 * `custom_root_fields`; kept with the table's types (Note [Root fields
 * across versions] in root-types.ts).
 */
import { type GraphQLFieldConfig, type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap } from 'graphql';
import { withDescriptor, type RootFieldDescriptor } from './descriptors.ts';
import { configMap, nonNull, nonNullListOfNonNull } from './lean-types.ts';
import { shapeOf } from './root-types.ts';
import type { SchemaTypes, TableTypes } from './table-types.ts';
import type { TableView } from './table-view.ts';

/** A table's `query_root` fields by its types, which pin all they read: Note [Root fields across versions] in root-types.ts. */
const selectFields = new WeakMap<TableTypes, GraphQLFieldConfigMap<unknown, unknown>>();

/** The `query_root` fields of `views`. */
export function tableSelectRootFields(views: Iterable<TableView>, types: SchemaTypes): GraphQLFieldConfigMap<unknown, unknown> {
  const fields = configMap<GraphQLFieldConfig<unknown, unknown>>();
  for (const view of views) {
    const t = types.of(view);
    let own = selectFields.get(t);
    if (own === undefined) {
      own = tableFields(view, t, types);
      selectFields.set(t, own);
    }
    for (const name in own) fields[name] = own[name] as GraphQLFieldConfig<unknown, unknown>;
  }
  return fields;
}

/** The `query_root` fields of `view`, whose types are `t`. */
function tableFields(view: TableView, t: TableTypes, types: SchemaTypes): GraphQLFieldConfigMap<unknown, unknown> {
  const fields = configMap<GraphQLFieldConfig<unknown, unknown>>();
  const rf = view.info.rootFields;
  const name = `"${view.info.name.name}"`;
  const table = shapeOf(view, types);
  fields[rf.select] = {
    type: nonNullListOfNonNull(t.object),
    description: `fetch data from the table: ${name}`,
    args: types.listArgs(view),
    extensions: withDescriptor<RootFieldDescriptor>({ kind: 'select', table }),
  };
  if (t.aggregate !== null) {
    fields[rf.selectAggregate] = {
      type: nonNull(t.aggregate.aggregate),
      description: `fetch aggregated fields from the table: ${name}`,
      args: types.listArgs(view),
      extensions: withDescriptor<RootFieldDescriptor>({ kind: 'select-aggregate', table }),
    };
  }
  const pk = view.info.primaryKey.map((c) => view.columns.find((col) => col.name === c));
  if (pk.length > 0 && pk.every((c) => c !== undefined)) {
    const args: GraphQLFieldConfigArgumentMap = {};
    for (const c of pk) if (c !== undefined) args[c.gqlName] = { type: nonNull(types.columns.input(view.source, c)) };
    fields[rf.selectByPk] = {
      type: t.object,
      description: `fetch data from the table: ${name} using primary key columns`,
      args,
      extensions: withDescriptor<RootFieldDescriptor>({ kind: 'select-by-pk', table }),
    };
  }
  return fields;
}
