/**
 * The V8 settings `engine serve` runs with, applied by re-executing the
 * process image (same pid) before the engine's modules load.
 *
 * Note [Engine V8 settings]
 * V8 sizes its young generation (two semi-spaces) from the machine: on a
 * 64-bit Node 24 each semi-space may grow to 64 MiB, so a busy engine keeps
 * 128 MiB of new space committed whatever its live data. Building role
 * schemas at scale allocates enough to grow it to the maximum, and it stays
 * there. `--max-semi-space-size=16` caps it at 32 MiB.
 * Measured on e4d23ec with and without the flag (2-core machine under a load
 * of 10-25, so ratios only): RSS at 2,000 tables × 10 roles with every role
 * schema built 557-562 → 445-518 MiB (`node test/bench/run.ts --only-scale`
 * with `--engine-root` on each checkout); engine CPU per request unchanged
 * (AlbumByPK customer 60 → 61 µs, CustomerInvoices admin 102 → 100, customer
 * 104 → 108, ArtistAggregates admin 230 → 232: `node
 * test/bench/compare-engines.ts <without> <with> --ops
 * AlbumByPK,CustomerInvoices,ArtistAggregates --repeats 5 --seconds 3`).
 * Not taken: `--heap-growing-percent=50` (a full collection whenever the old
 * generation grew by half) brought the same figure to 387-402 MiB but cost
 * the schema builds 18-35% more engine CPU (replace_metadata → all roles
 * 4,181 → 4,951-5,390 ms); V8 refuses it in NODE_OPTIONS, so an operator who
 * prefers memory passes it on the command line (`node
 * --heap-growing-percent=50 engine/main.ts serve`).
 * Not taken either, for the RSS the moment every role answered after
 * replace_metadata at 2,000 × 10 (085f259 and 134703e, load 4-15, engine CPU from the
 * call to the last answer beside it; the default 475-512 MiB, 3,841-4,610 ms):
 * `--memory-balancer` 401-414 MiB but 5,159-6,337 ms (+34-37%), and 401-405
 * MiB 20 s later where the default settles at 347-356 (its limits leave the
 * memory reducer nothing to return); `--optimize-for-size` 358-363 MiB at
 * 10,908-11,576 ms (2.8×); `--max-semi-space-size=8` 522 MiB against 515 with
 * 16 (the build's garbage is old-generation garbage, not young);
 * `MALLOC_ARENA_MAX=2` 502 against 515, within the runs' spread. So the
 * figure at the answer is the old generation the builds fill before V8's
 * next full collection; no setting tried lowers it without a CPU cost of a
 * third or more. Re-measure: `node test/bench/rss-variants.ts --rounds 2
 * default=<checkout> balancer=<checkout>:--memory-balancer
 * semi8=<checkout>:--max-semi-space-size=8 arenas=<checkout>@MALLOC_ARENA_MAX=2`.
 * A young generation's size can only be set when the isolate is made (V8
 * reads `--max-semi-space-size` once; `v8.setFlagsFromString` is too late),
 * so the entry point re-executes itself with the flag (`process.execve`:
 * same pid, same file descriptors, so supervisors, signals and logs are
 * unaffected) unless the flag is already given, on the command line or in
 * NODE_OPTIONS: an operator's own value always wins. Only `serve` does
 * this, and it happens before the engine's module graph loads, so it costs
 * one Node start with its TypeScript stripper: +130 ms median, +46 ms at
 * best (`node engine/main.ts serve --help` against `node
 * --max-semi-space-size=16 engine/main.ts serve --help`, 12 runs each,
 * interleaved, load 8-10). Where `process.execve` is missing (Windows,
 * Node < 22.15), the engine runs with V8's defaults.
 */

