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
 *
 * Note [Unbound resources keep their metadata]
 * A resource without engineRef targets the only Engine of its namespace; a second Engine makes it
 * ambiguous, and a mistyped engineRef leaves it dangling. Either way it is bound to no Engine, but
 * the metadata it applied is still in the engine and still in that Engine's managedObjects. Pruning
 * it would delete live metadata because of a typo or an unrelated `kubectl apply`, so an Engine
 * folds with `protectedKeys`: everything the namespace's unbound resources declare is neither
 * pruned nor released (an unbound resource whose spec is unreadable pauses pruning altogether).
 * The resource reports EngineAmbiguous (Stalled: a human must choose) or EngineNotFound, and the
 * Engine reports ResourcesNotBound while it keeps metadata for them. Only a bound, declared
 * resource set decides what is pruned: fixing the reference re-binds it (to the same Engine:
 * nothing changes; to another: the first prunes it). Deleting an unbound resource whose object an
 * Engine manages is finished by that Engine, as if it were bound.
 *
 * Note [A remote that is down is not a stall]
 * A remote schema or source the engine could not reach when it (re)built is inconsistent until
 * something reloads it; nothing in v2 does that by itself, so a remote that was down for a moment
 * stayed Stalled=True for good. When the reason is a connection error (refused, reset, timed out,
 * a gateway 502/503/504), the reconcile reloads that object (`reload_remote_schema`, or
 * `reload_metadata` of that source) on each replica that lists it (another replica's reload need
 * not re-introspect it there) with a per-object backoff of 2 s doubling to 60 s, requeues
 * itself for the next one, and reports RemoteUnavailable with Reconciling=True, not Stalled.
 *
 * Note [A remote that dies while the engine runs]
 * The engine introspects a remote schema when it builds and then keeps that schema: a remote that
 * goes down afterwards stays consistent in get_inconsistent_metadata (v2 does the same; only a
 * query through it fails), and the controller may not be able to reach the remote itself (another
 * network, headers from the engine's environment). Having the engine re-introspect it
 * (reload_metadata) would tell, but every check would rebuild the catalog, invalidate every
 * role's schema, move the resource_version, and drop the remote's fields while it is down: a
 * health check must not change what the engine serves. So the engine probes instead:
 * `/readyz?remotes=true` POSTs `query { __typename }` to each remote with its configured headers
 * and changes nothing (Note [Probing a remote schema] in engine/remote/probe.ts). Every
 * spec.remoteCheckSeconds (default 30; 0: never) each replica's readiness is read with
 * `remotes=true` (by the poll or the reconcile, whichever comes first; the last answer per
 * replica is kept in {@link RemoteChecks} and shared, so both see the same findings between
 * probes). A remote it reports down is added to that replica's report as an inconsistent remote
 * schema with the engine's error (`definition.readiness: true`: never reloaded, as for a source
 * in Note [A source that dies while the engine runs] in replicas.ts): the RemoteSchema reports
 * RemoteUnavailable (Reconciling=True, not Stalled), and Ready again once a probe answers. A
 * remote the engine holds inconsistent (down when it built) is in its list already and is
 * reloaded with backoff (Note [A remote that is down is not a stall]). A remote whose schema
 * changed is not picked up by the probe (reload_remote_schema does that). The Engine's message
 * counts the two apart ({@link unreachableNote}): only the engine's own list is reloaded.
 *
 * Note [Credentials the operator cannot read]
 * The admin secret's Secret may be missing (GitOps applies in any order) or unreadable (the
 * secret-reader RoleBinding is missing: 403). Both are reported at once on the Engine and its
 * resources (SecretNotFound / SecretForbidden, with the `kubectl create rolebinding` command) with
 * a Warning event, and retried with a backoff capped at {@link CREDENTIALS_RETRY_MAX_MS}: neither
 * Secrets nor RoleBindings are watched, so the retry is what notices the fix.
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
  type InconsistentObject,
} from '../../engine/metadata-client/client.ts';
import { Reason, appliedOutcome, conditionsFor, failedOutcome, readyCondition, sameConditions, unknownOutcome, type Outcome } from '../runtime/conditions.ts';
import type { EventRecorder } from '../runtime/events.ts';
import { KubeApiError, objectPath, type KubeApi } from '../runtime/kube-api.ts';
import { addFinalizer, hasFinalizer, patchStatus, removeFinalizer } from '../runtime/status.ts';
import { declarationSourceKinds, declare, resourceKey, type TargetResource } from './declarations.ts';
import { foldResources, type FoldResult, type ResourceFold } from './fold.ts';
import { inconsistenciesByKey, inconsistencyMessage, keyOfInconsistency, sourceKinds, type SourceKinds } from './inconsistency-map.ts';
import { canonicalJson, diffLines, emptyDiff, type DocumentDiff } from './objects.ts';
import { reconcileDeployment, type AppliedOwned, type Rollout } from './engine-deployment.ts';
import { addressOf, engineNameFor, engineQueueKey, engineUrl, noEngineMessage, unboundReason } from './resolve.ts';
import { decideOwnership, ownerOf, readOwner, writeOwner } from './engine-owner.ts';
import {
  DEFAULT_REMOTE_CHECK_SECONDS,
  READINESS_REASON,
  RemoteChecks,
  endpointUrls,
  fingerprint,
  isReadinessFinding,
  mergeReports,
  observeReplicas,
  type RemoteCheckOptions,
  type ReplicaView,
} from './replicas.ts';

