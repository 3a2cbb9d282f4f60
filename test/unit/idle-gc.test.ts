/**
 * Note [Collecting after a burst] (engine/idle-gc.ts): one full collection
 * once a metadata change's burst of allocation is over, none while
 * allocation goes on, and none after a burst no change preceded or that
 * came after the change's builds ended (Note [Only a metadata change's
 * burst]: a burst of requests).
 */
import v8 from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { BURST_BYTES, collectAfterBursts, QUIET_BYTES, type ChangeSource, type IdleCollector } from '../../engine/idle-gc.ts';
import { eventually } from '../support/eventually.ts';

let collector: IdleCollector | undefined;
afterEach(() => collector?.stop());

const used = (): number => v8.getHeapStatistics().used_heap_size;
const tick = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** About `bytes` of objects that stay reachable until the returned array is dropped. */
function allocate(bytes: number): unknown[] {
  const out: unknown[] = [];
  for (let n = 0; n < bytes / 64; n++) out.push({ a: n, b: n + 1, c: `${n}` });
  return out;
}

/** A change source the test fires by hand, as the catalog's swap does, counting its subscribers. */
function changes(): { readonly source: ChangeSource; fire(): void; readonly listeners: number } {
  const listeners = new Set<() => void>();
  return {
    source: (onChange) => {
      listeners.add(onChange);
      return () => listeners.delete(onChange);
    },
    fire: () => {
      for (const l of listeners) l();
    },
    get listeners() {
      return listeners.size;
    },
  };
}

/** Starts a collector with a 50 ms tick and waits until the start's grace is over (nothing was built: it disarms). */
async function disarmedCollector(source: ChangeSource): Promise<IdleCollector> {
  const c = collectAfterBursts(source, 50);
  collector = c;
  await eventually(() => !c.armed, { what: 'the end of the grace after the start', timeoutMs: 20_000, intervalMs: 20 });
  return c;
}

describe('collectAfterBursts', () => {
  it('collects once after a burst that follows a metadata change, when allocation has stopped', async () => {
    const change = changes();
    const c = await disarmedCollector(change.source);
    change.fire();
    expect(c.armed).toBe(true);
    let garbage: unknown[] | null = allocate(BURST_BYTES * 1.5);
    const high = used();
    expect(garbage.length).toBeGreaterThan(0);
    garbage = null;
    await eventually(() => c.collections === 1, { what: 'one collection after the burst', timeoutMs: 20_000, intervalMs: 20 });
    // The burst's objects are gone (the collection ran), and quiet ticks ask for no second one.
    await eventually(() => used() < high - BURST_BYTES / 2, { what: 'the heap back down', timeoutMs: 20_000, intervalMs: 20 });
    expect(c.armed).toBe(false);
    // An absence: a window of ten collector ticks (counted, not timed) in which no second collection may come.
    const from = c.ticks;
    await eventually(() => c.ticks >= from + 10, { what: 'ten more collector ticks', timeoutMs: 20_000, intervalMs: 20 });
    expect(c.collections).toBe(1);
  });

  it('leaves a burst no metadata change preceded to V8 (a burst of requests)', async () => {
    const change = changes();
    const c = await disarmedCollector(change.source);
    // Kept reachable through the wait, so V8's own collections cannot end the burst before the collector sees it.
    const held = allocate(BURST_BYTES * 1.5);
    // The collector saw the burst on quiet ticks (three, so not a tick that raced the allocation) and asked for nothing.
    await eventually(() => c.skipped >= 3, { what: 'three quiet ticks that found the burst', timeoutMs: 20_000, intervalMs: 20 });
    expect(c.collections).toBe(0);
    expect(held.length).toBeGreaterThan(0);
  });

  it('disarms a few ticks after the builds of a change ended, and leaves a later burst to V8', async () => {
    const change = changes();
    const c = await disarmedCollector(change.source);
    change.fire();
    // Requests after the change: the loop mostly idle, the heap never still, so no tick is a quiet one.
    let moving: unknown[] = [];
    let ticks = 0;
    while (c.armed) {
      moving = allocate(QUIET_BYTES * 4);
      await tick(60);
      if (++ticks > 400) throw new Error('still armed after 400 ticks');
    }
    expect(c.collections).toBe(0);
    expect(moving.length).toBeGreaterThan(0);
    // The burst that comes now (as after a benchmark's warm-up) is seen on quiet ticks and left alone.
    const held = allocate(BURST_BYTES * 1.5);
    await eventually(() => c.skipped >= 3, { what: 'three quiet ticks that found the burst', timeoutMs: 20_000, intervalMs: 20 });
    expect(c.collections).toBe(0);
    expect(held.length).toBeGreaterThan(0);
  });

  it('asks for nothing while the engine keeps allocating', async () => {
    const change = changes();
    collector = collectAfterBursts(change.source, 50);
    let keep: unknown[] = [];
    // More than QUIET_BYTES per tick, kept and dropped in turn: the heap never holds still, for 30 collector ticks.
    for (let rounds = 0; collector.ticks < 30; rounds++) {
      if (rounds > 20_000) throw new Error(`only ${collector.ticks} collector ticks in 20,000 rounds`);
      change.fire();
      keep = allocate(QUIET_BYTES * 4);
      await tick(5);
    }
    expect(keep.length).toBeGreaterThan(0);
    expect(collector.collections).toBe(0);
  });

  it('stops listening to changes when stopped', () => {
    const change = changes();
    const c = collectAfterBursts(change.source, 50);
    expect(change.listeners).toBe(1);
    c.stop();
    expect(change.listeners).toBe(0);
  });
});
