/**
 * A permission's boolean expression (row filter or check) as the builder
 * edits it: column conditions, `_and` / `_or` groups, `_not`, `_exists`
 * (a table of the source and its `_where`, itself such an expression) and
 * relationship conditions (a relationship of the table and an expression on
 * its target's rows), nested at will. Values stay as typed (Note [Typed text becomes a value once] in
 * ../../introspect.ts) and become values of their column's type when the
 * JSON is written.
 *
 * Note [The builder shows only what it writes back]
 * `readGroup` gives a tree only when writing that tree gives back the same
 * JSON (`sameJson`, key order aside): an expression the builder would write
 * differently (a relationship or column it does not know, an operator it has no control for,
 * `"5"` on an integer column, `{_and: [a], b: …}`) is edited as JSON, so that
 * loading a permission and saving it unchanged never rewrites its rule. Each
 * group remembers the form it came in (`{}` / one condition / `{_and: […]}` /
 * several keys of one object) for the same reason.
 */
import type { JsonValue, TableNameInput } from '../../../../model/document.ts';
import { parseValue, type DbColumn, type Parsed } from '../../introspect.ts';

export const OPS = ['_eq', '_neq', '_gt', '_gte', '_lt', '_lte', '_in', '_nin', '_like', '_ilike', '_is_null'] as const;

export interface ColumnCond {
  readonly kind: 'column';
  readonly column: string;
  readonly op: string;
  /** The value as typed. */
  readonly value: string;
  /** Whether the value's field was left since its last edit: only then is a problem shown beside it. */
  readonly left?: boolean;
}

/**
 * A list of expressions that all hold. `plain`: none is `{}`, one is itself, more are `{_and: […]}`;
 * `and`: always `{_and: […]}`; `keys`: one object with a key per condition (when the keys differ).
 */
export interface Group {
  readonly items: readonly BoolNode[];
  readonly form: 'plain' | 'and' | 'keys';
}

export type BoolNode =
  | ColumnCond
  | { readonly kind: 'all'; readonly items: readonly BoolNode[] }
  | { readonly kind: 'any'; readonly items: readonly BoolNode[] }
  | { readonly kind: 'not'; readonly body: Group }
  /** `table` as metadata writes it (kept as it came until another is picked); null until picked. */
  | { readonly kind: 'exists'; readonly table: TableNameInput | null; readonly body: Group }
  /** A relationship of the table (`''` until picked) and conditions on its target's rows. */
  | { readonly kind: 'rel'; readonly name: string; readonly body: Group };

/** What conditions at one level may name: the table's columns and relationships. */
export interface Scope {
  readonly columns: readonly DbColumn[];
  /** Each with its target's scope, asked for only when used (relationships may go round). */
  readonly relationships: ReadonlyArray<{ readonly name: string; readonly target: () => Scope | undefined }>;
}

/** The scope of a table named as metadata writes it, or undefined when the source has no such table. */
export type ScopeOf = (table: TableNameInput) => Scope | undefined;

export const NO_SCOPE: Scope = { columns: [], relationships: [] };

/** The scope of a relationship's target, as far as it is known. */
export function targetScope(scope: Scope, relationship: string): Scope | undefined {
  return scope.relationships.find((r) => r.name === relationship)?.target();
}

export const EMPTY_GROUP: Group = { items: [], form: 'plain' };

const isSessionVariable = (text: string) => /^x-engine-/i.test(text);

/** A condition's value as the builder writes it: session variables (`X-Engine-…`) stay strings. */
export function condValue(column: DbColumn | undefined, op: string, text: string): Parsed {
  if (op === '_is_null') {
    const t = text.trim();
    return t === 'true' || t === 'false' ? { ok: true, value: t === 'true' } : { ok: false, problem: `${JSON.stringify(text)} is not true or false` };
  }
  const one = (t: string): Parsed => (isSessionVariable(t) ? { ok: true, value: t } : parseValue(column, t));
  if (op === '_in' || op === '_nin') {
    if (text.trim() === '') return { ok: true, value: [] };
    const values: unknown[] = [];
    for (const t of text.split(',')) {
      const p = one(t.trim());
      if (!p.ok) return p;
      values.push(p.value);
    }
    return { ok: true, value: values };
  }
  return one(text);
}

