/**
 * Identities of metadata objects: what an inconsistency, a dependency report
 * or a cascade names. An id is the JSON of a {@link MetadataObjectRef}, so it
 * is stable across builds and can be turned back into the reference.
 */
import type { QualifiedName } from './types.ts';
import type { TableNaming } from '../backends/backend.ts';

/** Permission kinds as they appear in inconsistency types (`select_permission`). */
export type PermissionKind = 'select' | 'insert' | 'update' | 'delete';

/** A reference to one metadata object. */
export type MetadataObjectRef =
  | { readonly kind: 'source'; readonly source: string }
  | { readonly kind: 'table'; readonly source: string; readonly table: QualifiedName }
  | {
      readonly kind: 'object_relation' | 'array_relation';
      readonly source: string;
      readonly table: QualifiedName;
      readonly name: string;
    }
  | {
      readonly kind: 'permission';
      readonly source: string;
      readonly table: QualifiedName;
      readonly role: string;
      readonly permission: PermissionKind;
    }
  | { readonly kind: 'inherited_role'; readonly role: string }
  | { readonly kind: 'function'; readonly source: string; readonly function: QualifiedName }
  | { readonly kind: 'function_permission'; readonly source: string; readonly function: QualifiedName; readonly role: string }
  | { readonly kind: 'computed_field'; readonly source: string; readonly table: QualifiedName; readonly name: string }
  | { readonly kind: 'event_trigger'; readonly source: string; readonly table: QualifiedName; readonly name: string }
  /** A query collection (`query` null) or one query of it. */
  | { readonly kind: 'query_collection'; readonly collection: string; readonly query: string | null }
  | { readonly kind: 'allowlist'; readonly collection: string }
  | { readonly kind: 'rest_endpoint'; readonly name: string }
  | { readonly kind: 'remote_schema'; readonly name: string }
  | { readonly kind: 'remote_schema_permission'; readonly remoteSchema: string; readonly role: string }
  | { readonly kind: 'remote_relationship'; readonly source: string; readonly table: QualifiedName; readonly name: string }
  /** A relationship of a remote schema's type (type name as the remote names it). */
  | { readonly kind: 'remote_schema_remote_relationship'; readonly remoteSchema: string; readonly typeName: string; readonly name: string }
  /** The document's custom types, one object as in v2. */
  | { readonly kind: 'custom_types' }
  | { readonly kind: 'action'; readonly name: string }
  | { readonly kind: 'action_permission'; readonly action: string; readonly role: string }
  | { readonly kind: 'cron_trigger'; readonly name: string };

/** The stable id of a reference. */
export function objectId(ref: MetadataObjectRef): string {
  switch (ref.kind) {
    case 'source':
      return JSON.stringify([ref.kind, ref.source]);
    case 'table':
      return JSON.stringify([ref.kind, ref.source, ref.table.schema, ref.table.name]);
    case 'object_relation':
    case 'array_relation':
      return JSON.stringify([ref.kind, ref.source, ref.table.schema, ref.table.name, ref.name]);
    case 'permission':
      return JSON.stringify([ref.kind, ref.source, ref.table.schema, ref.table.name, ref.role, ref.permission]);
    case 'inherited_role':
      return JSON.stringify([ref.kind, ref.role]);
    case 'function':
      return JSON.stringify([ref.kind, ref.source, ref.function.schema, ref.function.name]);
    case 'function_permission':
      return JSON.stringify([ref.kind, ref.source, ref.function.schema, ref.function.name, ref.role]);
    case 'computed_field':
    case 'event_trigger':
    case 'remote_relationship':
      return JSON.stringify([ref.kind, ref.source, ref.table.schema, ref.table.name, ref.name]);
    case 'query_collection':
      return JSON.stringify(ref.query === null ? [ref.kind, ref.collection] : [ref.kind, ref.collection, ref.query]);
    case 'allowlist':
      return JSON.stringify([ref.kind, ref.collection]);
    case 'rest_endpoint':
      return JSON.stringify([ref.kind, ref.name]);
    case 'remote_schema':
      return JSON.stringify([ref.kind, ref.name]);
    case 'remote_schema_permission':
      return JSON.stringify([ref.kind, ref.remoteSchema, ref.role]);
    case 'remote_schema_remote_relationship':
      return JSON.stringify([ref.kind, ref.remoteSchema, ref.typeName, ref.name]);
    case 'custom_types':
      return JSON.stringify([ref.kind]);
    case 'action':
      return JSON.stringify([ref.kind, ref.name]);
    case 'action_permission':
      return JSON.stringify([ref.kind, ref.action, ref.role]);
    case 'cron_trigger':
      return JSON.stringify([ref.kind, ref.name]);
  }
}

