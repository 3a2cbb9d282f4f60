/**
 * Wires informers, the work queue and the reconciler together. Informers run on every replica
 * (so a new leader starts with warm caches); workers only run while this replica leads.
 *
 * Event filtering: status-only updates (same generation, deletionTimestamp and finalizers) are
 * ignored, so the controller's own status writes do not requeue work (the GenerationChanged
 * predicate of controller-runtime).
 */
import { API_VERSION, DRY_RUN_ANNOTATION } from './api/v1alpha1/common.ts';
import type { Engine } from './api/v1alpha1/engine.ts';
import { TARGET_KINDS } from './api/v1alpha1/index.ts';
import type { TargetResource } from './reconcilers/declarations.ts';
import { EngineMonitor } from './reconcilers/engine-monitor.ts';
import { EngineReconciler, type Lister } from './reconcilers/engine-reconciler.ts';
import { endpointUrls } from './reconcilers/replicas.ts';
import { engineNameFor, engineQueueKey, parseQueueKey, unboundQueueKey } from './reconcilers/resolve.ts';
import type { EventRecorder } from './runtime/events.ts';
import { Informer } from './runtime/informer.ts';
import type { KubeApi } from './runtime/kube-api.ts';
import type { ControllerMetrics } from './runtime/metrics.ts';
import { DEFAULT_RATE_LIMIT, WorkQueue, systemClock, type RateLimit } from './runtime/work-queue.ts';

/** Manager settings. */
export interface ManagerOptions {
  readonly kube: KubeApi;
  readonly events: EventRecorder;
  /** Watch one namespace; all when undefined. */
  readonly namespace?: string;
  /** Concurrent reconciles (different engines). Default 2. */
  readonly workers?: number;
  readonly rateLimit?: RateLimit;
  readonly engineTimeoutMs?: number;
  readonly log?: (msg: string, fields?: Record<string, unknown>) => void;
  readonly metrics?: ControllerMetrics;
  /** Per-reconcile lines (LOG_LEVEL=debug). */
  readonly debug?: (msg: string, fields?: Record<string, unknown>) => void;
}

function meaningfulChange(prev: TargetResource | Engine | undefined, next: TargetResource | Engine): boolean {
  if (prev === undefined) return true;
  const a = prev.metadata;
  const b = next.metadata;
  return (
    a.generation !== b.generation ||
    a.deletionTimestamp !== b.deletionTimestamp ||
    JSON.stringify(a.finalizers ?? []) !== JSON.stringify(b.finalizers ?? []) ||
    JSON.stringify(a.labels ?? {}) !== JSON.stringify(b.labels ?? {}) ||
    a.annotations?.[DRY_RUN_ANNOTATION] !== b.annotations?.[DRY_RUN_ANNOTATION]
  );
}

/** The controller: caches, queue, workers. */
export class Manager {
  readonly #o: ManagerOptions;
  readonly queue: WorkQueue;
  readonly reconciler: EngineReconciler;
  readonly monitor: EngineMonitor;
  readonly #engines: Informer<Engine>;
  readonly #targets: Informer<TargetResource>[];
  #running = false;
  #workers: Promise<void>[] = [];

