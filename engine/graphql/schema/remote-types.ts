/**
 * A remote schema's types as one role schema shows them.
 *
 * Note [Remote type relationships in role schemas]
 * A relationship of a remote schema's type (`to_source`, `to_remote_schema`)
 * is a field the remote does not have, whose type is a table type of the
 * role (its select permission decides whether the field exists and what it
 * shows) or another remote's type. The remote's own types are shared by
 * every role; a type with such a field cannot be. So when a remote has type
 * relationships and the schema shows them, its object, interface and union
 * types are copied once per SchemaTypes and view (per read fingerprint and
 * remote views: the table types it leads to are that SchemaTypes' own, the
 * relationships shown those the view admits, Note [Remote joins in a role's
 * view] in remote/role-join.ts), every field type pointing at
 * the copies, and the relationship fields added to their types. Scalars,
 * enums and input objects are the remote's own (they lead nowhere). Every
 * place that shows a remote type (its root fields, a table's remote
 * relationship field, another remote's relationship) takes it from here, so
 * one schema never holds two types of one name. Without type relationships
 * the view's types are used as they are: no copy, no cost.
 */
import {
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLUnionType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
  type GraphQLFieldConfigMap,
  type GraphQLNamedType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';

/** A remote view's types as a schema shows them. */
export interface RemoteTypes {
  /** The type named `name` (customized name), or undefined. */
  named(name: string): GraphQLNamedType | undefined;
  /** `t` (a type of the view, wrapped or not) as shown. */
  output(t: GraphQLOutputType): GraphQLOutputType;
  /** The view's query, mutation or subscription root as shown (its fields become root fields). */
  root(operation: 'query' | 'mutation' | 'subscription'): GraphQLObjectType | undefined;
}

/** The root type of `op` in `schema`. */
export function rootOf(schema: GraphQLSchema, op: 'query' | 'mutation' | 'subscription'): GraphQLObjectType | null | undefined {
  return op === 'query' ? schema.getQueryType() : op === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
}

/** The view's own types. */
export function viewTypes(schema: GraphQLSchema): RemoteTypes {
  return {
    named: (name) => schema.getType(name) ?? undefined,
    output: (t) => t,
    root: (op) => rootOf(schema, op) ?? undefined,
  };
}

/** Copies of the view's composite types with `extra(typeName)` fields added (Note [Remote type relationships in role schemas]). */
export function copiedTypes(schema: GraphQLSchema, extra: (typeName: string) => GraphQLFieldConfigMap<unknown, unknown> | null): RemoteTypes {
  const copies = new Map<string, GraphQLNamedType>();
  const named = (t: GraphQLNamedType): GraphQLNamedType => {
    if (!isObjectType(t) && !isInterfaceType(t) && !isUnionType(t)) return t;
    const made = copies.get(t.name);
    if (made !== undefined) return made;
    let copy: GraphQLNamedType;
    if (isObjectType(t)) {
      const config = t.toConfig();
      copy = new GraphQLObjectType({
        ...config,
        fields: () => ({ ...fieldsOf(config.fields), ...(extra(t.name) ?? {}) }),
        interfaces: () => config.interfaces.map((i) => named(i) as GraphQLInterfaceType),
      });
    } else if (isInterfaceType(t)) {
      const config = t.toConfig();
      copy = new GraphQLInterfaceType({
        ...config,
        fields: () => fieldsOf(config.fields),
        interfaces: () => config.interfaces.map((i) => named(i) as GraphQLInterfaceType),
      });
    } else {
      const config = t.toConfig();
      copy = new GraphQLUnionType({ ...config, types: () => config.types.map((m) => named(m) as GraphQLObjectType) });
    }
    copies.set(t.name, copy);
    return copy;
  };
  const output = (t: GraphQLOutputType): GraphQLOutputType => {
    if (isNonNullType(t)) return new GraphQLNonNull(output(t.ofType));
    if (isListType(t)) return new GraphQLList(output(t.ofType));
    return named(t) as GraphQLOutputType;
  };
  const fieldsOf = (fields: GraphQLFieldConfigMap<unknown, unknown>): GraphQLFieldConfigMap<unknown, unknown> => {
    const out: GraphQLFieldConfigMap<unknown, unknown> = {};
    for (const [name, f] of Object.entries(fields)) out[name] = { ...f, type: output(f.type) };
    return out;
  };
  return {
    named: (name) => {
      const t = schema.getType(name);
      return t === undefined || t === null ? undefined : named(t);
    },
    output,
    root: (op) => {
      const t = rootOf(schema, op);
      return t === undefined || t === null ? undefined : (named(t) as GraphQLObjectType);
    },
  };
}
