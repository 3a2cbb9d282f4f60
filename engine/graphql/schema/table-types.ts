/**
 * The GraphQL types of one table for one role: `<t>`, `<t>_bool_exp`,
 * `<t>_order_by`, `<t>_select_column` and, with aggregations allowed, the
 * aggregate types (aggregate-types.ts). Built lazily; relationship fields
 * refer to other tables' types through thunks. One SchemaTypes serves every
 * schema of the roles with one read fingerprint (role-fingerprint.ts), so
 * tables are keyed by the catalog's TableInfo, not by a role's view.
 */
import {
  GraphQLInt,
  GraphQLString,
  type GraphQLEnumType,
  type GraphQLInputObjectType,
  type GraphQLObjectType,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfig,
  type GraphQLInputFieldConfigMap,
} from 'graphql';
import { tableKey, type TableInfo } from '../../catalog/types.ts';
import { ColumnTypes } from './column-types.ts';
import { computedBoolExpFields, computedObjectFields, computedOrderByFields } from './computed-field-fields.ts';
import { buildAggregateTypes, type AggregateTypes } from './aggregate-types.ts';
import {
  COMBINATOR_EXTENSIONS,
  columnExtensions,
  relationshipExtensions,
  withDescriptor,
  type RemoteTypeFieldDescriptor,
  type TableFieldDescriptor,
} from './descriptors.ts';
import type { RemoteSchemaInfo, RemoteTypeRelationship, RemoteView } from '../../remote/types.ts';
import { joinInView, showsFields } from '../../remote/role-join.ts';
import { copiedTypes, viewTypes, type RemoteTypes } from './remote-types.ts';
import { configMap, generatedEnumType, generatedInputObjectType, generatedObjectType, listOfNonNull, nonNull, nonNullListOfNonNull } from './lean-types.ts';
import { ARG, FIELD, ORDER_BY_ENUM, relationshipAggregateField } from './names.ts';
import { isAlwaysPresent, type TableView } from './table-view.ts';
import { scalarInfo, valueEncoding } from './scalars.ts';
import { capabilitiesOf } from './capabilities.ts';
import { RELAY, RelayLeafTypes, connectionArgs, connectionFieldName, connectionType, nodeIdField } from './relay-types.ts';

/** v2 compat: json/jsonb column fields take `path` (Note [JSON path argument] in ir/json-path.ts). */
/** v2 compat: an empty comment (`comment: ""` in metadata) is no description: null, never `""`. */
function nonEmpty(description: string | null | undefined): string | undefined {
  return description === null || description === undefined || description === '' ? undefined : description;
}

const JSON_PATH_ARGS: GraphQLFieldConfigArgumentMap = { [ARG.path]: { type: GraphQLString, description: 'JSON select path' } };

/** The types of one table. */
export interface TableTypes {
  readonly object: GraphQLObjectType;
  readonly boolExp: GraphQLInputObjectType;
  readonly orderBy: GraphQLInputObjectType;
  readonly selectColumn: GraphQLEnumType;
  /** Null when the role may not aggregate this table. */
  readonly aggregate: AggregateTypes | null;
  /** Relay schemas: `<t>Connection` of a table with a primary key; null otherwise. */
  readonly connection: GraphQLObjectType | null;
}

/** v2 compat: the `order_by` enum and what each value means. */
export const ORDER_BY_VALUES = {
  asc: { direction: 'asc', nulls: 'last', description: 'in ascending order, nulls last' },
  asc_nulls_first: { direction: 'asc', nulls: 'first', description: 'in ascending order, nulls first' },
  asc_nulls_last: { direction: 'asc', nulls: 'last', description: 'in ascending order, nulls last' },
  desc: { direction: 'desc', nulls: 'first', description: 'in descending order, nulls first' },
  desc_nulls_first: { direction: 'desc', nulls: 'first', description: 'in descending order, nulls first' },
  desc_nulls_last: { direction: 'desc', nulls: 'last', description: 'in descending order, nulls last' },
} as const;

/**
 * The types no table owns: column types (scalars, comparison expressions,
 * enum-table enums), `order_by` and the `<fn>_args` inputs. The SchemaTypes
 * of one SchemaCache share one, since types of several SchemaTypes may meet
 * in one schema (Note [Shared table types] in schema-cache.ts) and each name
 * must have one type object there.
 */
