/**
 * Folds every resource that targets one engine into the metadata document to apply.
 *
 * Note [Fold and replace]
 * The controller applies metadata as a whole document: export (with resource_version) → fold the
 * resources into it → replace_metadata v2 with that resource_version and
 * allow_inconsistent_metadata. The fold is pure and starts from the exported document, so:
 * - objects no resource declares are left as they are (policy Merge), or removed (Exclusive);
 * - objects the controller applied before (Engine status.managedObjects) that no resource
 *   declares any more are removed — this is how a deleted resource (policy Delete), a renamed
 *   table or a moved permission disappears from the engine;
 * - a resource being deleted with policy Orphan is dropped from managedObjects but its object
 *   stays in the engine;
 * - when two resources declare the same object, the older one wins and the other is reported
 *   as a Conflict;
 * - while any resource of the engine is invalid or in conflict, pruning of previously managed
 *   objects is paused (only explicit deletions are removed), so a typo never deletes metadata.
 * Exclusive only governs the sections the kinds manage (sources with their tables, permissions
 * and event triggers; remote schemas; cron triggers); actions, collections and the rest are
 * always left alone.
 */
import {
  emptyTable,
  formatTableName,
  sameTable,
  toWireDocument,
  type JsonObject,
  type MetadataDocument,
  type PermissionEntry,
  type SourceMetadata,
  type TableMetadata,
} from '../../engine/metadata/document.ts';
import type { ManagementPolicy } from '../api/v1alpha1/engine.ts';
import { PERMISSION_OPERATIONS } from '../api/v1alpha1/permission.ts';
import { TRACKED_TABLE_KEYS } from '../api/v1alpha1/tracked-table.ts';
import {
  cronTriggerKey,
  declare,
  deletionPolicyOf,
  eventTriggerKey,
  permissionKey,
  remoteSchemaKey,
  resourceKey,
  sourceKey,
  tableKey,
  type Declared,
  type TargetResource,
} from './declarations.ts';

/** What the fold decided for one resource. */
export type ResourceFold =
  | { readonly state: 'applied'; readonly objectKey: string }
  | { readonly state: 'invalid'; readonly message: string }
  | { readonly state: 'conflict'; readonly objectKey: string; readonly message: string }
  | { readonly state: 'dependency'; readonly objectKey: string; readonly message: string }
  | { readonly state: 'removed'; readonly objectKey: string | null }
  | { readonly state: 'orphaned'; readonly objectKey: string | null };

/** Input of {@link foldResources}. */
export interface FoldInput {
  readonly current: MetadataDocument;
  /** Every resource targeting the engine, including those being deleted. */
  readonly resources: readonly TargetResource[];
  /** status.managedObjects of the Engine. */
  readonly previousManaged: readonly string[];
  readonly policy: ManagementPolicy;
}

/** Output of {@link foldResources}. */
export interface FoldResult {
  readonly desired: MetadataDocument;
  /** The new status.managedObjects (sorted). */
  readonly managed: readonly string[];
  /** Per resource key (`Kind/ns/name`). */
  readonly results: ReadonlyMap<string, ResourceFold>;
  /** False when desired equals current (then nothing is written). */
  readonly changed: boolean;
}