  constructor(o: ManagerOptions) {
    this.#o = o;
    this.queue = new WorkQueue(o.rateLimit ?? DEFAULT_RATE_LIMIT, systemClock, o.metrics?.queue);
    const onError = (err: Error): void => o.log?.('watch error', { error: err.message });
    this.#engines = new Informer<Engine>(
      o.kube,
      { apiVersion: API_VERSION, plural: 'engines', namespace: o.namespace, kind: 'Engine' },
      {
        onUpsert: (e, prev) => {
          if (!meaningfulChange(prev, e)) return;
          this.#enqueueNamespace(e.metadata.namespace);
        },
        // Another namespace's Engine may wait for this one's engine (Note [Where the owner of an engine is recorded]).
        onDelete: (e) => {
          for (const ns of new Set([e.metadata.namespace, ...this.#engines.list().map((x) => x.metadata.namespace)])) this.#enqueueNamespace(ns);
        },
        onError,
      },
    );
    this.#targets = TARGET_KINDS.map(
      (k) =>
        new Informer<TargetResource>(
          o.kube,
          { apiVersion: API_VERSION, plural: k.plural, namespace: o.namespace, kind: k.kind },
          {
            onUpsert: (r, prev) => {
              if (!meaningfulChange(prev, r)) return;
              if (prev !== undefined) this.#enqueueTarget(prev);
              this.#enqueueTarget(r);
            },
            onDelete: (r) => this.#enqueueTarget(r),
            onError,
          },
        ),
    );
    const lister: Lister = {
      engines: (ns) => this.#engines.list(ns),
      engine: (ns, name) => this.#engines.get(ns, name),
      targets: (ns) => this.#targets.flatMap((i) => i.list(ns)),
    };
    this.reconciler = new EngineReconciler({ kube: o.kube, lister, events: o.events, engineTimeoutMs: o.engineTimeoutMs, log: o.log });
    this.monitor = new EngineMonitor({
      engines: () => this.#engines.list(),
      known: this.reconciler.known,
      remoteChecks: this.reconciler.remoteChecks,
      queue: this.queue,
      log: o.log,
      replicas: async (e) => await endpointUrls(o.kube, e),
      onPoll: (result) => o.metrics?.polls.inc({ result }),
    });
    const reconciler = this.reconciler;
    o.metrics?.bind({
      stats: reconciler.stats,
      inconsistentByEngine: () =>
        new Map([...reconciler.known].flatMap(([k, v]) => (v.inconsistentObjects === undefined ? [] : [[k, v.inconsistentObjects] as const]))),
    });
  }

  /** True when every informer has listed once. */
  get synced(): boolean {
    return this.#engines.synced && this.#targets.every((i) => i.synced);
  }

  /** Starts the informers (on every replica). */
  startInformers(): void {
    this.#engines.start();
    for (const i of this.#targets) i.start();
  }

  /** Stops the informers. */
  stopInformers(): void {
    this.#engines.stop();
    for (const i of this.#targets) i.stop();
  }

  /** Starts the workers (when leading) once the caches are synced, and queues every engine. */
  async startWorkers(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    while (!this.synced && this.#running) await new Promise((r) => setTimeout(r, 50));
    const namespaces = new Set([
      ...this.#engines.list().map((e) => e.metadata.namespace),
      ...this.#targets.flatMap((i) => i.list()).map((r) => r.metadata.namespace),
    ]);
    for (const ns of namespaces) this.#enqueueNamespace(ns);
    const n = this.#o.workers ?? 2;
    this.#o.metrics?.maxConcurrent.set({ controller: 'engine' }, n);
    this.#workers = Array.from({ length: n }, () => this.#work());
    this.monitor.start();
  }

  /** Stops handing out work and waits for running reconciles to finish. */
  async stopWorkers(): Promise<void> {
    this.#running = false;
    this.monitor.stop();
    this.queue.shutDown();
    await Promise.all(this.#workers);
    this.#workers = [];
  }

  #enqueueNamespace(ns: string): void {
    for (const e of this.#engines.list(ns)) this.queue.add(engineQueueKey(ns, e.metadata.name));
    this.queue.add(unboundQueueKey(ns));
  }

  #enqueueTarget(r: TargetResource): void {
    const ns = r.metadata.namespace;
    const name = engineNameFor(r, this.#engines.list(ns));
    if (name !== null && this.#engines.get(ns, name) !== undefined) this.queue.add(engineQueueKey(ns, name));
    // An unbound resource protects (or, deleted, releases) what it applied to any Engine of its
    // namespace (Note [Unbound resources keep their metadata]): they all look again.
    else this.#enqueueNamespace(ns);
  }

  async #work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      const started = Date.now();
      const metrics = this.#o.metrics;
      metrics?.activeWorkers.inc({ controller: 'engine' });
      try {
        const parsed = parseQueueKey(key);
        const result =
          parsed === null
            ? ({ requeue: 'none' } as const)
            : parsed.kind === 'engine'
              ? await this.reconciler.reconcileEngine(parsed.namespace, parsed.name)
              : await this.reconciler.reconcileUnbound(parsed.namespace);
        this.#o.debug?.('reconciled', { key, ms: Date.now() - started, requeue: result.requeue });
        metrics?.reconciled(result.requeue === 'backoff' ? 'error' : result.requeue === 'after' ? 'requeue_after' : 'success', (Date.now() - started) / 1000);
        if (result.requeue === 'backoff') {
          const delay = this.queue.addRateLimited(key, result.maxDelayMs);
          this.#o.log?.('reconcile failed; retrying', { key, error: result.error, retryInMs: delay });
        } else {
          this.queue.forget(key);
          // Periodic resync with jitter, so many engines do not all re-read at once.
          if (result.requeue === 'after') this.queue.addAfter(key, Math.round(result.afterMs * (0.9 + Math.random() * 0.2)));
        }
      } catch (e) {
        metrics?.reconciled('error', (Date.now() - started) / 1000);
        const delay = this.queue.addRateLimited(key);
        this.#o.log?.('reconcile error; retrying', { key, error: (e as Error).message, retryInMs: delay });
      } finally {
        metrics?.activeWorkers.dec({ controller: 'engine' });
        this.queue.done(key);
      }
    }
  }
}
