/**
 * Stage "roles": inherited roles get their permissions from their `role_set`,
 * and equal permissions of a table are interned so roles share one object
 * (and, downstream, the IR and schema parts built from it).
 *
 * Note [Inherited select permissions]
 * v2 compat: an inherited role reads the union of its parents' rows (filter
 * `_or` of theirs), the union of their columns, the largest limit (none if a
 * parent has none), and aggregates if any parent allows them. A cell is only
 * visible when some parent that grants its column admits the row, so each
 * column not granted by every parent carries a visibility condition in
 * `columnFilters`: the `_or` of the filters of the parents granting it (for a
 * parent that is itself inherited, its own condition for that column). The
 * GraphQL side reads such a cell as NULL where the condition fails. A
 * permission defined on the inherited role itself wins over the derived one.
 * Insert, update and delete are inherited only when every parent that has
 * one has the same one; otherwise the inherited role has none of that kind.
 *
 * Note [Inherited computed fields]
 * v2 compat: an inherited role has every computed field some parent grants.
 * A scalar one not granted by every parent reads as NULL where no parent
 * granting it admits the row, exactly as a column: its condition sits in
 * `columnFilters` under the computed field's name (a table never has a
 * column and a computed field of one name), and to-ir carries it to the
 * select, filter and sort key that read it (`visible` in the IR). A
 * table-returning one is not redacted: its rows are filtered by the role's
 * permission on the returned table, as v2 does.
 */
import type { InheritedRole, MetadataDocument } from '../../model/document.ts';
import { inconsistency } from '../inconsistency.ts';
import { sameData } from '../intern.ts';
import type { InconsistentObject, PermissionBoolExp, SelectPermissionInfo, TablePermissions } from '../types.ts';
import type { StageResult } from './stage.ts';

/** The permissions of one role on one table while the catalog is being built. */
export type MutableTablePermissions = { -readonly [K in keyof TablePermissions]: TablePermissions[K] };

/** Inherited roles in an order where every parent comes before its children. */
export interface InheritedRolePlan {
  readonly order: ReadonlyArray<{ readonly role: string; readonly parents: readonly string[] }>;
  /** Inherited roles left out (a cycle, or naming admin). */
  readonly bad: readonly InconsistentObject[];
}

/** Orders the inherited roles parents-first; roles in a cycle are inconsistent. */
export function planInheritedRoles(roles: readonly InheritedRole[]): InheritedRolePlan {
  const sets = new Map(roles.map((r) => [r.role_name, r.role_set] as const));
  const order: Array<{ role: string; parents: readonly string[] }> = [];
  const bad: InconsistentObject[] = [];
  const state = new Map<string, 'visiting' | 'done' | 'bad'>();
  const visit = (role: string): boolean => {
    const s = state.get(role);
    if (s === 'done') return true;
    if (s === 'visiting' || s === 'bad') return false;
    const parents = sets.get(role);
    if (parents === undefined) return true;
    state.set(role, 'visiting');
    const ok = role !== 'admin' && !parents.includes('admin') && parents.every((p) => visit(p));
    state.set(role, ok ? 'done' : 'bad');
    if (ok) order.push({ role, parents });
    else {
      const why = role === 'admin' || parents.includes('admin') ? 'the admin role cannot be inherited' : 'found a cycle in inherited roles';
      bad.push(inconsistency({ kind: 'inherited_role', role }, { role_name: role, role_set: parents }, `inherited role "${role}": ${why}`));
    }
    return ok;
  };
  for (const r of roles) visit(r.role_name);
  return { order, bad };
}

/** Stage "inherited roles": their order, parents first; roles in a cycle or naming admin left out. */
export function resolveInheritedRoles(roles: readonly InheritedRole[]): StageResult<InheritedRolePlan> {
  const plan = planInheritedRoles(roles);
  return { output: plan, inconsistencies: plan.bad };
}

/** Every role named in metadata (permissions, inherited roles), `admin` excluded, sorted. */
export function rolesOf(doc: MetadataDocument): string[] {
  const roles = new Set<string>();
  for (const s of doc.sources) {
    for (const t of s.tables) {
      for (const list of [t.select_permissions, t.insert_permissions, t.update_permissions, t.delete_permissions]) {
        for (const p of list) roles.add(p.role);
      }
    }
  }
  for (const r of doc.inherited_roles) {
    roles.add(r.role_name);
    for (const m of r.role_set) roles.add(m);
  }
  roles.delete('admin');
  return [...roles].sort();
}

const TRUE_KEY = '{}';

function orOf(exps: readonly PermissionBoolExp[]): PermissionBoolExp {
  if (exps.some((e) => JSON.stringify(e) === TRUE_KEY)) return {};
  if (exps.length === 1 && exps[0] !== undefined) return exps[0];
  return { _or: [...exps] };
}