/** Turns an id made by {@link objectId} back into its reference (null if it is not one). */
export function parseObjectId(id: string): MetadataObjectRef | null {
  let parts: unknown;
  try {
    parts = JSON.parse(id);
  } catch {
    return null;
  }
  if (!Array.isArray(parts) || !parts.every((p) => typeof p === 'string')) return null;
  const [kind, source = '', schema = '', name = '', a = '', b = ''] = parts as string[];
  const table = { schema, name };
  switch (kind) {
    case 'source':
      return { kind, source };
    case 'table':
      return { kind, source, table };
    case 'object_relation':
    case 'array_relation':
      return { kind, source, table, name: a };
    case 'permission':
      return { kind, source, table, role: a, permission: b as PermissionKind };
    case 'inherited_role':
      return { kind, role: source };
    case 'function':
      return { kind, source, function: table };
    case 'function_permission':
      return { kind, source, function: table, role: a };
    case 'computed_field':
    case 'event_trigger':
    case 'remote_relationship':
      return { kind, source, table, name: a };
    case 'query_collection':
      // [kind, collection] or [kind, collection, query]: the query sits where `schema` does.
      return { kind, collection: source, query: parts.length > 2 ? schema : null };
    case 'allowlist':
      return { kind, collection: source };
    case 'rest_endpoint':
      return { kind, name: source };
    case 'remote_schema':
      return { kind, name: source };
    case 'remote_schema_permission':
      return { kind, remoteSchema: source, role: schema };
    case 'remote_schema_remote_relationship':
      return { kind, remoteSchema: source, typeName: schema, name };
    case 'custom_types':
      return { kind };
    case 'action':
      return { kind, name: source };
    case 'action_permission':
      return { kind, action: source, role: schema };
    case 'cron_trigger':
      return { kind, name: source };
    default:
      return null;
  }
}

/** v2 compat: the `type` of an inconsistent object (`table`, `object_relation`, `select_permission`...). */
export function objectType(ref: MetadataObjectRef): string {
  return ref.kind === 'permission' ? `${ref.permission}_permission` : ref.kind;
}

/** The objects that name a table or function of a source: their names print it as the source's backend does. */
export type SourceObjectRef = Extract<MetadataObjectRef, { readonly table: QualifiedName } | { readonly function: QualifiedName }>;

/** An object of {@link objectName}: with its source's naming when it names a table or function. */
export type NamedObject =
  { readonly ref: Exclude<MetadataObjectRef, SourceObjectRef>; readonly naming?: undefined } | { readonly ref: SourceObjectRef; readonly naming: TableNaming };

/**
 * v2 compat: the human name of an object (`table authors in source default`);
 * its table or function as its source's backend prints it (`naming.format`:
 * the ids carry no kind, so the caller that knows the source gives it).
 */
export function objectName({ ref, naming }: NamedObject): string {
  const tableText = (t: QualifiedName): string => naming?.format(t) ?? `${t.schema}.${t.name}`;
  switch (ref.kind) {
    case 'source':
      return `source ${ref.source}`;
    case 'table':
      return `table ${tableText(ref.table)} in source ${ref.source}`;
    case 'object_relation':
    case 'array_relation':
      return `relationship ${ref.name} in table ${tableText(ref.table)} in source ${ref.source}`;
    case 'permission':
      return `permission ${tableText(ref.table)}.${ref.role}.${ref.permission} in source ${ref.source}`;
    case 'inherited_role':
      return `inherited role ${ref.role}`;
    case 'function':
      return `function ${tableText(ref.function)} in source ${ref.source}`;
    case 'function_permission':
      return `function permission ${tableText(ref.function)}.${ref.role} in source ${ref.source}`;
    case 'computed_field':
      return `computed field ${ref.name} in table ${tableText(ref.table)} in source ${ref.source}`;
    case 'event_trigger':
      return `event_trigger ${ref.name} on table ${tableText(ref.table)} in source ${ref.source}`;
    case 'query_collection':
      return ref.query === null ? `query collection ${ref.collection}` : `query ${ref.query} in query collection ${ref.collection}`;
    case 'allowlist':
      return `allowlist entry for query collection ${ref.collection}`;
    case 'rest_endpoint':
      return `rest endpoint ${ref.name}`;
    case 'remote_schema':
      return `remote_schema ${ref.name}`;
    case 'remote_schema_permission':
      return `remote_schema_permission ${ref.remoteSchema}.${ref.role}`;
    case 'remote_relationship':
      return `remote_relationship ${ref.name} in table ${tableText(ref.table)} in source ${ref.source}`;
    case 'remote_schema_remote_relationship':
      return `remote_schema_remote_relationship ${ref.name} on type ${ref.typeName} in remote schema ${ref.remoteSchema}`;
    case 'custom_types':
      return 'custom types';
    case 'action':
      return `action ${ref.name}`;
    case 'action_permission':
      return `action permission ${ref.action}.${ref.role}`;
    case 'cron_trigger':
      return `cron trigger ${ref.name}`;
  }
}
