/**
 * The `query_root` fields of the tables a role reads: `<t>`, `<t>_by_pk`
 * (with a primary key) and `<t>_aggregate` (with aggregations), names after
 * `custom_root_fields`.
 */
import { type GraphQLFieldConfigArgumentMap, type GraphQLFieldConfigMap } from 'graphql';
import { withDescriptor, type RootFieldDescriptor } from './descriptors.ts';
import { nonNull, nonNullListOfNonNull } from './lean-types.ts';
import type { SchemaTypes } from './table-types.ts';
import type { TableView } from './table-view.ts';

/** The `query_root` fields of `views`. */
export function tableSelectRootFields(views: Iterable<TableView>, types: SchemaTypes): GraphQLFieldConfigMap<unknown, unknown> {
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const view of views) {
    const t = types.of(view);
    const rf = view.info.rootFields;
    const name = `"${view.info.name.name}"`;
    fields[rf.select] = {
      type: nonNullListOfNonNull(t.object),
      description: `fetch data from the table: ${name}`,
      args: types.listArgs(view),
      extensions: withDescriptor<RootFieldDescriptor>({ kind: 'select', table: view }),
    };
    if (t.aggregate !== null) {
      fields[rf.selectAggregate] = {
        type: nonNull(t.aggregate.aggregate),
        description: `fetch aggregated fields from the table: ${name}`,
        args: types.listArgs(view),
        extensions: withDescriptor<RootFieldDescriptor>({ kind: 'select-aggregate', table: view }),
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
        extensions: withDescriptor<RootFieldDescriptor>({ kind: 'select-by-pk', table: view }),
      };
    }
  }
  return fields;
}
