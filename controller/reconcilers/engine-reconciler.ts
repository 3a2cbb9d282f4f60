/**
 * Reconciles one Engine: every resource that targets it is folded into the engine's metadata,
 * which is applied in one replace_metadata call (see Note [Fold and replace]); then the engine's
 * inconsistency list is mapped back onto the resources' conditions. Also reconciles the
 * resources of a namespace that have no Engine.
 *
 * Level-triggered: a reconcile reads only the cached objects and the engine, never the event
 * that queued it, so running it twice is harmless and running it with nothing changed writes
 * nothing (neither to the engine nor to Kubernetes).
 *
 * Note [Drift and outages]
 * The reconciler remembers, per Engine, how it reached it and the resource_version and number of
 * inconsistent objects it left it with ({@link EngineReconciler.known}); the EngineMonitor polls
 * the engine's cheap `get_resource_version` every spec.pollSeconds (default 3) and queues the
 * Engine when either differs, or when the engine stops or starts answering. The reconcile then
 * tells drift from its own writes by the resource_version: a write needed although the version
 * moved since the last reconcile is a correction of someone else's edit, recorded as a
 * DriftCorrected event naming what it restored. Every removal is named in an event, and a
 * container kept because it holds undeclared metadata (Note [Objects and parts]) as well.
 */
import type { Condition } from '../api/v1alpha1/common.ts';
import type { Engine, EngineStatus } from '../api/v1alpha1/engine.ts';
import { API_VERSION, DRY_RUN_ANNOTATION } from '../api/v1alpha1/common.ts';
import {
  EngineClient,
  EngineUnreachableError,
  MetadataApiError,
  applyDocument,
  type ConsistencyReport,
  type EngineClientOptions,
} from '../../engine/metadata-client/client.ts';
import { Reason, appliedOutcome, conditionsFor, failedOutcome, readyCondition, sameConditions, unknownOutcome, type Outcome } from '../runtime/conditions.ts';
import type { EventRecorder } from '../runtime/events.ts';
import { KubeApiError, objectPath, type KubeApi } from '../runtime/kube-api.ts';
import { addFinalizer, hasFinalizer, patchStatus, removeFinalizer } from '../runtime/status.ts';
import { declare, resourceKey, type TargetResource } from './declarations.ts';
import { foldResources, type FoldResult, type ResourceFold } from './fold.ts';
import { inconsistenciesByKey, inconsistencyMessage, sourceKinds } from './inconsistency-map.ts';
import { diffLines, emptyDiff, type DocumentDiff } from './objects.ts';
import { reconcileDeployment, type Rollout } from './engine-deployment.ts';
import { addressOf, engineNameFor, engineQueueKey, engineUrl, noEngineMessage } from './resolve.ts';

/** Read access to the informer caches. */
export interface Lister {
  engines(namespace: string): Engine[];
  engine(namespace: string, name: string): Engine | undefined;
  targets(namespace: string): TargetResource[];
}

/** What one reconcile asks of the queue. */
export type ReconcileResult =
  { readonly requeue: 'after'; readonly afterMs: number } | { readonly requeue: 'backoff'; readonly error: string } | { readonly requeue: 'none' };

/** Dependencies of the reconciler. */
export interface ReconcilerDeps {
  readonly kube: KubeApi;
  readonly lister: Lister;
  readonly events: EventRecorder;
  /** Timeout of each metadata API call. */
  readonly engineTimeoutMs?: number;
  readonly log?: (msg: string, fields?: Record<string, unknown>) => void;
}

const DEFAULT_RESYNC_SECONDS = 300;

/** Counters, for logs, metrics and the throughput measurement. */
export interface ReconcileStats {
  reconciles: number;
  engineWrites: number;
  statusWrites: number;
  conflicts: number;
  driftCorrections: number;
}

/** What the last reconcile of an Engine saw of it (Note [Drift and outages]). */
export interface KnownEngine {
  /** How to reach it (null while the Engine's spec or Secret does not say). */
  readonly client: EngineClientOptions | null;
  readonly reachable: boolean;
  readonly resourceVersion?: number;
  readonly inconsistentObjects?: number;
}

