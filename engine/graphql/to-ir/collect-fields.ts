/**
 * Field collection (GraphQL spec §6.3.2 CollectFields): fragments are
 * inlined, `@skip`/`@include` applied, and fields with the same response key
 * merged, keeping first-seen order.
 */
import { Kind, type DirectiveNode, type FieldNode, type GraphQLField, type GraphQLObjectType, type SelectionSetNode, type ValueNode } from 'graphql';
import { astInput, booleanValue } from './input.ts';
import type { ToIrContext } from './context.ts';

/** Response key → the field nodes that answer it (same field, merged selections). */
export type CollectedFields = Map<string, FieldNode[]>;

function directiveArg(d: DirectiveNode, ctx: ToIrContext): boolean | null {
  const arg = d.arguments?.find((a) => a.name.value === 'if');
  return arg === undefined ? null : booleanValue(astInput(arg.value), ctx);
}

/** Whether `@skip`/`@include` keep a selection. */
function isIncluded(directives: readonly DirectiveNode[] | undefined, ctx: ToIrContext): boolean {
  for (const d of directives ?? []) {
    if (d.name.value === 'skip' && directiveArg(d, ctx) === true) return false;
    if (d.name.value === 'include' && directiveArg(d, ctx) !== true) return false;
  }
  return true;
}

/** Collects the fields of `sets` (all selecting on `type`). */
export function collectFields(type: GraphQLObjectType, sets: readonly (SelectionSetNode | undefined)[], ctx: ToIrContext): CollectedFields {
  const out: CollectedFields = new Map();
  const visited = new Set<string>();
  // A fragment on an interface the type implements applies too (Relay's `... on Node`).
  const applies = (name: string): boolean => name === type.name || type.getInterfaces().some((i) => i.name === name);
  const walk = (set: SelectionSetNode): void => {
    for (const sel of set.selections) {
      if (!isIncluded(sel.directives, ctx)) continue;
      switch (sel.kind) {
        case Kind.FIELD: {
          const key = sel.alias?.value ?? sel.name.value;
          const list = out.get(key);
          if (list === undefined) out.set(key, [sel]);
          else list.push(sel);
          break;
        }
        case Kind.INLINE_FRAGMENT:
          if (sel.typeCondition === undefined || applies(sel.typeCondition.name.value)) walk(sel.selectionSet);
          break;
        case Kind.FRAGMENT_SPREAD: {
          const name = sel.name.value;
          if (visited.has(name)) break;
          visited.add(name);
          const frag = ctx.fragments.get(name);
          if (frag !== undefined && applies(frag.typeCondition.name.value)) walk(frag.selectionSet);
          break;
        }
      }
    }
  };
  for (const s of sets) if (s !== undefined) walk(s);
  return out;
}

/** The argument value node of the first field node, if given. */
export function argumentOf(nodes: readonly FieldNode[], name: string): ValueNode | undefined {
  return nodes[0]?.arguments?.find((a) => a.name.value === name)?.value;
}

/** One response key of a selection: the field's name, its definition (none for `__typename`), its merged nodes. */
export interface SelectedField {
  readonly alias: string;
  readonly name: string;
  readonly def: GraphQLField<unknown, unknown> | undefined;
  readonly nodes: FieldNode[];
}

/** The fields that `nodes` (fields of type `type`) select, in response order, with their definitions. */
export function selectedFields(type: GraphQLObjectType, nodes: readonly FieldNode[], ctx: ToIrContext): SelectedField[] {
  const defs = type.getFields();
  const out: SelectedField[] = [];
  for (const [alias, fieldNodes] of collectFields(
    type,
    nodes.map((n) => n.selectionSet),
    ctx,
  )) {
    const name = fieldNodes[0]?.name.value ?? alias;
    out.push({ alias, name, def: defs[name], nodes: fieldNodes });
  }
  return out;
}
