/**
 * Maps the engine's inconsistent objects (`get_inconsistent_metadata`) back to object keys (see
 * Note [Object keys]) and from there to the resources that declared them.
 *
 * v2 compat: an inconsistent object is `{type, name, definition, reason}`; `name` reads
 * `source S`, `table T in source S`, `relationship R in table T in source S`,
 * `permission T.role.op in source S` (T is `name` in its source's kind's default schema, else
 * `schema.name`: `DEFAULT_SCHEMA`, public on postgres, dbo on MSSQL),
 * `function F in source S`, `function permission F.role in source S`,
 * `computed field C in table T in source S`, `inherited role R`, and remote schemas, event and
 * cron triggers carry their name in `definition.name`. Actions, action permissions, custom types
 * (one object: `custom types`), query collections (or one query of one: `query Q in query
 * collection C`, mapped to the collection), allow-list entries and REST endpoints are named as
 * `get_inconsistent_metadata` names them (`action A`, `rest endpoint E`, ...). The engine may also
 * send its internal `id` (a JSON array); it is used when present because it is exact.
 */
import {
  DEFAULT_SCHEMA,
  parseTableName,
  V2_PG_DEFAULT_SCHEMA,
  type MetadataDocument,
  type SourceMetadata,
  type TableNameInput,
} from '../../engine/model/document.ts';
import type { InconsistentObject } from '../../engine/metadata-client/client.ts';
import type { QualifiedName } from './declarations.ts';
import { ancestorKeys, keyOf, type ObjectRef } from './objects.ts';

/** One entry of `inconsistent_objects`. */
export type { InconsistentObject };

type Op = 'select' | 'insert' | 'update' | 'delete';

/** The kind of each source of the document the engine was given (its tables print with that kind's default schema). */
export type SourceKinds = ReadonlyMap<string, SourceMetadata['kind']>;

/** The kinds of `doc`'s sources. */
export function sourceKinds(doc: MetadataDocument): SourceKinds {
  return new Map(doc.sources.map((s) => [s.name, s.kind]));
}

/** The schema a bare table name of `source` is in; a source the document lacks is postgres' (v2 compat: a source without a kind). */
function defaultSchemaOf(kinds: SourceKinds, source: string): string {
  const kind = kinds.get(source);
  return kind === undefined ? V2_PG_DEFAULT_SCHEMA : DEFAULT_SCHEMA[kind];
}

/** A table as the engine printed it (`name` in the default schema, else `schema.name`). */
function tableFromText(t: string, defaultSchema: string): QualifiedName {
  const dot = t.indexOf('.');
  return dot < 0 ? { schema: defaultSchema, name: t } : { schema: t.slice(0, dot), name: t.slice(dot + 1) };
}

function fromId(id: string): ObjectRef | null {
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
      return { kind: 'source', source };
    case 'table':
      return { kind: 'table', source, table };
    case 'object_relation':
    case 'array_relation':
      return { kind: 'relationship', source, table, name: a };
    case 'computed_field':
      return { kind: 'computed_field', source, table, name: a };
    case 'permission':
      return { kind: 'permission', source, table, role: a, operation: b as Op };
    case 'function':
      return { kind: 'function', source, fn: table };
    case 'function_permission':
      return { kind: 'function_permission', source, fn: table, role: a };
    case 'inherited_role':
      return { kind: 'inherited_role', name: source };
    case 'action':
      return { kind: 'action', name: source };
    case 'action_permission':
      return { kind: 'action_permission', action: source, role: schema };
    case 'custom_types':
      return { kind: 'custom_types' };
    case 'query_collection':
      return { kind: 'query_collection', name: source };
    case 'allowlist':
      return { kind: 'allowlist', collection: source };
    case 'rest_endpoint':
      return { kind: 'rest_endpoint', name: source, collection: '' };
    case 'cron_trigger':
      return { kind: 'cron_trigger', name: source };
    default:
      return null;
  }
}

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function sourceOf(def: Record<string, unknown>): string {
  return typeof def['source'] === 'string' ? def['source'] : 'default';
}