function olderFirst(a: TargetResource, b: TargetResource): number {
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  const ka = resourceKey(a);
  const kb = resourceKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** Every key of the objects the kinds manage that a document holds. */
export function documentKeys(doc: MetadataDocument): Set<string> {
  const keys = new Set<string>();
  for (const s of doc.sources) {
    keys.add(sourceKey(s.name));
    for (const t of s.tables) {
      keys.add(tableKey(s.name, t.table));
      for (const op of PERMISSION_OPERATIONS) for (const p of t[`${op}_permissions`]) keys.add(permissionKey(s.name, t.table, p.role, op));
      for (const e of t.event_triggers) keys.add(eventTriggerKey(s.name, t.table, String(e['name'])));
    }
  }
  for (const r of doc.remote_schemas) keys.add(remoteSchemaKey(String(r['name'])));
  for (const c of doc.cron_triggers) keys.add(cronTriggerKey(String(c['name'])));
  return keys;
}

function prune(doc: MetadataDocument, drop: ReadonlySet<string>): MetadataDocument {
  if (drop.size === 0) return doc;
  const sources = doc.sources
    .filter((s) => !drop.has(sourceKey(s.name)))
    .map((s): SourceMetadata => {
      const tables = s.tables
        .filter((t) => !drop.has(tableKey(s.name, t.table)))
        .map((t): TableMetadata => {
          const out: Record<string, unknown> = { ...t };
          for (const op of PERMISSION_OPERATIONS) {
            out[`${op}_permissions`] = t[`${op}_permissions`].filter((p) => !drop.has(permissionKey(s.name, t.table, p.role, op)));
          }
          out['event_triggers'] = t.event_triggers.filter((e) => !drop.has(eventTriggerKey(s.name, t.table, String(e['name']))));
          return out as unknown as TableMetadata;
        });
      return { ...s, tables };
    });
  return {
    ...doc,
    sources,
    remote_schemas: doc.remote_schemas.filter((r) => !drop.has(remoteSchemaKey(String(r['name'])))),
    cron_triggers: doc.cron_triggers.filter((c) => !drop.has(cronTriggerKey(String(c['name'])))),
  };
}

/** A mutable working copy of the document, edited by upserts. */
interface Draft {
  sources: SourceMetadata[];
  remote_schemas: JsonObject[];
  cron_triggers: JsonObject[];
}

function upsertByName(list: JsonObject[], entry: JsonObject): void {
  const i = list.findIndex((x) => x['name'] === entry['name']);
  if (i >= 0) list[i] = entry;
  else list.push(entry);
}

function findSource(d: Draft, name: string): number {
  return d.sources.findIndex((s) => s.name === name);
}

/** Applies one declaration to the draft; answers an error message when a dependency is missing. */
function upsert(d: Draft, decl: Declared): string | null {
  switch (decl.type) {
    case 'source': {
      const i = findSource(d, decl.source);
      const prev = i >= 0 ? d.sources[i] : undefined;
      const next = { ...decl.entry, tables: prev?.tables ?? [], functions: prev?.functions ?? [] } as unknown as SourceMetadata;
      if (prev !== undefined && i >= 0) d.sources[i] = next;
      else d.sources.push(next);
      return null;
    }
    case 'remote_schema':
      upsertByName(d.remote_schemas, decl.entry);
      return null;
    case 'cron_trigger':
      upsertByName(d.cron_triggers, decl.entry);
      return null;
    default:
      break;
  }
  const si = findSource(d, decl.source);
  const src = d.sources[si];
  if (src === undefined) return `source ${decl.source} is not in the engine's metadata`;
  const tables = [...src.tables];
  const ti = tables.findIndex((t) => sameTable(t.table, decl.table));
  if (decl.type === 'table') {
    const base: Record<string, unknown> = { ...(ti >= 0 ? tables[ti] : emptyTable(decl.table)) };
    for (const k of TRACKED_TABLE_KEYS) {
      const v = (decl.fields as Record<string, unknown>)[k];
      if (v !== undefined) base[k] = v;
      else if (k === 'configuration' || k === 'is_enum') delete base[k];
      else base[k] = [];
    }
    if (ti >= 0) tables[ti] = base as unknown as TableMetadata;
    else tables.push(base as unknown as TableMetadata);
  } else {
    const table = tables[ti];
    if (table === undefined) return `table ${formatTableName(decl.table)} is not tracked in source ${decl.source}`;
    const out: Record<string, unknown> = { ...table };
    if (decl.type === 'permission') {
      const listKey = `${decl.operation}_permissions` as const;
      const list = [...table[listKey]] as PermissionEntry<unknown>[];
      const pi = list.findIndex((p) => p.role === decl.entry.role);
      if (pi >= 0) list[pi] = decl.entry;
      else list.push(decl.entry);
      out[listKey] = list;
    } else {
      const list = [...table.event_triggers];
      upsertByName(list, decl.entry);
      out['event_triggers'] = list;
    }
    tables[ti] = out as unknown as TableMetadata;
  }
  d.sources[si] = { ...src, tables };
  return null;
}

const UPSERT_ORDER: readonly Declared['type'][] = ['source', 'table', 'permission', 'event_trigger', 'remote_schema', 'cron_trigger'];

/** JSON with object keys sorted: equal documents give equal text. */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, val: unknown) =>
    val !== null && typeof val === 'object' && !Array.isArray(val)
      ? Object.fromEntries(Object.entries(val as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : val,
  );
}

