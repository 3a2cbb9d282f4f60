/**
 * What a catalog build keeps for the next one: per-table stage results,
 * reused when everything they were computed from is the same.
 *
 * Note [Catalog memo]
 * Tracking one table at 2,000 tables × 10 roles ran every stage over every
 * table again: ~225 ms of CPU per pg_track_table, 90% of the call (`node
 * --cpu-prof test/bench/track-profile.ts 2000 10 10`). Now each stage that
 * works table by table (the table drafts, enum links, relationships,
 * permissions, the assembled TableInfo) looks its table up in the previous
 * build's memo first and takes the old result when
 * - its `deps` are the same values (===): the document entry (edits copy the
 *   document on write, so an unchanged table keeps its entry object), the
 *   introspected table (kept when equal: Note [Introspection kept when
 *   equal] in backends/source-preparer.ts), the results of earlier stages for
 *   this table (themselves reused, hence the same objects), and
 * - every read it made of other tables (`reads`: a relationship's target, a
 *   permission's path through relationships) gives the same values again.
 * So a result is reused only when recomputing it would read the same inputs:
 * correct by construction, whatever the change was, and a change costs the
 * tables it touches plus one pass of map lookups over the rest. The memo
 * holds one generation: a build reads the previous build's and fills its
 * own, and what it did not reuse or make is let go with the old one.
 * Measured: see the commit that added this file (track-profile before/after).
 */

/** One read of another table: what was asked (a key) and what came back (compared by identity, element-wise for arrays). */
export type Read = readonly [key: string, result: unknown];

/** Answers a recorded read again in the build at hand. */
export type Replay = (key: string) => unknown;

interface Memoized<V> {
  readonly deps: readonly unknown[];
  readonly reads: readonly Read[];
  readonly value: V;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The results of one stage, by the object they were computed for (a document entry, a draft). */
export class StageMemo<K extends object, V> {
  #previous: ReadonlyMap<K, Memoized<V>> | null;
  readonly #current = new Map<K, Memoized<V>>();

  constructor(previous: ReadonlyMap<K, Memoized<V>> | null) {
    this.#previous = previous;
  }

  /** The previous build's result for `key` when its deps and reads are unchanged (and keeps it for the next build). */
  reuse(key: K, deps: readonly unknown[], replay?: Replay): V | undefined {
    const hit = this.#previous?.get(key);
    if (hit === undefined || hit.deps.length !== deps.length) return undefined;
    for (let i = 0; i < deps.length; i++) if (hit.deps[i] !== deps[i]) return undefined;
    if (hit.reads.length > 0) {
      if (replay === undefined) return undefined;
      for (const [k, result] of hit.reads) if (!sameValue(replay(k), result)) return undefined;
    }
    this.#current.set(key, hit);
    return hit.value;
  }

  /** Records a result made in this build. */
  keep(key: K, deps: readonly unknown[], value: V, reads: readonly Read[] = []): V {
    this.#current.set(key, { deps, reads, value });
    return value;
  }

  /** What this build kept, for the next one. */
  get kept(): ReadonlyMap<K, Memoized<V>> {
    return this.#current;
  }

  /** Lets the previous build's results go. */
  seal(): void {
    this.#previous = null;
  }
}

/**
 * Wraps a lookup so that its answers are recorded as reads (`key` names the
 * question; `answer` gives what a replay must return the same of).
 */
export function recording<A, R>(reads: Read[], key: (arg: A) => string, answer: (k: string) => R): (arg: A) => R {
  return (arg) => {
    const k = key(arg);
    const result = answer(k);
    reads.push([k, result]);
    return result;
  };
}

/** The stage memos of one build, made from the previous build's. */
export class CatalogMemo {
  #previous: CatalogMemo | null;
  readonly #stages = new Map<string, StageMemo<object, unknown>>();

  constructor(previous: CatalogMemo | null = null) {
    this.#previous = previous;
  }

  /** The memo of stage `name` (one per stage; `K` and `V` are the stage's own). */
  stage<K extends object, V>(name: string): StageMemo<K, V> {
    let m = this.#stages.get(name);
    if (m === undefined) {
      const before = this.#previous === null ? undefined : this.#previous.#stages.get(name);
      m = new StageMemo<object, unknown>(before?.kept ?? null);
      this.#stages.set(name, m);
    }
    return m as unknown as StageMemo<K, V>;
  }

  /** Called when the build is done: the previous build's memo is no longer needed. */
  seal(): void {
    this.#previous = null;
    for (const m of this.#stages.values()) m.seal();
  }
}