/** The object an inconsistency is about; null when it names nothing a resource can declare. */
export function refOfInconsistency(o: InconsistentObject, kinds: SourceKinds): ObjectRef | null {
  const fromText = (t: string, source: string): QualifiedName => tableFromText(t, defaultSchemaOf(kinds, source));
  const parse = (t: unknown, source: string): QualifiedName => parseTableName(t as TableNameInput, defaultSchemaOf(kinds, source));
  if (typeof o.id === 'string') {
    const r = fromId(o.id);
    if (r !== null) return r;
  }
  const def = record(o.definition);
  const name = o.name ?? '';
  let m: RegExpMatchArray | null;
  if (o.type === 'source') {
    m = /^source (.+)$/.exec(name);
    const src = m?.[1] ?? (typeof o.definition === 'string' ? o.definition : typeof def['name'] === 'string' ? def['name'] : null);
    return src === null ? null : { kind: 'source', source: src };
  }
  if (o.type === 'table') {
    m = /^table (.+) in source (.+)$/.exec(name);
    if (m?.[1] !== undefined && m[2] !== undefined) return { kind: 'table', source: m[2], table: fromText(m[1], m[2]) };
    const t = def['table'] ?? def;
    return typeof record(t)['name'] === 'string' || typeof t === 'string' ? { kind: 'table', source: sourceOf(def), table: parse(t, sourceOf(def)) } : null;
  }
  if (o.type === 'object_relation' || o.type === 'array_relation') {
    m = /^relationship (.+) in table (.+) in source (.+)$/.exec(name);
    if (m?.[1] !== undefined && m[2] !== undefined && m[3] !== undefined)
      return { kind: 'relationship', source: m[3], table: fromText(m[2], m[3]), name: m[1] };
    if (def['table'] !== undefined && typeof def['name'] === 'string')
      return { kind: 'relationship', source: sourceOf(def), table: parse(def['table'], sourceOf(def)), name: def['name'] };
    return null;
  }
  if (o.type === 'computed_field') {
    m = /^computed field (.+) in table (.+) in source (.+)$/.exec(name);
    if (m?.[1] !== undefined && m[2] !== undefined && m[3] !== undefined)
      return { kind: 'computed_field', source: m[3], table: fromText(m[2], m[3]), name: m[1] };
    return null;
  }
  const perm = /^(select|insert|update|delete)_permission$/.exec(o.type);
  if (perm?.[1] !== undefined) {
    const op = perm[1] as Op;
    m = /^permission (.+)\.([^.]+)\.(select|insert|update|delete) in source (.+)$/.exec(name);
    if (m?.[1] !== undefined && m[2] !== undefined && m[4] !== undefined)
      return { kind: 'permission', source: m[4], table: fromText(m[1], m[4]), role: m[2], operation: op };
    if (def['table'] !== undefined && typeof def['role'] === 'string') {
      return { kind: 'permission', source: sourceOf(def), table: parse(def['table'], sourceOf(def)), role: def['role'], operation: op };
    }
    return null;
  }
  if (o.type === 'function') {
    m = /^function (.+) in source (.+)$/.exec(name);
    if (m?.[1] !== undefined && m[2] !== undefined) return { kind: 'function', source: m[2], fn: fromText(m[1], m[2]) };
    if (def['function'] !== undefined) return { kind: 'function', source: sourceOf(def), fn: parse(def['function'], sourceOf(def)) };
    return null;
  }
  if (o.type === 'function_permission') {
    m = /^function permission (.+)\.([^.]+) in source (.+)$/.exec(name);
    if (m?.[1] !== undefined && m[2] !== undefined && m[3] !== undefined)
      return { kind: 'function_permission', source: m[3], fn: fromText(m[1], m[3]), role: m[2] };
    return null;
  }
  if (o.type === 'inherited_role') {
    const n = typeof def['role_name'] === 'string' ? def['role_name'] : /^inherited role (.+)$/.exec(name)?.[1];
    return n === undefined ? null : { kind: 'inherited_role', name: n };
  }
  if (o.type === 'event_trigger') {
    const trig = typeof def['name'] === 'string' ? def['name'] : /^event_trigger (\S+)/.exec(name)?.[1];
    if (trig === undefined || def['table'] === undefined) return null;
    return { kind: 'event_trigger', source: sourceOf(def), table: parse(def['table'], sourceOf(def)), name: trig };
  }
  if (o.type === 'custom_types') return { kind: 'custom_types' };
  if (o.type === 'action') {
    const n = typeof def['name'] === 'string' ? def['name'] : /^action (.+)$/.exec(name)?.[1];
    return n === undefined ? null : { kind: 'action', name: n };
  }
  if (o.type === 'action_permission') {
    m = /^action permission ([^.]+)\.(.+)$/.exec(name);
    return m?.[1] !== undefined && m[2] !== undefined ? { kind: 'action_permission', action: m[1], role: m[2] } : null;
  }
  if (o.type === 'query_collection') {
    m = /^(?:query .+ in )?query collection (.+)$/.exec(name);
    return m?.[1] === undefined ? null : { kind: 'query_collection', name: m[1] };
  }
  if (o.type === 'allowlist') {
    const c = typeof def['collection'] === 'string' ? def['collection'] : /^allowlist entry for query collection (.+)$/.exec(name)?.[1];
    return c === undefined ? null : { kind: 'allowlist', collection: c };
  }
  if (o.type === 'rest_endpoint') {
    const n = typeof def['name'] === 'string' ? def['name'] : /^rest endpoint (.+)$/.exec(name)?.[1];
    return n === undefined ? null : { kind: 'rest_endpoint', name: n, collection: '' };
  }
  if (o.type === 'remote_schema' || o.type === 'cron_trigger') {
    const n = typeof def['name'] === 'string' ? def['name'] : new RegExp(`^${o.type} (.+)$`).exec(name)?.[1];
    return n === undefined ? null : { kind: o.type, name: n };
  }
  return null;
}

