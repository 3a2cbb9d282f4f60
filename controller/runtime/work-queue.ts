/**
 * A work queue with client-go's semantics (operator-notes.md §3.5):
 * - a key is queued at most once (dirty set);
 * - a key is never handed to two workers at once: re-adds while it is processed are kept and
 *   handed out again after `done`;
 * - failures requeue with per-key exponential backoff ({@link addRateLimited}), and `forget`
 *   resets it; a global token bucket caps the overall retry rate;
 * - delayed adds (`addAfter`) implement periodic resync.
 */

import type { QueueMetrics } from './metrics.ts';

/** Time source, replaceable in tests. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): { unref?: () => unknown };
  clearTimeout(handle: { unref?: () => unknown }): void;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** Backoff and rate settings. */
export interface RateLimit {
  /** First retry delay. */
  readonly baseDelayMs: number;
  /** Longest retry delay. */
  readonly maxDelayMs: number;
  /** Token bucket: sustained retries per second over all keys. */
  readonly qps: number;
  /** Token bucket size. */
  readonly burst: number;
}

/** 1 s doubling to 5 min per key; 10 retries/s over all keys with bursts of 100. */
export const DEFAULT_RATE_LIMIT: RateLimit = { baseDelayMs: 1000, maxDelayMs: 300_000, qps: 10, burst: 100 };

/** The delay of the n-th consecutive failure (n from 0): base·2ⁿ capped at max. */
export function backoffDelay(failures: number, limit: RateLimit): number {
  const exp = Math.min(failures, 40);
  return Math.min(limit.maxDelayMs, limit.baseDelayMs * 2 ** exp);
}

/** A deduplicating, rate-limited queue of string keys. */
export class WorkQueue {
  readonly #clock: Clock;
  readonly #limit: RateLimit;
  readonly #queue: string[] = [];
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #failures = new Map<string, number>();
  readonly #delayed = new Map<string, { at: number; handle: { unref?: () => unknown } }>();
  readonly #waiters: ((key: string | undefined) => void)[] = [];
  /** When each queued key was added (for workqueue_queue_duration_seconds). */
  readonly #addedAt = new Map<string, number>();
  readonly #metrics: QueueMetrics | undefined;
  #tokens: number;
  #tokensAt: number;
  #shutDown = false;

  constructor(limit: RateLimit = DEFAULT_RATE_LIMIT, clock: Clock = systemClock, metrics?: QueueMetrics) {
    this.#limit = limit;
    this.#clock = clock;
    this.#metrics = metrics;
    this.#tokens = limit.burst;
    this.#tokensAt = clock.now();
  }

  /** Queues a key now (no-op if it is already queued). */
  add(key: string): void {
    if (this.#shutDown || this.#dirty.has(key)) return;
    this.#metrics?.added();
    this.#dirty.add(key);
    if (!this.#addedAt.has(key)) this.#addedAt.set(key, this.#clock.now());
    if (this.#processing.has(key)) return; // handed out again by done()
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) {
      this.#dirty.delete(key);
      this.#handOut(key);
      waiter(key);
      return;
    }
    this.#queue.push(key);
    this.#metrics?.depth(this.#queue.length);
  }

  #handOut(key: string): void {
    this.#processing.add(key);
    const at = this.#addedAt.get(key);
    this.#addedAt.delete(key);
    this.#metrics?.started(key, at === undefined ? 0 : this.#clock.now() - at);
  }

  /** Queues a key after a delay; an earlier pending delayed add of the key wins. */
  addAfter(key: string, ms: number): void {
    if (this.#shutDown) return;
    if (ms <= 0) {
      this.add(key);
      return;
    }
    const at = this.#clock.now() + ms;
    const pending = this.#delayed.get(key);
    if (pending !== undefined) {
      if (pending.at <= at) return;
      this.#clock.clearTimeout(pending.handle);
    }
    const handle = this.#clock.setTimeout(() => {
      this.#delayed.delete(key);
      this.add(key);
    }, ms);
    handle.unref?.();
    this.#delayed.set(key, { at, handle });
  }

  /**
   * Queues a key after its backoff (and the global bucket's) delay, counting one more failure.
   * `maxDelayMs` caps the backoff for failures only a change the controller does not watch can
   * fix (a RoleBinding, a Secret), so the fix is noticed soon.
   */
  addRateLimited(key: string, maxDelayMs?: number): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    this.#metrics?.retried();
    const backoff = backoffDelay(failures, this.#limit);
    const delay = Math.max(maxDelayMs === undefined ? backoff : Math.min(backoff, maxDelayMs), this.#bucketDelay());
    this.addAfter(key, delay);
    return delay;
  }

  /** Resets a key's backoff (after a success). */
  forget(key: string): void {
    this.#failures.delete(key);
  }

  /** Consecutive failures of a key. */
  failures(key: string): number {
    return this.#failures.get(key) ?? 0;
  }

  /** Waits for the next key; undefined once the queue is shut down. */
  async get(): Promise<string | undefined> {
    const key = this.#queue.shift();
    if (key !== undefined) {
      this.#metrics?.depth(this.#queue.length);
      this.#dirty.delete(key);
      this.#handOut(key);
      return key;
    }
    if (this.#shutDown) return undefined;
    return await new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Marks a key as processed; if it was re-added meanwhile it is queued again. */
  done(key: string): void {
    this.#processing.delete(key);
    this.#metrics?.finished(key);
    if (this.#dirty.has(key)) {
      this.#dirty.delete(key);
      this.add(key);
    }
  }

  /** Keys waiting (not counting delayed ones). */
  get length(): number {
    return this.#queue.length;
  }

  /** Stops handing out keys; pending get() calls resolve with undefined. */
  shutDown(): void {
    this.#shutDown = true;
    for (const { handle } of this.#delayed.values()) this.#clock.clearTimeout(handle);
    this.#delayed.clear();
    for (const w of this.#waiters.splice(0)) w(undefined);
  }

  /** Takes one token of the global bucket and answers how long to wait for it. */
  #bucketDelay(): number {
    const now = this.#clock.now();
    this.#tokens = Math.min(this.#limit.burst, this.#tokens + ((now - this.#tokensAt) / 1000) * this.#limit.qps);
    this.#tokensAt = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : Math.ceil((-this.#tokens / this.#limit.qps) * 1000);
  }
}
