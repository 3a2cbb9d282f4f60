/**
 * Maps the engine's inconsistent objects (`get_inconsistent_metadata`) back to object keys (see
 * Note [Object keys]) and from there to the resources that declared them.
 *
 * v2 compat: an inconsistent object is `{type, name, definition, reason}`; `name` reads
 * `source S`, `table T in source S`, `relationship R in table T in source S`,
 * `permission T.role.op in source S` (T is `name` in schema public, else `schema.name`), and
 * remote schemas, event and cron triggers carry their name in `definition.name`. The engine may
 * also send its internal `id` (a JSON array); it is used when present because it is exact.
 */
import { parseTableName, type TableNameInput } from '../../engine/metadata/document.ts';
import {
  cronTriggerKey,
  eventTriggerKey,
  permissionKey,
  remoteSchemaKey,
  sourceKey,
  tableKey,
  type QualifiedName,
} from './declarations.ts';

/** One entry of `inconsistent_objects`. */
export interface InconsistentObject {
  readonly type: string;
  readonly name?: string;
  readonly reason: string;
  readonly definition?: unknown;
  readonly id?: string;
}

function tableFromText(t: string): QualifiedName {
  const dot = t.indexOf('.');
  return dot < 0 ? { schema: 'public', name: t } : { schema: t.slice(0, dot), name: t.slice(dot + 1) };
}

function fromId(id: string): string | null {
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
      return sourceKey(source);
    case 'table':
    case 'object_relation':
    case 'array_relation':
      return tableKey(source, table);
    case 'permission':
      return permissionKey(source, table, a, b);
    default:
      return null;
  }
}

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/**
 * The object key an inconsistency is about. Relationships map to their table (a TrackedTable
 * declares them). Null when it names nothing a resource can declare.
 */
export function keyOfInconsistency(o: InconsistentObject): string | null {
  if (typeof o.id === 'string') {
    const k = fromId(o.id);
    if (k !== null) return k;
  }
  const def = record(o.definition);
  const name = o.name ?? '';
  let m: RegExpMatchArray | null;
  if (o.type === 'source') {
    m = /^source (.+)$/.exec(name);
    const src = m?.[1] ?? (typeof o.definition === 'string' ? o.definition : typeof def['name'] === 'string' ? def['name'] : null);
    return src === null ? null : sourceKey(src);
  }
  if (o.type === 'table') {
    m = /^table (.+) in source (.+)$/.exec(name);
    if (m?.[1] !== undefined && m[2] !== undefined) return tableKey(m[2], tableFromText(m[1]));
    const t = def['table'] ?? def;
    const src = typeof def['source'] === 'string' ? def['source'] : 'default';
    return typeof record(t)['name'] === 'string' || typeof t === 'string' ? tableKey(src, parseTableName(t as TableNameInput)) : null;
  }
  if (o.type === 'object_relation' || o.type === 'array_relation') {
    m = /^relationship .+ in table (.+) in source (.+)$/.exec(name);
    if (m?.[1] !== undefined && m[2] !== undefined) return tableKey(m[2], tableFromText(m[1]));
    if (def['table'] !== undefined) return tableKey(typeof def['source'] === 'string' ? def['source'] : 'default', parseTableName(def['table'] as TableNameInput));
    return null;
  }
  const perm = /^(select|insert|update|delete)_permission$/.exec(o.type);
  if (perm?.[1] !== undefined) {
    const op = perm[1];
    m = /^permission (.+)\.([^.]+)\.(select|insert|update|delete) in source (.+)$/.exec(name);
    if (m?.[1] !== undefined && m[2] !== undefined && m[4] !== undefined) return permissionKey(m[4], tableFromText(m[1]), m[2], op);
    if (def['table'] !== undefined && typeof def['role'] === 'string') {
      return permissionKey(typeof def['source'] === 'string' ? def['source'] : 'default', parseTableName(def['table'] as TableNameInput), def['role'], op);
    }
    return null;
  }
  if (o.type === 'event_trigger') {
    const trig = typeof def['name'] === 'string' ? def['name'] : /^event_trigger (\S+)/.exec(name)?.[1];
    if (trig === undefined || def['table'] === undefined) return null;
    return eventTriggerKey(typeof def['source'] === 'string' ? def['source'] : 'default', parseTableName(def['table'] as TableNameInput), trig);
  }
  if (o.type === 'remote_schema') {
    const n = typeof def['name'] === 'string' ? def['name'] : /^remote_schema (.+)$/.exec(name)?.[1];
    return n === undefined ? null : remoteSchemaKey(n);
  }
  if (o.type === 'cron_trigger') {
    const n = typeof def['name'] === 'string' ? def['name'] : /^cron_trigger (.+)$/.exec(name)?.[1];
    return n === undefined ? null : cronTriggerKey(n);
  }
  return null;
}

/** The keys an object key depends on, nearest first (a permission's table, then its source). */
export function parentKeys(key: string): string[] {
  const [kind, ...rest] = splitKey(key);
  const source = rest[0];
  const table = rest[1];
  if (source === undefined) return [];
  if (kind === 'permission' || kind === 'event_trigger') return table === undefined ? [] : [`table/${source}/${table}`, `source/${source}`];
  if (kind === 'table') return [`source/${source}`];
  return [];
}

/** Splits a key on `/` outside JSON-quoted parts. */
function splitKey(key: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < key.length; i++) {
    const c = key[i];
    if (c === '"' && key[i - 1] !== '\\') quoted = !quoted;
    if (c === '/' && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}

/** Reasons of each inconsistent key (several objects can map to one key: a table and its relationships). */
export function inconsistenciesByKey(list: readonly InconsistentObject[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const o of list) {
    const key = keyOfInconsistency(o);
    if (key === null) continue;
    const what = o.name !== undefined && o.name !== '' ? `${o.name}: ` : '';
    const arr = out.get(key) ?? [];
    arr.push(`${what}${o.reason}`);
    out.set(key, arr);
  }
  return out;
}

/**
 * The engine's reasons why the object `key` does not work: its own inconsistencies, or those of
 * what it depends on (a permission on a table of an inconsistent source). Null when consistent.
 */
export function inconsistencyMessage(key: string, byKey: ReadonlyMap<string, readonly string[]>): string | null {
  const own = byKey.get(key);
  if (own !== undefined) return own.join('; ');
  for (const p of parentKeys(key)) {
    const parent = byKey.get(p);
    if (parent !== undefined) return `depends on an inconsistent object: ${parent.join('; ')}`;
  }
  return null;
}