export { DEFAULT_REMOTE_CHECK_SECONDS };

/** Read access to the informer caches. */
export interface Lister {
  engines(namespace: string): Engine[];
  engine(namespace: string, name: string): Engine | undefined;
  targets(namespace: string): TargetResource[];
}

/** What one reconcile asks of the queue. */
export type ReconcileResult =
  | { readonly requeue: 'after'; readonly afterMs: number }
  | { readonly requeue: 'backoff'; readonly error: string; readonly maxDelayMs?: number }
  | { readonly requeue: 'none' };

/** Longest retry delay while the engine's credentials cannot be read (Note [Credentials the operator cannot read]). */
export const CREDENTIALS_RETRY_MAX_MS = 30_000;
/**
 * How long a deleted Engine waits for its resources to be deleted too before it leaves them
 * (a Flux prune or an Argo CD app deletion deletes everything within a second or two).
 */
const ENGINE_DELETE_GRACE_MS = 10_000;
/** First and longest wait between two reloads of an unreachable remote schema or source. */
const RELOAD_BASE_MS = 2000;
const RELOAD_MAX_MS = 60_000;
/** How often an Engine refused as a second owner looks again (the owner's release changes no resource_version). */
const OWNER_CONFLICT_RETRY_MS = 30_000;
/** The namespace and ServiceAccount of config/default, for the RoleBinding command in messages. */
const OPERATOR_SERVICE_ACCOUNT = 'graphql-engine-system:graphql-engine-operator';

/** The command that lets the operator read the Secrets of a namespace (config/engine/secret_reader_binding.yaml). */
export function secretReaderCommand(namespace: string): string {
  return `kubectl create rolebinding graphql-engine-operator-secret-reader -n ${namespace} --clusterrole=graphql-engine-operator-secret-reader --serviceaccount=${OPERATOR_SERVICE_ACCOUNT}`;
}

/** The admin secret as read from its Secret, or why it could not be. */
type AdminSecretRead = { readonly ok: true; readonly value: string | undefined } | { readonly ok: false; readonly outcome: Outcome; readonly message: string };

