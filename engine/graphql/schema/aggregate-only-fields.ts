/**
 * `<t>_aggregate` of the tables a role may only count: Note [Aggregate-only tables] in
 * table-view.ts. The types are the role's own (`<t>_aggregate`, `<t>_aggregate_fields` with
 * `count` alone, `<t>_bool_exp` with `_and`/`_or`/`_not` alone): the table has no other types in
 * its schema, whose fingerprint names these tables.
 */
import { GraphQLInt, type GraphQLFieldConfigMap, type GraphQLInputObjectType } from 'graphql';
import { tableKey } from '../../catalog/types.ts';
import { capabilitiesOf } from './capabilities.ts';
import { COMBINATOR_EXTENSIONS, COUNT_EXTENSIONS, withDescriptor, type RootFieldDescriptor } from './descriptors.ts';
import { generatedInputObjectType, generatedObjectType, listOfNonNull, nonNull } from './lean-types.ts';
import { ARG, FIELD } from './names.ts';
import type { RootFieldContributor } from './root-field-contributor.ts';
import type { TableView } from './table-view.ts';

function aggregateOnlyField(view: TableView): GraphQLFieldConfigMap<unknown, unknown> {
  const { names } = view;
  const name = `"${view.info.name.name}"`;
  const boolExp: GraphQLInputObjectType = generatedInputObjectType({
    name: names.boolExp,
    description: `Boolean expression to filter rows from the table ${name}. All fields are combined with a logical 'AND'.`,
    fields: () => ({
      [FIELD.and]: { type: listOfNonNull(boolExp), extensions: COMBINATOR_EXTENSIONS._and },
      [FIELD.not]: { type: boolExp, extensions: COMBINATOR_EXTENSIONS._not },
      [FIELD.or]: { type: listOfNonNull(boolExp), extensions: COMBINATOR_EXTENSIONS._or },
    }),
  });
  const fields = generatedObjectType({
    name: names.aggregateFields,
    description: `aggregate fields of ${name}`,
    fields: { [FIELD.count]: { type: nonNull(GraphQLInt), extensions: COUNT_EXTENSIONS } },
  });
  const aggregate = generatedObjectType({
    name: names.aggregate,
    description: `aggregated selection of ${name}`,
    fields: { [FIELD.aggregate]: { type: fields } },
  });
  return {
    [view.info.rootFields.selectAggregate]: {
      type: nonNull(aggregate),
      description: `fetch aggregated fields from the table: ${name}`,
      args: {
        [ARG.limit]: { type: GraphQLInt, description: 'limit the number of rows returned' },
        [ARG.offset]: { type: GraphQLInt, description: 'skip the first n rows. Use only with order_by' },
        [ARG.where]: { type: boolExp, description: 'filter the rows returned' },
      },
      extensions: withDescriptor<RootFieldDescriptor>({ kind: 'select-aggregate', table: view }),
    },
  };
}

function servedViews(views: Iterable<TableView>): TableView[] {
  return [...views].filter((v) => capabilitiesOf(v.source).aggregates);
}

/** Tables a role may only count: `<t>_aggregate` on query_root (and so on subscription_root). */
export const AGGREGATE_ONLY_ROOT_FIELDS: RootFieldContributor = {
  name: 'aggregate-only tables',
  generated: true,
  rootFields: (input, root) => {
    if (root !== 'query') return {};
    const out: GraphQLFieldConfigMap<unknown, unknown> = {};
    for (const view of servedViews(input.access.aggregateOnly.values())) Object.assign(out, aggregateOnlyField(view));
    return out;
  },
  fingerprint: (_catalog, _role, access) => servedViews(access.aggregateOnly.values()).map((v) => `count ${v.source.name}\0${tableKey(v.info.name)}`),
};
