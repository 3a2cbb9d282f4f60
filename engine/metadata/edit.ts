/**
 * Pure edits of a normalized metadata document: find and replace a source, a
 * table, a relationship, a permission. Operations compose these; nothing here
 * checks preconditions.
 */
import { sameData } from '../catalog/intern.ts';
import type { MetadataObjectRef, PermissionKind } from '../catalog/object-id.ts';
import type { QualifiedName } from '../catalog/types.ts';
import { sameTable, type FunctionMetadata, type JsonObject, type MetadataDocument, type SourceMetadata, type TableMetadata } from '../model/document.ts';

/** The source named `name`, if any. */
export function findSource(doc: MetadataDocument, name: string): SourceMetadata | undefined {
  return doc.sources.find((s) => s.name === name);
}

/** The tracked table `table` of `source`, if any. */
export function findTable(doc: MetadataDocument, source: string, table: QualifiedName): TableMetadata | undefined {
  return findSource(doc, source)?.tables.find((t) => sameTable(t.table, table));
}

/** Replaces source `name` with `fn(source)`; `null` removes it. */
export function updateSource(doc: MetadataDocument, name: string, fn: (s: SourceMetadata) => SourceMetadata | null): MetadataDocument {
  const sources: SourceMetadata[] = [];
  for (const s of doc.sources) {
    if (s.name !== name) {
      sources.push(s);
      continue;
    }
    const next = fn(s);
    if (next !== null) sources.push(next);
  }
  return { ...doc, sources };
}

/** Replaces table `table` of `source` with `fn(table)`; `null` removes it. */
export function updateTable(doc: MetadataDocument, source: string, table: QualifiedName, fn: (t: TableMetadata) => TableMetadata | null): MetadataDocument {
  return updateSource(doc, source, (s) => {
    const tables: TableMetadata[] = [];
    for (const t of s.tables) {
      if (!sameTable(t.table, table)) {
        tables.push(t);
        continue;
      }
      const next = fn(t);
      if (next !== null) tables.push(next);
    }
    return { ...s, tables };
  });
}

/**
 * Note [Documents read whole]
 * `replace_metadata` (and `metadata apply`, the operator, GitOps tools that
 * send the whole document), and an instance reloading a document another
 * instance stored, parse a new document: every table entry is a new object,
 * so the catalog would reuse nothing of the previous build (Note [Catalog
 * memo] in catalog/memo.ts) even when one permission changed. So such a
 * document keeps the previous document's object for every table and
 * function entry that is equal to it (compared as data), and a change then
 * costs what a single call's would.
 */
/** `next` with the entries that equal `before`'s for the same table or function being `before`'s objects: Note [Documents read whole]. */
export function keepEqualEntries(before: MetadataDocument, next: MetadataDocument): MetadataDocument {
  let changed = false;
  const sources = next.sources.map((s) => {
    const old = findSource(before, s.name);
    if (old === undefined) return s;
    const keep = <T>(list: readonly T[], oldList: readonly T[], key: (e: T) => QualifiedName): T[] | null => {
      const byKey = new Map(oldList.map((e) => [`${key(e).schema}.${key(e).name}`, e]));
      let kept = false;
      const out = list.map((e) => {
        const was = byKey.get(`${key(e).schema}.${key(e).name}`);
        if (was === undefined || was === e || !sameData(was, e)) return e;
        kept = true;
        return was;
      });
      return kept ? out : null;
    };
    const tables = keep(s.tables, old.tables, (t) => t.table);
    const functions = keep(s.functions, old.functions, (f) => f.function);
    if (tables === null && functions === null) return s;
    changed = true;
    return { ...s, ...(tables === null ? {} : { tables }), ...(functions === null ? {} : { functions }) };
  });
  return changed ? { ...next, sources } : next;
}

/** The tracked function `fn` of `source`, if any. */
export function findFunction(doc: MetadataDocument, source: string, fn: QualifiedName): FunctionMetadata | undefined {
  return findSource(doc, source)?.functions.find((f) => sameTable(f.function, fn));
}

/** Replaces function `fn` of `source` with `edit(function)`; `null` removes it. */
export function updateFunction(
  doc: MetadataDocument,
  source: string,
  fn: QualifiedName,
  edit: (f: FunctionMetadata) => FunctionMetadata | null,
): MetadataDocument {
  return updateSource(doc, source, (s) => {
    const functions: FunctionMetadata[] = [];
    for (const f of s.functions) {
      const next = sameTable(f.function, fn) ? edit(f) : f;
      if (next !== null) functions.push(next);
    }
    return { ...s, functions };
  });
}

/** The list key of a permission kind (`select_permissions`). */
export function permissionListKey(kind: PermissionKind): 'select_permissions' | 'insert_permissions' | 'update_permissions' | 'delete_permissions' {
  return `${kind}_permissions`;
}

