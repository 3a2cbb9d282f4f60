/**
 * Actions' part of a role schema: the custom types and the root fields of the
 * actions the role may run (Note [Root-field contributors] in
 * graphql/schema/root-fields.ts).
 *
 * Note [Action types per SchemaTypes]: custom types are made once per
 * SchemaTypes (one per read fingerprint, Note [Shared table types]), so every
 * schema holds one type object per name, and the relationship fields of an
 * output object (to a table the roles of that fingerprint read alike) are
 * those roles' own. A relationship to a table the role cannot read is left
 * out of its object type, as v2 does.
 */
import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLScalarType,
  GraphQLString,
  Kind,
  type GraphQLFieldConfigMap,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLObjectType,
  type ValueNode,
} from 'graphql';
import type { Catalog } from '../../catalog/types.ts';
import { withDescriptor } from './descriptors.ts';
import { enumType, inputObjectType, listOf, nonNull, nonNullListOfNonNull, objectType } from './lean-types.ts';
import { relationshipAggregateField } from './names.ts';
import type { RootFieldContributor, RootFieldInput, ServedRoot } from './root-field-contributor.ts';
import type { SchemaTypes } from './table-types.ts';
import type { TableView } from './table-view.ts';
import type { ActionInfo, ActionsCatalog, CustomRelationship, TypeRef } from '../../actions/types.ts';

/** The descriptor of an action root field. */
export interface ActionFieldDescriptor {
  readonly kind: 'action';
  readonly action: ActionInfo;
  readonly mode: 'sync' | 'async-submit' | 'async-result';
}

/** The descriptor of a relationship field of an action's output object (`aggregate`: its `<rel>_aggregate` field). */
export interface ActionRelationshipDescriptor {
  readonly kind: 'action-relationship';
  readonly rel: CustomRelationship;
  readonly target: TableView;
  readonly aggregate?: true;
}

function literal(node: ValueNode): unknown {
  switch (node.kind) {
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.STRING:
    case Kind.ENUM:
    case Kind.BOOLEAN:
      return node.value;
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map(literal);
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((f) => [f.name.value, literal(f.value)]));
    case Kind.VARIABLE:
      return undefined;
  }
}

/** A custom scalar: any JSON value, passed through (v2 compat). */
function customScalar(name: string, description: string | null): GraphQLScalarType {
  return new GraphQLScalarType({ name, description, serialize: (v) => v, parseValue: (v) => v, parseLiteral: (n) => literal(n) });
}

const BUILTIN: Readonly<Record<string, GraphQLScalarType>> = {
  Int: GraphQLInt,
  Float: GraphQLFloat,
  String: GraphQLString,
  Boolean: GraphQLBoolean,
  ID: GraphQLID,
};

const POSTGRES = { kind: 'postgres' } as const;

/** The custom types of one SchemaTypes (Note [Action types per SchemaTypes]). */
class ActionTypes {
  readonly #catalog: ActionsCatalog;
  readonly #types: SchemaTypes;
  readonly #views: ReadonlyMap<string, TableView>;
  readonly #named = new Map<string, GraphQLNamedType>();
  readonly #asyncResults = new Map<string, GraphQLObjectType>();

  constructor(catalog: ActionsCatalog, types: SchemaTypes, views: ReadonlyMap<string, TableView>) {
    this.#catalog = catalog;
    this.#types = types;
    this.#views = views;
  }

