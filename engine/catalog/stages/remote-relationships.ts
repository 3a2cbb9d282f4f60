/**
 * Stage "remote relationships" (Note [Catalog stages] in build.ts): the
 * `remote_relationships` of tracked tables that point at a remote schema,
 * resolved against the consistent remote schemas (remote/relationship.ts).
 * The output is the sources with each table's remote relationships attached
 * to its source (SourceInfo.remoteRelationships), which is where the table
 * types of the GraphQL side find them. `to_source` relationships (to a
 * table of another source) are reported as not supported yet.
 */
import { inconsistency } from '../inconsistency.ts';
import { tableKey, type InconsistentObject, type SourceInfo } from '../types.ts';
import type { MetadataDocument } from '../../metadata/document.ts';
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
    const byTable = new Map<string, RemoteRelationshipInfo[]>();
    for (const t of s.tables) {
      for (const rel of t.remote_relationships) {
        const name = String(rel['name']);
        const table = { schema: t.table.schema, name: t.table.name };
        const ref = { kind: 'remote_relationship', source: s.name, table, name } as const;
        const def = (rel['definition'] ?? {}) as Parameters<typeof remoteSchemaTarget>[0];
        const tableInfo = info?.tables.get(tableKey(table));
        if (tableInfo === undefined) {
          inconsistencies.push(inconsistency(ref, rel, `table "${table.name}" is not tracked or is inconsistent`));
          continue;
        }
        const target = remoteSchemaTarget(def);
        if (target === null) {
          inconsistencies.push(inconsistency(ref, rel, 'remote relationships to another source (to_source) are not supported yet'));
          continue;
        }
        const columns = new Set(tableInfo.columns.map((c) => c.name));
        if (tableInfo.columns.some((c) => c.gqlName === name) || tableInfo.relationships.some((r) => r.name === name)) {
          inconsistencies.push(inconsistency(ref, rel, `field "${name}" already exists in table "${table.name}"`));
          continue;
        }
        const r = resolveRemoteRelationship(name, s.name, table, columns, target, remotes.get(target.remoteSchema));
        if ('reason' in r) {
          inconsistencies.push(inconsistency(ref, rel, r.reason));
          continue;
        }
        const list = byTable.get(tableKey(table));
        if (list === undefined) byTable.set(tableKey(table), [r]);
        else list.push(r);
      }
    }
    if (info !== undefined && byTable.size > 0) {
      out ??= new Map(sources);
      out.set(s.name, { ...info, remoteRelationships: byTable });
    }
  }
  return { output: out ?? sources, inconsistencies };
}
