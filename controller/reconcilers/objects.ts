/**
 * The metadata document as a flat set of keyed objects, and edits of it by key.
 *
 * Note [Objects and parts]
 * A resource owns exactly what it declares (issue #23: adoption must never delete). So ownership
 * is tracked below the level of whole entries: a TrackedTable declares the table's existence, and
 * separately each relationship, computed field and remote relationship it lists, its configuration
 * and its is_enum flag. Each of these is an object with its own key (Note [Object keys]) and a
 * parent (a part's parent is its table, a table's its source). Consequences:
 * - adopting an already tracked table upserts only the declared parts; the table's other
 *   relationships, permissions and triggers stay as they are;
 * - removing a part from a spec removes just that part (it was managed, it is no longer declared);
 * - removing a container (source, table, function) whose children include objects no resource
 *   declares and the controller does not manage is refused under Merge: the container is kept and
 *   only the managed children go (see foldResources); under Exclusive those children are dropped
 *   too, because Exclusive says the resources are the whole truth.
 * {@link flatten} gives every object with its own content (children excluded), so two documents
 * compare object by object: that is the dry-run plan, the drift report and the removal events.
 */
import {
  emptyTable,
  DEFAULT_SCHEMA,
  formatTableName,
  sameTable,
  V2_PG_DEFAULT_SCHEMA,
  type FunctionMetadata,
  type InheritedRole,
  type JsonObject,
  type JsonValue,
  type MetadataDocument,
  type PermissionEntry,
  type QueryCollection,
  type AllowlistEntry,
  type RestEndpoint,
  type RelationshipMetadata,
  type SourceMetadata,
  type TableMetadata,
} from '../../engine/model/document.ts';
import { CUSTOM_TYPE_SECTIONS, type CustomTypeSection } from '../api/v1alpha1/custom-types.ts';
import type { QualifiedName } from './declarations.ts';

/** Operations a permission governs. */
export const PERMISSION_OPS = ['insert', 'select', 'update', 'delete'] as const;
type PermissionOp = (typeof PERMISSION_OPS)[number];

/** A reference to one object (or part) of the document. */
export type ObjectRef =
  | { readonly kind: 'source'; readonly source: string }
  | { readonly kind: 'table'; readonly source: string; readonly table: QualifiedName }
  | { readonly kind: 'table_configuration' | 'table_is_enum'; readonly source: string; readonly table: QualifiedName }
  | { readonly kind: 'relationship' | 'computed_field' | 'remote_relationship'; readonly source: string; readonly table: QualifiedName; readonly name: string }
  | { readonly kind: 'permission'; readonly source: string; readonly table: QualifiedName; readonly role: string; readonly operation: PermissionOp }
  | { readonly kind: 'event_trigger'; readonly source: string; readonly table: QualifiedName; readonly name: string }
  | { readonly kind: 'function'; readonly source: string; readonly fn: QualifiedName }
  | { readonly kind: 'function_permission'; readonly source: string; readonly fn: QualifiedName; readonly role: string }
  | { readonly kind: 'remote_schema' | 'cron_trigger' | 'inherited_role'; readonly name: string }
  | { readonly kind: 'action'; readonly name: string }
  | { readonly kind: 'action_permission'; readonly action: string; readonly role: string }
  /** One custom type (Note [CustomTypes is a mergeable set]); `custom_types` is the engine's whole set. */
  | { readonly kind: 'custom_type'; readonly name: string }
  | { readonly kind: 'custom_types' }
  | { readonly kind: 'query_collection'; readonly name: string }
  | { readonly kind: 'allowlist'; readonly collection: string }
  /** `collection` is the query collection the endpoint reads ('' when unknown). */
  | { readonly kind: 'rest_endpoint'; readonly name: string; readonly collection: string };

/** One object: its reference, key, and own content (children left out). */
export interface MetaObject {
  readonly ref: ObjectRef;
  readonly key: string;
  readonly value: JsonValue;
}

