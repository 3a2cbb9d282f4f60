/**
 * Leader election with a coordination.k8s.io/v1 Lease, as client-go does it (operator-notes.md
 * §3.7): acquire when the lease is free or expired, renew every retry period, update with the
 * lease's resourceVersion as an optimistic-concurrency guard, step down when renewing fails for
 * longer than the renew deadline, and release on shutdown so a standby takes over at once.
 * Only the leader writes to engines: two writers would race on the engine's resource_version.
 */
import { KubeApiError, collectionPath, microTime, objectPath, type KubeApi } from './kube-api.ts';

/** Timing of the election (client-go defaults: 15 s / 10 s / 2 s). */
export interface LeaseTiming {
  readonly leaseDurationSeconds: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
}

/** client-go's defaults. */
export const DEFAULT_LEASE_TIMING: LeaseTiming = { leaseDurationSeconds: 15, renewDeadlineMs: 10_000, retryPeriodMs: 2000 };

/** Where the lease lives and who we are. */
export interface LeaderElectionOptions {
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly timing?: LeaseTiming;
  onStartedLeading(): void;
  onStoppedLeading(): void;
  onError?(err: Error): void;
}

interface LeaseSpec {
  holderIdentity?: string | null;
  leaseDurationSeconds?: number;
  acquireTime?: string | null;
  renewTime?: string | null;
  leaseTransitions?: number;
}

interface Lease {
  apiVersion: 'coordination.k8s.io/v1';
  kind: 'Lease';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: LeaseSpec;
}

/** Runs the election loop until stopped. */
export class LeaderElector {
  readonly #api: KubeApi;
  readonly #opts: LeaderElectionOptions;
  readonly #timing: LeaseTiming;
  #leading = false;
  #lastRenew = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;
  #observed: { holder: string; renewAt: number } | undefined;

  constructor(api: KubeApi, opts: LeaderElectionOptions) {
    this.#api = api;
    this.#opts = opts;
    this.#timing = opts.timing ?? DEFAULT_LEASE_TIMING;
  }

  /** True while this instance holds the lease. */
  get isLeader(): boolean {
    return this.#leading;
  }

  /** Starts trying to acquire the lease. */
  start(): void {
    this.#stopped = false;
    void this.#tick();
  }

  /** Stops the loop and, when leading, releases the lease. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#leading) {
      this.#leading = false;
      try {
        const lease = await this.#get();
        if (lease !== null && lease.spec.holderIdentity === this.#opts.identity) {
          lease.spec = { ...lease.spec, holderIdentity: null, leaseDurationSeconds: 1, renewTime: microTime(new Date()) };
          await this.#api.request('PUT', this.#path(), lease);
        }
      } catch (e) {
        this.#opts.onError?.(e as Error);
      }
      this.#opts.onStoppedLeading();
    }
  }

  #path(): string {
    return objectPath('coordination.k8s.io/v1', 'leases', this.#opts.namespace, this.#opts.name);
  }

  async #get(): Promise<Lease | null> {
    return await this.#api.getOrNull<Lease>(this.#path());
  }

  async #tick(): Promise<void> {
    if (this.#stopped) return;
    let ok = false;
    try {
      ok = await this.#tryAcquireOrRenew();
    } catch (e) {
      this.#opts.onError?.(e as Error);
    }
    if (this.#stopped) return;
    const now = Date.now();
    if (ok) {
      this.#lastRenew = now;
      if (!this.#leading) {
        this.#leading = true;
        this.#opts.onStartedLeading();
      }
    } else if (this.#leading && now - this.#lastRenew > this.#timing.renewDeadlineMs) {
      this.#leading = false;
      this.#opts.onStoppedLeading();
    }
    this.#timer = setTimeout(() => void this.#tick(), this.#timing.retryPeriodMs);
  }

  async #tryAcquireOrRenew(): Promise<boolean> {
    const now = new Date();
    const lease = await this.#get();
    const me = this.#opts.identity;
    if (lease === null) {
      const fresh: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.#opts.name, namespace: this.#opts.namespace },
        spec: {
          holderIdentity: me,
          leaseDurationSeconds: this.#timing.leaseDurationSeconds,
          acquireTime: microTime(now),
          renewTime: microTime(now),
          leaseTransitions: 0,
        },
      };
      try {
        await this.#api.request('POST', collectionPath('coordination.k8s.io/v1', 'leases', this.#opts.namespace), fresh);
        return true;
      } catch (e) {
        if (e instanceof KubeApiError && e.status === 409) return false;
        throw e;
      }
    }
    const holder = lease.spec.holderIdentity ?? '';
    // Expiry is judged on our own clock from when we last saw the record change (as client-go
    // does), not on renewTime, so clock skew between replicas does not matter.
    const record = `${holder}|${lease.spec.renewTime ?? ''}`;
    if (this.#observed === undefined || this.#observed.holder !== record) this.#observed = { holder: record, renewAt: now.getTime() };
    const durationMs = (lease.spec.leaseDurationSeconds ?? this.#timing.leaseDurationSeconds) * 1000;
    const expired = holder === '' || now.getTime() > this.#observed.renewAt + durationMs;
    if (holder !== me && !expired) return false;
    const spec: LeaseSpec = {
      ...lease.spec,
      holderIdentity: me,
      leaseDurationSeconds: this.#timing.leaseDurationSeconds,
      renewTime: microTime(now),
    };
    if (holder !== me) {
      spec.acquireTime = microTime(now);
      spec.leaseTransitions = (lease.spec.leaseTransitions ?? 0) + 1;
    }
    try {
      await this.#api.request('PUT', this.#path(), { ...lease, spec });
      return true;
    } catch (e) {
      if (e instanceof KubeApiError && e.status === 409) return false;
      throw e;
    }
  }
}
