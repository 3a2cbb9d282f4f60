/**
 * Stage "assemble": the drafts, relationships, computed fields and
 * permissions of each consistent table → the {@link TableInfo}s and
 * {@link SourceInfo}s the GraphQL side reads (functions are added by the
 * functions stage, which needs the permissions). Nothing is left out here.
 *
 * Note [Incremental catalog]
 * A metadata change used to cost every role's schema in full: tracking one
 * table at 2,000 tables (test/bench/lib/scale.ts) built the admin schema
 * from scratch on its first query (2.3 s) and every role again (3.4 s to all
 * of them). Role schemas are made of per-table types (SchemaTypes in
 * graphql/schema/table-types.ts) keyed by the catalog's TableInfo object, so
 * a table keeps its TableInfo from one catalog to the next when nothing in it
 * changed: each assembled table is compared (`sameData`, catalog/intern.ts)
 * with the previous catalog's table of the same key, and the old object is
 * kept when they are equal. Everything a table's types read of its own
 * table is in its TableInfo (columns, relationships, permissions, computed
 * fields, names, comments); what they read elsewhere (the source's
 * customization, enum tables, remote relationships, functions) the schema
 * cache compares itself before reusing anything (Note [Types across catalog
 * versions] in graphql/schema/schema-cache.ts). The comparison costs
 * 40–90 ms of a pg_track_table call at 2,000 tables × 10 roles (measured
 * around this loop under test/bench/track-profile.ts 2000 10; 3× that with
 * Object.keys instead of for-in in sameData). Since then the stages reuse
 * their per-table results (Note [Catalog memo] in catalog/memo.ts), so the
 * comparison only runs for tables whose inputs changed.
 */
import { compileTargetOf } from '../../backends/backend.ts';
import type { TableMetadata } from '../../model/document.ts';
import { sameData } from '../intern.ts';
import { CatalogMemo } from '../memo.ts';
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
  /** The sources of the catalog this one replaces: its unchanged tables are kept (Note [Incremental catalog]). */
  readonly previous?: ReadonlyMap<string, SourceInfo> | undefined;
}

/** The catalog's sources by name, with their consistent tables in document order; `memo`: Note [Catalog memo]. */
export function assembleSources(input: AssembleInput, memo = new CatalogMemo()): Map<string, SourceInfo> {
  const out = new Map<string, SourceInfo>();
  const assembled = memo.stage<TableMetadata, TableInfo>('assembled tables');
  for (const [s, { tables: drafts }] of input.tables) {
    const relationships = input.relationships.get(s);
    const computedFields = input.computedFields.get(s);
    const permissions = input.permissions.get(s);
    const tables = new Map<string, TableInfo>();
    const before = input.previous?.get(s.meta.name)?.tables;
    for (const entry of s.meta.tables) {
      const key = tableKey(entry.table);
      const d = drafts.get(key);
      const p = permissions?.get(key);
      if (d === undefined || p === undefined) continue;
      const i = d.introspected;
      const cfs = computedFields?.get(key);
      const rels = relationships?.get(key);
      const deps = [s.meta.name, d, p.permissions, p.backendOnly, rels, cfs];
      const same = assembled.reuse(entry, deps);
      if (same !== undefined) {
        tables.set(key, same);
        continue;
      }
      const made: TableInfo = {
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
        relationships: [...(rels ?? new Map()).values()],
        enumValues: d.enumValues,
        mutability: i.mutability,
        permissions: p.permissions,
        ...(p.backendOnly === null ? {} : { backendOnlyPermissions: p.backendOnly }),
        ...(cfs === undefined ? {} : { computedFields: cfs }),
      };
      const old = before?.get(key);
      tables.set(key, assembled.keep(entry, deps, old !== undefined && sameData(old, made) ? old : made));
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