/**
 * Note [graphql-js production mode]
 * graphql-js reads NODE_ENV once, when it loads: unless it is `production`,
 * its `instanceOf` (behind every isObjectType/isInputType/... check) reads
 * constructor names and Symbol.toStringTag on each failing check, to warn
 * about two copies of graphql in one process (the engine has one). That was
 * 4.2-4.7% of the engine's CPU self time in a start at 2,000 tables × 10
 * roles (schema builds and validation call it millions of times) and is paid
 * on every request too. So `serve` sets NODE_ENV=production when the
 * operator set no NODE_ENV (any value of theirs, even an empty one, is
 * kept); nothing else the engine loads reads it (graphql-ws reads it only
 * in its server adapters, which the engine does not use). It is set before
 * the re-execution, so the served process has it from its first module on
 * whether or not `process.execve` exists.
 * Measured 2026-11-28 20:22 (load 6-14), b112d1b with and without this
 * call alone: engine CPU µs per request AlbumByPK admin 66 → 49, customer
 * 52 → 46, ArtistAggregates admin 281 → 198, CustomerInvoices admin 94 → 82,
 * customer 89 → 91 (`node test/bench/compare-engines.ts <without> <with>
 * --ops AlbumByPK,CustomerInvoices,ArtistAggregates --repeats 3 --seconds
 * 3`); the start's figure is in Note [Module compile cache], with the other
 * start-up changes.
 */

/** Sets NODE_ENV to `production` in `env` unless the operator set it (Note [graphql-js production mode]). */
export function defaultProductionMode(env: Record<string, string | undefined> = process.env): void {
  if (env['NODE_ENV'] === undefined) env['NODE_ENV'] = 'production';
}

/*
 * Note [A young generation the reducer cannot shrink]
 * An engine that idles for about 8 s meets V8's memory reducer, which
 * shrinks the young generation back to its initial size (1 MiB a
 * semi-space), and a steady request load grows it back only slowly, since
 * little of each request survives (Note [First cell after idle] in
 * server/graphql-fast-path.ts). Until then every few hundred requests pay a
 * scavenge whose fixed cost (roots, remembered sets, the parallel scavenger's
 * threads) is ~300 µs on this 2-core machine. `--min-semi-space-size=16`
 * makes the initial size the cap of Note [Engine V8 settings], so there is
 * nothing to shrink. Measured with `node test/bench/compare-engines.ts
 * <without> <with> --ops AlbumByPK,SearchAlbumsWithArtist,CustomerInvoices
 * --repeats 4 --seconds 3 --idle 10 --gc` (10 s of idle before every run,
 * 2026-11-29 05:24, load ~1): young collections per 1,000 requests 3.9-6.8 →
 * 1.1-1.7, the collector's main-thread pause 1.5-4.1 → 0.6-1.7 µs per
 * request, engine CPU per request AlbumByPK 41 → 42 (admin) and 42 → 39
 * (customer), SearchAlbumsWithArtist 53 → 47 and 54 → 49, CustomerInvoices
 * 66 → 61 and 71 → 63 µs (the helper threads' GC work is the rest of the
 * gain). Memory: at 2,000 tables × 10 roles the builds grow the young
 * generation to its cap anyway, so nothing moves (`node
 * test/bench/rss-variants.ts --rounds 2 default=<checkout>
 * min16=<checkout>:--min-semi-space-size=16`, 05:38: RSS at the answer
 * 363/368 → 365/369 MiB after replace_metadata, 363/364 → 347/340 after a
 * restart, 291-296 → 284-295 20 s later); on chinook an engine that served
 * a few seconds of AlbumByPK and idled 25 s held 132/148 MiB without the flag
 * and 131/158 with it: up to the young generation's 32 MiB more on a small
 * deployment, for 3-8 µs less CPU per request after every idle period.
 * `--min-semi-space-size=8` sat between (young collections 1.4-2.0 per 1,000).
 * In four alternated `node test/bench/run.ts --quick --skip-scale --repeats 3
 * --engine-root <checkout>` (05:45-06:01, load 0.5-3.8, without, with, with,
 * without) the engine's CPU per request read SearchAlbumsWithArtist 47-52 →
 * 44-46 µs and CustomerInvoices 59-66 → 57-64; it does not prevent the
 * slow regime of AlbumsArtistTracksGenre after an idle (one run each way).
 * An operator's `--max-semi-space-size` below 16 also lowers this one (V8
 * clamps the initial size to the cap); Node refuses this flag in NODE_OPTIONS,
 * so an operator's own value goes on the command line.
 */

