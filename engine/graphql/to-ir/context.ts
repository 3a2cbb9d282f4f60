/**
 * State of one operation → IR translation, and how it records the use of
 * each GraphQL variable. See Note [Plan cache keys] in execute/plan-cache.ts:
 * a variable used only at leaf positions stays a parameter slot (its value is
 * bound per request); one that shapes the SQL (an input object, an enum, a
 * directive condition, `_is_null`) is "structural" and its value is part of
 * the plan's key.
 */
import type { FragmentDefinitionNode, GraphQLSchema } from 'graphql';

/** How a variable was used. */
export type VariableUse = 'leaf' | 'structural';

/** The translation context of one operation. */
export interface ToIrContext {
  readonly schema: GraphQLSchema;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  /** Coerced variable values (graphql-js getVariableValues). */
  readonly variables: Readonly<Record<string, unknown>>;
  /** Filled during translation. */
  readonly variableUse: Map<string, VariableUse>;
  /** ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES. */
  readonly stringifyNumericTypes: boolean;
}

/** Records a variable as structural (its value shapes the plan). */
export function useStructural(ctx: ToIrContext, name: string): unknown {
  ctx.variableUse.set(name, 'structural');
  return ctx.variables[name];
}

/** Records a variable as a leaf parameter unless it is already structural. */
export function useLeaf(ctx: ToIrContext, name: string): void {
  if (ctx.variableUse.get(name) !== 'structural') ctx.variableUse.set(name, 'leaf');
}
