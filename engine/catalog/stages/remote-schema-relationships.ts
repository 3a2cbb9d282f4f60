/**
 * Stage "remote schema relationships" (Note [Catalog stages] in build.ts):
 * the relationships of remote schemas' types
 * (`create_remote_schema_remote_relationship`; stored in the remote schema
 * entry as `remote_relationships: [{type_name, relationships: [{name,
 * definition}]}]`, v2's form), resolved against the consistent remote
 * schemas and the tracked tables. `to_source` joins a type to a table by
 * `field_mapping` (type field → column); `to_remote_schema` to another
 * remote's field as a table's remote relationship does, its `$name`s being
 * the type's fields. A relationship that does not fit (missing type, field,
 * column, table, remote, a bad mapping, a name the type already has) is
 * inconsistent with its reason; so is every relationship of an inconsistent
 * remote schema. The output is the remote schemas with `typeRelationships`.
 */
import { getNamedType, isInterfaceType, isLeafType, isObjectType, isUnionType } from 'graphql';
import { inconsistency } from '../inconsistency.ts';
import { tableKey, type InconsistentObject, type SourceInfo } from '../types.ts';
import { backendOf } from '../../backends/registry.ts';
import type { JsonObject, MetadataDocument, TableNameInput } from '../../model/document.ts';
import { remoteSchemaEntries, storedTypeRelationships } from '../../remote/definition.ts';
import { resolveRemoteField } from '../../remote/relationship.ts';
import type { RemoteSchemaInfo, RemoteTypeRelationship } from '../../remote/types.ts';
import type { StageResult } from './stage.ts';

function asObject(v: unknown): JsonObject | null {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : null;
}

/** Resolves one relationship of type `typeName` of `remote`, or says why it does not fit. */
export function resolveTypeRelationship(
  remote: RemoteSchemaInfo,
  typeName: string,
  name: string,
  definition: JsonObject,
  sources: ReadonlyMap<string, SourceInfo>,
  remotes: ReadonlyMap<string, RemoteSchemaInfo>,
): RemoteTypeRelationship | { reason: string } {
  const type = remote.original.getType(typeName);
  if (type === undefined || type === null) return { reason: `type "${typeName}" does not exist in remote schema "${remote.name}"` };
  // v2 compat: only an object type may have relationships; an interface, a union or an input type is refused.
  if (!isObjectType(type)) {
    const kind = isInterfaceType(type) ? 'an interface' : isUnionType(type) ? 'a union' : 'not an object type';
    return {
      reason: `remote relationships on a remote schema can only be defined on object types: type "${typeName}" of remote schema "${remote.name}" is ${kind}`,
    };
  }
  const customType = remote.full.schema.getType(remote.names.typeOut(typeName));
  const taken = new Set([...Object.keys(type.getFields()), ...(isObjectType(customType) ? Object.keys(customType.getFields()) : [])]);
  if (taken.has(name)) return { reason: `field "${name}" already exists in type "${typeName}" of remote schema "${remote.name}"` };
  const joinField = (f: string): string | null => {
    const def = type.getFields()[f];
    if (def === undefined) return `field "${f}" does not exist in type "${typeName}" of remote schema "${remote.name}"`;
    if (!isLeafType(getNamedType(def.type))) return `field "${f}" of type "${typeName}" is not a scalar or enum field: it cannot be a join field`;
    return null;
  };
  const toSource = asObject(definition['to_source']);
  const toRemote = asObject(definition['to_remote_schema']);
  if ((toSource === null) === (toRemote === null)) return { reason: 'the definition must have exactly one of to_source and to_remote_schema' };
  if (toSource !== null) {
    const sourceName = String(toSource['source'] ?? 'default');
    const source = sources.get(sourceName);
    if (source === undefined) return { reason: `source "${sourceName}" does not exist or is inconsistent` };
    const tableName = backendOf(source).naming.parse(toSource['table'] as TableNameInput);
    const table = source.tables.get(tableKey(tableName));
    if (table === undefined) return { reason: `table "${tableName.name}" is not tracked in source "${sourceName}" or is inconsistent` };
    const relType = toSource['relationship_type'];
    if (relType !== 'object' && relType !== 'array') return { reason: 'relationship_type must be "object" or "array"' };
    const mapping = Object.entries(asObject(toSource['field_mapping']) ?? {});
    if (mapping.length === 0) return { reason: 'field_mapping must map at least one field to a column' };
    for (const [field, column] of mapping) {
      const bad = joinField(field);
      if (bad !== null) return { reason: bad };
      if (typeof column !== 'string' || !table.columns.some((c) => c.name === column)) {
        return { reason: `column "${String(column)}" does not exist in table "${tableName.name}"` };
      }
    }
    return {
      kind: 'to_source',
      name,
      remote: remote.name,
      typeName,
      type: relType,
      source: sourceName,
      table,
      mapping: mapping.map(([f, c]) => [f, c as string] as const),
    };
  }
  const to = toRemote as JsonObject;
  const targetName = String(to['remote_schema']);
  const target = remotes.get(targetName);
  if (target === undefined) return { reason: `remote schema "${targetName}" does not exist or is inconsistent` };
  const lhs = Array.isArray(to['lhs_fields']) ? (to['lhs_fields'] as unknown[]).map(String) : [];
  if (lhs.length === 0) return { reason: 'lhs_fields must name at least one field' };
  for (const f of lhs) {
    const bad = joinField(f);
    if (bad !== null) return { reason: bad };
  }
  const r = resolveRemoteField(lhs, asObject(to['remote_field']) ?? {}, target);
  if ('reason' in r) return r;
  return { kind: 'to_remote_schema', name, remote: remote.name, typeName, target: targetName, lhsFields: lhs, path: r.path, fieldType: r.type };
}