function part(s: string): string {
  return s.includes('/') ? JSON.stringify(s) : s;
}

function tablePart(t: QualifiedName): string {
  return `${part(t.schema)}.${part(t.name)}`;
}

/** The key of an object. See Note [Object keys] in declarations.ts. */
export function keyOf(ref: ObjectRef): string {
  switch (ref.kind) {
    case 'source':
      return `source/${part(ref.source)}`;
    case 'table':
    case 'table_configuration':
    case 'table_is_enum':
      return `${ref.kind}/${part(ref.source)}/${tablePart(ref.table)}`;
    case 'relationship':
    case 'computed_field':
    case 'remote_relationship':
    case 'event_trigger':
      return `${ref.kind}/${part(ref.source)}/${tablePart(ref.table)}/${part(ref.name)}`;
    case 'permission':
      return `permission/${part(ref.source)}/${tablePart(ref.table)}/${part(ref.role)}/${ref.operation}`;
    case 'function':
      return `function/${part(ref.source)}/${tablePart(ref.fn)}`;
    case 'function_permission':
      return `function_permission/${part(ref.source)}/${tablePart(ref.fn)}/${part(ref.role)}`;
    case 'remote_schema':
    case 'cron_trigger':
    case 'inherited_role':
    case 'action':
    case 'custom_type':
    case 'query_collection':
    case 'rest_endpoint':
      return `${ref.kind}/${part(ref.name)}`;
    case 'action_permission':
      return `action_permission/${part(ref.action)}/${part(ref.role)}`;
    case 'custom_types':
      return 'custom_types';
    case 'allowlist':
      return `allowlist/${part(ref.collection)}`;
  }
}

/** The container of an object (null for top-level objects). */
export function parentOf(ref: ObjectRef): ObjectRef | null {
  switch (ref.kind) {
    case 'table':
    case 'function':
      return { kind: 'source', source: ref.source };
    case 'table_configuration':
    case 'table_is_enum':
    case 'relationship':
    case 'computed_field':
    case 'remote_relationship':
    case 'permission':
    case 'event_trigger':
      return { kind: 'table', source: ref.source, table: ref.table };
    case 'function_permission':
      return { kind: 'function', source: ref.source, fn: ref.fn };
    case 'action_permission':
      return { kind: 'action', name: ref.action };
    case 'allowlist':
      return { kind: 'query_collection', name: ref.collection };
    case 'rest_endpoint':
      return ref.collection === '' ? null : { kind: 'query_collection', name: ref.collection };
    default:
      return null;
  }
}

/** Keys of an object's containers, nearest first. */
export function ancestorKeys(ref: ObjectRef): string[] {
  const out: string[] = [];
  for (let p = parentOf(ref); p !== null; p = parentOf(p)) out.push(keyOf(p));
  return out;
}

function without(o: object, ...keys: string[]): JsonObject {
  const out: Record<string, unknown> = { ...o };
  for (const k of keys) delete out[k];
  return out as JsonObject;
}