export class LeafTypes {
  readonly columns = new ColumnTypes();
  readonly orderByEnum = generatedEnumType({
    name: ORDER_BY_ENUM,
    description: 'column ordering options',
    values: Object.fromEntries(Object.entries(ORDER_BY_VALUES).map(([k, v]) => [k, { value: k, description: v.description }])),
  });
  readonly inputs = new Map<string, GraphQLInputObjectType>();
  /** Set in the leaves of a Relay schema cache (Note [Relay schema] in relay-types.ts). */
  readonly relay: RelayLeafTypes | null;
  constructor(relay = false, hideUnselectableKeys = false) {
    this.relay = relay ? new RelayLeafTypes(hideUnselectableKeys) : null;
  }
}

/** Options of a SchemaTypes shared through a SchemaCache (Note [Shared table types] in schema-cache.ts). */
export interface SharedTypesOptions {
  readonly leaves: LeafTypes;
  /** The read views of the role it is made for, so another SchemaTypes may ask it for a table's types. */
  readonly views: ReadonlyMap<TableInfo, TableView>;
  /** Tables whose types another SchemaTypes makes (they are the same there). */
  readonly owners: ReadonlyMap<TableInfo, SchemaTypes>;
  /**
   * Types of tables made by a SchemaTypes of the previous catalog version,
   * taken as they are (Note [Types across catalog versions] in schema-cache.ts);
   * unlike `owners`, no reference to that SchemaTypes is kept.
   */
  readonly adopted?: ReadonlyMap<TableInfo, TableTypes>;
  /**
   * The view of each remote schema the roles of these types see, or null
   * (default: the whole schema). Remote relationships into a remote follow
   * it (Note [Remote joins in a role's view] in remote/role-join.ts), so
   * roles that see a remote differently never share a SchemaTypes
   * (schema-cache.ts #typesOf).
   */
  readonly remoteView?: (remote: RemoteSchemaInfo) => RemoteView | null;
  /** The catalog's remote schemas, for the targets of remote type relationships (remote-types.ts). */
  readonly remotes?: ReadonlyMap<string, RemoteSchemaInfo>;
}

/** Every table type of the schemas of one read fingerprint, created on first use. */
export class SchemaTypes {
  readonly columns: ColumnTypes;
  readonly orderByEnum: GraphQLEnumType;
  readonly #leaves: LeafTypes;
  readonly #views: ReadonlyMap<TableInfo, TableView>;
  readonly #owners: ReadonlyMap<TableInfo, SchemaTypes>;
  readonly #tables = new Map<TableInfo, TableTypes>();
  readonly #listArgs = new Map<TableInfo, GraphQLFieldConfigArgumentMap>();
  readonly #remoteView: (remote: RemoteSchemaInfo) => RemoteView | null;
  readonly #connectionArgs = new Map<TableInfo, GraphQLFieldConfigArgumentMap>();
  /** Relay schemas' shared types (from the leaves); null in /v1/graphql's schemas. */
  readonly relay: RelayLeafTypes | null;
  readonly #remotes: ReadonlyMap<string, RemoteSchemaInfo>;
  readonly #remoteTypes = new Map<string, RemoteTypes>();

  constructor(shared?: SharedTypesOptions) {
    this.#remoteView = shared?.remoteView ?? ((remote) => remote.full);
    this.#remotes = shared?.remotes ?? new Map();
    this.#leaves = shared?.leaves ?? new LeafTypes();
    this.relay = this.#leaves.relay;
    this.#views = shared?.views ?? new Map();
    this.#owners = shared?.owners ?? new Map();
    for (const [info, t] of shared?.adopted ?? []) this.#tables.set(info, t);
    this.columns = this.#leaves.columns;
    this.orderByEnum = this.#leaves.orderByEnum;
  }