/** True when the dry-run annotation is set. */
export function isDryRun(e: Engine): boolean {
  return e.metadata.annotations?.[DRY_RUN_ANNOTATION] === 'true';
}

function listNote(prefix: string, keys: readonly string[], max = 20): string {
  const shown = keys.slice(0, max).join(', ');
  return `${prefix}${shown}${keys.length > max ? ` and ${keys.length - max} more` : ''}`;
}

function secretPath(ns: string, name: string): string {
  return objectPath('v1', 'secrets', ns, name);
}

/** The reconciler of Engines and of unbound resources. */
export class EngineReconciler {
  readonly #d: ReconcilerDeps;
  readonly stats: ReconcileStats = { reconciles: 0, engineWrites: 0, statusWrites: 0, conflicts: 0, driftCorrections: 0 };
  /** Per engine queue key. See Note [Drift and outages]. */
  readonly known = new Map<string, KnownEngine>();

  constructor(deps: ReconcilerDeps) {
    this.#d = deps;
  }

  /** Resources of a namespace that target the named engine. */
  targetsOf(namespace: string, engineName: string): TargetResource[] {
    const engines = this.#d.lister.engines(namespace);
    return this.#d.lister.targets(namespace).filter((r) => engineNameFor(r, engines) === engineName);
  }