/*
 * Note [No memory reducer]
 * Even with the young generation pinned (Note [A young generation the
 * reducer cannot shrink]), an engine answering large results went slow after
 * an idle period: AlbumsArtistTracksGenre (84 KB answers) from ~250 to
 * 450-550 µs of engine CPU per request, in one run of two of the quick set
 * and of compare-engines. `--trace-gc` shows why: after ~8 s of idle V8's
 * memory reducer runs its two `Mark-Compact (reduce)` collections, and from
 * then on the load runs a full collection every 100-250 ms, each promoting
 * the ~4 MB that in-flight requests hold (`--trace-gc-nvp`: promoted=4.0 MB
 * per full collection, against a few hundred bytes per scavenge), which die
 * in the old generation and bring on the next. The regime lasts as long as
 * the load, and every idle period starts it again. With `--no-memory-reducer`
 * the same load after the same idle runs two full collections as it starts
 * and none after (4k requests per 4 s against 3k). Measured with `node
 * test/bench/compare-engines.ts <without> <with> --ops
 * AlbumsArtistTracksGenre,ArtistAggregates,AlbumByPK --repeats 4 --seconds 3
 * --idle 10 --gc` (2026-11-29 06:13, load <1): AlbumsArtistTracksGenre admin
 * 451 → 254 µs (full collections per 1,000 requests 5.6 → 0.65), customer
 * 247 → 249 (that run's before missed the regime), ArtistAggregates 145 →
 * 136, AlbumByPK 36 → 33 and 36 → 33.
 * The price is memory handed back after a burst: the reducer is what returns
 * the pages Note [Collecting after a burst] (idle-gc.ts) empties. `node
 * test/bench/rss-variants.ts --rounds 2 default=<checkout>
 * noreducer=<checkout>:--no-memory-reducer` at 2,000 tables × 10 roles
 * (06:09): RSS the moment every role answered 368/371 → 371/371 MiB after
 * replace_metadata and 351/350 → 346/344 after a restart (the issue's
 * figures: unchanged), 20 s later 292/297 → 351/352 and 291/293 → 337/334
 * (within the 400 MiB goal either way). Speed after idle is what users see
 * of an engine whose traffic comes and goes, so the engine trades those
 * 45-60 MiB for it; an operator who prefers the memory passes
 * `--memory-reducer` on the command line.
 */

/** The V8 flags the engine runs with, each as `--name=value`. */
export const ENGINE_V8_FLAGS: readonly string[] = ['--max-semi-space-size=16', '--min-semi-space-size=16', '--no-memory-reducer'];

/** The flag's name as Node accepts it: dashes and underscores are the same, and `--no-x` sets `--x`. */
function flagName(arg: string): string {
  return arg
    .replace(/=.*$/s, '')
    .replaceAll('_', '-')
    .replace(/^--no-/, '--');
}

/**
 * The flags of {@link ENGINE_V8_FLAGS} that neither `execArgv` (Node's
 * options of this process) nor `nodeOptions` (the NODE_OPTIONS variable) sets.
 */
export function missingV8Flags(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const given = new Set([...execArgv, ...(nodeOptions ?? '').split(/\s+/)].filter((a) => a.startsWith('--')).map(flagName));
  return ENGINE_V8_FLAGS.filter((f) => !given.has(flagName(f)));
}

