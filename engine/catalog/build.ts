/**
 * Builds a catalog snapshot from a metadata document and the prepared sources
 * (see prepared.ts). Pure and synchronous: all database reads happen before,
 * so a build can run once per call of a `bulk`. Stages run in order, each
 * leaving out what it cannot resolve and recording why:
 * sources → tables → names → enum links → relationships → computed fields →
 * permissions → functions → roles.
 * Dependency pruning falls out of the order: a relationship to an
 * inconsistent table, or a permission through an inconsistent relationship,
 * does not resolve and is reported in turn.
 */
import type { ScalarInfo } from '../backends/backend.ts';
import { backendFor } from '../backends/registry.ts';
import { formatTableName, type MetadataDocument, type SourceMetadata } from '../metadata/document.ts';
import { inconsistency } from './inconsistency.ts';
import type { PreparedSource, PreparedSources } from './prepared.ts';
import { permittedComputedFields, resolveTableComputedFields } from './stages/computed-fields.ts';
import { customizeRootFields, NO_CUSTOMIZATION, resolveSourceCustomization } from './stages/customization.ts';
import { resolveSourceFunctions } from './stages/functions.ts';
import { NameRegistry } from './stages/names.ts';
import {
  isBackendOnly,
  permissionItems,
  resolvePermission,
  type PermissionLookup,
  type PermissionTable,
} from './stages/permissions.ts';
import {
  applyInheritedRoles,
  inheritFunctionPermissions,
  internPermissions,
  planInheritedRoles,
  type MutableTablePermissions,
} from './stages/inherited-roles.ts';
import { resolveRelationship, type TableLookup } from './stages/relationships.ts';
import { resolveTable, type TableDraft } from './stages/tables.ts';
import {
  tableKey,
  type Catalog,
  type ComputedFieldInfo,
  type SourceCustomizationInfo,
  type InconsistentObject,
  type RelationshipInfo,
  type SourceInfo,
  type TableInfo,
} from './types.ts';

let lastVersion = 0;

/** The next catalog version of this process (strictly increasing). */
export function nextCatalogVersion(): number {
  lastVersion += 1;
  return lastVersion;
}

interface SourceDrafts {
  readonly meta: SourceMetadata;
  readonly prepared: Extract<PreparedSource, { ok: true }>;
  readonly tables: Map<string, TableDraft>;
  readonly tracked: Set<string>;
  readonly relationships: Map<string, Map<string, RelationshipInfo>>;
  readonly customization: SourceCustomizationInfo;
}