  /** Reconciles one Engine. */
  async reconcileEngine(namespace: string, name: string): Promise<ReconcileResult> {
    this.stats.reconciles++;
    const qk = engineQueueKey(namespace, name);
    // The Engine is read fresh, not from the cache: its status.managedObjects must include our
    // own last write, or a reconcile right after it would prune what it just released.
    const engine = (await this.#d.kube.getOrNull<Engine>(objectPath(API_VERSION, 'engines', namespace, name))) ?? undefined;
    if (engine === undefined) {
      this.known.delete(qk);
      return { requeue: 'none' };
    }
    const resources = this.targetsOf(namespace, name);
    const resyncMs = (engine.spec.resyncSeconds ?? DEFAULT_RESYNC_SECONDS) * 1000;
    const dryRun = isDryRun(engine);
    const before = this.known.get(qk);

    // Finalizers first: nothing is written to the engine for a resource that could vanish untracked.
    for (const r of resources) {
      if (r.metadata.deletionTimestamp === undefined && !hasFinalizer(r.metadata)) await addFinalizer(this.#d.kube, addressOf(r), r.metadata);
    }

    // Deleting an Engine: Orphan (default) leaves its metadata; Delete removes what it manages first.
    if (engine.metadata.deletionTimestamp !== undefined) return await this.#deleteEngine(engine);
    if (engine.spec.deletionPolicy === 'Delete' && !hasFinalizer(engine.metadata)) await addFinalizer(this.#d.kube, engineAddress(engine), engine.metadata);

    // An Engine that runs the engine: metadata waits until the rollout is available.
    let rollout: Rollout | undefined;
    if (engine.spec.deployment !== undefined) {
      try {
        rollout = await reconcileDeployment(this.#d.kube, engine, engine.spec.deployment);
      } catch (e) {
        if (!(e instanceof KubeApiError) || e.status === 0 || e.status >= 500) throw e;
        this.known.set(qk, { client: null, reachable: false });
        return await this.#failAll(
          engine,
          resources,
          failedOutcome(Reason.InvalidSpec, `the engine's Deployment or Service was refused: ${e.message}`, true),
          resyncMs,
        );
      }
      if (!rollout.available) {
        this.known.set(qk, { client: null, reachable: false });
        await this.#failAll(
          engine,
          resources,
          failedOutcome(Reason.EngineNotAvailable, `waiting for the engine's rollout: ${rollout.message}`, false),
          resyncMs,
          { deployment: rolloutCounts(rollout) },
        );
        // Deployments are not watched (no list/watch on them): look again shortly.
        return { requeue: 'after', afterMs: ROLLOUT_POLL_MS };
      }
    }

    const deploymentStatus: Partial<EngineStatus> = rollout === undefined ? {} : { deployment: rolloutCounts(rollout) };
    const url = engineUrl(engine);
    if (url === null) {
      this.known.set(qk, { client: null, reachable: false });
      return await this.#failAll(engine, resources, failedOutcome(Reason.InvalidSpec, 'Engine has neither url nor serviceRef', true), resyncMs);
    }
    let adminSecret: string | undefined;
    const ref = engine.spec.adminSecretRef;
    if (ref !== undefined) {
      const secret = await this.#d.kube.getOrNull<{ data?: Record<string, string> }>(secretPath(namespace, ref.name));
      const value = secret?.data?.[ref.key ?? 'admin-secret'];
      if (value === undefined) {
        // Often just not created yet (GitOps applies in any order): retried, not a stall.
        const msg = `Secret ${ref.name} ${secret === null ? 'does not exist' : `has no key ${ref.key ?? 'admin-secret'}`}`;
        this.known.set(qk, { client: null, reachable: false });
        await this.#failAll(engine, resources, failedOutcome(Reason.SecretNotFound, msg, false), resyncMs, deploymentStatus);
        return { requeue: 'backoff', error: msg };
      }
      adminSecret = Buffer.from(value, 'base64').toString('utf8');
    }

    const clientOptions: EngineClientOptions = { url, adminSecret, timeoutMs: this.#d.engineTimeoutMs };
    const client = new EngineClient(clientOptions);
    let fold: FoldResult;
    let report: ConsistencyReport;
    let exportedRv: number;
    let wrote: boolean;
    try {
      const applied = await applyDocument(
        client,
        (current) =>
          foldResources({
            current: current.metadata,
            resources,
            previousManaged: engine.status?.managedObjects ?? [],
            policy: engine.spec.managementPolicy ?? 'Merge',
          }),
        5,
        dryRun,
      );
      fold = applied.built;
      wrote = applied.wrote;
      exportedRv = applied.exportedResourceVersion + (applied.wrote ? 1 : 0);
      this.stats.conflicts += applied.conflicts;
      if (applied.wrote) this.stats.engineWrites++;
      report = await client.getInconsistentMetadata();
      const lastRv = before?.resourceVersion ?? engine.status?.metadataResourceVersion;
      if (applied.wrote && lastRv !== undefined && applied.exportedResourceVersion !== lastRv) {
        this.stats.driftCorrections++;
        await this.#event(
          engineSubject(engine),
          'Warning',
          'DriftCorrected',
          'Apply',
          listNote(
            `The engine's metadata was changed outside the operator (resource_version ${lastRv} -> ${applied.exportedResourceVersion}); restored the declared state: `,
            diffLines(fold.diff),
          ),
        );
      }
    } catch (e) {
      if (e instanceof EngineUnreachableError) {
        this.known.set(qk, { client: clientOptions, reachable: false });
        await this.#failAll(engine, resources, unknownOutcome(Reason.EngineUnreachable, e.message), resyncMs, deploymentStatus);
        return { requeue: 'backoff', error: e.message };
      }
      if (e instanceof MetadataApiError) {
        this.known.set(qk, { client: clientOptions, reachable: true });
        const msg = e.isAccessDenied
          ? `the engine refused the admin secret: ${e.code}: ${e.message}`
          : `the engine refused the metadata: ${e.code} at ${e.path}: ${e.message}`;
        await this.#failAll(
          engine,
          resources,
          failedOutcome(e.isAccessDenied ? Reason.AccessDenied : Reason.EngineRejected, msg, true),
          resyncMs,
          deploymentStatus,
        );
        return { requeue: 'backoff', error: msg };
      }
      throw e;
    }
    this.known.set(qk, { client: clientOptions, reachable: true, resourceVersion: exportedRv, inconsistentObjects: report.inconsistentObjects.length });

    const pending = dryRun ? pendingKeys(fold.diff) : new Set<string>();
    const previousManaged = new Set(engine.status?.managedObjects ?? []);
    const byKey = inconsistenciesByKey(report.inconsistentObjects, sourceKinds(fold.desired));
    let notReady = 0;
    const finishing: [TargetResource, ResourceFold][] = [];
    for (const r of resources) {
      const result = fold.results.get(resourceKey(r));
      if (result === undefined) continue;
      if (result.state === 'removed' || result.state === 'orphaned') {
        // Under a dry run a removal is only planned: the finalizer stays until it is done.
        if (!dryRun || result.state === 'orphaned') finishing.push([r, result]);
        continue;
      }
      const planned = result.state === 'applied' ? result.keys.filter((k) => pending.has(k)) : [];
      const outcome = planned.length > 0 ? failedOutcome(Reason.DryRun, listNote('dry run: applying would change ', planned), false) : outcomeOf(result, byKey);
      if (!outcome.ready) notReady++;
      if (!dryRun && result.state === 'applied' && !previousManaged.has(result.objectKey) && !fold.diff.added.includes(result.objectKey)) {
        await this.#event(
          r,
          'Normal',
          'Adopted',
          'Apply',
          `${result.objectKey} already existed in the engine; only what this resource declares was applied to it`,
        );
      }
      await this.#writeStatus(r, outcome);
    }
    const plan = diffLines(fold.diff, 100);
    const engineOutcome =
      dryRun && !emptyDiff(fold.diff)
        ? failedOutcome(
            Reason.DryRun,
            `dry run: applying would make ${plan.length} changes (status.plannedChanges); remove the ${DRY_RUN_ANNOTATION} annotation to apply`,
            false,
          )
        : notReady === 0 && report.isConsistent
          ? appliedOutcome(`${resources.length} resources applied; metadata consistent`)
          : report.isConsistent
            ? failedOutcome(Reason.Progressing, `${notReady} of ${resources.length} resources are not ready`, false)
            : failedOutcome(
                Reason.InconsistentMetadata,
                `${report.inconsistentObjects.length} inconsistent objects; ${notReady} of ${resources.length} resources not ready`,
                true,
              );
    await this.#writeEngineStatus(engine, engineOutcome, {
      managedObjects: dryRun ? (engine.status?.managedObjects ?? []) : fold.managed,
      resources: resources.filter((r) => r.metadata.deletionTimestamp === undefined).length,
      inconsistentObjects: report.inconsistentObjects.length,
      metadataResourceVersion: exportedRv,
      plannedChanges: dryRun ? plan : [],
      ...deploymentStatus,
    });
    if (!dryRun) await this.#reportRemovals(engine, wrote ? fold.diff.removed : [], fold);
    // Finalizers go last: managedObjects no longer lists what they released (Orphan) or removed.
    for (const [r, result] of finishing) await this.#finalize(r, result);
    return { requeue: 'after', afterMs: resyncMs };
  }

  /** Names every removed object, and every container kept for what it holds, in Engine events. */
  async #reportRemovals(engine: Engine, removed: readonly string[], fold: FoldResult): Promise<void> {
    if (removed.length > 0) await this.#event(engineSubject(engine), 'Normal', 'Removed', 'Apply', listNote('Removed from the engine: ', removed));
    for (const k of fold.kept) {
      await this.#event(
        engineSubject(engine),
        'Warning',
        'Kept',
        'Apply',
        listNote(`${k.key} stays in the engine: it holds metadata no resource declares: `, k.holds),
      );
    }
  }

  /**
   * An Engine being deleted with deletionPolicy Delete: removes every object it manages (keeping
   * containers that hold undeclared metadata, as for resources), then releases its finalizer. An
   * unreachable engine keeps the Engine until it answers (or until the policy is set to Orphan).
   */
  async #deleteEngine(engine: Engine): Promise<ReconcileResult> {
    if (!hasFinalizer(engine.metadata)) return { requeue: 'none' };
    if (engine.spec.deletionPolicy === 'Delete') {
      const url = engineUrl(engine);
      const adminSecret = await this.#adminSecret(engine);
      if (url !== null && adminSecret !== null) {
        const client = new EngineClient({ url, adminSecret: adminSecret === '' ? undefined : adminSecret, timeoutMs: this.#d.engineTimeoutMs });
        try {
          const applied = await applyDocument(client, (current) =>
            foldResources({ current: current.metadata, resources: [], previousManaged: engine.status?.managedObjects ?? [], policy: 'Merge' }),
          );
          if (applied.wrote) this.stats.engineWrites++;
          await this.#reportRemovals(engine, applied.wrote ? applied.built.diff.removed : [], applied.built);
        } catch (e) {
          if (e instanceof EngineUnreachableError || e instanceof MetadataApiError)
            return { requeue: 'backoff', error: `deleting Engine ${engine.metadata.name}: ${e.message}` };
          throw e;
        }
      }
    }
    await removeFinalizer(this.#d.kube, engineAddress(engine), engine.metadata);
    this.known.delete(engineQueueKey(engine.metadata.namespace, engine.metadata.name));
    return { requeue: 'none' };
  }

  /** The admin secret of an Engine: '' when it has none, null when its Secret is missing. */
  async #adminSecret(engine: Engine): Promise<string | null> {
    const ref = engine.spec.adminSecretRef;
    if (ref === undefined) return '';
    const secret = await this.#d.kube.getOrNull<{ data?: Record<string, string> }>(secretPath(engine.metadata.namespace, ref.name));
    const value = secret?.data?.[ref.key ?? 'admin-secret'];
    return value === undefined ? null : Buffer.from(value, 'base64').toString('utf8');
  }

  /** Resources of a namespace without an Engine: EngineNotFound, and deletions finish at once. */
  async reconcileUnbound(namespace: string): Promise<ReconcileResult> {
    this.stats.reconciles++;
    const engines = this.#d.lister.engines(namespace);
    for (const r of this.#d.lister.targets(namespace)) {
      const name = engineNameFor(r, engines);
      if (name !== null && this.#d.lister.engine(namespace, name) !== undefined) continue;
      if (r.metadata.deletionTimestamp !== undefined) {
        // No engine holds what it declared: nothing to clean up.
        await removeFinalizer(this.#d.kube, addressOf(r), r.metadata);
        continue;
      }
      await this.#writeStatus(r, failedOutcome(Reason.EngineNotFound, noEngineMessage(r, engines), false));
    }
    return { requeue: 'none' };
  }

  async #finalize(r: TargetResource, result: ResourceFold): Promise<void> {
    const orphan = result.state === 'orphaned';
    await removeFinalizer(this.#d.kube, addressOf(r), r.metadata);
    const kept = result.state === 'removed' ? (result.kept ?? []) : [];
    const objectKey = result.state === 'removed' ? result.objectKey : null;
    const note = orphan
      ? 'Left the declared metadata in the engine (deletionPolicy Orphan)'
      : kept.length > 0
        ? `${listNote('Removed the declared parts from the engine but kept ', kept, 5)}: it holds metadata no resource declares (see the Engine's events)`
        : `Removed the declared metadata from the engine${objectKey === null ? '' : ` (${objectKey})`}`;
    await this.#event(r, 'Normal', orphan ? 'Orphaned' : 'Deleted', 'Delete', note);
  }

  async #failAll(
    engine: Engine,
    resources: readonly TargetResource[],
    outcome: Outcome,
    resyncMs: number,
    engineExtra: Partial<EngineStatus> = {},
  ): Promise<ReconcileResult> {
    const released = new Set<string>();
    const orphans: TargetResource[] = [];
    for (const r of resources) {
      if (r.metadata.deletionTimestamp !== undefined && r.spec.deletionPolicy === 'Orphan') {
        // Orphaning needs nothing from the engine; the object just stops being managed.
        const d = declare(r);
        if (d.ok) released.add(d.declared.key);
        orphans.push(r);
        continue;
      }
      await this.#writeStatus(r, outcome);
    }
    const managed = engine.status?.managedObjects;
    const extra: Partial<EngineStatus> = {
      ...engineExtra,
      ...(released.size > 0 && managed !== undefined ? { managedObjects: managed.filter((k) => !released.has(k)) } : {}),
    };
    await this.#writeEngineStatus(engine, outcome, extra);
    for (const r of orphans) await this.#finalize(r, { state: 'orphaned', objectKey: null });
    return { requeue: 'after', afterMs: resyncMs };
  }

  async #event(
    r: { apiVersion: string; kind: string; metadata: TargetResource['metadata'] },
    type: 'Normal' | 'Warning',
    reason: string,
    action: string,
    note: string,
  ): Promise<void> {
    const err = await this.#d.events.record({ apiVersion: r.apiVersion || API_VERSION, kind: r.kind, metadata: r.metadata }, { type, reason, action, note });
    if (err !== null) this.#d.log?.('event not recorded', { error: err.message });
  }

  /** Writes conditions when they changed, and an event when Ready changed. */
  async #writeStatus(r: TargetResource, outcome: Outcome): Promise<void> {
    const previous = r.status?.conditions ?? [];
    const generation = r.metadata.generation;
    const next = conditionsFor(outcome, generation, previous, new Date());
    if (sameConditions(previous, next) && r.status?.observedGeneration === generation) return;
    await this.#patch(addressOf(r), { observedGeneration: generation, conditions: next });
    await this.#maybeEvent(r, readyCondition(previous), outcome);
  }

  async #writeEngineStatus(engine: Engine, outcome: Outcome, extra: Partial<EngineStatus>): Promise<void> {
    const previous = engine.status?.conditions ?? [];
    const generation = engine.metadata.generation;
    const next = conditionsFor(outcome, generation, previous, new Date());
    const status: Record<string, unknown> = { observedGeneration: generation, conditions: next, ...extra };
    const old = engine.status ?? {};
    const same =
      sameConditions(previous, next) &&
      old.observedGeneration === generation &&
      Object.entries(extra).every(([k, v]) => JSON.stringify((old as Record<string, unknown>)[k]) === JSON.stringify(v));
    if (same) return;
    await this.#patch({ apiVersion: API_VERSION, plural: 'engines', namespace: engine.metadata.namespace, name: engine.metadata.name }, status);
    await this.#maybeEvent(engineSubject(engine), readyCondition(previous), outcome);
  }

  async #maybeEvent(r: TargetResource, before: Condition | undefined, outcome: Outcome): Promise<void> {
    const status = outcome.ready ? 'True' : outcome.unknown === true ? 'Unknown' : 'False';
    if (before !== undefined && before.status === status && before.reason === outcome.reason) return;
    await this.#event(r, outcome.ready ? 'Normal' : 'Warning', outcome.reason, 'Reconcile', outcome.message);
  }

  async #patch(at: { apiVersion: string; plural: string; namespace: string; name: string }, status: Record<string, unknown>): Promise<void> {
    try {
      await patchStatus(this.#d.kube, at, status);
      this.stats.statusWrites++;
    } catch (e) {
      // The object was deleted meanwhile: nothing to report on.
      if (e instanceof KubeApiError && e.status === 404) return;
      throw e;
    }
  }
}

