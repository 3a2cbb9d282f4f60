/**
 * Note [Operation cost]
 * What an operation may cost is bounded before anything is validated or
 * planned, on the parsed document: its depth and node count (v2's API limits,
 * `depth_limit` and `node_limit`) and its number of fields (a bound of this
 * engine that applies to every role, `--query-field-limit`: 10,000 root
 * aliases used to fail only in PostgreSQL, after seconds of planning). As in
 * v2, a node is a field with a selection set, and the depth of `{ a { b } }`
 * is 1 (`a` is a node holding only leaves). Fragments count where they are
 * spread; each fragment is measured once (memoized) and a spread of a fragment
 * already being measured counts nothing, so a fragment cycle (a validation
 * error found later) cannot loop. Counts are computed once, on a plan-cache
 * miss, and kept with the cached operation; a hit rechecks nothing because a
 * change of limits is a metadata change, which empties the cache.
 */
import { Kind, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';

/** The size of an operation. */
export interface OperationCost {
  /** Longest chain of nested nodes (fields with a selection set). */
  readonly depth: number;
  /** Fields with a selection set, fragments expanded. */
  readonly nodes: number;
  /** Every field selected, fragments expanded. */
  readonly fields: number;
  /** True when every root field is `__schema`, `__type` or `__typename` (v2: depth limits skip these). */
  readonly introspection: boolean;
}

interface Measure {
  depth: number;
  nodes: number;
  fields: number;
}

const INTROSPECTION_ROOTS = new Set(['__schema', '__type', '__typename']);

/** Measures `operation` of `document` (see Note [Operation cost]). */
export function measureOperation(document: DocumentNode, operation: OperationDefinitionNode): OperationCost {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const memo = new Map<string, Measure>();
  const visiting = new Set<string>();

  function measureSet(set: SelectionSetNode): Measure {
    const m: Measure = { depth: 0, nodes: 0, fields: 0 };
    for (const sel of set.selections) {
      let part: Measure;
      if (sel.kind === Kind.FIELD) {
        if (sel.selectionSet === undefined) {
          m.fields += 1;
          continue;
        }
        const inner = measureSet(sel.selectionSet);
        part = { depth: inner.depth + 1, nodes: inner.nodes + 1, fields: inner.fields + 1 };
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        part = measureSet(sel.selectionSet);
      } else {
        const name = sel.name.value;
        const known = memo.get(name);
        const def = fragments.get(name);
        if (known !== undefined) part = known;
        else if (def === undefined || visiting.has(name)) continue;
        else {
          visiting.add(name);
          part = measureSet(def.selectionSet);
          visiting.delete(name);
          memo.set(name, part);
        }
      }
      if (part.depth > m.depth) m.depth = part.depth;
      m.nodes += part.nodes;
      m.fields += part.fields;
    }
    return m;
  }

  function rootsAreIntrospection(set: SelectionSetNode, seen: Set<string>): boolean {
    return set.selections.every((sel) => {
      if (sel.kind === Kind.FIELD) return INTROSPECTION_ROOTS.has(sel.name.value);
      if (sel.kind === Kind.INLINE_FRAGMENT) return rootsAreIntrospection(sel.selectionSet, seen);
      const def = fragments.get(sel.name.value);
      if (def === undefined || seen.has(def.name.value)) return true;
      seen.add(def.name.value);
      return rootsAreIntrospection(def.selectionSet, seen);
    });
  }

  const m = measureSet(operation.selectionSet);
  return { depth: m.depth, nodes: m.nodes, fields: m.fields, introspection: rootsAreIntrospection(operation.selectionSet, new Set()) };
}
