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
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLType,
} from 'graphql';

/** The types `type` refers to, in graphql-js's collection order. */
function* references(type: GraphQLNamedType): Generator<GraphQLType> {
  if (isUnionType(type)) {
    yield* type.getTypes();
  } else if (isObjectType(type) || isInterfaceType(type)) {
    yield* type.getInterfaces();
    for (const field of Object.values(type.getFields())) {
      yield field.type;
      for (const arg of field.args) yield arg.type;
    }
  } else if (isInputObjectType(type)) {
    for (const field of Object.values(type.getFields())) yield field.type;
  }
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
    const stack = [references(first)];
    for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
      const next = top.next();
      if (next.done === true) {
        stack.pop();
        continue;
      }
      const named = getNamedType(next.value);
      if (seen.has(named)) continue;
      seen.add(named);
      stack.push(references(named));
    }
  };
  for (const root of roots) if (root !== undefined) visit(root);
  for (const directive of specifiedDirectives) for (const arg of directive.args) visit(arg.type);
  visit(__Schema);
  return [...seen];
}

/** `new GraphQLSchema` for these roots, with its types collected by {@link collectTypes}. */
export function schemaOf(query: GraphQLObjectType, mutation: GraphQLObjectType | undefined, subscription?: GraphQLObjectType): GraphQLSchema {
  return new GraphQLSchema({ query, mutation, subscription, types: collectTypes([query, mutation, subscription]) });
}