  /**
   * Remote schema `remote` seen through `view` as the schemas of these types
   * show it: copies holding its type relationships, or the view's own types
   * (Note [Remote type relationships in role schemas] in remote-types.ts).
   */
  remoteTypes(remote: RemoteSchemaInfo, view: RemoteView): RemoteTypes {
    const key = `${remote.name}\0${view.key}`;
    let t = this.#remoteTypes.get(key);
    if (t === undefined) {
      const rels = remote.typeRelationships;
      t = rels === undefined ? viewTypes(view.schema) : copiedTypes(view.schema, (name) => this.#typeRelationshipFields(remote, view, name, rels.get(name)));
      this.#remoteTypes.set(key, t);
    }
    return t;
  }

  /**
   * The relationship fields of remote type `typeName` as `view` shows it: a
   * table's rows the role may read, or another remote's field as the role's
   * view of that remote admits it. The view must show the join fields, as a
   * table's remote relationship needs its join columns readable.
   */
  #typeRelationshipFields(
    remote: RemoteSchemaInfo,
    view: RemoteView,
    typeName: string,
    rels: readonly RemoteTypeRelationship[] | undefined,
  ): GraphQLFieldConfigMap<unknown, unknown> | null {
    if (rels === undefined) return null;
    const out: GraphQLFieldConfigMap<unknown, unknown> = {};
    for (const rel of rels) {
      const lhs = rel.kind === 'to_source' ? rel.mapping.map(([f]) => f) : rel.lhsFields;
      if (view !== remote.full && !showsFields(remote, view, typeName, lhs)) continue;
      if (rel.kind === 'to_source') {
        // A role that may not select from the table does not see the field (v2 compat).
        const table = this.#views.get(rel.table);
        if (table === undefined) continue;
        const extensions = withDescriptor<RemoteTypeFieldDescriptor>({ kind: 'remote-type-relationship', rel, target: table });
        const object = this.of(table).object;
        out[rel.name] = rel.type === 'object' ? { type: object, extensions } : { type: nonNullListOfNonNull(object), args: this.listArgs(table), extensions };
        continue;
      }
      const target = this.#remotes.get(rel.target);
      const targetView = target === undefined ? null : this.#remoteView(target);
      const join = target === undefined || targetView === null ? null : joinInView(target, targetView, rel.path);
      if (target === undefined || join === null) continue;
      out[rel.name] = {
        type: this.remoteTypes(target, join.view).output(join.type),
        extensions: withDescriptor<RemoteTypeFieldDescriptor>({ kind: 'remote-type-relationship', rel, targetRemote: target, targetJoin: join }),
      };
    }
    return out;
  }

  /** The types of `info` for this one if they are made already (none are made for the asking). */
  made(info: TableInfo): TableTypes | undefined {
    const owner = this.#owners.get(info);
    return owner === undefined ? this.#tables.get(info) : owner.made(info);
  }

  /** The SchemaTypes that makes the types of `info` for this one. */
  ownerOf(info: TableInfo): SchemaTypes {
    return this.#owners.get(info) ?? this;
  }

  /** The input object named `name`, made by `make` on first use (function `<fn>_args` types). */
  inputObject(name: string, make: () => GraphQLInputObjectType): GraphQLInputObjectType {
    let t = this.#leaves.inputs.get(name);
    if (t === undefined) {
      t = make();
      this.#leaves.inputs.set(name, t);
    }
    return t;
  }

  /** The types of `view`. */
  of(view: TableView): TableTypes {
    const owner = this.#owners.get(view.info);
    return owner === undefined ? this.#own(view) : owner.#ownOf(view.info);
  }

