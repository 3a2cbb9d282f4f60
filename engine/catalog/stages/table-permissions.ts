/**
 * Stage "permissions" over every table: its select/insert/update/delete
 * permissions checked (permissions.ts) into per-role TablePermissions, then
 * stage "roles": inherited roles derived per table and equal permissions
 * interned (inherited-roles.ts). Backend-only insert/update/delete are kept
 * apart, merged over the role's other permissions for backend requests only.
 */
import type { TableMetadata } from '../../model/document.ts';
import { sourceInconsistency } from '../inconsistency.ts';
import { CatalogMemo, recording, type Read } from '../memo.ts';
import { tableKey, type ComputedFieldInfo, type InconsistentObject, type RelationshipInfo } from '../types.ts';
import type { ComputedFieldsBySource } from './computed-fields.ts';
import { permittedComputedFields } from './computed-fields.ts';
import { applyInheritedRoles, internPermissions, type InheritedRolePlan, type MutableTablePermissions } from './inherited-roles.ts';
import { isBackendOnly, permissionItems, resolvePermission, type PermissionLookup, type PermissionTable } from './permissions.ts';
import type { RelationshipsBySource } from './relationships.ts';
import type { TableDraft } from './tables.ts';
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

/** A table's permission set and the inconsistent permissions, as the memo keeps them (Note [Catalog memo]). */
interface TablePermissionsResult {
  readonly set: TablePermissionSet | null;
  readonly bad: readonly InconsistentObject[];
}

const NO_RELATIONSHIPS: ReadonlyMap<string, RelationshipInfo> = new Map();
const NO_COMPUTED_FIELDS: readonly never[] = [];

/** Resolves the permissions of every tracked table; `memo`: Note [Catalog memo]. */
export function resolveTablePermissions(input: PermissionsStageInput, memo = new CatalogMemo()): StageResult<PermissionsBySource> {
  const bad: InconsistentObject[] = [];
  const out = new Map<ResolvedSource, Map<string, TablePermissionSet>>();
  const results = memo.stage<TableMetadata, TablePermissionsResult>('permissions');
  for (const [s, { tables }] of input.tables) {
    const relationships = input.relationships.get(s);
    const computedFields = input.computedFields.get(s);
    // What a permission reads of a table (its own or one its rules reach through relationships), compared part by part on reuse.
    const parts = (key: string): readonly [TableDraft, ReadonlyMap<string, RelationshipInfo>, readonly ComputedFieldInfo[]] | undefined => {
      const draft = tables.get(key);
      if (draft === undefined) return undefined;
      return [draft, relationships?.get(key) ?? NO_RELATIONSHIPS, computedFields?.get(key) ?? NO_COMPUTED_FIELDS];
    };
    const permTable = (key: string): PermissionTable | undefined => {
      const p = parts(key);
      return p === undefined ? undefined : { draft: p[0], relationships: p[1], computedFields: p[2] };
    };
    const bySource = new Map<string, TablePermissionSet>();
    for (const entry of s.meta.tables) {
      const key = tableKey(entry.table);
      const own = parts(key);
      const deps = [own?.[0], own?.[1], own?.[2], input.roles, s.meta.name, s.backend];
      let r = results.reuse(entry, deps, parts);
      if (r === undefined) {
        const reads: Read[] = [];
        const read = recording(reads, tableKey, parts);
        const lookup: PermissionLookup = (n) => {
          const p = read(n);
          return p === undefined ? undefined : { draft: p[0], relationships: p[1], computedFields: p[2] };
        };
        r = results.keep(entry, deps, tablePermissions(s, entry, permTable(key), lookup, input.roles), reads);
      }
      bad.push(...r.bad);
      if (r.set !== null) bySource.set(key, r.set);
    }
    out.set(s, bySource);
  }
  return { output: out, inconsistencies: bad };
}

/** The permissions of one tracked table (`pt` undefined: the table is inconsistent). */
function tablePermissions(
  s: ResolvedSource,
  entry: TableMetadata,
  pt: PermissionTable | undefined,
  lookup: PermissionLookup,
  roles: InheritedRolePlan,
): TablePermissionsResult {
  const bad: InconsistentObject[] = [];
  const perms = new Map<string, MutableTablePermissions>();
  /** Backend-only insert/update/delete permissions by role (select never is). */
  const backendPerms = new Map<string, MutableTablePermissions>();
  for (const item of permissionItems(s.meta.name, entry)) {
    const ref = { kind: 'permission', source: s.meta.name, table: entry.table, role: item.role, permission: item.kind } as const;
    if (pt === undefined) {
      bad.push(sourceInconsistency(s.backend.naming, ref, item.definition, `table "${s.backend.naming.format(entry.table)}" is inconsistent`));
      continue;
    }
    const cfs = pt.computedFields ?? NO_COMPUTED_FIELDS;
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
  if (pt === undefined) return { set: null, bad };
  applyInheritedRoles(roles, perms);
  internPermissions(perms);
  return { set: { permissions: perms, backendOnly: withBackendOnly(perms, backendPerms) }, bad };
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