/** How a stored value shows in a condition's field. */
function condText(value: unknown): string {
  if (Array.isArray(value)) return value.map(condText).join(',');
  if (typeof value === 'string') return value;
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function readNode(expr: unknown, scope: Scope, scopeOf: ScopeOf): BoolNode | null {
  if (!isObject(expr)) return null;
  const entries = Object.entries(expr);
  if (entries.length !== 1) return null;
  const [key, v] = entries[0]!;
  if (key === '_and' || key === '_or') {
    if (!Array.isArray(v)) return null;
    const items: BoolNode[] = [];
    for (const x of v) {
      const n = readNode(x, scope, scopeOf);
      if (n === null) return null;
      items.push(n);
    }
    return key === '_and' ? { kind: 'all', items } : { kind: 'any', items };
  }
  if (key === '_not') {
    const body = readGroupLoose(v, scope, scopeOf);
    return body === null ? null : { kind: 'not', body };
  }
  if (key === '_exists') {
    if (!isObject(v) || Object.keys(v).some((k) => k !== '_table' && k !== '_where') || v['_table'] === undefined) return null;
    const table = v['_table'] as TableNameInput;
    const target = scopeOf(table);
    if (target === undefined) return null;
    const body = readGroupLoose(v['_where'] ?? {}, target, scopeOf);
    return body === null ? null : { kind: 'exists', table, body };
  }
  const col = scope.columns.find((c) => c.name === key);
  if (col === undefined) {
    // Not a column: a relationship of the table, whose value is an expression on its target.
    const target = targetScope(scope, key);
    if (target === undefined) return null;
    const body = readGroupLoose(v, target, scopeOf);
    return body === null ? null : { kind: 'rel', name: key, body };
  }
  if (!isObject(v)) return null;
  const ops = Object.entries(v);
  if (ops.length !== 1 || !(OPS as readonly string[]).includes(ops[0]![0])) return null;
  const [op, value] = ops[0]!;
  return { kind: 'column', column: key, op, value: condText(value) };
}

/** A group as read, before the check that it writes back the same. */
function readGroupLoose(expr: unknown, scope: Scope, scopeOf: ScopeOf): Group | null {
  if (!isObject(expr)) return null;
  const entries = Object.entries(expr);
  if (entries.length === 1 && entries[0]![0] === '_and' && Array.isArray(entries[0]![1])) {
    const node = readNode(expr, scope, scopeOf);
    return node !== null && node.kind === 'all' ? { items: node.items, form: 'and' } : null;
  }
  const items: BoolNode[] = [];
  for (const [k, v] of entries) {
    const n = readNode({ [k]: v }, scope, scopeOf);
    if (n === null) return null;
    items.push(n);
  }
  return { items, form: entries.length > 1 ? 'keys' : 'plain' };
}

/** Deep equality of JSON values, key order aside. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && sameJson(a[k], b[k]));
  }
  return a === b;
}

/** The builder's tree for `expr`, or null when the builder cannot show it as it is (Note [The builder shows only what it writes back]). */
export function readGroup(expr: unknown, scope: Scope, scopeOf: ScopeOf): Group | null {
  const g = readGroupLoose(expr, scope, scopeOf);
  if (g === null) return null;
  const back = writeGroup(g, scope, scopeOf);
  return back.problem === null && sameJson(back.value, expr) ? g : null;
}

/** The JSON a tree says, and the first problem in it (a value not of its column's type, an `_exists` without a table). */
export interface Written {
  readonly value: JsonValue;
  readonly problem: string | null;
}

/** Each node's place for messages and labels: `1`, `2.1`, … */
export const placeOf = (prefix: string, i: number) => (prefix === '' ? String(i + 1) : `${prefix}.${i + 1}`);

function writeNode(n: BoolNode, place: string, scope: Scope, scopeOf: ScopeOf, problems: string[]): JsonValue {
  switch (n.kind) {
    case 'column': {
      const p = condValue(
        scope.columns.find((c) => c.name === n.column),
        n.op,
        n.value,
      );
      if (!p.ok) problems.push(`condition ${place}: ${p.problem}`);
      return { [n.column]: { [n.op]: (p.ok ? p.value : n.value) as JsonValue } };
    }
    case 'all':
    case 'any':
      return { [n.kind === 'all' ? '_and' : '_or']: n.items.map((x, i) => writeNode(x, placeOf(place, i), scope, scopeOf, problems)) };
    case 'not':
      return { _not: writeItems(n.body, place, scope, scopeOf, problems) };
    case 'exists': {
      if (n.table === null) {
        problems.push(`condition ${place}: pick the table of _exists`);
        return { _exists: { _table: null, _where: writeItems(n.body, place, NO_SCOPE, scopeOf, problems) } };
      }
      return { _exists: { _table: n.table as JsonValue, _where: writeItems(n.body, place, scopeOf(n.table) ?? NO_SCOPE, scopeOf, problems) } };
    }
    case 'rel': {
      if (n.name === '') {
        problems.push(`condition ${place}: pick the relationship`);
        return {};
      }
      return { [n.name]: writeItems(n.body, place, targetScope(scope, n.name) ?? NO_SCOPE, scopeOf, problems) };
    }
  }
}

function writeItems(g: Group, place: string, scope: Scope, scopeOf: ScopeOf, problems: string[]): JsonValue {
  const parts = g.items.map((x, i) => writeNode(x, placeOf(place, i), scope, scopeOf, problems));
  if (g.form === 'and') return { _and: parts };
  if (g.form === 'keys' && parts.length > 1) {
    const keys = parts.map((p) => Object.keys(p as object)[0]!);
    if (new Set(keys).size === keys.length && !keys.includes('_and')) return Object.assign({}, ...(parts as object[])) as JsonValue;
  }
  return parts.length === 0 ? {} : parts.length === 1 ? parts[0]! : { _and: parts };
}

/** The JSON of a whole expression (the root group of the permission's table). */
export function writeGroup(g: Group, scope: Scope, scopeOf: ScopeOf): Written {
  const problems: string[] = [];
  const value = writeItems(g, '', scope, scopeOf, problems);
  return { value, problem: problems[0] ?? null };
}