/** What an Engine folds: its bound resources, and what the namespace's unbound ones protect. */
interface EngineScope {
  readonly resources: TargetResource[];
  readonly protectedKeys: ReadonlySet<string>;
  readonly pausePruning: boolean;
  /** Unbound resources and why, for the Engine's condition. */
  readonly unbound: readonly { readonly r: TargetResource; readonly keys: readonly string[] }[];
}

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
  /** What every replica said (Note [Every replica, and what is inconsistent] in replicas.ts). */
  readonly fingerprint?: string;
  /** The replicas' URLs when they were found through the Service's EndpointSlices. */
  readonly replicas?: readonly string[];
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
  /** Reload backoff per `engine|type|name` (Note [A remote that is down is not a stall]). */
  readonly #reloads = new Map<string, { failures: number; nextAt: number }>();
  /** The last remote probe of each replica, shared with the EngineMonitor (Note [A remote that dies while the engine runs]). */
  readonly remoteChecks = new RemoteChecks();
  /** The last apply of each Engine's Deployment and Service (only read again while unchanged). */
  readonly #deployments = new Map<string, AppliedOwned>();
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

  /** See Note [Unbound resources keep their metadata]. */
  #scope(engine: Engine): EngineScope {
    const ns = engine.metadata.namespace;
    const engines = this.#d.lister.engines(ns);
    const managed = new Set(engine.status?.managedObjects ?? []);
    const resources: TargetResource[] = [];
    const protectedKeys = new Set<string>();
    const unbound: { r: TargetResource; keys: string[] }[] = [];
    let pausePruning = false;
    const targets = this.#d.lister.targets(ns);
    const kinds = declarationSourceKinds(targets);
    for (const r of targets) {
      if (unboundReason(r, engines) === null) {
        if (engineNameFor(r, engines) === engine.metadata.name) resources.push(r);
        continue;
      }
      const d = declare(r, kinds);
      if (r.metadata.deletionTimestamp !== undefined) {
        // Its deletion is ours to finish when we hold what it declared.
        if (d.ok && managed.has(d.declared.key) && hasFinalizer(r.metadata)) resources.push(r);
        continue;
      }
      if (!d.ok) {
        pausePruning = true;
        continue;
      }
      const keys = d.declared.objects.map((o) => o.key);
      for (const k of keys) protectedKeys.add(k);
      unbound.push({ r, keys: keys.filter((k) => managed.has(k)) });
    }
    return { resources, protectedKeys, pausePruning, unbound: unbound.filter((u) => u.keys.length > 0) };
  }

  /** Reads the admin secret of an Engine. See Note [Credentials the operator cannot read]. */
  async #readAdminSecret(engine: Engine): Promise<AdminSecretRead> {
    const ref = engine.spec.adminSecretRef;
    if (ref === undefined) return { ok: true, value: undefined };
    const ns = engine.metadata.namespace;
    let secret: { data?: Record<string, string> } | null;
    try {
      secret = await this.#d.kube.getOrNull<{ data?: Record<string, string> }>(secretPath(ns, ref.name));
    } catch (e) {
      if (!(e instanceof KubeApiError) || (e.status !== 401 && e.status !== 403)) throw e;
      const msg =
        `the operator may not read Secret ${ref.name} in namespace ${ns} (HTTP ${e.status}): bind the secret-reader role there: ` +
        `${secretReaderCommand(ns)} (or apply config/engine/secret_reader_binding.yaml in ${ns})`;
      return { ok: false, outcome: failedOutcome(Reason.SecretForbidden, msg, false), message: msg };
    }
    const value = secret?.data?.[ref.key ?? 'admin-secret'];
    if (value === undefined) {
      // Often just not created yet (GitOps applies in any order): retried, not a stall.
      const msg = `Secret ${ref.name} ${secret === null ? 'does not exist' : `has no key ${ref.key ?? 'admin-secret'}`}`;
      return { ok: false, outcome: failedOutcome(Reason.SecretNotFound, msg, false), message: msg };
    }
    return { ok: true, value: Buffer.from(value, 'base64').toString('utf8') };
  }

  /** Reconciles one Engine. */
  async reconcileEngine(namespace: string, name: string): Promise<ReconcileResult> {
    this.stats.reconciles++;
    const qk = engineQueueKey(namespace, name);
    // The Engine is read fresh, not from the cache: its status.managedObjects must include our
    // own last write, or a reconcile right after it would prune what it just released.
    const engine = (await this.#d.kube.getOrNull<Engine>(objectPath(API_VERSION, 'engines', namespace, name))) ?? undefined;
    if (engine === undefined) {
      const gone = this.known.get(qk);
      this.remoteChecks.forget([...(gone?.replicas ?? []), ...(gone?.client ? [gone.client.url] : [])]);
      this.known.delete(qk);
      this.#deployments.delete(qk);
      return { requeue: 'none' };
    }
    const scope = this.#scope(engine);
    const resources = scope.resources;
    const resyncMs = (engine.spec.resyncSeconds ?? DEFAULT_RESYNC_SECONDS) * 1000;
    const dryRun = isDryRun(engine);
    const before = this.known.get(qk);

    // Finalizers first: nothing is written to the engine for a resource that could vanish untracked.
    for (const r of resources) {
      if (r.metadata.deletionTimestamp === undefined && !hasFinalizer(r.metadata)) await addFinalizer(this.#d.kube, addressOf(r), r.metadata);
    }

    // Deleting an Engine: it first finishes the deletions of its resources (a whole app pruned in
    // one pass), then Orphan (default) leaves its metadata and Delete removes what it manages.
    const deleting = engine.metadata.deletionTimestamp !== undefined;
    if (deleting && !resources.some((r) => r.metadata.deletionTimestamp !== undefined && hasFinalizer(r.metadata))) {
      // A prune deletes the Engine and its resources in one pass, in any order: give the
      // resources a moment to be marked deleted too, so they are removed while it still can.
      const waited = Date.now() - Date.parse(engine.metadata.deletionTimestamp ?? '');
      if (resources.some((r) => r.metadata.deletionTimestamp === undefined) && waited < ENGINE_DELETE_GRACE_MS) {
        return { requeue: 'after', afterMs: ENGINE_DELETE_GRACE_MS - waited };
      }
      return await this.#deleteEngine(engine);
    }
    // Every Engine has a finalizer: it waits for its resources, and releases the engine's owner record.
    if (!deleting && !hasFinalizer(engine.metadata)) await addFinalizer(this.#d.kube, engineAddress(engine), engine.metadata);

    // An Engine that runs the engine: metadata waits until the rollout is available.
    let rollout: Rollout | undefined;
    if (engine.spec.deployment !== undefined && !deleting) {
      try {
        const done = await reconcileDeployment(this.#d.kube, engine, engine.spec.deployment, this.#deployments.get(qk));
        rollout = done.rollout;
        this.#deployments.set(qk, done.applied);
      } catch (e) {
        this.#deployments.delete(qk);
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
    const read = await this.#readAdminSecret(engine);
    const cached = before?.client;
    if (!read.ok && !(deleting && cached !== undefined && cached !== null)) {
      this.known.set(qk, { client: null, reachable: false });
      // A whole app pruned at once took the Secret with it: nothing can be removed, so say what is left.
      await this.#failAll(engine, resources, read.outcome, resyncMs, deploymentStatus, deleting);
      return { requeue: 'backoff', error: read.message, maxDelayMs: CREDENTIALS_RETRY_MAX_MS };
    }
    // Deleting with the Secret already gone: the credentials of the last reconcile finish the job.
    const adminSecret = read.ok ? read.value : cached?.adminSecret;

    // Every replica is asked (Note [Every replica, and what is inconsistent]); writes go through one.
    const replicas = await endpointUrls(this.#d.kube, engine);
    const base: EngineClientOptions = { url, adminSecret, timeoutMs: this.#d.engineTimeoutMs };
    const clientOptions: EngineClientOptions = { ...base, url: replicas === null ? url : await firstAnswering(replicas, base) };
    const client = new EngineClient(clientOptions);
    let fold: FoldResult;
    let report: ConsistencyReport;
    let exportedRv: number;
    let wrote: boolean;
    let views: ReplicaView[];
    try {
      const owner = await this.#claim(engine, client, dryRun);
      if (owner !== null) {
        this.known.set(qk, { client: null, reachable: true });
        await this.#failAll(engine, resources, failedOutcome(Reason.Conflict, owner, true), resyncMs, deploymentStatus, true);
        return { requeue: 'after', afterMs: Math.min(resyncMs, OWNER_CONFLICT_RETRY_MS) };
      }
      const applied = await applyDocument(
        client,
        (current) =>
          foldResources({
            current: current.metadata,
            resources,
            previousManaged: engine.status?.managedObjects ?? [],
            policy: engine.spec.managementPolicy ?? 'Merge',
            protectedKeys: scope.protectedKeys,
            pausePruning: scope.pausePruning,
          }),
        5,
        dryRun,
      );
      fold = applied.built;
      wrote = applied.wrote;
      exportedRv = applied.exportedResourceVersion + (applied.wrote ? 1 : 0);
      this.stats.conflicts += applied.conflicts;
      if (applied.wrote) this.stats.engineWrites++;
      // Remote schemas are probed through each replica's /readyz?remotes=true when due (Note [A remote that dies while the engine runs]).
      const remoteCheck: RemoteCheckOptions = { checks: this.remoteChecks, everyMs: remoteCheckMs(engine) };
      views = await observeReplicas(replicas ?? [clientOptions.url], clientOptions, remoteCheck);
      const merged = mergeReports(views);
      if (merged === null) throw new EngineUnreachableError(`no replica answered: ${(replicas ?? [clientOptions.url]).join(', ')}`);
      report = merged.report;
      // Remotes and sources that could not be reached: reload them with backoff (Note [A remote that is down is not a stall]).
      const reloaded = !dryRun && (await this.#reloadUnreachable(qk, clientOptions, views));
      if (reloaded) {
        views = await observeReplicas(replicas ?? [clientOptions.url], clientOptions, remoteCheck);
        const again = mergeReports(views);
        if (again === null) throw new EngineUnreachableError(`no replica answered: ${(replicas ?? [clientOptions.url]).join(', ')}`);
        report = again.report;
        // The reloads are our own writes, not drift.
        exportedRv = Math.max(exportedRv, again.resourceVersion);
      }
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
    this.known.set(qk, {
      client: clientOptions,
      reachable: true,
      resourceVersion: exportedRv,
      inconsistentObjects: report.inconsistentObjects.length,
      fingerprint: fingerprint(views),
      ...(replicas === null ? {} : { replicas }),
    });

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
      const outcome =
        planned.length > 0
          ? failedOutcome(Reason.DryRun, listNote('dry run: applying would change ', planned), false)
          : transientOutcome(outcomeOf(result, byKey), result);
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
    const held = scope.unbound.map((u) => `${u.r.kind}/${u.r.metadata.name} (${noEngineMessage(u.r, this.#d.lister.engines(namespace))})`);
    // The Engine's health is that of what it manages (an object tracked by hand is not its business).
    const mine = managedInconsistencies(report.inconsistentObjects, dryRun ? (engine.status?.managedObjects ?? []) : fold.managed, sourceKinds(fold.desired));
    const others = report.inconsistentObjects.length - mine.length;
    const othersNote = others === 0 ? '' : `; ${others} inconsistent objects that no resource of this Engine declares are not counted`;
    const engineOutcome =
      dryRun && !emptyDiff(fold.diff)
        ? failedOutcome(
            Reason.DryRun,
            `dry run: applying would make ${plan.length} changes (status.plannedChanges); remove the ${DRY_RUN_ANNOTATION} annotation to apply`,
            false,
          )
        : held.length > 0
          ? failedOutcome(
              Reason.ResourcesNotBound,
              listNote(
                `${held.length} resources that applied metadata to this engine are bound to no Engine; what they applied is kept, not pruned, until they are bound again or deleted: `,
                held,
                10,
              ),
              true,
            )
          : notReady === 0 && mine.length === 0
            ? appliedOutcome(`${resources.length} resources applied; metadata consistent${replicaNote(replicas, views)}${othersNote}`)
            : mine.length === 0
              ? failedOutcome(Reason.Progressing, `${notReady} of ${resources.length} resources are not ready${othersNote}`, false)
              : mine.every((o) => isTransientInconsistency(o.type, o.reason))
                ? failedOutcome(
                    Reason.RemoteUnavailable,
                    `${unreachableNote(mine)}; ${notReady} of ${resources.length} resources not ready${othersNote}`,
                    false,
                  )
                : failedOutcome(
                    Reason.InconsistentMetadata,
                    `${mine.length} inconsistent objects; ${notReady} of ${resources.length} resources not ready${othersNote}`,
                    true,
                  );
    await this.#writeEngineStatus(engine, engineOutcome, {
      managedObjects: dryRun ? (engine.status?.managedObjects ?? []) : fold.managed,
      resources: resources.filter((r) => r.metadata.deletionTimestamp === undefined).length,
      inconsistentObjects: mine.length,
      metadataResourceVersion: exportedRv,
      plannedChanges: dryRun ? plan : [],
      ...deploymentStatus,
    });
    if (!dryRun) await this.#reportRemovals(engine, wrote ? fold.diff.removed : [], fold);
    // Finalizers go last: managedObjects no longer lists what they released (Orphan) or removed.
    for (const [r, result] of finishing) await this.#finalize(r, result);
    // A deleting Engine goes on to its own deletion once its resources are done; a pending reload comes back in time.
    const reloadAt = this.#nextReload(qk);
    return { requeue: 'after', afterMs: deleting ? 1000 : reloadAt === null ? resyncMs : Math.min(resyncMs, Math.max(200, reloadAt - Date.now())) };
  }

  /**
   * Reloads each remote schema and source the engine could not reach, when its backoff is due.
   * True when something was reloaded. See Note [A remote that is down is not a stall].
   */
  async #reloadUnreachable(qk: string, base: EngineClientOptions, views: readonly ReplicaView[]): Promise<boolean> {
    const now = Date.now();
    const due: { key: string; call: Record<string, unknown>; urls: string[] }[] = [];
    const live = new Set<string>();
    // Each replica that lists the object reloads it: another one's reload need not re-introspect it there.
    const listedBy = new Map<string, { o: InconsistentObject; urls: string[] }>();
    for (const v of views) {
      if (v.state === 'unreachable') continue;
      for (const o of v.state.report.inconsistentObjects) {
        // A failed readiness ping heals by itself (Note [A source that dies while the engine runs] in replicas.ts).
        if (isReadinessFinding(o)) continue;
        const k = `${o.type}|${inconsistentName(o) ?? ''}`;
        const e = listedBy.get(k);
        if (e === undefined) listedBy.set(k, { o, urls: [v.url] });
        else e.urls.push(v.url);
      }
    }
    for (const { o, urls } of listedBy.values()) {
      const name = inconsistentName(o);
      if (!isTransientInconsistency(o.type, o.reason) || name === null) continue;
      const key = `${qk}|${o.type}|${name}`;
      live.add(key);
      const b = this.#reloads.get(key);
      if (b !== undefined && b.nextAt > now) continue;
      const failures = (b?.failures ?? 0) + 1;
      this.#reloads.set(key, { failures, nextAt: now + Math.min(RELOAD_MAX_MS, RELOAD_BASE_MS * 2 ** (failures - 1)) });
      due.push({
        key,
        urls,
        call:
          o.type === 'remote_schema'
            ? { type: 'reload_remote_schema', args: { name } }
            : { type: 'reload_metadata', args: { reload_sources: [name], reload_remote_schemas: false } },
      });
    }
    // What answers again starts its backoff afresh next time.
    for (const k of this.#reloads.keys()) if (k.startsWith(`${qk}|`) && !live.has(k)) this.#reloads.delete(k);
    let reloaded = false;
    for (const d of due) {
      for (const url of d.urls) {
        try {
          await new EngineClient({ ...base, url }).call(d.call);
          this.stats.engineWrites++;
          reloaded = true;
        } catch (e) {
          // The object went meanwhile, the replica refuses or went away: the next reconcile sees the truth.
          if (!(e instanceof MetadataApiError || e instanceof EngineUnreachableError)) throw e;
          this.#d.log?.('reload refused', { key: d.key, url, error: e.message });
        }
      }
    }
    return reloaded;
  }

  /** When the next reload of an engine's unreachable remotes is due, or null. */
  #nextReload(qk: string): number | null {
    let at: number | null = null;
    for (const [k, b] of this.#reloads) if (k.startsWith(`${qk}|`) && (at === null || b.nextAt < at)) at = b.nextAt;
    return at;
  }

  /**
   * Checks (and records, unless dry run) that this Engine owns the engine: null when it does,
   * else why not. See Note [Where the owner of an engine is recorded] in engine-owner.ts.
   */
  async #claim(engine: Engine, client: EngineClient, dryRun: boolean): Promise<string | null> {
    const read = await readOwner(client);
    if (read === null) return null;
    const verdict = decideOwnership(engine, read.owner, (ns, name) => this.#d.lister.engine(ns, name));
    if (!verdict.own) return verdict.message;
    if (!verdict.write || dryRun) return null;
    await writeOwner(client, read.state, ownerOf(engine));
    // Two Engines claiming at once: the record read back decides.
    const again = await readOwner(client);
    if (again?.owner !== null && again?.owner !== undefined && again.owner.uid !== engine.metadata.uid) {
      return `this engine was claimed at the same moment by Engine ${again.owner.namespace}/${again.owner.name} (uid ${again.owner.uid}); one engine has one owning Engine, so this one writes nothing to it`;
    }
    if (read.owner !== null) {
      await this.#event(
        engineSubject(engine),
        'Normal',
        'OwnerRecorded',
        'Apply',
        `took over the engine from Engine ${read.owner.namespace}/${read.owner.name} (uid ${read.owner.uid})`,
      );
    }
    return null;
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
   * An Engine being deleted, once its resources being deleted are done: with deletionPolicy Delete
   * it removes every object it manages (keeping containers that hold undeclared metadata, as for
   * resources); with Orphan (default) it leaves them and says so in an `Orphaned` event. Either way
   * it removes its owner record from the engine, then its finalizer. An unreachable engine keeps a
   * Delete Engine that manages something until it answers (or until the policy is set to Orphan);
   * one that manages nothing (its engine never came up) goes, with a `NothingRemoved` event; credentials that are
   * gone (and not known from an earlier reconcile) leave the metadata, with an `Orphaned` event.
   */
  async #deleteEngine(engine: Engine): Promise<ReconcileResult> {
    if (!hasFinalizer(engine.metadata)) return { requeue: 'none' };
    const qk = engineQueueKey(engine.metadata.namespace, engine.metadata.name);
    const managed = engine.status?.managedObjects ?? [];
    const url = engineUrl(engine);
    const read = await this.#readAdminSecret(engine);
    const cached = this.known.get(qk)?.client;
    const adminSecret = read.ok ? read.value : cached === undefined || cached === null ? null : cached.adminSecret;
    const orphanNote = (why: string): string => listNote(`${why}; left ${managed.length} objects in the engine: `, managed);
    if (url === null || adminSecret === null) {
      if (managed.length > 0) {
        await this.#event(
          engineSubject(engine),
          'Warning',
          'Orphaned',
          'Delete',
          orphanNote(url === null ? 'the Engine has no address' : read.ok ? '' : read.message),
        );
      }
    } else {
      const client = new EngineClient({ url, adminSecret, timeoutMs: this.#d.engineTimeoutMs });
      try {
        const owner = await readOwner(client);
        const mine = owner?.owner?.uid === engine.metadata.uid;
        if (engine.spec.deletionPolicy === 'Delete' && (owner === null || owner.owner === null || mine)) {
          const applied = await applyDocument(client, (current) =>
            foldResources({ current: current.metadata, resources: [], previousManaged: managed, policy: 'Merge' }),
          );
          if (applied.wrote) this.stats.engineWrites++;
          await this.#reportRemovals(engine, applied.wrote ? applied.built.diff.removed : [], applied.built);
        } else if (managed.length > 0) {
          await this.#event(engineSubject(engine), 'Normal', 'Orphaned', 'Delete', orphanNote('deletionPolicy Orphan'));
        }
        if (owner !== null && mine) await writeOwner(client, owner.state, null);
      } catch (e) {
        if (!(e instanceof EngineUnreachableError || e instanceof MetadataApiError)) throw e;
        // An engine that never came up (a rollout that never became available, a wrong URL) holds
        // nothing of this Engine's: waiting for it would keep the Engine forever (issue 36.7).
        if (engine.spec.deletionPolicy === 'Delete' && managed.length === 0) {
          await this.#event(
            engineSubject(engine),
            'Warning',
            'NothingRemoved',
            'Delete',
            `the engine ${e instanceof EngineUnreachableError ? 'did not answer' : 'refused the call'} (${e.message}); this Engine manages no metadata in it${
              engine.status?.metadataResourceVersion === undefined ? ' (it never reached it)' : ''
            }, so nothing could be removed`,
          );
        } else if (engine.spec.deletionPolicy === 'Delete') return { requeue: 'backoff', error: `deleting Engine ${engine.metadata.name}: ${e.message}` };
        // Orphan needs nothing from the engine but the owner record; a stale one is taken over by
        // an Engine of the same name (Note [Where the owner of an engine is recorded]).
        if (managed.length > 0)
          await this.#event(engineSubject(engine), 'Warning', 'Orphaned', 'Delete', orphanNote(`the engine did not answer (${e.message})`));
      }
    }
    await removeFinalizer(this.#d.kube, engineAddress(engine), engine.metadata);
    this.known.delete(qk);
    return { requeue: 'none' };
  }

  /**
   * Resources of a namespace bound to no Engine: EngineAmbiguous or EngineNotFound, and nothing is
   * removed anywhere (Note [Unbound resources keep their metadata]). A deletion finishes here
   * unless an Engine manages what the resource declared (that Engine finishes it).
   */
  async reconcileUnbound(namespace: string): Promise<ReconcileResult> {
    this.stats.reconciles++;
    const engines = this.#d.lister.engines(namespace);
    const targets = this.#d.lister.targets(namespace);
    const kinds = declarationSourceKinds(targets);
    for (const r of targets) {
      const why = unboundReason(r, engines);
      if (why === null) continue;
      if (r.metadata.deletionTimestamp !== undefined) {
        if (!hasFinalizer(r.metadata)) continue;
        const d = declare(r, kinds);
        if (d.ok && engines.some((e) => (e.status?.managedObjects ?? []).includes(d.declared.key))) continue;
        await removeFinalizer(this.#d.kube, addressOf(r), r.metadata);
        await this.#event(
          r,
          'Normal',
          'Orphaned',
          'Delete',
          `No Engine manages what this resource declared (${noEngineMessage(r, engines)}); nothing was removed from any engine`,
        );
        continue;
      }
      const msg = `${noEngineMessage(r, engines)}; nothing is removed from any engine while it is not bound`;
      await this.#writeStatus(r, failedOutcome(why === 'ambiguous' ? Reason.EngineAmbiguous : Reason.EngineNotFound, msg, why === 'ambiguous'));
    }
    return { requeue: 'none' };
  }

  async #finalize(r: TargetResource, result: ResourceFold, orphanedBecause?: string): Promise<void> {
    const orphan = result.state === 'orphaned';
    await removeFinalizer(this.#d.kube, addressOf(r), r.metadata);
    const kept = result.state === 'removed' ? (result.kept ?? []) : [];
    const objectKey = result.state === 'removed' ? result.objectKey : null;
    const note = orphan
      ? `Left the declared metadata in the engine (${orphanedBecause ?? 'deletionPolicy Orphan'})`
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
    releaseDeleting = false,
  ): Promise<ReconcileResult> {
    const released = new Set<string>();
    const orphans: TargetResource[] = [];
    const unapplied: TargetResource[] = [];
    const kinds = declarationSourceKinds(resources);
    const managedKeys = new Set(engine.status?.managedObjects ?? []);
    for (const r of resources) {
      if (r.metadata.deletionTimestamp !== undefined && r.spec.deletionPolicy !== 'Orphan' && !releaseDeleting) {
        // Nothing it declares was ever applied (its engine never came up, or it was invalid):
        // there is nothing to remove, so its deletion need not wait for the engine (issue 36.7).
        const d = declare(r, kinds);
        if (!d.ok || !d.declared.objects.some((o) => managedKeys.has(o.key))) {
          unapplied.push(r);
          continue;
        }
      }
      // releaseDeleting: this Engine cannot write to the engine (not its owner, or its credentials
      // are gone while it is deleted), so a deletion leaves the metadata, and says so.
      if (r.metadata.deletionTimestamp !== undefined && (r.spec.deletionPolicy === 'Orphan' || releaseDeleting)) {
        // Orphaning needs nothing from the engine; the object just stops being managed.
        const d = declare(r, kinds);
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
    for (const r of orphans) await this.#finalize(r, { state: 'orphaned', objectKey: null }, r.spec.deletionPolicy === 'Orphan' ? undefined : outcome.message);
    for (const r of unapplied) {
      await removeFinalizer(this.#d.kube, addressOf(r), r.metadata);
      await this.#event(r, 'Normal', 'Deleted', 'Delete', `Nothing this resource declares was applied to the engine (${outcome.message}); nothing to remove`);
    }
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
      // Key order aside: the apiserver answers objects with their keys sorted (status.deployment
      // compared by JSON.stringify was a no-op PATCH every 3 s while a rollout was waited for).
      Object.entries(extra).every(([k, v]) => canonicalJson((old as Record<string, unknown>)[k]) === canonicalJson(v));
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

/**
 * True for an inconsistency of a remote schema or source whose reason is that it could not be
 * reached (refused, reset, timed out, name not resolved, a gateway error): it may well come back.
 */
export function isTransientInconsistency(type: string, reason: string): boolean {
  if (type !== 'remote_schema' && type !== 'source') return false;
  // `Failed to connect to host:port`: tedious' socket error for an MSSQL server it cannot reach.
  return /could not reach|did not answer within|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|connection refused|connection terminated|timeout expired|Failed to connect to \S+:\d+|answered HTTP 50[234]/i.test(
    reason,
  );
}

/** The first replica that answers (writes go through it), else the first one. */
async function firstAnswering(urls: readonly string[], base: EngineClientOptions): Promise<string> {
  for (const url of urls) {
    try {
      await new EngineClient({ ...base, url, timeoutMs: Math.min(base.timeoutMs ?? 10_000, 3000) }).getState();
      return url;
    } catch (e) {
      // A refused secret and the like are the main flow's to report, through this replica.
      if (!(e instanceof EngineUnreachableError)) return url;
    }
  }
  return urls[0] ?? base.url;
}

/** What the Engine's message says about its replicas: how many answered, which did not. */
function replicaNote(replicas: readonly string[] | null, views: readonly ReplicaView[]): string {
  if (replicas === null) return '';
  const silent = views.filter((v) => v.state === 'unreachable').map((v) => v.url);
  if (silent.length === 0) return ` on ${replicas.length} replicas`;
  return ` on ${replicas.length - silent.length} of ${replicas.length} replicas; ${silent.join(', ')} did not answer`;
}

/** The name of an inconsistent remote schema or source (v2 names them `remote_schema <name>`; the definition has the bare name). */
function inconsistentName(o: InconsistentObject): string | null {
  const d = o.definition;
  if (typeof d === 'object' && d !== null && typeof (d as { name?: unknown }).name === 'string') return (d as { name: string }).name;
  if (o.name === undefined) return null;
  return o.name.replace(/^(remote_schema|source) /, '');
}

/**
 * What the Engine's status says about the remote schemas and sources that cannot be reached, by
 * how each was found: only what the engine itself lists inconsistent is reloaded with backoff;
 * what its remote probe (`/readyz?remotes=true`) or readiness ping found down is not reloaded and
 * heals when it answers (Note [A remote that dies while the engine runs]). Saying "reloading" for
 * a probe finding sent readers looking for reloads that never happen.
 */
export function unreachableNote(unreachable: readonly InconsistentObject[]): string {
  const probed = unreachable.filter((o) => isReadinessFinding(o) && o.type === 'remote_schema').length;
  const pinged = unreachable.filter((o) => isReadinessFinding(o) && o.type === 'source').length;
  const listed = unreachable.length - probed - pinged;
  const parts: string[] = [];
  if (listed > 0) parts.push(`${count(listed, 'remote schema or source', 'remote schemas or sources')} could not be reached; reloading with backoff`);
  if (probed > 0) {
    parts.push(`${count(probed, 'remote schema', 'remote schemas')} unreachable per the engine's remote probe (/readyz?remotes=true)`);
  }
  if (pinged > 0) parts.push(`${count(pinged, 'source', 'sources')} unreachable per the engine's readiness ping`);
  if (probed + pinged > 0) parts.push(`${listed > 0 ? 'the probed ones are ' : ''}not reloaded: Ready again once they answer`);
  return parts.join('; ');
}

function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Milliseconds between two remote probes of an Engine's replicas (0: never). */
export function remoteCheckMs(engine: Engine): number {
  return (engine.spec.remoteCheckSeconds ?? DEFAULT_REMOTE_CHECK_SECONDS) * 1000;
}

/**
 * The inconsistent objects an Engine answers for: those it manages (issue 36.7). An object tracked
 * by hand, or by another tool, is not its health; a managed object that fails because of one shows
 * on its resource (depends on an inconsistent object) and so in the Engine's count of resources
 * not ready.
 */
export function managedInconsistencies(list: readonly InconsistentObject[], managed: readonly string[], kinds: SourceKinds): InconsistentObject[] {
  const keys = new Set(managed);
  // The engine checks the custom types as one object.
  if (managed.some((k) => k.startsWith('custom_type/'))) keys.add('custom_types');
  return list.filter((o) => {
    const k = keyOfInconsistency(o, kinds);
    return k !== null && keys.has(k);
  });
}

/**
 * A resource inconsistent only because its remote or source is down, or because what it lives in
 * is (a table of a source that cannot be reached): retried, not Stalled.
 */
function transientOutcome(o: Outcome, result: ResourceFold): Outcome {
  if (o.reason !== Reason.InconsistentMetadata || result.state !== 'applied') return o;
  const dependent = o.message.startsWith('depends on an inconsistent object') && isTransientInconsistency('source', o.message);
  if (!dependent && !isTransientInconsistency(result.ref.kind, o.message)) return o;
  // A failed readiness ping is not reloaded: it heals when the source answers (Note [A source that dies while the engine runs]).
  const heals = dependent || o.message.includes(READINESS_REASON);
  return failedOutcome(
    Reason.RemoteUnavailable,
    `${o.message}; ${heals ? 'Ready again once it answers' : 'the operator reloads it with backoff until it answers'}`,
    false,
  );
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