/*
 * Note [Engine malloc settings]
 * Besides V8's heap, the engine's RSS holds what glibc's malloc keeps of
 * native allocations: request bodies and their text (a 3 MiB
 * replace_metadata), pg's buffers, compiler zones. glibc serves a block of
 * 128 KiB or more with its own mmap, given back on free, but after freeing
 * one it raises that threshold to the block's size (up to 32 MiB), so later
 * large blocks come from the heap arenas, whose freed memory mostly stays
 * in the process. `MALLOC_MMAP_THRESHOLD_=131072` fixes the threshold (and
 * turns that raising off): large blocks are always mapped and unmapped.
 * Measured with `node test/bench/rss-variants.ts --rounds 3 --settle 10000
 * plain=<checkout> mmap=<checkout>@MALLOC_MMAP_THRESHOLD_=131072` (2,000
 * tables × 10 roles, alternated, load 9-12, 2026-11-28, on d9ebab6 with this
 * session's replace_metadata commits), plain → mmap, MiB:
 * replace_metadata → every role answered, RSS at the answer 489/464/506 →
 * 481/474/471, 10 s later 442/459/460 → 430/430/430; restart → every role
 * answered 429/431/427 → 415/410/409, 10 s later 400/403/399 → 384/380/382.
 * Engine CPU to the last answer 3,432/3,727/3,226 → 3,537/3,433/3,613 ms
 * after the replace and 4,154/3,944/4,018 → 4,307/4,190/4,061 after the
 * restart: within the runs' spread, but perhaps +3-4% (an mmap and fresh
 * pages per large block); an earlier pair of rounds on 81fed2e at load 12-13
 * gave RSS at the answer 448/460 → 423/426 with CPU 3,236/2,894 →
 * 2,775/2,803. And on d9ebab6 itself, the variable its only difference
 * (`--rounds 3 --settle 2000`, load 8-10, 22:51-22:58 UTC): RSS at the
 * answer after the replace 475/506/464 → 426/408/448, after a restart
 * 485/421/428 → 410/403/409; CPU 3,716/3,601/3,652 → 3,838/3,973/3,643 ms
 * and 3,879/4,300/3,951 → 4,033/4,115/3,871 (medians +5% and +2%). Set
 * like the V8 flags: in the environment of the re-executed `serve` (glibc
 * reads it when the process starts), unless the operator set it or any
 * `glibc.malloc.mmap_threshold` in GLIBC_TUNABLES; other C libraries
 * ignore it.
 */

/** The environment `engine serve` runs with (Note [Engine malloc settings]), unless the operator set its own. */
export const ENGINE_MALLOC_ENV: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };

/** The variables of {@link ENGINE_MALLOC_ENV} that `env` lacks (an operator's own setting, also through GLIBC_TUNABLES, wins). */
export function missingMallocEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const tunables = env['GLIBC_TUNABLES'] ?? '';
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(ENGINE_MALLOC_ENV)) {
    const tunable = `glibc.malloc.${k
      .replace(/^MALLOC_/, '')
      .replace(/_$/, '')
      .toLowerCase()}=`;
    if (env[k] === undefined && !tunables.includes(tunable)) out[k] = v;
  }
  return out;
}

/**
 * Re-executes this process with the missing flags of {@link ENGINE_V8_FLAGS}
 * and variables of {@link ENGINE_MALLOC_ENV} (never returns then); returns
 * when none is missing or the platform cannot (see Note [Engine V8 settings]).
 */
export function execWithEngineV8Flags(): void {
  const missing = missingV8Flags(process.execArgv, process.env['NODE_OPTIONS']);
  const env = missingMallocEnv(process.env);
  if ((missing.length === 0 && Object.keys(env).length === 0) || typeof process.execve !== 'function') return;
  const script = process.argv[1];
  if (script === undefined) return;
  try {
    process.execve(process.execPath, [process.execPath, ...missing, ...process.execArgv, script, ...process.argv.slice(2)], { ...process.env, ...env });
  } catch {
    // The image could not be replaced (e.g. a sandbox forbids execve): V8's defaults then.
  }
}
