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
 * - when two resources declare the same object (the main object or any part: two CustomTypes
 *   defining one type name), the older one wins and the other is reported as a Conflict;
 * - while any resource of the engine is invalid or in conflict, pruning of previously managed
 *   objects is paused (only explicit deletions are removed), so a typo never deletes metadata;
 * - what a resource of the namespace that is bound to no Engine declares (`protectedKeys`: a
 *   second Engine made it ambiguous, or its engineRef is mistyped) is never pruned and stays
 *   managed; an unbound resource whose spec cannot be read pauses pruning altogether
 *   (`pausePruning`). Only a bound, declared resource set decides what goes (Note [Unbound
 *   resources keep their metadata] in engine-reconciler.ts);
 * - ownership is per object and part (Note [Objects and parts] in objects.ts): adopting an
 *   existing object changes only what the resource declares, and under Merge a container
 *   (source, table, function) that still holds objects nobody declares or manages is kept when
 *   its resource goes: only the managed parts are removed, and the result says what was kept.
 * - a container a declared object needs (the source of a tracked table, the table of a permission)
 *   is never pruned, whichever the policy: under Exclusive the engine's `default` source, which no
 *   Source resource declares, would otherwise be planned for removal with every table in it, and
 *   under Merge a Source resource renamed while its tables are still declared would take them along.
 *   Only its explicit deletion (the resource deleted with deletionPolicy Delete) removes it;
 * Exclusive only governs the sections the kinds manage (sources with their tables, functions,
 * permissions and event triggers; remote schemas; cron triggers; inherited roles; actions and
 * their permissions; custom types; query collections, the allow-list and REST endpoints); API
 * limits and the other top-level keys are always left alone.
 */
import type { MetadataDocument } from '../../engine/model/document.ts';
import type { ManagementPolicy } from '../api/v1alpha1/engine.ts';
import { declarationSourceKinds, declare, deletionPolicyOf, resourceKey, type Declared, type TargetResource } from './declarations.ts';
import {
  DocumentDraft,
  ancestorKeys,
  diffDocuments,
  emptyDiff,
  flatten,
  keyOf,
  parentOf,
  type DocumentDiff,
  type MetaObject,
  type ObjectRef,
} from './objects.ts';

export { canonicalJson } from './objects.ts';

/** What the fold decided for one resource. */
export type ResourceFold =
  | { readonly state: 'applied'; readonly objectKey: string; readonly ref: ObjectRef; readonly keys: readonly string[] }
  | { readonly state: 'invalid'; readonly message: string }
  | { readonly state: 'conflict'; readonly objectKey: string; readonly message: string }
  | { readonly state: 'dependency'; readonly objectKey: string; readonly message: string }
  | { readonly state: 'removed'; readonly objectKey: string | null; readonly kept?: readonly string[] }
  | { readonly state: 'orphaned'; readonly objectKey: string | null };

/** Input of {@link foldResources}. */
export interface FoldInput {
  readonly current: MetadataDocument;
  /** Every resource targeting the engine, including those being deleted. */
  readonly resources: readonly TargetResource[];
  /** status.managedObjects of the Engine. */
  readonly previousManaged: readonly string[];
  readonly policy: ManagementPolicy;
  /** Keys the namespace's unbound resources declare: never pruned, kept managed. */
  readonly protectedKeys?: ReadonlySet<string>;
  /** Pause pruning (an unbound resource whose declaration is unreadable). */
  readonly pausePruning?: boolean;
}

/** A container the fold did not remove because it holds objects nobody declares. */
export interface KeptContainer {
  readonly key: string;
  /** The undeclared, unmanaged objects inside it (the reason it stays). */
  readonly holds: readonly string[];
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
  /** current → desired, object by object. */
  readonly diff: DocumentDiff;
  /** Containers kept under Merge although their resource asked to remove them. */
  readonly kept: readonly KeptContainer[];
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
  return new Set(flatten(doc).keys());
}

/** Upsert order: containers before what they contain. */
const KIND_RANK: Readonly<Record<ObjectRef['kind'], number>> = {
  source: 0,
  table: 1,
  function: 1,
  table_configuration: 2,
  table_is_enum: 2,
  relationship: 2,
  computed_field: 2,
  remote_relationship: 2,
  permission: 3,
  event_trigger: 3,
  function_permission: 3,
  remote_schema: 4,
  cron_trigger: 4,
  inherited_role: 4,
  custom_types: 4,
  custom_type: 4,
  query_collection: 4,
  action: 5,
  allowlist: 5,
  rest_endpoint: 5,
  action_permission: 6,
};

/**
 * Containers to keep under Merge: those in `drop` that hold (directly or through a kept child)
 * an object that is neither dropped, declared nor managed.
 */
function containersToKeep(
  current: ReadonlyMap<string, MetaObject>,
  drop: ReadonlySet<string>,
  declaredKeys: ReadonlySet<string>,
  managed: ReadonlySet<string>,
): KeptContainer[] {
  const holds = new Map<string, string[]>();
  // Children come after their containers in flatten's order, so walking backwards sees a kept
  // table before its source.
  for (const o of [...current.values()].reverse()) {
    const parent = parentOf(o.ref);
    if (parent === null) continue;
    const pk = keyOf(parent);
    if (!drop.has(pk)) continue;
    const foreign = !drop.has(o.key) && !declaredKeys.has(o.key) && !managed.has(o.key);
    if (foreign || holds.has(o.key)) holds.set(pk, [...(holds.get(pk) ?? []), o.key]);
  }
  return [...holds.entries()].map(([key, list]) => ({ key, holds: list.sort() })).sort((a, b) => (a.key < b.key ? -1 : 1));
}

