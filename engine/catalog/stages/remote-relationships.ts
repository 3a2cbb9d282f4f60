/**
 * Stage "remote relationships" (Note [Catalog stages] in build.ts): the
 * `remote_relationships` of tracked tables that point at a remote schema,
 * resolved against the consistent remote schemas (remote/relationship.ts).
 * The output is the sources with each table's remote relationships attached
 * to its source (SourceInfo.remoteRelationships), which is where the table
 * types of the GraphQL side find them. `to_source` relationships (to a
 * table of another source: cross-source joins) are resolved against the
 * tracked tables of every consistent source and attached likewise
 * (SourceInfo.sourceRelationships); one whose source, table or columns are
 * missing is inconsistent with its reason, so dropping any of them reports
 * it as a dependent.
 */
import { sourceInconsistency } from '../inconsistency.ts';
import { catalogNaming } from '../source-naming.ts';
import { tableKey, type InconsistentObject, type QualifiedName, type SourceInfo, type SourceRelationshipInfo, type TableInfo } from '../types.ts';
import { backendOf } from '../../backends/registry.ts';
import type { JsonObject, MetadataDocument, TableNameInput } from '../../model/document.ts';
import { remoteSchemaTarget, resolveRemoteRelationship, type RemoteRelationshipInfo } from '../../remote/relationship.ts';
import type { RemoteSchemaInfo } from '../../remote/types.ts';
import type { StageResult } from './stage.ts';

/** Resolves the remote relationships of every tracked, consistent table. */
export function resolveRemoteRelationships(
  doc: MetadataDocument,
  sources: ReadonlyMap<string, SourceInfo>,
  remotes: ReadonlyMap<string, RemoteSchemaInfo>,
): StageResult<ReadonlyMap<string, SourceInfo>> {
  const inconsistencies: InconsistentObject[] = [];
  let out: Map<string, SourceInfo> | null = null;
  for (const s of doc.sources) {
    const info = sources.get(s.name);
    const naming = catalogNaming(s, info);
    const byTable = new Map<string, RemoteRelationshipInfo[]>();
    const toSources = new Map<string, SourceRelationshipInfo[]>();
    for (const t of s.tables) {
      for (const rel of t.remote_relationships) {
        const name = String(rel['name']);
        const table = { schema: t.table.schema, name: t.table.name };
        const ref = { kind: 'remote_relationship', source: s.name, table, name } as const;
        const def = (rel['definition'] ?? {}) as Parameters<typeof remoteSchemaTarget>[0];
        const tableInfo = info?.tables.get(tableKey(table));
        if (tableInfo === undefined) {
          inconsistencies.push(sourceInconsistency(naming, ref, rel, `table "${table.name}" is not tracked or is inconsistent`));
          continue;
        }
        if (
          tableInfo.columns.some((c) => c.gqlName === name) ||
          tableInfo.relationships.some((r) => r.name === name) ||
          (tableInfo.computedFields ?? []).some((c) => c.name === name)
        ) {
          inconsistencies.push(sourceInconsistency(naming, ref, rel, `field "${name}" already exists in table "${table.name}"`));
          continue;
        }
        const target = remoteSchemaTarget(def);
        if (target === null) {
          const r = resolveSourceRelationship(name, s.name, table, tableInfo, def, sources);
          if ('reason' in r) inconsistencies.push(sourceInconsistency(naming, ref, rel, r.reason));
          else toSources.set(tableKey(table), [...(toSources.get(tableKey(table)) ?? []), r]);
          continue;
        }
        const columns = new Set(tableInfo.columns.map((c) => c.name));
        const r = resolveRemoteRelationship(name, s.name, table, columns, target, remotes.get(target.remoteSchema));
        if ('reason' in r) {
          inconsistencies.push(sourceInconsistency(naming, ref, rel, r.reason));
          continue;
        }
        const list = byTable.get(tableKey(table));
        if (list === undefined) byTable.set(tableKey(table), [r]);
        else list.push(r);
      }
    }
    if (info !== undefined && (byTable.size > 0 || toSources.size > 0)) {
      out ??= new Map(sources);
      out.set(s.name, {
        ...info,
        ...(byTable.size > 0 ? { remoteRelationships: byTable } : {}),
        ...(toSources.size > 0 ? { sourceRelationships: toSources } : {}),
      });
    }
  }
  return { output: out ?? sources, inconsistencies };
}

function asObject(v: unknown): JsonObject | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : null;
}

/** Resolves a `to_source` definition of table `table` against the consistent sources, or says why it does not fit. */
function resolveSourceRelationship(
  name: string,
  source: string,
  table: QualifiedName,
  tableInfo: TableInfo,
  def: JsonObject,
  sources: ReadonlyMap<string, SourceInfo>,
): SourceRelationshipInfo | { reason: string } {
  const to = asObject(def['to_source']);
  if (to === null) return { reason: 'the definition must have one of to_remote_schema and to_source' };
  const targetSource = typeof to['source'] === 'string' ? to['source'] : 'default';
  const target = sources.get(targetSource);
  if (target === undefined) return { reason: `source "${targetSource}" does not exist or is inconsistent` };
  const t = to['table'];
  if (typeof t !== 'string' && (asObject(t) === null || typeof asObject(t)?.['name'] !== 'string')) return { reason: 'to_source needs a table name' };
  const targetName = backendOf(target).naming.parse(to['table'] as TableNameInput);
  const targetTable = target.tables.get(tableKey(targetName));
  if (targetTable === undefined) return { reason: `table "${targetName.name}" is not tracked in source "${targetSource}" or is inconsistent` };
  const kind = to['relationship_type'];
  if (kind !== 'object' && kind !== 'array') return { reason: 'relationship_type must be "object" or "array"' };
  const mapping = Object.entries(asObject(to['field_mapping']) ?? {});
  if (mapping.length === 0) return { reason: 'field_mapping must map at least one column to a column' };
  for (const [lhs, rhs] of mapping) {
    if (!tableInfo.columns.some((c) => c.name === lhs)) return { reason: `column "${lhs}" does not exist in table "${table.name}"` };
    if (typeof rhs !== 'string' || !targetTable.columns.some((c) => c.name === rhs)) {
      return { reason: `column "${String(rhs)}" does not exist in table "${targetName.name}" of source "${targetSource}"` };
    }
  }
  return {
    name,
    kind,
    source,
    table,
    targetSource,
    target: targetTable,
    columnMapping: mapping.map(([l, r]) => [l, r as string] as const),
  };
}
