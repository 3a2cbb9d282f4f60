/**
 * Two fingerprints of a role, as strings (schema-cache.ts):
 * - {@link roleFingerprint}, what its schema depends on: roles with equal
 *   ones get the same GraphQLSchema. It describes the *shape* of the role's
 *   permissions, never filters, limits, checks or preset values: see Note
 *   [Shared role types] in role-access.ts. It is made of the parts of the
 *   root-field contributors (root-fields.ts): anything else a contributor
 *   reads from a role's views, or from the role name, must be added to its
 *   part, or roles would wrongly share.
 * - {@link readFingerprint}, the part of it the table types depend on:
 *   roles with equal ones share those types even when their mutations differ;
 * - {@link rulesFingerprint}, its rules: roles with equal ones get the same
 *   compiled permissions (RoleAccess).
 *
 * Note [Role fingerprint]
 * The catalog interns equal permissions of a table into one object
 * (catalog/stages/inherited-roles.ts), so a role's rules are described by
 * which permission objects it has on which tables plus the functions it may
 * call. Object identities are numbered in a WeakMap, keeping the fingerprint
 * short and its computation linear in the tables.
 */
import { tableKey, type Catalog, type ColumnInfo, type TableInfo, type TablePermissions } from '../../catalog/types.ts';
import { rolePermissions, type MutationView } from './mutation-view.ts';
import type { RoleAccess } from './role-access.ts';
import type { RootFieldContributor } from './root-field-contributor.ts';
import { isAlwaysPresent, type TableView } from './table-view.ts';

function columnsShape(columns: readonly ColumnInfo[]): string {
  // Nullability is part of the shape: inherited roles make redacted columns nullable.
  return columns.map((c) => `${c.name}${c.nullable ? '?' : '!'}`).join(',');
}

function readShape(v: TableView): string {
  const cfs = (v.computedFields ?? []).map((c) => c.name).join(',');
  // Relationships and table-returning computed fields follow from which tables are visible (the keys listed);
  // a target's filter shows only in whether an object relationship to it is non-null.
  const present = v.relationships
    .filter((r) => isAlwaysPresent(v, r))
    .map((r) => r.info.name)
    .join(',');
  return `${columnsShape(v.columns)}|${cfs}|${v.allowAggregations ? 'a' : ''}|${present}`;
}

function writeShape(m: MutationView): string {
  const ins = m.insert === null ? '-' : columnsShape(m.insert.columns);
  const upd = m.update === null ? '-' : columnsShape(m.update.columns);
  return `i:${ins}|u:${upd}|d:${m.delete === null ? '-' : '+'}`;
}

/**
 * The fingerprint of the table types (`<t>`, `<t>_bool_exp`, aggregates...)
 * of the role whose compiled permissions are `access`: roles with equal ones
 * share one SchemaTypes even when they write differently.
 */
export function readFingerprint(access: RoleAccess): string {
  let known = readFingerprints.get(access);
  if (known === undefined) {
    const parts: string[] = [];
    for (const [key, v] of access.tables) parts.push(`r ${key}\n${readShape(v)}`);
    known = parts.join('\n');
    readFingerprints.set(access, known);
  }
  return known;
}

/**
 * Each RoleAccess's read fingerprint: asked for twice per role (its schema's
 * fingerprint, its table types), and roles with equal rules share a
 * RoleAccess; a tenth of a role's first build at 2,000 tables.
 */
const readFingerprints = new WeakMap<RoleAccess, string>();

/**
 * Per table the role reads, what its types (`<t>`, `<t>_bool_exp`...)
 * depend on besides the types of the tables they refer to: its read shape
 * and where its relationships and table-returning computed fields lead.
 * See Note [Shared table types] in schema-cache.ts.
 */
export function tableLabels(access: RoleAccess): Map<TableInfo, string> {
  const out = new Map<TableInfo, string>();
  for (const v of access.tables.values()) {
    const rels = v.relationships.map((r) => `${r.info.name}>${tableKey(r.target.info.name)}`).join(',');
    const cts = [...(v.computedTargets ?? [])].map(([name, t]) => `${name}>${tableKey(t.info.name)}`).join(',');
    const srs = (v.sourceRelationships ?? []).map((r) => `${r.info.name}>${r.target.source.name}\0${tableKey(r.target.info.name)}`).join(',');
    out.set(v.info, `${readShape(v)}|${rels}|${cts}|${srs}`);
  }
  return out;
}