/** Removes one metadata object (and what it contains) from the document. */
export function removeObject(doc: MetadataDocument, ref: MetadataObjectRef): MetadataDocument {
  switch (ref.kind) {
    case 'source':
      return updateSource(doc, ref.source, () => null);
    case 'table':
      return updateTable(doc, ref.source, ref.table, () => null);
    case 'object_relation':
      return updateTable(doc, ref.source, ref.table, (t) => ({
        ...t,
        object_relationships: t.object_relationships.filter((r) => r.name !== ref.name),
      }));
    case 'array_relation':
      return updateTable(doc, ref.source, ref.table, (t) => ({
        ...t,
        array_relationships: t.array_relationships.filter((r) => r.name !== ref.name),
      }));
    case 'permission': {
      const key = permissionListKey(ref.permission);
      return updateTable(doc, ref.source, ref.table, (t) => ({
        ...t,
        [key]: (t[key] as ReadonlyArray<{ role: string }>).filter((p) => p.role !== ref.role),
      }));
    }
    case 'inherited_role':
      return { ...doc, inherited_roles: doc.inherited_roles.filter((r) => r.role_name !== ref.role) };
    case 'function':
      return updateFunction(doc, ref.source, ref.function, () => null);
    case 'function_permission':
      return updateFunction(doc, ref.source, ref.function, (f) => ({
        ...f,
        permissions: (f.permissions ?? []).filter((p) => p.role !== ref.role),
      }));
    case 'computed_field':
      return updateTable(doc, ref.source, ref.table, (t) => ({
        ...t,
        computed_fields: t.computed_fields.filter((c) => c.name !== ref.name),
      }));
    case 'event_trigger':
      return updateTable(doc, ref.source, ref.table, (t) => ({
        ...t,
        event_triggers: t.event_triggers.filter((e) => e['name'] !== ref.name),
      }));
    case 'remote_relationship':
      return updateTable(doc, ref.source, ref.table, (t) => ({
        ...t,
        remote_relationships: t.remote_relationships.filter((r) => r['name'] !== ref.name),
      }));
    case 'remote_schema':
      return { ...doc, remote_schemas: doc.remote_schemas.filter((r) => r['name'] !== ref.name) };
    case 'remote_schema_permission':
      return updateRemoteSchema(doc, ref.remoteSchema, (r) => ({
        ...r,
        permissions: ((r['permissions'] ?? []) as ReadonlyArray<JsonObject>).filter((p) => p['role'] !== ref.role),
      }));
    case 'remote_schema_remote_relationship':
      return updateRemoteSchema(doc, ref.remoteSchema, (r) => withoutTypeRelationship(r, ref.typeName, ref.name));
    case 'query_collection': {
      const query = ref.query;
      if (query === null) return { ...doc, query_collections: doc.query_collections.filter((c) => c.name !== ref.collection) };
      return {
        ...doc,
        query_collections: doc.query_collections.map((c) =>
          c.name !== ref.collection ? c : { ...c, definition: { ...c.definition, queries: c.definition.queries.filter((q) => q.name !== query) } },
        ),
      };
    }
    case 'allowlist':
      return { ...doc, allowlist: doc.allowlist.filter((a) => a.collection !== ref.collection) };
    case 'rest_endpoint':
      return { ...doc, rest_endpoints: doc.rest_endpoints.filter((r) => r.name !== ref.name) };
    case 'custom_types':
      return { ...doc, custom_types: null };
    case 'action':
      return { ...doc, actions: doc.actions.filter((a) => a['name'] !== ref.name) };
    case 'action_permission':
      return {
        ...doc,
        actions: doc.actions.map((a) =>
          a['name'] !== ref.action ? a : { ...a, permissions: ((a['permissions'] ?? []) as Array<{ role: string }>).filter((p) => p.role !== ref.role) },
        ),
      };
    case 'cron_trigger':
      return { ...doc, cron_triggers: doc.cron_triggers.filter((c) => c['name'] !== ref.name) };
  }
}

/** A remote schema entry without the relationship `name` of type `typeName` (a type left with none is left out, the list too). */
export function withoutTypeRelationship(entry: JsonObject, typeName: string, name: string): JsonObject {
  const types = ((entry['remote_relationships'] ?? []) as JsonObject[])
    .map((t) => (t['type_name'] !== typeName ? t : { ...t, relationships: ((t['relationships'] ?? []) as JsonObject[]).filter((r) => r['name'] !== name) }))
    .filter((t) => ((t['relationships'] ?? []) as JsonObject[]).length > 0);
  const { remote_relationships: _all, ...rest } = entry;
  return types.length === 0 ? rest : { ...rest, remote_relationships: types };
}

/** `doc` with the remote schema `name` replaced by `f` of it. */
export function updateRemoteSchema(doc: MetadataDocument, name: string, f: (r: JsonObject) => JsonObject): MetadataDocument {
  return { ...doc, remote_schemas: doc.remote_schemas.map((r) => (r['name'] === name ? f(r) : r)) };
}