/** The object key an inconsistency is about (null when it names nothing a resource declares). */
export function keyOfInconsistency(o: InconsistentObject, kinds: SourceKinds): string | null {
  const r = refOfInconsistency(o, kinds);
  return r === null ? null : keyOf(r);
}

/** Reasons of each inconsistent key (several objects can map to one key). */
export function inconsistenciesByKey(list: readonly InconsistentObject[], kinds: SourceKinds): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const o of list) {
    const key = keyOfInconsistency(o, kinds);
    if (key === null) continue;
    const what = o.name !== undefined && o.name !== '' ? `${o.name}: ` : '';
    const arr = out.get(key) ?? [];
    arr.push(`${what}${o.reason}`);
    out.set(key, arr);
  }
  return out;
}

/**
 * The engine's reasons why a resource's objects do not work: their own inconsistencies (the main
 * object and its parts), or those of what the main object depends on (a permission on a table of
 * an inconsistent source). Null when consistent.
 */
export function inconsistencyMessage(main: ObjectRef, keys: readonly string[], byKey: ReadonlyMap<string, readonly string[]>): string | null {
  // The engine reports the custom types as one object: a resource that declares any of them shares it.
  const shared = keys.some((k) => k.startsWith('custom_type/')) ? ['custom_types'] : [];
  const own = [...keys, ...shared].flatMap((k) => byKey.get(k) ?? []);
  if (own.length > 0) return own.join('; ');
  for (const p of ancestorKeys(main)) {
    const parent = byKey.get(p);
    if (parent !== undefined) return `depends on an inconsistent object: ${parent.join('; ')}`;
  }
  return null;
}