/** Every object of the document, in document order (containers before their children). */
export function flatten(doc: MetadataDocument): Map<string, MetaObject> {
  const out = new Map<string, MetaObject>();
  const add = (ref: ObjectRef, value: unknown): void => {
    const key = keyOf(ref);
    out.set(key, { ref, key, value: value as JsonValue });
  };
  for (const s of doc.sources) {
    const source = s.name;
    add({ kind: 'source', source }, without(s, 'tables', 'functions'));
    for (const t of s.tables) {
      const table = t.table;
      add({ kind: 'table', source, table }, { table });
      if (t.configuration !== undefined) add({ kind: 'table_configuration', source, table }, t.configuration);
      if (t.is_enum !== undefined) add({ kind: 'table_is_enum', source, table }, t.is_enum);
      for (const r of t.object_relationships) add({ kind: 'relationship', source, table, name: r.name }, { type: 'object', ...r });
      for (const r of t.array_relationships) add({ kind: 'relationship', source, table, name: r.name }, { type: 'array', ...r });
      for (const c of t.computed_fields) add({ kind: 'computed_field', source, table, name: c.name }, c);
      for (const r of t.remote_relationships) add({ kind: 'remote_relationship', source, table, name: String(r['name']) }, r);
      for (const operation of PERMISSION_OPS) {
        for (const p of t[`${operation}_permissions`]) add({ kind: 'permission', source, table, role: p.role, operation }, p);
      }
      for (const e of t.event_triggers) add({ kind: 'event_trigger', source, table, name: String(e['name']) }, e);
    }
    for (const f of s.functions) {
      add({ kind: 'function', source, fn: f.function }, without(f, 'permissions'));
      for (const p of f.permissions ?? []) add({ kind: 'function_permission', source, fn: f.function, role: p.role }, p);
    }
  }
  for (const r of doc.remote_schemas) add({ kind: 'remote_schema', name: String(r['name']) }, r);
  for (const c of doc.cron_triggers) add({ kind: 'cron_trigger', name: String(c['name']) }, c);
  for (const r of doc.inherited_roles) add({ kind: 'inherited_role', name: r.role_name }, r);
  for (const a of doc.actions) {
    const name = String(a['name']);
    add({ kind: 'action', name }, without(a, 'permissions'));
    for (const p of actionPermissions(a)) add({ kind: 'action_permission', action: name, role: String(p['role']) }, p);
  }
  for (const [name, t] of customTypesOf(doc.custom_types)) add({ kind: 'custom_type', name }, t);
  for (const c of doc.query_collections) add({ kind: 'query_collection', name: c.name }, c);
  for (const e of doc.allowlist) add({ kind: 'allowlist', collection: e.collection }, e);
  for (const e of doc.rest_endpoints) add({ kind: 'rest_endpoint', name: e.name, collection: endpointCollection(e) }, e);
  return out;
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function actionPermissions(a: JsonObject): JsonObject[] {
  const p = a['permissions'];
  return Array.isArray(p) ? p.filter(isObject) : [];
}

/** The collection a REST endpoint reads ('' when its definition does not say). */
export function endpointCollection(e: { readonly definition?: unknown }): string {
  const q = isObject(e.definition) ? e.definition['query'] : undefined;
  return isObject(q) && typeof q['collection_name'] === 'string' ? q['collection_name'] : '';
}

/**
 * Every custom type of a document's `custom_types`, by name, as `{section, type}`: one object per
 * type (Note [CustomTypes is a mergeable set] in api/v1alpha1/custom-types.ts).
 */
export function customTypesOf(ct: JsonObject | null): Map<string, JsonObject> {
  const out = new Map<string, JsonObject>();
  if (ct === null) return out;
  for (const section of CUSTOM_TYPE_SECTIONS) {
    const list = ct[section];
    if (!Array.isArray(list)) continue;
    for (const t of list) if (isObject(t) && typeof t['name'] === 'string') out.set(t['name'], { section, type: t });
  }
  return out;
}

/** JSON with object keys sorted: equal values give equal text. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) =>
    val !== null && typeof val === 'object' && !Array.isArray(val)
      ? Object.fromEntries(Object.entries(val as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : val,
  );
}

/** What changes between two documents, object by object (keys sorted). */
export interface DocumentDiff {
  readonly added: readonly string[];
  readonly changed: readonly string[];
  readonly removed: readonly string[];
}

/** Compares two documents object by object. */
export function diffDocuments(before: MetadataDocument, after: MetadataDocument): DocumentDiff {
  const a = flatten(before);
  const b = flatten(after);
  const added: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  for (const [k, o] of b) {
    const prev = a.get(k);
    if (prev === undefined) added.push(k);
    else if (canonicalJson(prev.value) !== canonicalJson(o.value)) changed.push(k);
  }
  for (const k of a.keys()) if (!b.has(k)) removed.push(k);
  return { added: added.sort(), changed: changed.sort(), removed: removed.sort() };
}

/** True when a diff has nothing in it. */
export function emptyDiff(d: DocumentDiff): boolean {
  return d.added.length + d.changed.length + d.removed.length === 0;
}

/** Human lines of a diff (`+ key`, `~ key`, `- key`), at most `max` of them. */
export function diffLines(d: DocumentDiff, max = 50): string[] {
  const all = [...d.added.map((k) => `+ ${k}`), ...d.changed.map((k) => `~ ${k}`), ...d.removed.map((k) => `- ${k}`)];
  return all.length <= max ? all : [...all.slice(0, max), `… and ${all.length - max} more`];
}

function noSource(source: string): string {
  return `source ${source} is not in the engine's metadata`;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] extends readonly (infer U)[] ? U[] : T[K] };

