/**
 * A full garbage collection once a burst of allocation is over: what a
 * metadata change leaves (the previous catalog, its role schemas and the
 * build's garbage) is collected when the engine goes quiet, not whenever
 * V8's heap limit is next reached.
 *
 * Note [Collecting after a burst]
 * After a metadata change at 2,000 tables × 10 roles the engine's heap held
 * 240-370 MiB where 195 MiB was live: the build's garbage stays until the
 * old generation reaches its limit, which a quiet engine never does, and
 * V8's memory reducer did not run in 20 s of idleness. Large objects (type
 * maps, introspection text: 25 → 80 MiB at the end of a build) and emptied
 * pages go back to the system only after a full collection. So a timer
 * looks at the heap every second and, when it has grown by
 * {@link BURST_BYTES} over the lowest point it saw since the last collection
 * it asked for (or its start) and then grew less
 * than {@link QUIET_BYTES} in the last second (the burst is over: under
 * request load the young generation alone allocates more than that), asks V8
 * for one full collection (`execution: 'async'` only posts it as a task: it
 * still pauses the thread, 0.6-1.0 s at 2,000 × 10 on the loaded 2-core
 * machine, once, on a quiet engine).
 * A loaded engine never qualifies, and an idle one only once per burst.
 * That collection frees the garbage but V8 keeps the emptied pages and the
 * grown young generation; because it lowered committed memory it starts
 * V8's memory reducer, which about 8 s later runs an incremental,
 * memory-reducing collection that hands them back (`node --trace-gc
 * --trace-memory-reducer`). A `flavor: 'last-resort'` collection would hand
 * them back at once but pauses for several full collections (432 ms for a
 * 4 MiB live heap on this machine), so the reducer is left to do it. The
 * figures it moves are the "20 s later" RSS of `node test/bench/run.ts
 * --only-scale` (Note [Settled RSS] in test/bench/lib/scale.ts; numbers in the
 * commit that added this note).
 * `gc` is taken from a fresh context with `--expose-gc` set only for that
 * moment, so the engine's own global object has no `gc`.
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Growth of the used heap over its lowest point since the last collection asked for that makes a burst. */
export const BURST_BYTES = 48 * 1024 * 1024;
/** Growth within one tick below which the engine counts as quiet. */
export const QUIET_BYTES = 2 * 1024 * 1024;

type GcFunction = (options: { type: 'major'; execution: 'async' }) => Promise<void> | undefined;

/** V8's `gc` extension without exposing it on this realm's global object; undefined when the runtime refuses. */
function gcFunction(): GcFunction | undefined {
  try {
    v8.setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as GcFunction) : undefined;
  } catch {
    return undefined;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}

const usedHeap = (): number => v8.getHeapStatistics().used_heap_size;

/** A running collector: `stop` ends its timer. */
export interface IdleCollector {
  stop(): void;
  /** Full collections it asked for so far. */
  readonly collections: number;
}

/** Starts the collector of Note [Collecting after a burst]; `intervalMs` is the tick. */
export function collectAfterBursts(intervalMs = 1000): IdleCollector {
  const gc = gcFunction();
  let collections = 0;
  if (gc === undefined)
    return {
      stop() {},
      get collections() {
        return 0;
      },
    };
  // The lowest used heap seen since the last collection asked for here: what was live at most.
  let base = usedHeap();
  let last = base;
  let running = false;
  const timer = setInterval(() => {
    const used = usedHeap();
    const quiet = Math.abs(used - last) < QUIET_BYTES;
    last = used;
    base = Math.min(base, used);
    if (running || !quiet || used - base < BURST_BYTES) return;
    running = true;
    collections++;
    Promise.resolve(gc({ type: 'major', execution: 'async' }))
      .catch(() => {})
      .finally(() => {
        running = false;
        base = last = usedHeap();
      });
  }, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
    },
    get collections() {
      return collections;
    },
  };
}
