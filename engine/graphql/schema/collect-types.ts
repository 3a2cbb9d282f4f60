/**
 * A schema's named types listed without recursion.
 *
 * Note [Flat type collection]
 * The GraphQLSchema constructor finds the types of a schema by a recursive
 * walk from the roots, one stack frame per type along a chain of
 * references. The metadata-at-scale database (test/bench/lib/scale.ts)
 * chains tables by foreign keys, so `t00001` reaches `t05000` through
 * relationship fields, and at 5,000 tables the walk overflowed the stack
 * ("Maximum call stack size exceeded" building any role's schema). So the
 * builders walk the types first with an explicit stack, in exactly the
 * order graphql-js would (the order of the type map, hence of printSchema
 * and introspection), and pass them as `types`: the constructor then finds
 * every referenced type already collected and recurses one level only.
 */
import {
  GraphQLSchema,
  getNamedType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isUnionType,
  specifiedDirectives,
  __Schema,
  type GraphQLInterfaceType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLType,
} from 'graphql';

/**
 * The named types `type` refers to, in graphql-js's collection order. Not
 * remembered per type: a WeakMap of these lists (tried for types shared
 * across catalog versions) kept 157 MiB of heap for every schema of 2,000
 * tables × 10 roles instead of 133 (`node --expose-gc
 * test/bench/schema-memory.ts 2000 10`) to save ~25% of a schema's build
 * after a change (test/bench/track-profile.ts).
 */
function referencesOf(type: GraphQLNamedType): GraphQLNamedType[] {
  const out: GraphQLNamedType[] = [];
  if (isUnionType(type)) {
    for (const t of type.getTypes()) out.push(t);
  } else if (isObjectType(type) || isInterfaceType(type)) {
    for (const t of type.getInterfaces()) out.push(t);
    const fields = type.getFields();
    for (const name in fields) {
      const field = fields[name] as GraphQLField<unknown, unknown>;
      out.push(getNamedType(field.type));
      for (const arg of field.args) out.push(getNamedType(arg.type));
    }
  } else if (isInputObjectType(type)) {
    const fields = type.getFields();
    for (const name in fields) out.push(getNamedType((fields[name] as GraphQLInputField).type));
  }
  return out;
}

/**
 * Every named type reachable from `roots` (then the specified directives'
 * argument types and the introspection types), depth first, as graphql-js's
 * collectReferencedTypes orders them.
 */
export function collectTypes(roots: ReadonlyArray<GraphQLObjectType | undefined>): GraphQLNamedType[] {
  const seen = new Set<GraphQLNamedType>();
  const visit = (start: GraphQLType): void => {
    const first = getNamedType(start);
    if (seen.has(first)) return;
    seen.add(first);
    // Frames of [the types a type refers to, how many of them were visited].
    const lists = [referencesOf(first)];
    const at = [0];
    for (let top = lists.length - 1; top >= 0; top = lists.length - 1) {
      const list = lists[top] as readonly GraphQLNamedType[];
      const i = at[top] as number;
      if (i === list.length) {
        lists.pop();
        at.pop();
        continue;
      }
      at[top] = i + 1;
      const named = list[i] as GraphQLNamedType;
      if (seen.has(named)) continue;
      seen.add(named);
      lists.push(referencesOf(named));
      at.push(0);
    }
  };
  for (const root of roots) if (root !== undefined) visit(root);
  for (const directive of specifiedDirectives) for (const arg of directive.args) visit(arg.type);
  visit(__Schema);
  return [...seen];
}

/** The fields graphql-js 16's GraphQLSchema constructor sets from its roots and types (see Note [Schema without a second walk]). */
interface SchemaInternals {
  _queryType: GraphQLObjectType | undefined;
  _mutationType: GraphQLObjectType | undefined;
  _subscriptionType: GraphQLObjectType | undefined;
  _typeMap: Record<string, GraphQLNamedType>;
  _implementationsMap: Record<string, { objects: GraphQLObjectType[]; interfaces: GraphQLInterfaceType[] }>;
}

/**
 * Note [Schema without a second walk]
 * Given `types`, the GraphQLSchema constructor still reads every field and
 * argument of every type once more (collectReferencedTypes per type), which
 * was a third of a role schema's build once table types were reused across
 * catalog versions (Note [Types across catalog versions] in
 * schema-cache.ts): the types are already collected, in the very order the
 * constructor would keep. So {@link schemaOf} constructs a schema without
 * roots (its introspection types only) and sets what the constructor would
 * set from the roots and types: the roots, the type map in collection
 * order (refusing two types of one name with graphql-js's message) and the
 * implementations of each interface. graphql is pinned (package-lock.json);
 * test/unit/graphql/collect-types.test.ts checks the result against the
 * constructor's.
 */

/** The GraphQLSchema of these roots, with its types collected by {@link collectTypes}: Note [Schema without a second walk]. */
export function schemaOf(query: GraphQLObjectType, mutation: GraphQLObjectType | undefined, subscription?: GraphQLObjectType): GraphQLSchema {
  const types = collectTypes([query, mutation, subscription]);
  const schema = new GraphQLSchema({});
  const typeMap: Record<string, GraphQLNamedType> = Object.create(null) as Record<string, GraphQLNamedType>;
  const implementations: SchemaInternals['_implementationsMap'] = Object.create(null) as SchemaInternals['_implementationsMap'];
  const implementationsOf = (iface: GraphQLInterfaceType): { objects: GraphQLObjectType[]; interfaces: GraphQLInterfaceType[] } =>
    (implementations[iface.name] ??= { objects: [], interfaces: [] });
  for (const type of types) {
    if (typeMap[type.name] !== undefined) throw new Error(`Schema must contain uniquely named types but contains multiple types named "${type.name}".`);
    typeMap[type.name] = type;
    if (isInterfaceType(type)) for (const iface of type.getInterfaces()) implementationsOf(iface).interfaces.push(type);
    else if (isObjectType(type)) for (const iface of type.getInterfaces()) implementationsOf(iface).objects.push(type);
  }
  const internals = schema as unknown as SchemaInternals;
  internals._queryType = query;
  internals._mutationType = mutation;
  internals._subscriptionType = subscription;
  internals._typeMap = typeMap;
  internals._implementationsMap = implementations;
  return schema;
}