/** Builds the catalog of `doc`; `resourceVersion` is the stored version it will carry. */
export function buildCatalog(doc: MetadataDocument, prepared: PreparedSources, resourceVersion: number): Catalog {
  const bad: InconsistentObject[] = [];
  const sources: SourceDrafts[] = [];

  // Stage: sources.
  for (const meta of doc.sources) {
    const ref = { kind: 'source', source: meta.name } as const;
    const p = prepared.get(meta.name);
    if (meta.kind !== 'postgres') {
      bad.push(inconsistency(ref, meta.name, `the ${meta.kind} backend is not supported yet`));
    } else if (p === undefined) {
      bad.push(inconsistency(ref, meta.name, `source "${meta.name}" was not prepared`));
    } else if (!p.ok) {
      bad.push(inconsistency(ref, meta.name, p.reason));
    } else {
      const customization = resolveSourceCustomization(meta.customization);
      if ('reason' in customization) bad.push(inconsistency(ref, meta.name, customization.reason));
      else sources.push({ meta, prepared: p, tables: new Map(), tracked: new Set(), relationships: new Map(), customization });
    }
  }

  // The graphql-default naming convention renames the whole schema, so it must hold for every source.
  if (sources.some((s) => s.customization.namingConvention === 'graphql-default') && sources.some((s) => s.customization.namingConvention !== 'graphql-default')) {
    for (const s of sources.filter((x) => x.customization.namingConvention === 'graphql-default')) {
      const reason = 'the graphql-default naming_convention must be set on every source';
      bad.push(inconsistency({ kind: 'source', source: s.meta.name }, s.meta.name, reason));
    }
    sources.splice(0, sources.length, ...sources.filter((x) => x.customization.namingConvention !== 'graphql-default'));
  }

  // Stage: tables, then names (a clash makes the later table inconsistent).
  const names = new NameRegistry();
  names.reserve(columnTypesOf(sources));
  for (const s of sources) {
    for (const entry of s.meta.tables) {
      const key = tableKey(entry.table);
      s.tracked.add(key);
      const ref = { kind: 'table', source: s.meta.name, table: entry.table } as const;
      const intro = s.prepared.introspection.tables.get(key);
      if (intro === undefined) {
        bad.push(inconsistency(ref, entry.table, `no such table/view exists in source: "${formatTableName(entry.table)}"`));
        continue;
      }
      const resolved = resolveTable(s.meta.name, entry, intro, s.prepared.enumRows.get(key));
      if ('reason' in resolved) {
        bad.push(inconsistency(ref, entry.table, resolved.reason));
        continue;
      }
      const r = { ...resolved, rootFields: customizeRootFields(s.customization, resolved.rootFields) };
      const clash = names.claim(r, s.customization);
      if (clash !== null) {
        bad.push(inconsistency(ref, entry.table, clash));
        continue;
      }
      s.tables.set(key, r);
    }
  }

  // Stage: enum links. A column with a single-column foreign key to a consistent enum table takes its enum.
  for (const s of sources) {
    for (const t of s.tables.values()) {
      t.columns = t.columns.map((c) => {
        const fk = t.introspected.foreignKeys.find((k) => k.columnMapping.length === 1 && k.columnMapping[0]?.[0] === c.name);
        const target = fk === undefined ? undefined : s.tables.get(tableKey(fk.target));
        return target?.enumValues !== null && target !== undefined && fk !== undefined ? { ...c, enumTable: fk.target } : c;
      });
    }
  }

  // Stage: relationships.
  for (const s of sources) {
    const lookup: TableLookup = {
      table: (n) => s.tables.get(tableKey(n)),
      isTracked: (n) => s.tracked.has(tableKey(n)),
      foreignKeys: (n) => s.prepared.introspection.tables.get(tableKey(n))?.foreignKeys,
    };
    for (const entry of s.meta.tables) {
      const key = tableKey(entry.table);
      const draft = s.tables.get(key);
      const rels = new Map<string, RelationshipInfo>();
      const lists = [
        ['object', entry.object_relationships],
        ['array', entry.array_relationships],
      ] as const;
      for (const [kind, list] of lists) {
        for (const rel of list) {
          const ref = { kind: `${kind}_relation`, source: s.meta.name, table: entry.table, name: rel.name } as const;
          const definition = { name: rel.name, source: s.meta.name, comment: rel.comment ?? null, table: entry.table, using: rel.using };
          if (draft === undefined) {
            bad.push(inconsistency(ref, definition, `table "${formatTableName(entry.table)}" is inconsistent`));
            continue;
          }
          if (rels.has(rel.name) || draft.columns.some((c) => c.name === rel.name || c.gqlName === rel.name)) {
            bad.push(
              inconsistency(ref, definition, `in table "${formatTableName(entry.table)}": column/relationship "${rel.name}" already exists`),
            );
            continue;
          }
          const r = resolveRelationship(kind, rel, draft, lookup);
          if ('reason' in r) bad.push(inconsistency(ref, definition, r.reason));
          else rels.set(rel.name, r);
        }
      }
      if (draft !== undefined) s.relationships.set(key, rels);
    }
  }

  // Stage: computed fields (after relationships, whose names they must not take; before permissions, which name them).
  const computedFields = new Map<SourceDrafts, Map<string, ComputedFieldInfo[]>>();
  for (const s of sources) {
    const bySource = new Map<string, ComputedFieldInfo[]>();
    const isTracked = (n: { schema: string; name: string }): boolean => s.tables.has(tableKey(n));
    for (const entry of s.meta.tables) {
      if (entry.computed_fields.length === 0) continue;
      const key = tableKey(entry.table);
      const rels = new Set(s.relationships.get(key)?.keys() ?? []);
      const fns = s.prepared.introspection.functions;
      bySource.set(key, resolveTableComputedFields(s.meta.name, entry, s.tables.get(key), rels, fns, isTracked, bad, { registry: names, customization: s.customization }));
    }
    computedFields.set(s, bySource);
  }

  // Stage: permissions, then roles (inherited roles derived per table, equal permissions interned).
  const rolePlan = planInheritedRoles(doc.inherited_roles);
  bad.push(...rolePlan.bad);
  const catalogSources = new Map<string, SourceInfo>();
  for (const s of sources) {
    const permTable = (key: string): PermissionTable | undefined => {
      const draft = s.tables.get(key);
      if (draft === undefined) return undefined;
      return { draft, relationships: s.relationships.get(key) ?? new Map(), computedFields: computedFields.get(s)?.get(key) ?? [] };
    };
    const lookup: PermissionLookup = (n) => permTable(tableKey(n));
    const tables = new Map<string, TableInfo>();
    for (const entry of s.meta.tables) {
      const key = tableKey(entry.table);
      const pt = permTable(key);
      const perms = new Map<string, MutableTablePermissions>();
      /** Backend-only insert/update/delete permissions by role (select never is). */
      const backendPerms = new Map<string, MutableTablePermissions>();
      for (const item of permissionItems(s.meta.name, entry)) {
        const ref = { kind: 'permission', source: s.meta.name, table: entry.table, role: item.role, permission: item.kind } as const;
        if (pt === undefined) {
          bad.push(inconsistency(ref, item.definition, `table "${formatTableName(entry.table)}" is inconsistent`));
          continue;
        }
        const cfs = computedFields.get(s)?.get(key) ?? [];
        const permitted = item.kind === 'select' ? permittedComputedFields(item.permission, cfs) : { names: [] };
        if ('reason' in permitted) {
          bad.push(inconsistency(ref, item.definition, permitted.reason));
          continue;
        }
        const r = resolvePermission(item, pt, lookup);
        if ('reason' in r) {
          bad.push(inconsistency(ref, item.definition, r.reason));
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
      applyInheritedRoles(rolePlan, perms);
      internPermissions(perms);
      const backendOnlyPermissions = withBackendOnly(perms, backendPerms);
      const d = pt.draft;
      const i = d.introspected;
      tables.set(key, {
        source: s.meta.name,
        name: entry.table,
        gqlName: d.gqlName,
        rootFields: d.rootFields,
        kind: i.kind,
        description: d.description,
        columns: d.columns,
        primaryKey: i.primaryKey?.columns ?? [],
        ...(i.primaryKey === null ? {} : { primaryKeyName: i.primaryKey.name }),
        uniqueConstraints: i.uniqueConstraints,
        foreignKeys: i.foreignKeys,
        relationships: [...pt.relationships.values()],
        enumValues: d.enumValues,
        mutability: i.mutability,
        permissions: perms,
        ...(backendOnlyPermissions === null ? {} : { backendOnlyPermissions }),
        ...(computedFields.get(s)?.has(key) === true ? { computedFields: computedFields.get(s)?.get(key) ?? [] } : {}),
      });
    }
    catalogSources.set(s.meta.name, {
      name: s.meta.name,
      kind: 'postgres',
      connection: s.prepared.connection,
      tables,
      ...(s.customization === NO_CUSTOMIZATION ? {} : { customization: s.customization }),
    });
  }

  // Stage: functions (after permissions: a function permission needs the role's select permission).
  for (const s of sources) {
    const info = catalogSources.get(s.meta.name);
    if (info === undefined || s.meta.functions.length === 0) continue;
    const input = {
      source: s.meta.name,
      entries: s.meta.functions,
      introspected: s.prepared.introspection.functions,
      tables: info.tables,
      names,
      customization: s.customization,
    };
    const functions = new Map([...resolveSourceFunctions(input, bad)].map(([k, f]) => [k, { ...f, permissions: inheritFunctionPermissions(rolePlan, f.permissions) }]));
    catalogSources.set(s.meta.name, { ...info, functions });
  }

  return {
    version: nextCatalogVersion(),
    resourceVersion,
    sources: catalogSources,
    roles: collectRoles(doc),
    inconsistencies: bad,
    ...(doc.api_limits === undefined ? {} : { apiLimits: doc.api_limits }),
  };
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

/** The database types of the columns of every tracked table (element types of arrays too). */
function columnTypesOf(sources: readonly SourceDrafts[]): Map<string, ScalarInfo> {
  const out = new Map<string, ScalarInfo>();
  for (const s of sources) {
    const backend = backendFor(s.meta.kind);
    for (const entry of s.meta.tables) {
      for (const c of s.prepared.introspection.tables.get(tableKey(entry.table))?.columns ?? []) {
        const t = c.elementType ?? c.dbType;
        if (!out.has(t)) out.set(t, backend.scalar(t));
      }
    }
  }
  return out;
}

/** Every role named in metadata (permissions, inherited roles), `admin` excluded, sorted. */
function collectRoles(doc: MetadataDocument): string[] {
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
