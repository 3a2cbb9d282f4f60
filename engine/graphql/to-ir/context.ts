/**
 * State of one operation → IR translation, and how it records the use of
 * each GraphQL variable. See Note [Plan cache keys] in execute/plan-cache.ts:
 * a variable used only at leaf positions stays a parameter slot (its value is
 * bound per request); one that shapes the SQL (an input object, an enum, a
 * directive condition, `_is_null`) is "structural" and its value is part of
 * the plan's key. A variable holding mutation input rows is "shape": only its
 * shape is part of the key (see Note [Mutation inputs as JSON] in
 * ir/mutation.ts and `shapeKey` in to-ir/mutation-input.ts).
 */
import type { FieldNode, FragmentDefinitionNode, GraphQLObjectType, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type * as ir from '../../ir/index.ts';
import type { MutationView } from '../schema/mutation-view.ts';
import { readViewOf, writeViewOf, type RoleAccess } from '../schema/role-access.ts';
import type { TableView } from '../schema/table-view.ts';

/** How a variable was used. */
export type VariableUse = 'leaf' | 'shape' | 'structural';

/** The translation context of one operation. */
export interface ToIrContext {
  readonly schema: GraphQLSchema;
  /** The requesting role's permissions; the schema may be another role's of equal shape. */
  readonly access: RoleAccess;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  /** Coerced variable values (graphql-js getVariableValues). */
  readonly variables: Readonly<Record<string, unknown>>;
  /** Filled during translation. */
  readonly variableUse: Map<string, VariableUse>;
  /** ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES. */
  readonly stringifyNumericTypes: boolean;
  /** Current nesting, bounded: Note [Depth bounds] in depth.ts. */
  readonly depth: { selection: number; boolExp: number };
  /** The operation (remote fields declare the variables they use from it). */
  readonly operation?: OperationDefinitionNode;
  /** Joins met so far, paths from the operation's data (Note [Remote joins] in execute/remote-join.ts). */
  readonly remoteJoins?: ir.Join[];
  /**
   * The fields selected on a table's object type: select.ts `toIrFields`, given by operation.ts.
   * connection.ts and remote-table-join.ts translate the rows they select through it: select.ts
   * calls them for relationship fields, so they cannot import it (no module cycle).
   */
  readonly toIrFields: FieldsTranslator;
}

/** Translates the selection on a table's object type (select.ts `toIrFields`). */
export type FieldsTranslator = (view: TableView, type: GraphQLObjectType, nodes: readonly FieldNode[], ctx: ToIrContext, path: string) => ir.Field[];

/** Records a variable as structural (its value shapes the plan). */
export function useStructural(ctx: ToIrContext, name: string): unknown {
  ctx.variableUse.set(name, 'structural');
  return ctx.variables[name];
}

/** Records a variable as a leaf parameter unless it is already structural or shape. */
export function useLeaf(ctx: ToIrContext, name: string): void {
  if (!ctx.variableUse.has(name)) ctx.variableUse.set(name, 'leaf');
}

/** Records a variable as shape-keyed unless it is already structural; returns its value. */
export function useShape(ctx: ToIrContext, name: string): unknown {
  if (ctx.variableUse.get(name) !== 'structural') ctx.variableUse.set(name, 'shape');
  return ctx.variables[name];
}

/**
 * The requesting role's read view of the table a descriptor's view shows.
 * Every view taken from a descriptor goes through here before its filter,
 * limit or redaction is read: see Note [Shared role types] in role-access.ts.
 */
export function readView(ctx: ToIrContext, shape: TableView): TableView {
  return readViewOf(ctx.access, shape);
}

/** The requesting role's write view of the table a mutation descriptor's view shows. */
export function writeView(ctx: ToIrContext, shape: MutationView): MutationView {
  return writeViewOf(ctx.access, shape);
}