  named(name: string): GraphQLNamedType {
    const b = BUILTIN[name];
    if (b !== undefined) return b;
    const made = this.#named.get(name);
    if (made !== undefined) return made;
    const ct = this.#catalog.customTypes;
    let t: GraphQLNamedType;
    const scalar = ct.scalars.get(name);
    const en = ct.enums.get(name);
    const input = ct.inputObjects.get(name);
    const object = ct.objects.get(name);
    if (scalar !== undefined) t = customScalar(name, scalar.description);
    else if (en !== undefined) {
      t = enumType({
        name,
        description: en.description,
        values: Object.fromEntries(
          en.values.map((v) => [v.value, { value: v.value, description: v.description, deprecationReason: v.isDeprecated ? 'deprecated' : null }]),
        ),
      });
    } else if (input !== undefined) {
      t = inputObjectType({
        name,
        description: input.description,
        fields: () => Object.fromEntries(input.fields.map((f) => [f.name, { type: this.input(f.type), description: f.description }])),
      });
    } else if (object !== undefined) {
      t = objectType({ name, description: object.description, fields: () => this.#objectFields(name) });
    } else {
      // A database scalar (`uuid`, `timestamptz`): the one the tables' columns use.
      t = this.#types.columns.scalars.forDbType(POSTGRES, name);
    }
    this.#named.set(name, t);
    return t;
  }

  #objectFields(name: string): GraphQLFieldConfigMap<unknown, unknown> {
    const object = this.#catalog.customTypes.objects.get(name);
    if (object === undefined) return {};
    const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
    for (const f of object.fields) fields[f.name] = { type: this.output(f.type), description: f.description };
    for (const rel of object.relationships) {
      const target = this.#views.get(`${rel.source}\u0000${rel.table.schema}.${rel.table.name}`);
      if (target === undefined) continue;
      const ext = withDescriptor<ActionRelationshipDescriptor>({ kind: 'action-relationship', rel, target });
      const tt = this.#types.of(target);
      fields[rel.name] =
        rel.type === 'object'
          ? { type: tt.object, extensions: ext }
          : { type: nonNullListOfNonNull(tt.object), args: this.#types.listArgs(target), extensions: ext };
      // v2 (Hasura.GraphQL.Schema.Action): an array relationship also offers `<rel>_aggregate` where the role may aggregate.
      if (rel.type === 'array' && tt.aggregate !== null) {
        fields[relationshipAggregateField(rel.name)] = {
          type: nonNull(tt.aggregate.aggregate),
          description: 'An aggregate relationship',
          args: this.#types.listArgs(target),
          extensions: withDescriptor<ActionRelationshipDescriptor>({ kind: 'action-relationship', rel, target, aggregate: true }),
        };
      }
    }
    return fields;
  }

  output(t: TypeRef): GraphQLOutputType {
    const inner: GraphQLOutputType = t.kind === 'named' ? (this.named(t.name) as GraphQLOutputType) : listOf(this.output(t.of));
    return t.nonNull ? (nonNull(inner as Parameters<typeof nonNull>[0]) as GraphQLOutputType) : inner;
  }

  input(t: TypeRef): GraphQLInputType {
    const inner: GraphQLInputType = t.kind === 'named' ? (this.named(t.name) as GraphQLInputType) : listOf(this.input(t.of));
    return t.nonNull ? (nonNull(inner as Parameters<typeof nonNull>[0]) as GraphQLInputType) : inner;
  }

  /** v2's type of an async action's result query: `{id, created_at, output, errors}`, named after the action. */
  asyncResult(action: ActionInfo): GraphQLObjectType {
    let t = this.#asyncResults.get(action.name);
    if (t === undefined) {
      const scalars = this.#types.columns.scalars;
      t = objectType({
        name: action.name,
        fields: () => ({
          id: { type: nonNull(scalars.forDbType(POSTGRES, 'uuid')) },
          created_at: { type: nonNull(scalars.forDbType(POSTGRES, 'timestamptz')) },
          output: { type: this.output({ ...action.outputType, nonNull: false }) },
          errors: { type: scalars.forDbType(POSTGRES, 'json') },
        }),
      });
      this.#asyncResults.set(action.name, t);
    }
    return t;
  }
}

const byTypes = new WeakMap<SchemaTypes, { catalog: ActionsCatalog; types: ActionTypes }>();

function actionTypes(input: RootFieldInput, catalog: ActionsCatalog): ActionTypes {
  const hit = byTypes.get(input.types);
  if (hit !== undefined && hit.catalog === catalog) return hit.types;
  const views = new Map<string, TableView>();
  for (const v of input.access.tables.values()) views.set(`${v.source.name}\u0000${v.info.name.schema}.${v.info.name.name}`, v);
  const types = new ActionTypes(catalog, input.types, views);
  byTypes.set(input.types, { catalog, types });
  return types;
}

/** The actions `role` may run, in metadata order (admin: all). */
export function visibleActions(catalog: Catalog, role: string, isAdmin: boolean): ActionInfo[] {
  const all = catalog.actions?.actions;
  if (all === undefined) return [];
  return [...all.values()].filter((a) => isAdmin || a.roles.has(role));
}

function rootFields(input: RootFieldInput, root: ServedRoot): GraphQLFieldConfigMap<unknown, unknown> {
  const catalog = input.catalog.actions;
  if (catalog === undefined) return {};
  const actions = visibleActions(input.catalog, input.role, input.access.isAdmin);
  if (actions.length === 0) return {};
  const types = actionTypes(input, catalog);
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const a of actions) {
    const args = Object.fromEntries(a.arguments.map((arg) => [arg.name, { type: types.input(arg.type), description: arg.description }]));
    if (a.kind === 'asynchronous') {
      if (root === 'mutation') {
        fields[a.name] = {
          type: nonNull(input.types.columns.scalars.forDbType(POSTGRES, 'uuid')),
          args,
          description: a.description,
          extensions: withDescriptor<ActionFieldDescriptor>({ kind: 'action', action: a, mode: 'async-submit' }),
        };
      } else {
        fields[a.name] = {
          type: types.asyncResult(a),
          args: { id: { type: nonNull(input.types.columns.scalars.forDbType(POSTGRES, 'uuid')) } },
          description: a.description,
          extensions: withDescriptor<ActionFieldDescriptor>({ kind: 'action', action: a, mode: 'async-result' }),
        };
      }
      continue;
    }
    if (a.type !== root) continue;
    fields[a.name] = {
      type: types.output(a.outputType),
      args,
      description: a.description,
      extensions: withDescriptor<ActionFieldDescriptor>({ kind: 'action', action: a, mode: 'sync' }),
    };
  }
  return fields;
}

/** Actions: synchronous queries and mutations, asynchronous submissions and result queries. */
export const ACTION_ROOT_FIELDS: RootFieldContributor = {
  name: 'actions',
  rootFields,
  // v2 serves synchronous query actions on query_root only; subscription_root has the async results.
  queryOnly: (input) =>
    visibleActions(input.catalog, input.role, input.access.isAdmin)
      .filter((a) => a.kind === 'synchronous' && a.type === 'query')
      .map((a) => a.name),
  // Which actions the role sees; the relationship fields follow the read fingerprint, which shares SchemaTypes.
  fingerprint: (catalog, role, access) => {
    const all = catalog.actions?.actions;
    if (all === undefined) return [];
    return [
      `actions:${visibleActions(catalog, role, access.isAdmin)
        .map((a) => a.name)
        .join(',')}`,
    ];
  },
};
