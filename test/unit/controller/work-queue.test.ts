import { describe, expect, it } from 'vitest';
import { WorkQueue, backoffDelay, type Clock } from '../../../controller/runtime/work-queue.ts';

/** A manual clock: timers fire only when advance() passes them. */
function fakeClock(): Clock & { advance(ms: number): void } {
  let now = 0;
  const timers: { at: number; fn: () => void; id: number }[] = [];
  let ids = 0;
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const t = { at: now + ms, fn, id: ids++ };
      timers.push(t);
      return t as unknown as { unref?: () => unknown };
    },
    clearTimeout(h) {
      const i = timers.indexOf(h as unknown as (typeof timers)[number]);
      if (i >= 0) timers.splice(i, 1);
    },
    advance(ms) {
      now += ms;
      for (const t of [...timers].sort((a, b) => a.at - b.at)) {
        if (t.at <= now) {
          timers.splice(timers.indexOf(t), 1);
          t.fn();
        }
      }
    },
  };
}

const limit = { baseDelayMs: 1000, maxDelayMs: 8000, qps: 1000, burst: 1000 };

describe('WorkQueue', () => {
  it('dedupes keys that are queued', async () => {
    const q = new WorkQueue(limit, fakeClock());
    q.add('a');
    q.add('a');
    q.add('b');
    expect(q.length).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
  });

  it('never hands one key to two workers; a re-add while processing comes back after done', async () => {
    const q = new WorkQueue(limit, fakeClock());
    q.add('a');
    const k = await q.get();
    q.add('a');
    expect(q.length).toBe(0);
    q.done(k ?? '');
    expect(q.length).toBe(1);
    expect(await q.get()).toBe('a');
  });

  it('backs off exponentially per key up to the maximum, and forget resets it', () => {
    const clock = fakeClock();
    const q = new WorkQueue(limit, clock);
    expect([0, 1, 2, 3, 4, 5].map((n) => backoffDelay(n, limit))).toEqual([1000, 2000, 4000, 8000, 8000, 8000]);
    expect(q.addRateLimited('a')).toBe(1000);
    expect(q.addRateLimited('a')).toBe(2000);
    expect(q.failures('a')).toBe(2);
    q.forget('a');
    expect(q.addRateLimited('a')).toBe(1000);
  });

  it('caps the backoff of one failure at the delay the caller gives (credentials the controller does not watch)', () => {
    const q = new WorkQueue({ baseDelayMs: 1000, maxDelayMs: 300_000, qps: 100, burst: 100 }, fakeClock());
    const delays = Array.from({ length: 8 }, () => q.addRateLimited('a', 30_000));
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
    expect(q.addRateLimited('b')).toBe(1000);
  });

  it('delivers delayed keys when their time comes; the earliest pending delay wins', async () => {
    const clock = fakeClock();
    const q = new WorkQueue(limit, clock);
    q.addAfter('a', 5000);
    q.addAfter('a', 1000);
    clock.advance(999);
    expect(q.length).toBe(0);
    clock.advance(1);
    expect(q.length).toBe(1);
    expect(await q.get()).toBe('a');
    clock.advance(10_000);
    expect(q.length).toBe(0);
  });

  it('limits the overall retry rate with a token bucket', () => {
    const q = new WorkQueue({ baseDelayMs: 1, maxDelayMs: 1, qps: 2, burst: 2 }, fakeClock());
    expect(q.addRateLimited('a')).toBe(1);
    expect(q.addRateLimited('b')).toBe(1);
    expect(q.addRateLimited('c')).toBe(500);
    expect(q.addRateLimited('d')).toBe(1000);
  });

  it('wakes a waiting worker on add and releases waiters on shutdown', async () => {
    const q = new WorkQueue(limit, fakeClock());
    const waiting = q.get();
    q.add('x');
    expect(await waiting).toBe('x');
    const idle = q.get();
    q.shutDown();
    expect(await idle).toBeUndefined();
  });
});
