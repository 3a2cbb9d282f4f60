/**
 * Prometheus metrics of the controller under controller-runtime's names (so kubebuilder dashboards
 * and alerts work unchanged), plus the operator's own counters. Served on /metrics
 * (METRICS_PORT, default 8080, as controller-runtime) by main.ts.
 *
 * controller-runtime names used here: controller_runtime_reconcile_total{controller,result},
 * controller_runtime_reconcile_errors_total, controller_runtime_reconcile_time_seconds,
 * controller_runtime_active_workers, controller_runtime_max_concurrent_reconciles,
 * workqueue_{depth,adds_total,retries_total,queue_duration_seconds,work_duration_seconds,
 * unfinished_work_seconds,longest_running_processor_seconds}{name}, leader_election_master_status.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The reconciler's running totals (engine-reconciler.ts ReconcileStats), read at scrape time. */
export interface StatsSource {
  readonly stats: { readonly engineWrites: number; readonly statusWrites: number; readonly conflicts: number; readonly driftCorrections: number };
  /** Inconsistent objects per engine queue key (`engine/<ns>/<name>`). */
  inconsistentByEngine(): ReadonlyMap<string, number>;
}

/** The controller name in `controller` / `name` labels. */
export const CONTROLLER_NAME = 'engine';

// controller-runtime's buckets for reconcile time and client-go's for the work queue.
const RECONCILE_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10,
  15, 20, 25, 30, 40, 50, 60,
];
const QUEUE_BUCKETS = [1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 0.001, 0.01, 0.1, 1, 10, 100, 1000];

/** Hooks the work queue calls (see work-queue.ts). */
export interface QueueMetrics {
  added(): void;
  retried(): void;
  /** A key handed to a worker after waiting `waitMs` in the queue. */
  started(key: string, waitMs: number): void;
  /** A worker finished a key. */
  finished(key: string): void;
  depth(n: number): void;
}

/** Every metric of the controller, on its own registry. */
export class ControllerMetrics {
  readonly registry = new Registry();
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly reconcileTime: Histogram<'controller'>;
  readonly activeWorkers: Gauge<'controller'>;
  readonly maxConcurrent: Gauge<'controller'>;
  readonly leader: Gauge<'name'>;
  readonly engineWrites: Counter;
  readonly statusWrites: Counter;
  readonly conflicts: Counter;
  readonly driftCorrections: Counter;
  readonly polls: Counter<'result'>;
  readonly inconsistentObjects: Gauge<'namespace' | 'engine'>;
  readonly queue: QueueMetrics;
  readonly #processing = new Map<string, number>();
  #source: StatsSource | undefined;

  constructor() {
    const registers = [this.registry];
    const c = { controller: CONTROLLER_NAME };
    this.reconcileTotal = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'],
      registers,
    });
    for (const result of ['success', 'error', 'requeue', 'requeue_after']) this.reconcileTotal.inc({ ...c, result }, 0);
    this.reconcileErrors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'],
      registers,
    });
    this.reconcileErrors.inc(c, 0);
    this.reconcileTime = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'],
      buckets: RECONCILE_BUCKETS,
      registers,
    });
    this.activeWorkers = new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'],
      registers,
    });
    this.maxConcurrent = new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'],
      registers,
    });
    this.leader = new Gauge({
      name: 'leader_election_master_status',
      help: 'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master',
      labelNames: ['name'],
      registers,
    });
    const self = (): StatsSource | undefined => this.#source;
    const total = (metric: string, help: string, pick: (s: StatsSource['stats']) => number): Counter =>
      new Counter({
        name: metric,
        help,
        registers,
        collect() {
          const src = self();
          if (src === undefined) return;
          this.reset();
          this.inc(pick(src.stats));
        },
      });
    this.engineWrites = total('graphql_engine_operator_engine_writes_total', 'replace_metadata calls that changed an engine', (s) => s.engineWrites);
    this.statusWrites = total('graphql_engine_operator_status_writes_total', 'Status patches of custom resources', (s) => s.statusWrites);
    this.conflicts = total(
      'graphql_engine_operator_metadata_conflicts_total',
      'replace_metadata calls refused with 409 (another writer) and retried',
      (s) => s.conflicts,
    );
    this.driftCorrections = total(
      'graphql_engine_operator_drift_corrections_total',
      'Writes that restored metadata changed outside the operator',
      (s) => s.driftCorrections,
    );
    this.polls = new Counter({
      name: 'graphql_engine_operator_engine_polls_total',
      help: 'Polls of engine state by result',
      labelNames: ['result'],
      registers,
    });
    this.inconsistentObjects = new Gauge({
      name: 'graphql_engine_operator_inconsistent_objects',
      help: 'Objects the engine reports inconsistent',
      labelNames: ['namespace', 'engine'],
      registers,
      collect() {
        const src = self();
        if (src === undefined) return;
        this.reset();
        for (const [key, n] of src.inconsistentByEngine()) {
          const [, namespace = '', engine = ''] = key.split('/');
          this.set({ namespace, engine }, n);
        }
      },
    });
    collectDefaultMetrics({ register: this.registry });

    const name = { name: CONTROLLER_NAME };
    const depth = new Gauge({ name: 'workqueue_depth', help: 'Current depth of workqueue', labelNames: ['name'], registers });
    const adds = new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames: ['name'], registers });
    const retries = new Counter({ name: 'workqueue_retries_total', help: 'Total number of retries handled by workqueue', labelNames: ['name'], registers });
    const queueDuration = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames: ['name'],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    const workDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes',
      labelNames: ['name'],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    const processing = this.#processing;
    new Gauge({
      name: 'workqueue_unfinished_work_seconds',
      help: "How many seconds of work has been done that is in progress and hasn't been observed by work_duration",
      labelNames: ['name'],
      registers,
      collect() {
        const now = Date.now();
        this.set(
          name,
          [...processing.values()].reduce((a, t) => a + (now - t) / 1000, 0),
        );
      },
    });
    new Gauge({
      name: 'workqueue_longest_running_processor_seconds',
      help: 'How many seconds has the longest running processor for workqueue been running',
      labelNames: ['name'],
      registers,
      collect() {
        const now = Date.now();
        this.set(name, Math.max(0, ...[...processing.values()].map((t) => (now - t) / 1000)));
      },
    });
    depth.set(name, 0);
    adds.inc(name, 0);
    retries.inc(name, 0);
    this.queue = {
      added: () => adds.inc(name),
      retried: () => retries.inc(name),
      started: (key, waitMs) => {
        queueDuration.observe(name, waitMs / 1000);
        processing.set(key, Date.now());
      },
      finished: (key) => {
        const t = processing.get(key);
        if (t === undefined) return;
        workDuration.observe(name, (Date.now() - t) / 1000);
        processing.delete(key);
      },
      depth: (n) => depth.set(name, n),
    };
  }

  /** Where the operator's own totals come from. */
  bind(source: StatsSource): void {
    this.#source = source;
  }

  /** Records one reconcile as controller-runtime does. */
  reconciled(result: 'success' | 'error' | 'requeue' | 'requeue_after', seconds: number): void {
    this.reconcileTotal.inc({ controller: CONTROLLER_NAME, result });
    if (result === 'error') this.reconcileErrors.inc({ controller: CONTROLLER_NAME });
    this.reconcileTime.observe({ controller: CONTROLLER_NAME }, seconds);
  }
}
