/**
 * What a role's schema depends on, as a string: two roles with the same
 * fingerprint in one catalog get the same GraphQLSchema (schema-cache.ts), so
 * 20 roles with equal rules cost one schema, not 20.
 *
 * Note [Role fingerprint]
 * The catalog interns equal permissions of a table into one object
 * (catalog/stages/inherited-roles.ts), so a role is described by which
 * permission objects it has on which tables plus the functions it may call.
 * Object identities are numbered in a WeakMap, keeping the fingerprint short
 * and its computation linear in the tables. Anything else that makes a schema
 * depend on the role name must be added here, or roles would wrongly share.
 */
import type { Catalog, TablePermissions } from '../../catalog/types.ts';

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

/** The fingerprint of `role`'s schema in `catalog` (non-admin roles). */
export function roleFingerprint(catalog: Catalog, role: string): string {
  const parts: string[] = [];
  for (const source of catalog.sources.values()) {
    let i = 0;
    for (const table of source.tables.values()) {
      const p = table.permissions.get(role);
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
