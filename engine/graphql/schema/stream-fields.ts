/**
 * The `subscription_root` fields of streaming subscriptions (v2 compat,
 * compat.md): `<t>_stream(batch_size: Int!, cursor:
 * [<t>_stream_cursor_input]!, where: <t>_bool_exp): [<t>!]!`, with
 * `<t>_stream_cursor_input { initial_value: <t>_stream_cursor_value_input!,
 * ordering: cursor_ordering }` and the value input holding every column the
 * role may select. Served by engine/subscriptions/ (one cursor column, as v2).
 */
import { GraphQLInt, type GraphQLFieldConfig, type GraphQLFieldConfigMap, type GraphQLInputObjectType } from 'graphql';
import { customizeTypeName } from '../../catalog/stages/customization.ts';
import { withDescriptor, type RootFieldDescriptor } from './descriptors.ts';
import { configMap, generatedEnumType, generatedInputObjectType, listOf, nonNull, nonNullListOfNonNull } from './lean-types.ts';
import { capabilitiesOf, servesLiveQueries } from './capabilities.ts';
import { ARG } from './names.ts';
import { shapeOf } from './root-types.ts';
import type { SchemaTypes, TableTypes } from './table-types.ts';
import type { TableView } from './table-view.ts';

/** Argument names of `<t>_stream`. */
export const STREAM_ARG = { batchSize: 'batch_size', cursor: 'cursor', initialValue: 'initial_value', ordering: 'ordering' } as const;

/** v2's `cursor_ordering` enum (one object for every schema: it never varies). */
export const CURSOR_ORDERING = generatedEnumType({
  name: 'cursor_ordering',
  description: 'ordering argument of a cursor',
  values: { ASC: { value: 'asc', description: 'ascending ordering of the cursor' }, DESC: { value: 'desc', description: 'descending ordering of the cursor' } },
});

/**
 * The cursor input type of each table, by the table's types: one with them
 * wherever they are shared, between roles (Note [Shared table types]) and
 * catalog versions (Note [Types across catalog versions] in schema-cache.ts).
 */
const cursorInputs = new WeakMap<TableTypes, GraphQLInputObjectType>();

function cursorInput(view: TableView, types: SchemaTypes): GraphQLInputObjectType {
  const tableTypes = types.of(view);
  let t = cursorInputs.get(tableTypes);
  if (t === undefined) {
    const typeName = (suffix: string): string => customizeTypeName(view.source.customization, `${view.info.gqlName}${suffix}`);
    const name = `"${view.info.name.name}"`;
    const value = generatedInputObjectType({
      name: typeName('_stream_cursor_value_input'),
      description: 'Initial value of the column from where the streaming should start',
      fields: () =>
        Object.fromEntries(view.columns.map((c) => [c.gqlName, { type: types.columns.input(view.source, c), description: c.description ?? undefined }])),
    });
    t = generatedInputObjectType({
      name: typeName('_stream_cursor_input'),
      description: `Streaming cursor of the table ${name}`,
      fields: {
        [STREAM_ARG.initialValue]: { type: nonNull(value), description: 'Stream column input with initial value' },
        [STREAM_ARG.ordering]: { type: CURSOR_ORDERING, description: 'cursor ordering' },
      },
    });
    cursorInputs.set(tableTypes, t);
  }
  return t;
}

/** A table's `<t>_stream` field by its types (null: none): Note [Root fields across versions] in root-types.ts. */
const streamFields = new WeakMap<TableTypes, GraphQLFieldConfig<unknown, unknown> | null>();

/** The `<t>_stream` fields of `views` (tables with at least one selectable column). */
export function tableStreamRootFields(views: Iterable<TableView>, types: SchemaTypes): GraphQLFieldConfigMap<unknown, unknown> {
  const fields = configMap<GraphQLFieldConfig<unknown, unknown>>();
  for (const view of views) {
    const t = types.of(view);
    let field = streamFields.get(t);
    if (field === undefined) {
      field = streamField(view, t, types);
      streamFields.set(t, field);
    }
    if (field !== null) fields[`${view.info.rootFields.select}_stream`] = field;
  }
  return fields;
}

/** The `<t>_stream` field of `view`, whose types are `t`, or null when it has none. */
function streamField(view: TableView, t: TableTypes, types: SchemaTypes): GraphQLFieldConfig<unknown, unknown> | null {
  // A stream is served by the live-query machinery of the source's backend (Capabilities.streaming).
  if (view.columns.length === 0 || !capabilitiesOf(view.source).streaming || !servesLiveQueries(view.source)) return null;
  return {
    type: nonNullListOfNonNull(t.object),
    description: `fetch data from the table in a streaming manner: "${view.info.name.name}"`,
    args: {
      [STREAM_ARG.batchSize]: { type: nonNull(GraphQLInt), description: 'maximum number of rows returned in a single batch' },
      [STREAM_ARG.cursor]: { type: nonNull(listOf(cursorInput(view, types))), description: 'cursor to stream the results returned by the query' },
      [ARG.where]: { type: t.boolExp, description: 'filter the rows returned' },
    },
    extensions: withDescriptor<RootFieldDescriptor>({ kind: 'select-stream', table: shapeOf(view, types) }),
  };
}
