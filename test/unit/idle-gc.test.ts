/**
 * Note [Collecting after a burst] (engine/idle-gc.ts): one full collection
 * once a burst of allocation is over, none while allocation goes on.
 */
import v8 from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { BURST_BYTES, collectAfterBursts, QUIET_BYTES, type IdleCollector } from '../../engine/idle-gc.ts';
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

describe('collectAfterBursts', () => {
  it('collects once after a burst, when allocation has stopped', async () => {
    collector = collectAfterBursts(50);
    let garbage: unknown[] | null = allocate(BURST_BYTES * 1.5);
    const high = used();
    expect(garbage.length).toBeGreaterThan(0);
    garbage = null;
    await eventually(() => collector?.collections === 1, { what: 'one collection after the burst', timeoutMs: 20_000, intervalMs: 20 });
    // The burst's objects are gone (the collection ran), and quiet ticks ask for no second one.
    await eventually(() => used() < high - BURST_BYTES / 2, { what: 'the heap back down', timeoutMs: 20_000, intervalMs: 20 });
    // An absence: a window of ten collector ticks in which no second collection may come.
    await tick(500);
    expect(collector.collections).toBe(1);
  });

  it('asks for nothing while the engine keeps allocating', async () => {
    collector = collectAfterBursts(50);
    let keep: unknown[] = [];
    const end = Date.now() + 1500;
    // More than QUIET_BYTES per tick, kept and dropped in turn: the heap never holds still.
    while (Date.now() < end) {
      keep = allocate(QUIET_BYTES * 4);
      await tick(5);
    }
    expect(keep.length).toBeGreaterThan(0);
    expect(collector.collections).toBe(0);
  });
});