/** The outcome of a resource the fold kept, given the engine's inconsistencies. */
export function outcomeOf(result: ResourceFold, byKey: ReadonlyMap<string, readonly string[]>): Outcome {
  switch (result.state) {
    case 'applied': {
      const msg = inconsistencyMessage(result.ref, result.keys, byKey);
      return msg === null ? appliedOutcome() : failedOutcome(Reason.InconsistentMetadata, msg, true);
    }
    case 'invalid':
      return failedOutcome(Reason.InvalidSpec, result.message, true);
    case 'conflict':
      return failedOutcome(Reason.Conflict, result.message, true);
    case 'dependency':
      return failedOutcome(Reason.DependencyMissing, result.message, false);
    case 'removed':
    case 'orphaned':
      return failedOutcome(Reason.Deleting, 'being deleted', false);
  }
}

/** The keys a dry run would add or change. */
function pendingKeys(diff: DocumentDiff): Set<string> {
  return new Set([...diff.added, ...diff.changed]);
}

/** An Engine as the subject of events (the same shape as a target resource). */
function engineSubject(e: Engine): TargetResource {
  return { ...e, apiVersion: e.apiVersion || API_VERSION, kind: 'Engine' } as unknown as TargetResource;
}

/** How often the rollout of an Engine's Deployment is looked at while it is not available. */
const ROLLOUT_POLL_MS = 3000;

function rolloutCounts(r: Rollout): NonNullable<EngineStatus['deployment']> {
  return { replicas: r.replicas, updatedReplicas: r.updatedReplicas, readyReplicas: r.readyReplicas, availableReplicas: r.availableReplicas };
}

function engineAddress(e: Engine): { apiVersion: string; plural: string; namespace: string; name: string } {
  return { apiVersion: API_VERSION, plural: 'engines', namespace: e.metadata.namespace, name: e.metadata.name };
}