/**
 * A mutable working copy of a document that objects are removed from and upserted into by key.
 * Removing a container removes its children with it.
 */
export class DocumentDraft {
  readonly #base: MetadataDocument;
  readonly #sources: Mutable<SourceMetadata>[];
  readonly #tables = new Map<Mutable<SourceMetadata>, Mutable<TableMetadata>[]>();
  readonly #remoteSchemas: JsonObject[];
  readonly #cronTriggers: JsonObject[];
  readonly #inheritedRoles: InheritedRole[];
  readonly #actions: JsonObject[];
  /** Custom types by name (`{section, type}`), or null while untouched (the document's value is kept as it is). */
  #customTypes: Map<string, JsonObject> | null = null;
  readonly #collections: QueryCollection[];
  readonly #allowlist: AllowlistEntry[];
  readonly #endpoints: RestEndpoint[];

  constructor(doc: MetadataDocument) {
    this.#base = doc;
    this.#sources = doc.sources.map((s) => ({ ...s, tables: [...s.tables], functions: [...s.functions] }) as Mutable<SourceMetadata>);
    for (const s of this.#sources)
      this.#tables.set(
        s,
        (s.tables as TableMetadata[]).map((t) => this.#copyTable(t)),
      );
    this.#remoteSchemas = [...doc.remote_schemas];
    this.#cronTriggers = [...doc.cron_triggers];
    this.#inheritedRoles = [...doc.inherited_roles];
    this.#actions = [...doc.actions];
    this.#collections = [...doc.query_collections];
    this.#allowlist = [...doc.allowlist];
    this.#endpoints = [...doc.rest_endpoints];
  }

  #types(): Map<string, JsonObject> {
    this.#customTypes ??= customTypesOf(this.#base.custom_types);
    return this.#customTypes;
  }

