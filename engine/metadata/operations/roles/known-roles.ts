/**
 * Which roles a metadata document knows: every role with a permission on a
 * table, function, action or remote schema, and every inherited role.
 */
import type { MetadataDocument } from '../../../model/document.ts';

/** Every role named by a permission or an inherited role of `doc`. */
export function knownRoles(doc: MetadataDocument): Set<string> {
  const roles = new Set<string>();
  for (const s of doc.sources) {
    for (const t of s.tables) {
      for (const list of [t.select_permissions, t.insert_permissions, t.update_permissions, t.delete_permissions]) {
        for (const p of list) roles.add(p.role);
      }
    }
    for (const f of s.functions) {
      for (const p of f.permissions ?? []) if (typeof p['role'] === 'string') roles.add(p['role']);
    }
  }
  for (const r of doc.inherited_roles) roles.add(r.role_name);
  // Roles of remote schema permissions (issue 16).
  for (const r of doc.remote_schemas) {
    const perms = r['permissions'];
    if (Array.isArray(perms))
      for (const p of perms) if (p !== null && typeof p === 'object' && !Array.isArray(p) && typeof p['role'] === 'string') roles.add(p['role']);
  }
  // Action permissions name roles too (v2 compat).
  for (const a of doc.actions) {
    const perms = a['permissions'];
    if (Array.isArray(perms))
      for (const p of perms)
        if (typeof p === 'object' && p !== null && typeof (p as Record<string, unknown>)['role'] === 'string')
          roles.add((p as Record<string, string>)['role'] as string);
  }
  return roles;
}

/**
 * The first inherited role reached twice while expanding `start` through
 * `role_set`s (a cycle), or null. `sets` maps inherited role → its role set.
 */
export function findCycle(start: string, sets: ReadonlyMap<string, readonly string[]>): string[] | null {
  const walk = (role: string, trail: readonly string[]): string[] | null => {
    if (trail.includes(role)) return [...trail, role];
    const set = sets.get(role);
    if (set === undefined) return null;
    for (const parent of set) {
      const c = walk(parent, [...trail, role]);
      if (c !== null) return c;
    }
    return null;
  };
  return walk(start, []);
}