/** The tables the types of `view` refer to. */
function targets(view: TableView): TableInfo[] {
  return [
    ...view.relationships.map((r) => r.target.info),
    ...[...(view.computedTargets?.values() ?? [])].map((t) => t.info),
    ...(view.sourceRelationships ?? []).map((r) => r.target.info),
  ];
}

/**
 * The tables whose types are the same for the role reading `views` (with
 * labels `mine`) and another role (labels `theirs`): equal labels, and
 * every table they refer to in the set too. The greatest such set: start
 * from the equal labels, drop a table whenever a table it refers to is out.
 */
export function sameTypeTables(
  views: ReadonlyMap<TableInfo, TableView>,
  mine: ReadonlyMap<TableInfo, string>,
  theirs: ReadonlyMap<TableInfo, string>,
): Set<TableInfo> {
  const same = new Set<TableInfo>();
  for (const [info, label] of mine) if (theirs.get(info) === label) same.add(info);
  const referrers = new Map<TableInfo, TableInfo[]>();
  const out: TableInfo[] = [];
  for (const info of same) {
    const view = views.get(info);
    for (const target of view === undefined ? [] : targets(view)) {
      if (!same.has(target)) out.push(info);
      let r = referrers.get(target);
      if (r === undefined) {
        r = [];
        referrers.set(target, r);
      }
      r.push(info);
    }
  }
  for (let info = out.pop(); info !== undefined; info = out.pop()) {
    if (!same.delete(info)) continue;
    for (const r of referrers.get(info) ?? []) if (same.has(r)) out.push(r);
  }
  return same;
}

/** The tables' part of a role fingerprint: how the role reads and writes each table. */
export function tableFingerprint(access: RoleAccess): string[] {
  const parts: string[] = [readFingerprint(access)];
  for (const [key, m] of access.mutations) parts.push(`w ${key}\n${writeShape(m)}`);
  return parts;
}

/** The functions' part of a role fingerprint: which functions the role may call (what their fields read is in the tables' part). */
export function functionFingerprint(catalog: Catalog, role: string): string[] {
  const parts: string[] = [];
  for (const source of catalog.sources.values()) {
    for (const fn of source.functions?.values() ?? []) {
      if (fn.permissions.includes(role)) parts.push(`f ${source.name}\0${fn.name.schema}.${fn.name.name}`);
    }
  }
  return parts;
}

/**
 * The fingerprint of the schema of (non-admin) `role` in `catalog`, whose
 * compiled permissions are `access`: the parts of every contributor of its
 * root fields (Note [Root-field contributors] in root-fields.ts).
 */
export function roleFingerprint(catalog: Catalog, role: string, access: RoleAccess, contributors: readonly RootFieldContributor[]): string {
  const parts: string[] = [];
  for (const c of contributors) for (const p of c.fingerprint(catalog, role, access)) parts.push(p);
  return parts.join('\n');
}

const ids = new WeakMap<object, number>();
let nextId = 0;

function idOf(o: object | null): number {
  if (o === null) return 0;
  let id = ids.get(o);
  if (id === undefined) {
    nextId += 1;
    id = nextId;
    ids.set(o, id);
  }
  return id;
}

function permsId(p: TablePermissions): string {
  return `${idOf(p.select)}.${idOf(p.insert)}.${idOf(p.update)}.${idOf(p.delete)}`;
}

/**
 * The fingerprint of the rules of (non-admin) `role` in `catalog`, with its
 * backend-only permissions when `backendOnly`.
 */
export function rulesFingerprint(catalog: Catalog, role: string, backendOnly = false): string {
  const parts: string[] = [];
  for (const source of catalog.sources.values()) {
    let i = 0;
    for (const table of source.tables.values()) {
      const p = rolePermissions(table, role, backendOnly);
      if (p !== undefined) parts.push(`${i}:${permsId(p)}`);
      i += 1;
    }
    parts.push('|');
    i = 0;
    for (const fn of source.functions?.values() ?? []) {
      if (fn.permissions.includes(role)) parts.push(`f${i}`);
      i += 1;
    }
    parts.push('|');
  }
  return parts.join(',');
}