  #action(name: string): number {
    return this.#actions.findIndex((a) => a['name'] === name);
  }

  #copyTable(t: TableMetadata): Mutable<TableMetadata> {
    const c: Record<string, unknown> = { ...t };
    for (const k of ['object_relationships', 'array_relationships', 'computed_fields', 'remote_relationships', 'event_triggers'] as const) c[k] = [...t[k]];
    for (const op of PERMISSION_OPS) c[`${op}_permissions`] = [...t[`${op}_permissions`]];
    return c as Mutable<TableMetadata>;
  }

  #source(name: string): Mutable<SourceMetadata> | undefined {
    return this.#sources.find((s) => s.name === name);
  }

  /** The schema a bare table name of source `name` is in (its kind's; postgres' for a source not declared, as v2). */
  #defaultSchema(name: string): string {
    const s = this.#source(name);
    return s === undefined ? V2_PG_DEFAULT_SCHEMA : DEFAULT_SCHEMA[s.kind];
  }

  #table(source: string, table: QualifiedName): Mutable<TableMetadata> | undefined {
    const s = this.#source(source);
    return s === undefined ? undefined : this.#tables.get(s)?.find((t) => sameTable(t.table, table));
  }

  #function(source: string, fn: QualifiedName): { list: FunctionMetadata[]; index: number } | undefined {
    const s = this.#source(source);
    if (s === undefined) return undefined;
    const list = s.functions as FunctionMetadata[];
    const index = list.findIndex((f) => sameTable(f.function, fn));
    return index < 0 ? undefined : { list, index };
  }

  /** Removes an object (and its children); a missing object is fine. */
  remove(ref: ObjectRef): void {
    const byName = <T>(list: T[], name: (x: T) => string, n: string): void => {
      const i = list.findIndex((x) => name(x) === n);
      if (i >= 0) list.splice(i, 1);
    };
    switch (ref.kind) {
      case 'source': {
        const i = this.#sources.findIndex((s) => s.name === ref.source);
        if (i >= 0) this.#sources.splice(i, 1);
        return;
      }
      case 'table': {
        const s = this.#source(ref.source);
        const list = s === undefined ? undefined : this.#tables.get(s);
        const i = list?.findIndex((t) => sameTable(t.table, ref.table)) ?? -1;
        if (list !== undefined && i >= 0) list.splice(i, 1);
        return;
      }
      case 'function': {
        const f = this.#function(ref.source, ref.fn);
        if (f !== undefined) f.list.splice(f.index, 1);
        return;
      }
      case 'function_permission': {
        const f = this.#function(ref.source, ref.fn);
        const fn = f?.list[f.index];
        if (f === undefined || fn === undefined) return;
        f.list[f.index] = { ...fn, permissions: (fn.permissions ?? []).filter((p) => p.role !== ref.role) };
        return;
      }
      case 'remote_schema':
        return byName(this.#remoteSchemas, (r) => String(r['name']), ref.name);
      case 'cron_trigger':
        return byName(this.#cronTriggers, (r) => String(r['name']), ref.name);
      case 'inherited_role':
        return byName(this.#inheritedRoles, (r) => r.role_name, ref.name);
      case 'action':
        return byName(this.#actions, (a) => String(a['name']), ref.name);
      case 'action_permission': {
        const i = this.#action(ref.action);
        const a = this.#actions[i];
        if (a !== undefined)
          this.#actions[i] = withActionPermissions(
            a,
            actionPermissions(a).filter((p) => p['role'] !== ref.role),
          );
        return;
      }
      case 'custom_type':
        this.#types().delete(ref.name);
        return;
      case 'custom_types':
        this.#types().clear();
        return;
      case 'query_collection': {
        // Its allow-list entry and the endpoints reading it go with it (the engine would list them inconsistent).
        byName(this.#collections, (c) => c.name, ref.name);
        byName(this.#allowlist, (e) => e.collection, ref.name);
        for (let i = this.#endpoints.length - 1; i >= 0; i--) if (endpointCollection(this.#endpoints[i] ?? {}) === ref.name) this.#endpoints.splice(i, 1);
        return;
      }
      case 'allowlist':
        return byName(this.#allowlist, (e) => e.collection, ref.collection);
      case 'rest_endpoint':
        return byName(this.#endpoints, (e) => e.name, ref.name);
      default:
        break;
    }
    const t = this.#table(ref.source, ref.table) as Record<string, unknown> | undefined;
    if (t === undefined) return;
    const tbl = t as unknown as Mutable<TableMetadata>;
    switch (ref.kind) {
      case 'table_configuration':
        delete t['configuration'];
        return;
      case 'table_is_enum':
        delete t['is_enum'];
        return;
      case 'relationship':
        byName(tbl.object_relationships, (r) => r.name, ref.name);
        byName(tbl.array_relationships, (r) => r.name, ref.name);
        return;
      case 'computed_field':
        return byName(tbl.computed_fields, (c) => c.name, ref.name);
      case 'remote_relationship':
        return byName(tbl.remote_relationships, (r) => String(r['name']), ref.name);
      case 'permission':
        return byName(tbl[`${ref.operation}_permissions`] as PermissionEntry<unknown>[], (p) => p.role, ref.role);
      case 'event_trigger':
        return byName(tbl.event_triggers, (e) => String(e['name']), ref.name);
    }
  }

  /**
   * Creates or replaces an object's own content, keeping its children. Answers why not when its
   * container is missing (the object is then not added).
   */
  upsert(o: MetaObject): string | null {
    const ref = o.ref;
    const value = o.value as Record<string, unknown>;
    const upsertByName = <T>(list: T[], name: (x: T) => string, entry: T): void => {
      const i = list.findIndex((x) => name(x) === name(entry));
      if (i >= 0) list[i] = entry;
      else list.push(entry);
    };
    switch (ref.kind) {
      case 'source': {
        const s = this.#source(ref.source);
        if (s === undefined) {
          const fresh = { ...value, name: ref.source, tables: [], functions: [] } as unknown as Mutable<SourceMetadata>;
          this.#sources.push(fresh);
          this.#tables.set(fresh, []);
          return null;
        }
        for (const k of Object.keys(s)) if (k !== 'tables' && k !== 'functions' && k !== 'name') delete (s as Record<string, unknown>)[k];
        Object.assign(s, without(value, 'tables', 'functions'));
        return null;
      }
      case 'remote_schema':
        upsertByName(this.#remoteSchemas, (r) => String(r['name']), value as JsonObject);
        return null;
      case 'cron_trigger':
        upsertByName(this.#cronTriggers, (r) => String(r['name']), value as JsonObject);
        return null;
      case 'inherited_role':
        upsertByName(this.#inheritedRoles, (r) => r.role_name, value as unknown as InheritedRole);
        return null;
      case 'action': {
        // Its permissions are parts: they stay as they are (Note [Objects and parts]).
        const i = this.#action(ref.name);
        const old = this.#actions[i];
        const entry = withActionPermissions(without(value, 'permissions'), old === undefined ? [] : actionPermissions(old));
        if (old === undefined) this.#actions.push(entry);
        else this.#actions[i] = entry;
        return null;
      }
      case 'action_permission': {
        const i = this.#action(ref.action);
        const a = this.#actions[i];
        if (a === undefined) return `action ${ref.action} is not in the engine's metadata`;
        const perms = actionPermissions(a);
        upsertByName(perms, (p) => String(p['role']), value as JsonObject);
        this.#actions[i] = withActionPermissions(a, perms);
        return null;
      }
      case 'custom_type':
        this.#types().set(ref.name, value as JsonObject);
        return null;
      case 'custom_types':
        return 'the custom types as a whole are not declared by a resource';
      case 'query_collection':
        upsertByName(this.#collections, (c) => c.name, value as unknown as QueryCollection);
        return null;
      case 'allowlist':
        if (!this.#collections.some((c) => c.name === ref.collection)) return noCollection(ref.collection);
        upsertByName(this.#allowlist, (e) => e.collection, value as unknown as AllowlistEntry);
        return null;
      case 'rest_endpoint':
        if (!this.#collections.some((c) => c.name === ref.collection)) return noCollection(ref.collection);
        upsertByName(this.#endpoints, (e) => e.name, value as unknown as RestEndpoint);
        return null;
      case 'table': {
        const s = this.#source(ref.source);
        if (s === undefined) return noSource(ref.source);
        if (this.#table(ref.source, ref.table) === undefined) this.#tables.get(s)?.push(this.#copyTable(emptyTable(ref.table)));
        return null;
      }
      case 'function': {
        const s = this.#source(ref.source);
        if (s === undefined) return noSource(ref.source);
        const f = this.#function(ref.source, ref.fn);
        const permissions = f === undefined ? [] : (f.list[f.index]?.permissions ?? []);
        const entry = { ...value, function: ref.fn, permissions } as unknown as FunctionMetadata;
        if (f === undefined) (s.functions as FunctionMetadata[]).push(entry);
        else f.list[f.index] = entry;
        return null;
      }
      case 'function_permission': {
        const f = this.#function(ref.source, ref.fn);
        const fn = f?.list[f.index];
        if (f === undefined || fn === undefined)
          return `function ${formatTableName(ref.fn, this.#defaultSchema(ref.source))} is not tracked in source ${ref.source}`;
        const perms = [...(fn.permissions ?? [])];
        upsertByName(perms, (p) => p.role, value as unknown as { role: string });
        f.list[f.index] = { ...fn, permissions: perms };
        return null;
      }
      default:
        break;
    }
    const t = this.#table(ref.source, ref.table);
    if (t === undefined) {
      return this.#source(ref.source) === undefined
        ? noSource(ref.source)
        : `table ${formatTableName(ref.table, this.#defaultSchema(ref.source))} is not tracked in source ${ref.source}`;
    }
    switch (ref.kind) {
      case 'table_configuration':
        (t as Record<string, unknown>)['configuration'] = value;
        return null;
      case 'table_is_enum':
        (t as Record<string, unknown>)['is_enum'] = o.value;
        return null;
      case 'relationship': {
        const { type, ...rel } = value as { type: 'object' | 'array' } & Record<string, unknown>;
        const entry = rel as unknown as RelationshipMetadata;
        const [own, other] = type === 'array' ? [t.array_relationships, t.object_relationships] : [t.object_relationships, t.array_relationships];
        const i = other.findIndex((r) => r.name === ref.name);
        if (i >= 0) other.splice(i, 1);
        upsertByName(own, (r) => r.name, entry);
        return null;
      }
      case 'computed_field':
        upsertByName(t.computed_fields, (c) => c.name, value as never);
        return null;
      case 'remote_relationship':
        upsertByName(t.remote_relationships, (r) => String(r['name']), value as JsonObject);
        return null;
      case 'permission':
        upsertByName(t[`${ref.operation}_permissions`] as PermissionEntry<unknown>[], (p) => p.role, value as unknown as PermissionEntry<unknown>);
        return null;
      case 'event_trigger':
        upsertByName(t.event_triggers, (e) => String(e['name']), value as JsonObject);
        return null;
    }
  }

  /** The edited document. */
  build(): MetadataDocument {
    return {
      ...this.#base,
      sources: this.#sources.map((s) => ({ ...s, tables: this.#tables.get(s) ?? [] }) as SourceMetadata),
      remote_schemas: this.#remoteSchemas,
      cron_triggers: this.#cronTriggers,
      inherited_roles: this.#inheritedRoles,
      actions: this.#actions,
      custom_types: this.#customTypes === null ? this.#base.custom_types : customTypesDocument(this.#customTypes, this.#base.custom_types),
      query_collections: this.#collections,
      allowlist: this.#allowlist,
      rest_endpoints: this.#endpoints,
    };
  }
}

function noCollection(name: string): string {
  return `query collection ${name} is not in the engine's metadata`;
}

/** An action entry with these permissions (the key left out when there are none, as v2 exports it). */
function withActionPermissions(a: JsonObject, permissions: readonly JsonObject[]): JsonObject {
  const out = without(a, 'permissions');
  return permissions.length === 0 ? out : { ...out, permissions: [...permissions] };
}

/** The document's `custom_types` from types by name; null when there are none and there were none. */
function customTypesDocument(types: ReadonlyMap<string, JsonObject>, base: JsonObject | null): JsonObject | null {
  if (types.size === 0 && base === null) return null;
  const sections: Partial<Record<CustomTypeSection, JsonValue[]>> = {};
  for (const v of types.values()) {
    const section = v['section'] as CustomTypeSection;
    (sections[section] ??= []).push(v['type'] as JsonValue);
  }
  const out: Record<string, JsonValue> = {};
  for (const s of CUSTOM_TYPE_SECTIONS) if (sections[s] !== undefined) out[s] = sections[s];
  return out;
}
