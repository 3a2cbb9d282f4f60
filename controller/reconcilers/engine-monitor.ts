/**
 * Polls every Engine's cheap state every spec.pollSeconds: each replica's resource_version and a
 * digest of its inconsistent objects (Note [Every replica, and what is inconsistent] in
 * replicas.ts), and queues the Engine when what it sees differs from what the last reconcile left
 * (see Note [Drift and outages] in engine-reconciler.ts): an edit made around the operator, an
 * engine that stopped answering or came back, another object or reason inconsistent, a replica
 * out of step, one added or gone.
 *
 * Measured on the real apiserver test (test/k8s/operator.test.ts, default pollSeconds 3): a
 * direct metadata edit is corrected, and a stopped engine reported, within a few seconds.
 */
import type { Engine } from '../api/v1alpha1/engine.ts';
import { type EngineState } from '../../engine/metadata-client/client.ts';
import type { WorkQueue } from '../runtime/work-queue.ts';
import type { KnownEngine } from './engine-reconciler.ts';
import { engineQueueKey } from './resolve.ts';
import { DEFAULT_REMOTE_CHECK_SECONDS, fingerprint, mergeReports, observeReplicas, type RemoteChecks } from './replicas.ts';

/** Default seconds between two polls of one engine. */
export const DEFAULT_POLL_SECONDS = 3;

/** What the monitor needs from the manager. */
export interface EngineMonitorDeps {
  readonly engines: () => readonly Engine[];
  readonly known: ReadonlyMap<string, KnownEngine>;
  readonly queue: WorkQueue;
  /** Timeout of one poll. */
  readonly timeoutMs?: number;
  readonly log?: (msg: string, fields?: Record<string, unknown>) => void;
  /** The ready replicas of an Engine behind a Service (null: none found). */
  readonly replicas?: (e: Engine) => Promise<string[] | null>;
  /**
   * The reconciler's remote probes: a poll probes the remote schemas when an Engine's
   * remoteCheckSeconds are due (Note [A remote that dies while the engine runs] in engine-reconciler.ts).
   */
  readonly remoteChecks?: RemoteChecks;
  /** Called with every poll's outcome (metrics). */
  readonly onPoll?: (result: 'unchanged' | 'changed' | 'unreachable') => void;
}

/** What a poll saw: the newest resource_version, and the fingerprint of every replica. */
export type PolledState = EngineState & { readonly fingerprint?: string };

/**
 * Why an engine was queued, or null when the poll saw what the reconcile left. The fingerprint
 * (Note [Every replica, and what is inconsistent] in replicas.ts) catches what the counts do not:
 * another object inconsistent, another reason, one replica out of step.
 */
export function pollVerdict(known: KnownEngine, seen: PolledState | 'unreachable'): string | null {
  if (seen === 'unreachable') return known.reachable ? 'the engine stopped answering' : null;
  if (!known.reachable) return 'the engine answers again';
  if (seen.resourceVersion !== known.resourceVersion) return `resource_version ${String(known.resourceVersion)} -> ${seen.resourceVersion}`;
  if (seen.inconsistentObjects !== known.inconsistentObjects) return `inconsistent objects ${String(known.inconsistentObjects)} -> ${seen.inconsistentObjects}`;
  if (seen.fingerprint !== undefined && known.fingerprint !== undefined && seen.fingerprint !== known.fingerprint) {
    return `replicas: ${known.fingerprint} -> ${seen.fingerprint}`;
  }
  return null;
}

/** The poll loop (runs only while this replica leads). */
export class EngineMonitor {
  readonly #d: EngineMonitorDeps;
  readonly #nextAt = new Map<string, number>();
  readonly #inFlight = new Set<string>();
  #timer: ReturnType<typeof setInterval> | undefined;
  /** Polls sent, for tests and metrics. */
  polls = 0;

  constructor(deps: EngineMonitorDeps) {
    this.#d = deps;
  }

  /** Starts ticking (every 500 ms; each engine is polled when its interval is due). */
  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => this.#tick(), 500);
    this.#timer.unref();
  }

  /** Stops polling. */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(): void {
    const now = Date.now();
    const live = new Set<string>();
    for (const e of this.#d.engines()) {
      const key = engineQueueKey(e.metadata.namespace, e.metadata.name);
      live.add(key);
      if (this.#inFlight.has(key) || (this.#nextAt.get(key) ?? 0) > now) continue;
      this.#nextAt.set(key, now + (e.spec.pollSeconds ?? DEFAULT_POLL_SECONDS) * 1000);
      const known = this.#d.known.get(key);
      // Not reconciled yet, or its spec/Secret does not say how to reach it: the reconcile's own
      // retries cover it.
      if (known?.client === undefined || known.client === null) continue;
      this.#inFlight.add(key);
      void this.#poll(key, known, e).finally(() => this.#inFlight.delete(key));
    }
    for (const k of this.#nextAt.keys()) if (!live.has(k)) this.#nextAt.delete(k);
  }

  async #poll(key: string, known: KnownEngine, engine: Engine): Promise<void> {
    if (known.client === null) return;
    this.polls++;
    const base = { ...known.client, timeoutMs: Math.min(known.client.timeoutMs ?? 10_000, this.#d.timeoutMs ?? 5000) };
    let seen: PolledState | 'unreachable';
    try {
      // Replicas found through the Service: look again (one was added, one went away).
      const urls = known.replicas === undefined ? [known.client.url] : ((await this.#d.replicas?.(engine).catch(() => null)) ?? known.replicas);
      const remotes = this.#d.remoteChecks;
      const everyMs = (engine.spec.remoteCheckSeconds ?? DEFAULT_REMOTE_CHECK_SECONDS) * 1000;
      const views = await observeReplicas(urls, base, remotes === undefined ? undefined : { checks: remotes, everyMs });
      const merged = mergeReports(views);
      seen =
        merged === null
          ? 'unreachable'
          : { resourceVersion: merged.resourceVersion, inconsistentObjects: merged.report.inconsistentObjects.length, fingerprint: fingerprint(views) };
    } catch {
      // A refused secret and the like: the reconcile reports it; nothing to compare.
      this.#d.onPoll?.('unchanged');
      return;
    }
    // A reconcile may have finished meanwhile: compare with what it left, not with the snapshot.
    const current = this.#d.known.get(key) ?? known;
    const why = pollVerdict(current, seen);
    this.#d.onPoll?.(why === null ? 'unchanged' : seen === 'unreachable' ? 'unreachable' : 'changed');
    if (why === null) return;
    this.#d.log?.('engine changed; reconciling', { engine: key, why });
    // A recovered engine should not wait out the backoff of the failures before it.
    this.#d.queue.forget(key);
    this.#d.queue.add(key);
  }
}