  #own(view: TableView): TableTypes {
    let t = this.#tables.get(view.info);
    if (t === undefined) {
      t = this.#build(view);
      this.#tables.set(view.info, t);
    }
    return t;
  }

  /** The types of `info` made from this SchemaTypes' own view of it. */
  #ownOf(info: TableInfo): TableTypes {
    const made = this.#tables.get(info);
    if (made !== undefined) return made;
    const view = this.#views.get(info);
    if (view === undefined) throw new Error(`no view of table "${info.name.name}" to make its types from`);
    return this.#own(view);
  }

  /**
   * `distinct_on, limit, offset, order_by, where` of a list field over
   * `view`: one map per table, so its fields share one argument list (Note
   * [Shared fields] in lean-types.ts). Not to be modified.
   */
  listArgs(view: TableView): GraphQLFieldConfigArgumentMap {
    let args = this.#listArgs.get(view.info);
    if (args === undefined) {
      const t = this.of(view);
      args = {
        ...(capabilitiesOf(view.source).distinctOn
          ? { [ARG.distinctOn]: { type: listOfNonNull(t.selectColumn), description: 'distinct select on columns' } }
          : {}),
        [ARG.limit]: { type: GraphQLInt, description: 'limit the number of rows returned' },
        [ARG.offset]: { type: GraphQLInt, description: 'skip the first n rows. Use only with order_by' },
        [ARG.orderBy]: { type: listOfNonNull(t.orderBy), description: 'sort the rows by one or more columns' },
        [ARG.where]: { type: t.boolExp, description: 'filter the rows returned' },
      };
      this.#listArgs.set(view.info, args);
    }
    return args;
  }

  /** Relay: `after, before, distinct_on, first, last, order_by, where`, one map per table (Note [Shared fields]). */
  connectionArgs(view: TableView): GraphQLFieldConfigArgumentMap {
    let args = this.#connectionArgs.get(view.info);
    if (args === undefined) {
      args = connectionArgs(view, this);
      this.#connectionArgs.set(view.info, args);
    }
    return args;
  }

  #build(view: TableView): TableTypes {
    const { names } = view;
    const name = `"${view.info.name.name}"`;
    const selectColumn = generatedEnumType({
      name: names.selectColumn,
      description: `select columns of table ${name}`,
      values: Object.fromEntries(view.columns.map((c) => [c.gqlName, { value: c.name, description: 'column name' }])),
    });
    const boolExp: GraphQLInputObjectType = generatedInputObjectType({
      name: names.boolExp,
      description: `Boolean expression to filter rows from the table ${name}. All fields are combined with a logical 'AND'.`,
      fields: () => this.#boolExpFields(view, boolExp),
    });
    const orderBy = generatedInputObjectType({
      name: names.orderBy,
      description: `Ordering options when selecting data from ${name}.`,
      fields: () => this.#orderByFields(view),
    });
    const relay = this.relay;
    const object = generatedObjectType({
      name: names.object,
      description: nonEmpty(view.info.description) ?? `columns and relationships of ${name}`,
      fields: () => this.#objectFields(view),
      ...(relay !== null && relay.hasNodeId(view) ? { interfaces: [relay.node] } : {}),
    });
    const partial = { object, boolExp, orderBy, selectColumn };
    const aggregate = view.allowAggregations && capabilitiesOf(view.source).aggregates ? buildAggregateTypes(view, partial, this) : null;
    const connection = relay !== null && relay.hasNodeId(view) ? connectionType(view, object, relay) : null;
    return { ...partial, aggregate, connection };
  }

  #objectFields(view: TableView): GraphQLFieldConfigMap<unknown, unknown> {
    const fields = configMap<GraphQLFieldConfig<unknown, unknown>>();
    const relay = this.relay !== null;
    const nodeId = this.relay?.hasNodeId(view) === true;
    for (const c of view.columns) {
      // Relay: `id` is the node id (Note [Relay schema] in relay-types.ts).
      if (relay && c.gqlName === RELAY.id) {
        if (nodeId) fields[RELAY.id] = nodeIdField();
        continue;
      }
      fields[c.gqlName] = {
        type: this.columns.output(view.source, c),
        description: nonEmpty(c.description),
        ...(valueEncoding(view.source, c.dbType) === 'json' ? { args: JSON_PATH_ARGS } : {}),
        extensions: columnExtensions(c),
      };
    }
    for (const rel of view.relationships) {
      const target = this.of(rel.target);
      const description = rel.info.comment ?? (rel.info.kind === 'object' ? 'An object relationship' : 'An array relationship');
      if (rel.info.kind === 'object') {
        fields[rel.info.name] = {
          type: isAlwaysPresent(view, rel) ? nonNull(target.object) : target.object,
          description,
          extensions: relationshipExtensions(rel, 'object-relationship'),
        };
        continue;
      }
      fields[rel.info.name] = {
        type: nonNullListOfNonNull(target.object),
        description,
        args: this.listArgs(rel.target),
        extensions: relationshipExtensions(rel, 'array-relationship'),
      };
      if (target.aggregate !== null) {
        fields[relationshipAggregateField(rel.info.name)] = {
          type: nonNull(target.aggregate.aggregate),
          description: 'An aggregate relationship',
          args: this.listArgs(rel.target),
          extensions: relationshipExtensions(rel, 'array-aggregate'),
        };
      }
      if (target.connection !== null) {
        fields[connectionFieldName(rel.info.name)] = {
          type: nonNull(target.connection),
          description: 'An array relationship connection',
          args: this.connectionArgs(rel.target),
          extensions: relationshipExtensions(rel, 'array-connection'),
        };
      }
    }
    Object.assign(fields, computedObjectFields(view, this));
    // Remote relationships whose join columns the role can read (v2 compat; not in the Relay schema, as v2).
    // With remote schema permissions on, the role's view of the remote decides (Note [Remote joins in a role's view] in remote/role-join.ts).
    for (const rr of this.relay === null ? (view.source.remoteRelationships?.get(tableKey(view.info.name)) ?? []) : []) {
      if (!rr.lhsColumns.every((c) => view.columns.some((col) => col.name === c))) continue;
      const remoteView = this.#remoteView(rr.remote);
      const join = remoteView === null ? null : joinInView(rr.remote, remoteView, rr.path);
      if (join === null) continue;
      fields[rr.name] = {
        type: this.remoteTypes(rr.remote, join.view).output(join.type),
        description: `A remote relationship to remote schema "${rr.remote.name}"`,
        extensions: withDescriptor<TableFieldDescriptor>({ kind: 'remote-relationship', rr, join }),
      };
    }
    // Cross-source relationships (`to_source`) to tables the role reads, joined after the statement (not in the Relay schema).
    for (const sr of this.relay === null ? (view.sourceRelationships ?? []) : []) {
      const target = this.of(sr.target);
      const extensions = withDescriptor<TableFieldDescriptor>({ kind: 'source-relationship', rel: sr });
      const description = `A remote relationship to table "${sr.target.info.name.name}" of source "${sr.info.targetSource}"`;
      fields[sr.info.name] =
        sr.info.kind === 'object'
          ? { type: target.object, description, extensions }
          : { type: nonNullListOfNonNull(target.object), description, args: this.listArgs(sr.target), extensions };
    }
    if (nodeId && fields[RELAY.id] === undefined) fields[RELAY.id] = nodeIdField();
    return fields;
  }

  #boolExpFields(view: TableView, self: GraphQLInputObjectType): GraphQLInputFieldConfigMap {
    const list = listOfNonNull(self);
    const fields = configMap<GraphQLInputFieldConfig>();
    fields[FIELD.and] = { type: list, extensions: COMBINATOR_EXTENSIONS._and };
    fields[FIELD.not] = { type: self, extensions: COMBINATOR_EXTENSIONS._not };
    fields[FIELD.or] = { type: list, extensions: COMBINATOR_EXTENSIONS._or };
    for (const c of view.columns) {
      fields[c.gqlName] = {
        type: this.columns.comparison(view.source, c),
        extensions: columnExtensions(c),
      };
    }
    for (const rel of view.relationships) {
      const kind = rel.info.kind === 'object' ? 'object-relationship' : 'array-relationship';
      const target = this.of(rel.target);
      fields[rel.info.name] = {
        type: target.boolExp,
        extensions: relationshipExtensions(rel, kind),
      };
      // v2 compat: `<rel>_aggregate: <t>_aggregate_bool_exp` where the role may aggregate the related rows.
      if (rel.info.kind === 'array' && target.aggregate !== null) {
        fields[relationshipAggregateField(rel.info.name)] = {
          type: target.aggregate.boolExp,
          extensions: relationshipExtensions(rel, 'array-aggregate'),
        };
      }
    }
    Object.assign(fields, computedBoolExpFields(view, this));
    return fields;
  }

  #orderByFields(view: TableView): GraphQLInputFieldConfigMap {
    const fields = configMap<GraphQLInputFieldConfig>();
    for (const c of view.columns) {
      // v2 compat: array and json columns cannot be sorted.
      if (c.elementType !== null || !scalarInfo(view.source, c.dbType).sortable) continue;
      fields[c.gqlName] = {
        type: this.orderByEnum,
        description: nonEmpty(c.description),
        extensions: columnExtensions(c),
      };
    }
    for (const rel of view.relationships) {
      const target = this.of(rel.target);
      if (rel.info.kind === 'object') {
        fields[rel.info.name] = {
          type: target.orderBy,
          extensions: relationshipExtensions(rel, 'object-relationship'),
        };
      } else if (target.aggregate !== null) {
        fields[relationshipAggregateField(rel.info.name)] = {
          type: target.aggregate.orderBy,
          extensions: relationshipExtensions(rel, 'array-aggregate'),
        };
      }
    }
    Object.assign(fields, computedOrderByFields(view, this));
    return fields;
  }
}
