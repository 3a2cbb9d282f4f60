/**
 * Catalogs built the way the engine builds them, from a metadata document and a recorded
 * introspection, without a database: the golden cases run on what `buildCatalog` makes of
 * test/golden/fixture/, not on a hand-built catalog that could drift from it.
 *
 * A recording is the introspection as JSON (maps as sorted entries), with the values that
 * differ between two databases of the same schema (oids, the fingerprint) fixed, so that
 * recording twice gives the same file.
 */
import { readFileSync } from 'node:fs';
import { backendFor } from '../../engine/backends/registry.ts';
import type { SourceConnection } from '../../engine/backends/backend.ts';
import type { EnumTableRows, IntrospectedFunction, IntrospectedTable, SourceIntrospection } from '../../engine/backends/introspection.ts';
import { buildCatalog } from '../../engine/catalog/build.ts';
import type { PreparedSources } from '../../engine/catalog/prepared.ts';
import type { Catalog, SourceKind } from '../../engine/catalog/types.ts';
import type { CatalogStamp } from '../../engine/catalog/version.ts';
import { normalizeDocument, type MetadataDocument } from '../../engine/model/document.ts';

/** A source's introspection and enum-table rows as stored in introspection.json. */
export interface Recording {
  readonly tables: Array<[string, IntrospectedTable]>;
  readonly functions: Array<[string, IntrospectedFunction[]]>;
  readonly enumRows: Array<[string, EnumTableRows]>;
}

/** The recording of one source, deterministic for a given schema. */
export function record(introspection: SourceIntrospection, enumRows: ReadonlyMap<string, EnumTableRows>): Recording {
  const byKey = <V>(m: ReadonlyMap<string, V>): Array<[string, V]> => [...m.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return {
    tables: byKey(introspection.tables).map(([k, t]) => [k, { ...t, oid: 0 }]),
    functions: byKey(introspection.functions ?? new Map<string, readonly IntrospectedFunction[]>()).map(([k, fs]) => [k, fs.map((f) => ({ ...f, oid: 0 }))]),
    enumRows: byKey(enumRows),
  };
}

/** A connection of a `kind` source that must never be used (SQL-generation tests). */
export function unusedConnection(kind: SourceKind): SourceConnection {
  return {
    kind,
    queryJsonText: () => Promise.reject(new Error('no database in this test')),
    transactionJsonText: () => Promise.reject(new Error('no database in this test')),
    close: () => Promise.resolve(),
  };
}

/** Reads a metadata document (wire JSON, version 3). */
export function readMetadata(file: string | URL): MetadataDocument {
  return normalizeDocument(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>);
}

/**
 * `doc` (a document of one kind's sources) with its sources of `kind`, as a source of that kind
 * holds it: tables in the first kind's default schema moved to `kind`'s (`public` → `dbo`: bare
 * names in GraphQL stay bare), without what `kind`'s backend has no operations for (functions,
 * computed fields). The golden fixture of another kind (test/golden/README.md).
 */
export function documentForKind(doc: MetadataDocument, kind: SourceKind): MetadataDocument {
  const backend = backendFor(kind);
  const functions = backend.operationFamilies.includes('functions');
  const computed = backend.operationFamilies.includes('computed-fields');
  const to = backend.naming.defaultSchema;
  return {
    ...doc,
    sources: doc.sources.map((s) => {
      const from = backendFor(s.kind).naming.defaultSchema;
      return {
        ...s,
        kind,
        functions: functions ? s.functions : [],
        tables: s.tables.map((t) => ({
          ...t,
          table: t.table.schema === from ? { ...t.table, schema: to } : t.table,
          computed_fields: computed ? t.computed_fields : [],
          select_permissions: computed
            ? t.select_permissions
            : t.select_permissions.map((p) => ({ ...p, permission: { ...p.permission, computed_fields: [] } })),
        })),
      };
    }),
  };
}

/** Reads a recording written by {@link record}. */
export function readRecording(file: string | URL): Recording {
  return JSON.parse(readFileSync(file, 'utf8')) as Recording;
}

/** The catalog `buildCatalog` makes of `doc` with the `default` source introspected as `recording`. */
export function catalogFromRecording(doc: MetadataDocument, recording: Recording, stamp: CatalogStamp = { version: 1, resourceVersion: 1 }): Catalog {
  const kind = doc.sources.find((s) => s.name === 'default')?.kind ?? 'postgres';
  const introspection: SourceIntrospection = {
    tables: new Map(recording.tables),
    functions: new Map(recording.functions),
    fingerprint: 'recorded',
    ddlStamp: 'recorded',
  };
  const prepared: PreparedSources = new Map([
    ['default', { ok: true, name: 'default', configKey: 'recorded', connection: unusedConnection(kind), introspection, enumRows: new Map(recording.enumRows) }],
  ]);
  return buildCatalog(doc, prepared, stamp);
}
