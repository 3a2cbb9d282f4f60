/**
 * Stage "permissions" over every table: its select/insert/update/delete
 * permissions checked (permissions.ts) into per-role TablePermissions, then
 * stage "roles": inherited roles derived per table and equal permissions
 * interned (inherited-roles.ts). Backend-only insert/update/delete are kept
 * apart, merged over the role's other permissions for backend requests only.
 */
import { sourceInconsistency } from '../inconsistency.ts';
import { tableKey, type InconsistentObject } from '../types.ts';
import type { ComputedFieldsBySource } from './computed-fields.ts';
import { permittedComputedFields } from './computed-fields.ts';
import { applyInheritedRoles, internPermissions, type InheritedRolePlan, type MutableTablePermissions } from './inherited-roles.ts';
import { isBackendOnly, permissionItems, resolvePermission, type PermissionLookup, type PermissionTable } from './permissions.ts';
import type { RelationshipsBySource } from './relationships.ts';
import type { ResolvedSource } from './sources.ts';
import type { StageResult } from './stage.ts';
import type { TablesBySource } from './tracked-tables.ts';

/** A consistent table's permissions by role. */
export interface TablePermissionSet {
  readonly permissions: ReadonlyMap<string, MutableTablePermissions>;
  /** What backend requests get (null when no role has a backend-only permission). */
  readonly backendOnly: ReadonlyMap<string, MutableTablePermissions> | null;
}

/** Per source, the permissions of each consistent table by `schema.name`. */
export type PermissionsBySource = ReadonlyMap<ResolvedSource, ReadonlyMap<string, TablePermissionSet>>;

/** What the permissions stage reads of the earlier stages. */
export interface PermissionsStageInput {
  readonly tables: TablesBySource;
  readonly relationships: RelationshipsBySource;
  readonly computedFields: ComputedFieldsBySource;
  readonly roles: InheritedRolePlan;
}

/** Resolves the permissions of every tracked table. */
export function resolveTablePermissions(input: PermissionsStageInput): StageResult<PermissionsBySource> {
  const bad: InconsistentObject[] = [];
  const out = new Map<ResolvedSource, Map<string, TablePermissionSet>>();
  for (const [s, { tables }] of input.tables) {
    const relationships = input.relationships.get(s);
    const computedFields = input.computedFields.get(s);
    const permTable = (key: string): PermissionTable | undefined => {
      const draft = tables.get(key);
      if (draft === undefined) return undefined;
      return { draft, relationships: relationships?.get(key) ?? new Map(), computedFields: computedFields?.get(key) ?? [] };
    };
    const lookup: PermissionLookup = (n) => permTable(tableKey(n));
    const bySource = new Map<string, TablePermissionSet>();
    for (const entry of s.meta.tables) {
      const key = tableKey(entry.table);
      const pt = permTable(key);
      const perms = new Map<string, MutableTablePermissions>();
      /** Backend-only insert/update/delete permissions by role (select never is). */
      const backendPerms = new Map<string, MutableTablePermissions>();
      for (const item of permissionItems(s.meta.name, entry)) {
        const ref = { kind: 'permission', source: s.meta.name, table: entry.table, role: item.role, permission: item.kind } as const;
        if (pt === undefined) {
          bad.push(sourceInconsistency(s.backend.naming, ref, item.definition, `table "${s.backend.naming.format(entry.table)}" is inconsistent`));
          continue;
        }
        const cfs = computedFields?.get(key) ?? [];
        const permitted = item.kind === 'select' ? permittedComputedFields(item.permission, cfs) : { names: [] };
        if ('reason' in permitted) {
          bad.push(sourceInconsistency(s.backend.naming, ref, item.definition, permitted.reason));
          continue;
        }
        const r = resolvePermission(item, pt, lookup);
        if ('reason' in r) {
          bad.push(sourceInconsistency(s.backend.naming, ref, item.definition, r.reason));
          continue;
        }
        // backend_only mutations are for trusted backends (v2: admin secret plus a header): kept apart and
        // merged over the role's other permissions below, for backend requests only.
        const into = isBackendOnly(item) ? backendPerms : perms;
        const slot = into.get(item.role) ?? { select: null, insert: null, update: null, delete: null };
        switch (r.kind) {
          case 'select':
            slot.select = permitted.names.length === 0 ? r.info : { ...r.info, computedFields: permitted.names };
            break;
          case 'insert':
            slot.insert = r.info;
            break;
          case 'update':
            slot.update = r.info;
            break;
          case 'delete':
            slot.delete = r.info;
            break;
        }
        into.set(item.role, slot);
      }
      if (pt === undefined) continue;
      applyInheritedRoles(input.roles, perms);
      internPermissions(perms);
      bySource.set(key, { permissions: perms, backendOnly: withBackendOnly(perms, backendPerms) });
    }
    out.set(s, bySource);
  }
  return { output: out, inconsistencies: bad };
}

/**
 * The permissions backend requests get for the roles in `backendPerms`:
 * their `perms` with the backend-only insert/update/delete added (v2 lets a
 * role have one permission of each kind, so nothing is overridden in valid
 * metadata), interned like `perms`; null when no role has any. Inherited
 * roles do not derive backend-only permissions from their parents.
 */
function withBackendOnly(
  perms: ReadonlyMap<string, MutableTablePermissions>,
  backendPerms: ReadonlyMap<string, MutableTablePermissions>,
): Map<string, MutableTablePermissions> | null {
  if (backendPerms.size === 0) return null;
  const merged = new Map<string, MutableTablePermissions>();
  for (const [role, b] of backendPerms) {
    const own = perms.get(role);
    merged.set(role, {
      select: own?.select ?? null,
      insert: b.insert ?? own?.insert ?? null,
      update: b.update ?? own?.update ?? null,
      delete: b.delete ?? own?.delete ?? null,
    });
  }
  internPermissions(merged);
  return merged;
}