/** Resolves the type relationships of every remote schema. */
export function resolveRemoteSchemaRelationships(
  doc: MetadataDocument,
  remotes: ReadonlyMap<string, RemoteSchemaInfo>,
  sources: ReadonlyMap<string, SourceInfo>,
): StageResult<ReadonlyMap<string, RemoteSchemaInfo>> {
  const inconsistencies: InconsistentObject[] = [];
  let out: Map<string, RemoteSchemaInfo> | null = null;
  for (const entry of remoteSchemaEntries(doc.remote_schemas)) {
    const remote = remotes.get(entry.name);
    const byType = new Map<string, RemoteTypeRelationship[]>();
    for (const t of storedTypeRelationships(entry)) {
      for (const rel of t.relationships ?? []) {
        const ref = { kind: 'remote_schema_remote_relationship', remoteSchema: entry.name, typeName: t.type_name, name: rel.name } as const;
        const stored = { remote_schema: entry.name, type_name: t.type_name, name: rel.name, definition: rel.definition };
        if (remote === undefined) {
          inconsistencies.push(inconsistency(ref, stored, `remote schema "${entry.name}" is inconsistent`));
          continue;
        }
        const r = resolveTypeRelationship(remote, t.type_name, rel.name, rel.definition ?? {}, sources, remotes);
        if ('reason' in r) {
          inconsistencies.push(inconsistency(ref, stored, r.reason));
          continue;
        }
        const key = remote.names.typeOut(t.type_name);
        const list = byType.get(key);
        if (list === undefined) byType.set(key, [r]);
        else if (list.some((x) => x.name === r.name))
          inconsistencies.push(inconsistency(ref, stored, `relationship "${r.name}" is defined twice on type "${t.type_name}"`));
        else list.push(r);
      }
    }
    if (remote !== undefined && byType.size > 0) {
      out ??= new Map(remotes);
      out.set(entry.name, { ...remote, typeRelationships: byType });
    }
  }
  return { output: out ?? remotes, inconsistencies };
}