/** Folds the resources into the current document. See Note [Fold and replace]. */
export function foldResources(input: FoldInput): FoldResult {
  const results = new Map<string, ResourceFold>();
  const claimed = new Map<string, { decl: Declared; owner: string }>();
  const deletedKeys = new Set<string>();
  const orphanedKeys = new Set<string>();
  let blocked = false;

  for (const r of [...input.resources].sort(olderFirst)) {
    const rk = resourceKey(r);
    const d = declare(r);
    if (r.metadata.deletionTimestamp !== undefined) {
      const key = d.ok ? d.declared.key : null;
      if (deletionPolicyOf(r) === 'Orphan') {
        if (key !== null) orphanedKeys.add(key);
        results.set(rk, { state: 'orphaned', objectKey: key });
      } else {
        if (key !== null) deletedKeys.add(key);
        results.set(rk, { state: 'removed', objectKey: key });
      }
      continue;
    }
    if (!d.ok) {
      blocked = true;
      results.set(rk, { state: 'invalid', message: d.message });
      continue;
    }
    const owner = claimed.get(d.declared.key);
    if (owner !== undefined) {
      blocked = true;
      results.set(rk, { state: 'conflict', objectKey: d.declared.key, message: `${owner.owner} already declares ${d.declared.key}` });
      continue;
    }
    claimed.set(d.declared.key, { decl: d.declared, owner: rk });
  }

  const declaredKeys = new Set(claimed.keys());
  const drop = new Set<string>();
  for (const k of deletedKeys) if (!declaredKeys.has(k)) drop.add(k);
  if (!blocked) {
    const candidates = input.policy === 'Exclusive' ? documentKeys(input.current) : new Set(input.previousManaged);
    for (const k of candidates) if (!declaredKeys.has(k) && !orphanedKeys.has(k)) drop.add(k);
  }

  const pruned = prune(input.current, drop);
  const draft: Draft = { sources: [...pruned.sources], remote_schemas: [...pruned.remote_schemas], cron_triggers: [...pruned.cron_triggers] };
  const byOrder = [...claimed.entries()].sort(([a, x], [b, y]) => UPSERT_ORDER.indexOf(x.decl.type) - UPSERT_ORDER.indexOf(y.decl.type) || (a < b ? -1 : a > b ? 1 : 0));
  const applied = new Set<string>();
  for (const [key, { decl, owner }] of byOrder) {
    const missing = upsert(draft, decl);
    if (missing === null) {
      applied.add(key);
      results.set(owner, { state: 'applied', objectKey: key });
    } else {
      results.set(owner, { state: 'dependency', objectKey: key, message: missing });
    }
  }

  const desired: MetadataDocument = { ...pruned, sources: draft.sources, remote_schemas: draft.remote_schemas, cron_triggers: draft.cron_triggers };
  const managed = new Set(applied);
  // Keys whose pruning is paused stay managed, so they are removed once the block clears.
  if (blocked) for (const k of input.previousManaged) if (!drop.has(k) && !orphanedKeys.has(k)) managed.add(k);
  const stillThere = documentKeys(desired);
  const managedList = [...managed].filter((k) => stillThere.has(k)).sort();
  const changed = canonicalJson(toWireDocument(desired)) !== canonicalJson(toWireDocument(input.current));
  return { desired, managed: managedList, results, changed };
}
