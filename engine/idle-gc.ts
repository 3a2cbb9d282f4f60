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
 * Only a burst that follows a metadata change (a new catalog installed) or
 * the start counts: Note [Only a metadata change's burst].
 * That collection frees the garbage but V8 keeps the emptied pages and the
 * grown young generation; because it lowered committed memory it starts
 * V8's memory reducer, which about 8 s later runs an incremental,
 * memory-reducing collection that hands them back (`node --trace-gc
 * --trace-memory-reducer`). The engine now runs without the reducer (Note
 * [No memory reducer] in cli/v8-flags.ts), which keeps those pages: the
 * "20 s later" figure below rose from ~295 to ~350 MiB at 2,000 × 10. A `flavor: 'last-resort'` collection would hand
 * them back at once but pauses for several full collections (432 ms for a
 * 4 MiB live heap on this machine), so the reducer is left to do it. The
 * figures it moves are the "20 s later" RSS of `node test/bench/run.ts
 * --only-scale` (Note [Settled RSS] in test/bench/lib/scale.ts; numbers in the
 * commit that added this note).
 * `gc` is taken from a fresh context with `--expose-gc` set only for that
 * moment, so the engine's own global object has no `gc`.
 */
/*
 * Note [Only a metadata change's burst]
 * A burst of requests also grows the heap: at a few thousand requests a
 * second the old generation gains the promoted pg results and buffers, and
 * an engine that then went idle (a load balancer's other replica served, a
 * benchmark measured a peer) qualified. Its collection starts V8's memory
 * reducer, which shrinks the heap and the young generation, and the next
 * load pays while they grow back: in `npm run bench -- --quick` the first
 * cell (AlbumByPK admin, measured after the engine idled through the other
 * peers' warm-up) cost the engine 79-128 µs per request with that
 * collection against 41-61 without it, whichever the young generation's cap
 * (085f259 with each setting off in turn, two alternated rounds, load 6-12:
 * both settings 95/128, `--max-semi-space-size` off 87/79, the collection
 * off 48/61, both off 41/49; the raw peer 33-43 throughout).
 * So the collector is armed only by a metadata change (the caller passes
 * the catalog's subscribe) and by the start. It stays armed while the event
 * loop is busy (at least {@link BUSY_UTILIZATION} of a tick: the schema
 * warm-up builds one role per macrotask without pause), then for
 * {@link GRACE_TICKS} ticks more (the last role's requests, a heap still
 * moving from the builds' tail). A quiet burst within that collects; else it
 * disarms and leaves the change's garbage to V8. The heap alone cannot
 * tell when the builds end (a V8 collection within a tick can leave the
 * used heap where it was a second before): with a first-quiet-tick rule, one
 * run in three at 2,000 × 10 went without the collection (RSS 478 MiB 20 s
 * after the last role answered). A request burst that comes later finds the
 * collector disarmed. With this rule, three quick runs logged no
 * collection after the warm-ups; but at a load of 7-17 the first cell's CPU
 * did not tell the checkouts apart (9 alternated rounds: median 94 µs per
 * request on 085f259, 89 with the rule, both ranging 72-331 with other work
 * on the machine), so the gain is still to be confirmed on a quieter
 * machine. Re-measure: `node test/bench/run.ts --quick --skip-scale --ops
 * AlbumByPK --engine-root <checkout>`, each checkout in turn, the Engine's
 * CPU µs/req of the first cell.
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

/**
 * Ticks after a change's builds ended (the first tick whose event loop was
 * busy less than {@link BUSY_UTILIZATION}) in which a quiet burst is still
 * collected: Note [Only a metadata change's burst].
 */
export const GRACE_TICKS = 3;
/** Event-loop utilization of a tick at or above which the engine counts as still building (or serving flat out). */
export const BUSY_UTILIZATION = 0.5;

/** A running collector: `stop` ends its timer. */
export interface IdleCollector {
  stop(): void;
  /** Full collections it asked for so far. */
  readonly collections: number;
  /** Whether a metadata change (or the start) armed it and it has neither collected nor used up its grace since. */
  readonly armed: boolean;
  /** Quiet ticks that found a burst while disarmed: bursts left to V8 (Note [Only a metadata change's burst]). */
  readonly skipped: number;
  /** Ticks run so far (what a wait for "no collection in N ticks" counts). */
  readonly ticks: number;
}

/** Subscribes `onChange` to metadata changes (a new catalog installed); returns the unsubscribe function. */
export type ChangeSource = (onChange: () => void) => () => void;

/**
 * Starts the collector of Note [Collecting after a burst], armed by the start
 * and by every change of `changes`; `intervalMs` is the tick.
 */
export function collectAfterBursts(changes: ChangeSource, intervalMs = 1000): IdleCollector {
  const gc = gcFunction();
  let collections = 0;
  let skipped = 0;
  // Grace ticks left once the builds ended; null while armed and still busy, 0 when disarmed.
  let grace: number | null = null;
  if (gc === undefined)
    return {
      stop() {},
      get collections() {
        return 0;
      },
      get armed() {
        return false;
      },
      get skipped() {
        return 0;
      },
      get ticks() {
        return 0;
      },
    };
  // The lowest used heap seen since the last collection asked for here: what was live at most.
  let base = usedHeap();
  let last = base;
  let loop = performance.eventLoopUtilization();
  let running = false;
  let ticks = 0;
  const unsubscribe = changes(() => {
    grace = null;
  });
  const timer = setInterval(() => {
    ticks++;
    const used = usedHeap();
    const quiet = Math.abs(used - last) < QUIET_BYTES;
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, loop).utilization >= BUSY_UTILIZATION;
    loop = now;
    last = used;
    base = Math.min(base, used);
    if (running) return;
    const burst = used - base >= BURST_BYTES;
    if (grace === 0) {
      if (quiet && burst) skipped++;
      return;
    }
    if (quiet && burst) {
      grace = 0;
      running = true;
      collections++;
      Promise.resolve(gc({ type: 'major', execution: 'async' }))
        .catch(() => {})
        .finally(() => {
          running = false;
          base = last = usedHeap();
        });
      return;
    }
    // The builds ended once a tick's loop was mostly idle; from then on a few ticks more.
    if (grace === null) {
      if (!busy) grace = GRACE_TICKS - 1;
    } else {
      grace--;
    }
  }, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      unsubscribe();
    },
    get collections() {
      return collections;
    },
    get armed() {
      return grace !== 0;
    },
    get skipped() {
      return skipped;
    },
    get ticks() {
      return ticks;
    },
  };
}