function byKey(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Folds the resources into the current document. See Note [Fold and replace]. */
export function foldResources(input: FoldInput): FoldResult {
  const results = new Map<string, ResourceFold>();
  const claimed = new Map<string, { decl: Declared; owner: string }>();
  /** Owner of every object key a kept resource declares (its main object and parts). */
  const objectOwners = new Map<string, string>();
  const deleted = new Map<string, Declared>();
  const orphanedKeys = new Set<string>();
  let blocked = input.pausePruning === true;
  const protectedKeys = input.protectedKeys ?? new Set<string>();

  const kinds = declarationSourceKinds(input.resources, input.current);
  for (const r of [...input.resources].sort(olderFirst)) {
    const rk = resourceKey(r);
    const d = declare(r, kinds);
    if (r.metadata.deletionTimestamp !== undefined) {
      const key = d.ok ? d.declared.key : null;
      if (deletionPolicyOf(r) === 'Orphan') {
        if (d.ok) for (const o of d.declared.objects) orphanedKeys.add(o.key);
        results.set(rk, { state: 'orphaned', objectKey: key });
      } else {
        if (d.ok) deleted.set(rk, d.declared);
        results.set(rk, { state: 'removed', objectKey: key });
      }
      continue;
    }
    if (!d.ok) {
      blocked = true;
      results.set(rk, { state: 'invalid', message: d.message });
      continue;
    }
    const taken = d.declared.objects.find((o) => objectOwners.has(o.key));
    if (taken !== undefined) {
      blocked = true;
      results.set(rk, { state: 'conflict', objectKey: d.declared.key, message: `${objectOwners.get(taken.key) ?? ''} already declares ${taken.key}` });
      continue;
    }
    claimed.set(d.declared.key, { decl: d.declared, owner: rk });
    for (const o of d.declared.objects) objectOwners.set(o.key, rk);
  }

  const declaredObjects = new Map<string, { obj: MetaObject; owner: string }>();
  for (const { decl, owner } of claimed.values()) for (const o of decl.objects) if (!declaredObjects.has(o.key)) declaredObjects.set(o.key, { obj: o, owner });
  const declaredKeys = new Set(declaredObjects.keys());
  const previous = new Set(input.previousManaged);
  const current = flatten(input.current);

  const drop = new Set<string>();
  for (const d of deleted.values()) for (const o of d.objects) if (!declaredKeys.has(o.key)) drop.add(o.key);
  if (!blocked) {
    // What declared objects live in stays (see the Note).
    const needed = new Set([...declaredObjects.values()].flatMap(({ obj }) => ancestorKeys(obj.ref)));
    const candidates = input.policy === 'Exclusive' ? [...current.keys()] : [...previous];
    for (const k of candidates) if (!declaredKeys.has(k) && !orphanedKeys.has(k) && !protectedKeys.has(k) && !needed.has(k)) drop.add(k);
  }
  const kept = input.policy === 'Exclusive' ? [] : containersToKeep(current, drop, declaredKeys, previous);
  const keptKeys = new Set(kept.map((k) => k.key));
  for (const k of keptKeys) drop.delete(k);

  const draft = new DocumentDraft(input.current);
  for (const k of drop) {
    const o = current.get(k);
    if (o !== undefined) draft.remove(o.ref);
  }
  const ordered = [...declaredObjects.values()].sort((a, b) => KIND_RANK[a.obj.ref.kind] - KIND_RANK[b.obj.ref.kind] || byKey(a.obj.key, b.obj.key));
  const missingByOwner = new Map<string, string>();
  for (const { obj, owner } of ordered) {
    if (missingByOwner.has(owner)) continue;
    const missing = draft.upsert(obj);
    if (missing !== null) missingByOwner.set(owner, missing);
  }
  const applied = new Set<string>();
  for (const [key, { decl, owner }] of claimed) {
    const missing = missingByOwner.get(owner);
    if (missing === undefined) {
      for (const o of decl.objects) applied.add(o.key);
      results.set(owner, { state: 'applied', objectKey: key, ref: decl.main, keys: decl.objects.map((o) => o.key) });
    } else {
      results.set(owner, { state: 'dependency', objectKey: key, message: missing });
    }
  }
  for (const [rk, d] of deleted) {
    const k = d.objects.map((o) => o.key).filter((x) => keptKeys.has(x));
    if (k.length > 0) results.set(rk, { state: 'removed', objectKey: d.key, kept: k });
  }

  const desired = draft.build();
  const managed = new Set(applied);
  // Keys whose pruning is paused stay managed, so they are removed once the block clears.
  if (blocked) for (const k of input.previousManaged) if (!drop.has(k) && !orphanedKeys.has(k)) managed.add(k);
  // What an unbound resource applied here stays ours, to be pruned once it is bound elsewhere or deleted.
  for (const k of input.previousManaged) if (protectedKeys.has(k) && !drop.has(k)) managed.add(k);
  const stillThere = documentKeys(desired);
  // A kept container is released: it is no longer ours; what it holds decides its fate.
  const managedList = [...managed].filter((k) => stillThere.has(k) && !keptKeys.has(k)).sort();
  const diff = diffDocuments(input.current, desired);
  return { desired, managed: managedList, results, changed: !emptyDiff(diff), diff, kept };
}
