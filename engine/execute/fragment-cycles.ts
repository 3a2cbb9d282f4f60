/**
 * Note [Fragment cycles]
 * v2 inlines the fragments of the operation it runs before validating it, and reports a spread
 * that reaches its own definition as `the fragment definition(s) "A" and "B" form a cycle`, at
 * the path the inlining walked (`$.selectionSet.A.selectionSet.B.selectionSet`: each field and
 * each spread adds `selectionSet`, each fragment entered its name). graphql-js's rule says
 * `Cannot spread fragment "A" within itself via "B".` at `$`, so this check runs first, on the
 * chosen operation only, as v2's inlining does. Unknown fragments are left to validation.
 */
import { getOperationAST, Kind, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';

/** v2's `englishList "and"` of quoted names: `"A"`, `"A" and "B"`, `"A", "B", and "C"`. */
function englishList(names: readonly string[]): string {
  const q = names.map((n) => `"${n}"`);
  if (q.length <= 2) return q.join(' and ');
  return `${q.slice(0, -1).join(', ')}, and ${q[q.length - 1]}`;
}

/** Refuses the operation `operationName` picks from `document` when its fragment spreads form a cycle. */
export function checkFragmentCycles(document: DocumentNode, operationName: string | null): void {
  const operation = getOperationAST(document, operationName);
  if (operation === null || operation === undefined) return;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION && !fragments.has(d.name.value)) fragments.set(d.name.value, d);
  const done = new Set<string>();
  const stack: string[] = [];
  // An explicit work list, depth first in document order: a deep document must not overflow the call stack.
  type Work =
    | { readonly kind: 'set'; readonly set: SelectionSetNode; readonly path: string }
    | { readonly kind: 'spread'; readonly name: string; readonly path: string }
    | { readonly kind: 'leave'; readonly name: string };
  const work: Work[] = [{ kind: 'set', set: operation.selectionSet, path: '$' }];
  for (let w = work.pop(); w !== undefined; w = work.pop()) {
    if (w.kind === 'leave') {
      stack.pop();
      done.add(w.name);
    } else if (w.kind === 'spread') {
      const at = stack.indexOf(w.name);
      if (at >= 0)
        throw new EngineError(ErrorCode.ValidationFailed, `the fragment definition(s) ${englishList(stack.slice(at))} form a cycle`, { path: w.path });
      const def = fragments.get(w.name);
      if (def === undefined || done.has(w.name)) continue;
      stack.push(w.name);
      work.push({ kind: 'leave', name: w.name }, { kind: 'set', set: def.selectionSet, path: `${w.path}.${w.name}` });
    } else {
      const items: Work[] = [];
      for (const sel of w.set.selections) {
        if (sel.kind === Kind.FIELD) {
          if (sel.selectionSet !== undefined) items.push({ kind: 'set', set: sel.selectionSet, path: `${w.path}.selectionSet.${sel.name.value}` });
        } else if (sel.kind === Kind.INLINE_FRAGMENT) {
          items.push({ kind: 'set', set: sel.selectionSet, path: w.path });
        } else {
          items.push({ kind: 'spread', name: sel.name.value, path: `${w.path}.selectionSet` });
        }
      }
      for (let i = items.length - 1; i >= 0; i--) work.push(items[i] as Work);
    }
  }
}
