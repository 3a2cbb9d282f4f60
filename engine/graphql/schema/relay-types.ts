/**
 * The Relay schema of `/v1beta1/relay` (v2 compat): the `Node` interface,
 * `PageInfo`, each table's `<t>Connection` and `<t>Edge`, and the query root
 * fields `node(id:)` and `<t>_connection`.
 *
 * Note [Relay schema]
 * v2 serves a second schema for Relay clients over the same metadata and
 * permissions. It differs from /v1/graphql's in these ways, which Engine
 * follows:
 * - query_root holds `node(id: ID!): Node` and `<t>_connection` for every
 *   table the role reads that has a primary key; no list, `_by_pk` or
 *   `_aggregate` root fields (tables without a primary key are only reached
 *   through relationships);
 * - a table with a primary key implements `Node` (unless the role cannot
 *   select the whole key and the setting of Note [Relay ids of unselectable
 *   keys] is on): `id: ID!` is its node id
 *   (Note [Relay ids and cursors] in ir/relay-id.ts), standing in place of a
 *   column whose GraphQL name is `id` (a table without a primary key loses
 *   such a column, as in v2); other primary key columns stay;
 * - array relationships to a table with a primary key also get
 *   `<rel>_connection`;
 * - mutation_root is /v1/graphql's, over these table types.
 * - query functions returning rows of a table with a primary key get
 *   `<fn>_connection` (function-fields.ts).
 * Not served: Relay subscriptions (v2 has `<t>_connection` on
 * subscription_root; Engine's /v1beta1/relay has no WebSocket), remote
 * relationships and remote schemas (as v2), and the graphql-default naming
 * convention (the Relay schema keeps default names). The schema is built
 * by the same builder (build-schema.ts) with `relay` set: its own SchemaCache
 * and plan cache (execute/graphql-service.ts), the same IR, planner and SQL.
 */
import {
  GraphQLBoolean,
  GraphQLID,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLNonNull,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLObjectType,
} from 'graphql';
import { capabilitiesOf } from './capabilities.ts';
import { withDescriptor, type RootFieldDescriptor, type TableFieldDescriptor } from './descriptors.ts';
import { generatedObjectType, nonNull, nonNullListOfNonNull } from './lean-types.ts';
import type { SchemaTypes, TableTypes } from './table-types.ts';
import type { TableView } from './table-view.ts';

/** Field and type names of the Relay schema. */
export const RELAY = {
  node: 'node',
  id: 'id',
  edges: 'edges',
  pageInfo: 'pageInfo',
  cursor: 'cursor',
  first: 'first',
  last: 'last',
  after: 'after',
  before: 'before',
  hasNextPage: 'hasNextPage',
  hasPreviousPage: 'hasPreviousPage',
  startCursor: 'startCursor',
  endCursor: 'endCursor',
} as const;

/** `<t>_connection` and `<rel>_connection`. */
export function connectionFieldName(name: string): string {
  return `${name}_connection`;
}

/**
 * Note [Relay ids of unselectable keys]
 * A node id is the table's primary key values (Note [Relay ids and cursors]
 * in ir/relay-id.ts) and so is a cursor without order_by: v2 gives both to
 * every role that reads a table with a primary key, even one whose select
 * permission lacks a key column, so the id discloses values the role cannot
 * select, and `node(id:)` answers whether a guessed key exists. Engine does
 * the same by default (docs/compat.md). With
 * ENGINE_GRAPHQL_RELAY_HIDE_UNSELECTABLE_KEYS, a table has a node id for a
 * role only when the role selects every key column (a column an inherited
 * role sees on some rows only does not count): otherwise its type does not
 * implement `Node` and has no `id` (as a table without a primary key), it
 * has no `<t>Connection` (so no `<t>_connection`, `<rel>_connection` or
 * `<fn>_connection`), and `node(id:)` does not find it (to-ir/connection.ts
 * asks the role's schema whether the type implements `Node`). The role
 * still reads the table's rows through relationships, without their keys.
 * The decision reads only the view's columns and redactions, both in the
 * role's read fingerprint (role-fingerprint.ts), so shared types agree.
 */

