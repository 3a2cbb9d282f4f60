/**
 * Stage "assemble": the drafts, relationships, computed fields and
 * permissions of each consistent table → the {@link TableInfo}s and
 * {@link SourceInfo}s the GraphQL side reads (functions are added by the
 * functions stage, which needs the permissions). Nothing is left out here.
 */
import { compileTargetOf } from '../../backends/backend.ts';
import { tableKey, type SourceInfo, type TableInfo } from '../types.ts';
import type { ComputedFieldsBySource } from './computed-fields.ts';
import { NO_CUSTOMIZATION } from './customization.ts';
import type { RelationshipsBySource } from './relationships.ts';
import type { PermissionsBySource } from './table-permissions.ts';
import type { TablesBySource } from './tracked-tables.ts';

/** What the assemble stage reads of the earlier stages. */
export interface AssembleInput {
  readonly tables: TablesBySource;
  readonly relationships: RelationshipsBySource;
  readonly computedFields: ComputedFieldsBySource;
  readonly permissions: PermissionsBySource;
}

/** The catalog's sources by name, with their consistent tables in document order. */
export function assembleSources(input: AssembleInput): Map<string, SourceInfo> {
  const out = new Map<string, SourceInfo>();
  for (const [s, { tables: drafts }] of input.tables) {
    const relationships = input.relationships.get(s);
    const computedFields = input.computedFields.get(s);
    const permissions = input.permissions.get(s);
    const tables = new Map<string, TableInfo>();
    for (const entry of s.meta.tables) {
      const key = tableKey(entry.table);
      const d = drafts.get(key);
      const p = permissions?.get(key);
      if (d === undefined || p === undefined) continue;
      const i = d.introspected;
      const cfs = computedFields?.get(key);
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
        relationships: [...(relationships?.get(key) ?? new Map()).values()],
        enumValues: d.enumValues,
        mutability: i.mutability,
        permissions: p.permissions,
        ...(p.backendOnly === null ? {} : { backendOnlyPermissions: p.backendOnly }),
        ...(cfs === undefined ? {} : { computedFields: cfs }),
      });
    }
    out.set(s.meta.name, {
      name: s.meta.name,
      kind: s.meta.kind,
      connection: s.prepared.connection,
      target: compileTargetOf(s.prepared.introspection),
      tables,
      // The backend that prepared it, when not its kind's (Note [Source naming] in source-naming.ts).
      ...(s.prepared.backend === undefined ? {} : { backend: s.prepared.backend }),
      ...(s.customization === NO_CUSTOMIZATION ? {} : { customization: s.customization }),
    });
  }
  return out;
}
