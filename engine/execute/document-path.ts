/**
 * The v2 error path of an AST node: `$.selectionSet.albums.args.where.title`.
 * graphql-js reports validation errors with nodes, not paths, so the path is
 * found by walking the document to the node.
 */
import { Kind, type ASTNode, type DirectiveNode, type DocumentNode, type SelectionSetNode, type ValueNode } from 'graphql';

/** Whether `target` is one of `directives` or inside one's arguments. */
function inDirectives(directives: readonly DirectiveNode[] | undefined, target: ASTNode): boolean {
  for (const d of directives ?? []) {
    if (d === target || d.name === target) return true;
    for (const a of d.arguments ?? []) if (a === target || inValue(a.value, target, '') !== null) return true;
  }
  return false;
}

function inValue(v: ValueNode, target: ASTNode, path: string): string | null {
  if (v === target) return path;
  if (v.kind === Kind.OBJECT) {
    for (const f of v.fields) {
      const p = `${path}.${f.name.value}`;
      if (f === target) return p;
      const r = inValue(f.value, target, p);
      if (r !== null) return r;
    }
  } else if (v.kind === Kind.LIST) {
    for (const [i, x] of v.values.entries()) {
      const r = inValue(x, target, `${path}[${i}]`);
      if (r !== null) return r;
    }
  }
  return null;
}

function inSelectionSet(set: SelectionSetNode, target: ASTNode, path: string): string | null {
  for (const sel of set.selections) {
    // v2 compat: a directive's error is reported at the selection set holding it.
    if (inDirectives(sel.directives, target)) return `${path}.selectionSet`;
    if (sel.kind !== Kind.FIELD) {
      if (sel === target) return path;
      if (sel.kind === Kind.INLINE_FRAGMENT) {
        const r = inSelectionSet(sel.selectionSet, target, path);
        if (r !== null) return r;
      }
      continue;
    }
    const p = `${path}.selectionSet.${sel.alias?.value ?? sel.name.value}`;
    if (sel === target || sel.name === target || sel.alias === target) return p;
    for (const a of sel.arguments ?? []) {
      const ap = `${p}.args.${a.name.value}`;
      if (a === target) return ap;
      const r = inValue(a.value, target, ap);
      if (r !== null) return r;
    }
    if (sel.selectionSet !== undefined) {
      const r = inSelectionSet(sel.selectionSet, target, p);
      if (r !== null) return r;
    }
  }
  return null;
}

/** The path of `target` in `doc`, or `$` when it is not under a selection. */
export function documentPath(doc: DocumentNode, target: ASTNode | undefined): string {
  if (target === undefined) return '$';
  for (const d of doc.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION && d.kind !== Kind.FRAGMENT_DEFINITION) continue;
    const r = inSelectionSet(d.selectionSet, target, '$');
    if (r !== null) return r;
  }
  return '$';
}