/** The types every table of a Relay schema shares: `Node` and `PageInfo`. */
export class RelayLeafTypes {
  /** Note [Relay ids of unselectable keys]. */
  readonly #hideUnselectableKeys: boolean;
  constructor(hideUnselectableKeys = false) {
    this.#hideUnselectableKeys = hideUnselectableKeys;
  }
  readonly node = new GraphQLInterfaceType({
    name: 'Node',
    description: 'An object with globally unique ID',
    fields: { [RELAY.id]: { type: new GraphQLNonNull(GraphQLID), description: 'A globally unique identifier' } },
  });
  readonly pageInfo = generatedObjectType({
    name: 'PageInfo',
    fields: {
      [RELAY.endCursor]: { type: nonNull(GraphQLString) },
      [RELAY.hasNextPage]: { type: nonNull(GraphQLBoolean) },
      [RELAY.hasPreviousPage]: { type: nonNull(GraphQLBoolean) },
      [RELAY.startCursor]: { type: nonNull(GraphQLString) },
    },
  });

  /** True when this Relay schema gives `view` a node id and connections (Note [Relay ids of unselectable keys]). */
  hasNodeId(view: TableView): boolean {
    const pk = view.info.primaryKey;
    // A source whose backend has no Relay support shows none of its tables here (Capabilities.relay).
    if (pk.length === 0 || !capabilitiesOf(view.source).relay) return false;
    if (!this.#hideUnselectableKeys) return true;
    return pk.every((k) => view.columns.some((c) => c.name === k) && view.redact?.has(k) !== true);
  }
}

export const NODE_ID_EXTENSIONS = withDescriptor<TableFieldDescriptor>({ kind: 'node-id' });

/** The `id: ID!` field of a table type. */
export function nodeIdField(): GraphQLFieldConfigMap<unknown, unknown>[string] {
  return { type: nonNull(GraphQLID), extensions: NODE_ID_EXTENSIONS };
}

/** `<t>Connection` and `<t>Edge` of a table with a primary key. */
export function connectionType(view: TableView, object: GraphQLObjectType, leaves: RelayLeafTypes): GraphQLObjectType {
  const name = view.names.object;
  const edge = generatedObjectType({
    name: `${name}Edge`,
    fields: { [RELAY.cursor]: { type: nonNull(GraphQLString) }, [RELAY.node]: { type: nonNull(object) } },
  });
  return generatedObjectType({
    name: `${name}Connection`,
    description: `A Relay connection object on "${view.info.name.name}"`,
    fields: { [RELAY.edges]: { type: nonNullListOfNonNull(edge) }, [RELAY.pageInfo]: { type: nonNull(leaves.pageInfo) } },
  });
}

/** `after, before, distinct_on, first, last, order_by, where` of a connection field over `view`. */
export function connectionArgs(view: TableView, types: SchemaTypes): GraphQLFieldConfigArgumentMap {
  const list = types.listArgs(view);
  return {
    [RELAY.after]: { type: GraphQLString },
    [RELAY.before]: { type: GraphQLString },
    ...(list['distinct_on'] === undefined ? {} : { distinct_on: list['distinct_on'] }),
    [RELAY.first]: { type: GraphQLInt },
    [RELAY.last]: { type: GraphQLInt },
    order_by: list['order_by'] as GraphQLFieldConfigArgumentMap[string],
    where: list['where'] as GraphQLFieldConfigArgumentMap[string],
  };
}

/** The Relay query root: `<t>_connection` of each table with a primary key, the functions' `<fn>_connection`, then `node`. */
export function relayQueryRootFields(
  views: Iterable<TableView>,
  types: SchemaTypes,
  node: GraphQLInterfaceType,
  functions: GraphQLFieldConfigMap<unknown, unknown>,
): GraphQLFieldConfigMap<unknown, unknown> {
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const view of views) {
    const t: TableTypes = types.of(view);
    if (t.connection === null) continue;
    fields[connectionFieldName(view.info.gqlName)] = {
      type: nonNull(t.connection),
      description: `fetch data from the table: "${view.info.name.name}"`,
      args: connectionArgs(view, types),
      extensions: withDescriptor<RootFieldDescriptor>({ kind: 'select-connection', table: view }),
    };
  }
  Object.assign(fields, functions);
  fields[RELAY.node] = {
    type: node,
    args: { [RELAY.id]: { type: nonNull(GraphQLID), description: 'A globally unique id' } },
    extensions: withDescriptor<RootFieldDescriptor>({ kind: 'node' }),
  };
  return fields;
}
