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
import type { SourceConnection, TableNaming } from '../../engine/backends/backend.ts';
import type { EnumTableRows, IntrospectedFunction, IntrospectedTable, SourceIntrospection } from '../../engine/backends/introspection.ts';
import { buildCatalog } from '../../engine/catalog/build.ts';
import type { PreparedSources } from '../../engine/catalog/prepared.ts';
import type { Catalog, QualifiedName, SourceKind } from '../../engine/catalog/types.ts';
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
 * names in GraphQL stay bare; a kind without one, BigQuery, keeps the schema as the dataset and
 * the GraphQL name through `custom_name`), without what `kind`'s backend has no operations for (functions,
 * computed fields, or computed fields of the fixture's style). The golden fixture of another kind (test/golden/README.md).
 */
export function documentForKind(doc: MetadataDocument, kind: SourceKind): MetadataDocument {
  const backend = backendFor(kind);
  const functions = backend.operationFamilies.includes('functions');
  // The fixture's computed fields take the row; a backend whose computed fields map columns to arguments (BigQuery) has none of them.
  const computed = backend.operationFamilies.includes('computed-fields') && backend.computedFieldInputs === undefined;
  return {
    ...doc,
    sources: doc.sources.map((s) => {
      const naming = backendFor(s.kind).naming;
      const from = naming.defaultSchema;
      // A kind without a default schema (BigQuery: names always carry their dataset) keeps the schema as the dataset.
      const to = backend.naming.defaultSchema === '' ? from : backend.naming.defaultSchema;
      return {
        ...s,
        kind,
        functions: functions ? s.functions : [],
        tables: s.tables.map((t) => ({
          ...t,
          table: t.table.schema === from ? { ...t.table, schema: to } : t.table,
          // The GraphQL names stay the same: BigQuery's would carry the dataset (`public_artists`).
          ...(t.configuration?.custom_name === undefined && backend.naming.graphqlName({ ...t.table, schema: to }) !== naming.graphqlName(t.table)
            ? { configuration: { ...t.configuration, custom_name: naming.graphqlName(t.table) } }
            : {}),
          computed_fields: computed ? t.computed_fields : [],
          select_permissions: computed
            ? t.select_permissions
            : t.select_permissions.map((p) => ({ ...p, permission: { ...p.permission, computed_fields: [] } })),
        })),
      };
    }),
  };
}

/**
 * `doc` made ready for a kind whose introspection has no keys and no enum tables (BigQuery; then
 * {@link documentForKind}): its relationships on foreign keys become manual configurations of the
 * same columns (the keys read from `keys`, the recording of `doc`'s own kind), manual ones name
 * their remote table in full, and its enum tables are plain tables.
 */
export function withoutKeys(doc: MetadataDocument, keys: Recording): MetadataDocument {
  const tables = new Map(keys.tables);
  const tableOf = (t: QualifiedName): IntrospectedTable => {
    const found = tables.get(`${t.schema}.${t.name}`);
    if (found === undefined) throw new Error(`withoutKeys: ${t.schema}.${t.name} is not in the recording`);
    return found;
  };
  const same = (a: QualifiedName, b: QualifiedName): boolean => a.schema === b.schema && a.name === b.name;
  return {
    ...doc,
    sources: doc.sources.map((s) => {
      const parse = (n: unknown): QualifiedName => backendFor(s.kind).naming.parse(n as Parameters<TableNaming['parse']>[0]);
      const manual = (remote: QualifiedName, mapping: ReadonlyArray<readonly [string, string]>) => ({
        manual_configuration: { remote_table: { schema: remote.schema, name: remote.name }, column_mapping: Object.fromEntries(mapping) },
      });
      // A manual relationship's remote table named in full: a bare name has no dataset on BigQuery.
      const qualified = <R extends { using: object }>(r: R): R => {
        const m = (r.using as { manual_configuration?: { remote_table: unknown } }).manual_configuration;
        if (m === undefined) return r;
        const remote = parse(m.remote_table);
        return { ...r, using: { ...r.using, manual_configuration: { ...m, remote_table: { schema: remote.schema, name: remote.name } } } };
      };
      return {
        ...s,
        tables: s.tables.map((t) => {
          const { is_enum: _enum, ...rest } = t;
          return {
            ...rest,
            object_relationships: t.object_relationships.map((r) => {
              const on = (r.using as { foreign_key_constraint_on?: unknown }).foreign_key_constraint_on;
              if (typeof on !== 'string') return qualified(r);
              const fk = tableOf(t.table).foreignKeys.find((k) => k.columnMapping.length === 1 && k.columnMapping[0]?.[0] === on);
              if (fk === undefined) throw new Error(`withoutKeys: no foreign key on ${t.table.name}.${on}`);
              return { ...r, using: manual(fk.target, fk.columnMapping) };
            }),
            array_relationships: t.array_relationships.map((r) => {
              const on = (r.using as { foreign_key_constraint_on?: { table: unknown; column: string } }).foreign_key_constraint_on;
              if (on === undefined || typeof on !== 'object') return qualified(r);
              const remote = parse(on.table);
              const fk = tableOf(remote).foreignKeys.find((k) => same(k.target, t.table) && k.columnMapping[0]?.[0] === on.column);
              if (fk === undefined) throw new Error(`withoutKeys: no foreign key on ${remote.name}.${on.column}`);
              return {
                ...r,
                using: manual(
                  remote,
                  fk.columnMapping.map(([a, b]) => [b, a] as const),
                ),
              };
            }),
          };
        }),
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