function deriveSelect(parents: readonly SelectPermissionInfo[]): SelectPermissionInfo | null {
  if (parents.length === 0) return null;
  if (parents.length === 1 && parents[0] !== undefined) return parents[0];
  const columns: string[] = [];
  for (const p of parents) for (const c of p.columns) if (!columns.includes(c)) columns.push(c);
  const columnFilters = new Map<string, PermissionBoolExp>();
  for (const c of columns) {
    const grantors = parents.filter((p) => p.columns.includes(c));
    const unconditional = grantors.length === parents.length && grantors.every((p) => p.columnFilters?.get(c) === undefined);
    if (unconditional) continue;
    const cond = orOf(grantors.map((p) => p.columnFilters?.get(c) ?? p.filter));
    // A grantor admitting every row makes the cell visible wherever the row is.
    if (JSON.stringify(cond) !== TRUE_KEY) columnFilters.set(c, cond);
  }
  const limits = parents.map((p) => p.limit);
  // v2 compat: the computed fields any parent grants, each visible where a parent granting it admits
  // the row (as a column; keyed by its name, which no column has: Note [Inherited computed fields]).
  const computedFields: string[] = [];
  for (const p of parents) for (const n of p.computedFields ?? []) if (!computedFields.includes(n)) computedFields.push(n);
  for (const n of computedFields) {
    const grantors = parents.filter((p) => p.computedFields?.includes(n) === true);
    if (grantors.length === parents.length && grantors.every((p) => p.columnFilters?.get(n) === undefined)) continue;
    const cond = orOf(grantors.map((p) => p.columnFilters?.get(n) ?? p.filter));
    if (JSON.stringify(cond) !== TRUE_KEY) columnFilters.set(n, cond);
  }
  return {
    columns,
    filter: orOf(parents.map((p) => p.filter)),
    limit: limits.some((l) => l === null) ? null : Math.max(...(limits as number[])),
    allowAggregations: parents.some((p) => p.allowAggregations),
    ...(columnFilters.size === 0 ? {} : { columnFilters }),
    ...(computedFields.length === 0 ? {} : { computedFields }),
  };
}

function sameOrNull<T>(infos: readonly T[]): T | null {
  const first = infos[0];
  if (first === undefined) return null;
  const key = JSON.stringify(first);
  return infos.every((i) => JSON.stringify(i) === key) ? first : null;
}

/** Adds the derived permissions of every inherited role to one table's `perms`. */
export function applyInheritedRoles(plan: InheritedRolePlan, perms: Map<string, MutableTablePermissions>): void {
  for (const { role, parents } of plan.order) {
    const own = perms.get(role);
    const from = parents.map((p) => perms.get(p)).filter((p): p is MutableTablePermissions => p !== undefined);
    const pick = <K extends keyof TablePermissions>(k: K): Array<NonNullable<TablePermissions[K]>> =>
      from.map((p) => p[k]).filter((x): x is NonNullable<TablePermissions[K]> => x !== null);
    const derived: MutableTablePermissions = {
      select: own?.select ?? deriveSelect(pick('select')),
      insert: own?.insert ?? sameOrNull(pick('insert')),
      update: own?.update ?? sameOrNull(pick('update')),
      delete: own?.delete ?? sameOrNull(pick('delete')),
    };
    if (derived.select !== null || derived.insert !== null || derived.update !== null || derived.delete !== null) perms.set(role, derived);
  }
}

/**
 * The roles that may call a function: its own list plus every inherited role
 * with a parent in it (that parent's select on the return table was checked,
 * and the inherited role's derived select includes it).
 */
export function inheritFunctionPermissions(plan: InheritedRolePlan, roles: readonly string[]): readonly string[] {
  const out = [...roles];
  for (const { role, parents } of plan.order) {
    if (!out.includes(role) && parents.some((p) => out.includes(p))) out.push(role);
  }
  return out.length === roles.length ? roles : out;
}

/**
 * Makes equal permissions of one table the same objects, so roles with equal
 * rules share them (and whatever is memoized per permission object).
 *
 * Note [Interning by comparison]
 * Equal permissions were found by a JSON key per permission: at 2,000 tables
 * × 10 roles that was 20,000 `JSON.stringify`s of whole select permissions
 * (columns, filter), ~10% of a `replace_metadata` call's CPU (`node
 * test/bench/replace-profile.ts 2000 10 1`, selectKey). A table has a handful
 * of roles, so each permission is now compared (`sameData`, which stops at
 * the first difference and sees the `columnFilters` Map) with the few kept
 * before it. Only equal data is shared, as before (sameData ignores key
 * order, which the JSON keys did not; permissions hold JSON values only).
 */
export function internPermissions(perms: Map<string, MutableTablePermissions>): void {
  const kept = { select: [] as unknown[], insert: [] as unknown[], update: [] as unknown[], delete: [] as unknown[] };
  const intern = <T>(list: unknown[], v: T | null): T | null => {
    if (v === null) return null;
    for (const k of list) if (k === v || sameData(k, v)) return k as T;
    list.push(v);
    return v;
  };
  for (const slot of perms.values()) {
    slot.select = intern(kept.select, slot.select);
    slot.insert = intern(kept.insert, slot.insert);
    slot.update = intern(kept.update, slot.update);
    slot.delete = intern(kept.delete, slot.delete);
  }
}
