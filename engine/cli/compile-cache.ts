/**
 * The module compile cache of `engine serve`: V8's compiled code of every
 * module, and for the engine's own .ts files the type-stripped source, kept
 * on disk so the next start loads them without compiling again.
 *
 * Note [Module compile cache]
 * Node runs the engine's TypeScript sources directly, so every start strips
 * the types of ~400 engine files and compiles them and ~950 files of
 * dependencies: loading the module graph was ~14% of a start's CPU at 2,000
 * tables × 10 roles. Node's compile cache (`module.enableCompileCache`, on
 * Node 24 also covering type stripping) halves that: importing run-cli.ts
 * took 730-810 ms of CPU without it and 340-390 ms with a warm cache (3 runs
 * each of `node --input-type=module -e "const c = process.cpuUsage(); await
 * import('./engine/run-cli.ts'); console.log(process.cpuUsage(c))"`, with and
 * without NODE_COMPILE_CACHE=<dir>). With NODE_ENV=production (Note
 * [graphql-js production mode] in v8-flags.ts), the document stamp (Note
 * [Document stamp] in metadata/store.ts) and undici and jose loaded on first
 * use, a start at 2,000 tables × 10 roles took 5,695 → 4,535 ms of engine
 * CPU until every role answered (medians of 4 alternated starts of 248fae0
 * without and with the three, load 13-14, 2026-11-28: `node
 * test/bench/start-profile.ts 2000 10 4 /tmp/sp --before-root <checkout>
 * --no-prof`, whose unmeasured starts warm the cache). Node checks each
 * entry against the module's source (a checksum) and its own version and V8
 * flags (the directory's name), so an entry of another engine version or
 * another Node is a miss,
 * never wrong code; the directory is therefore not keyed by engine version
 * (the same files' entries are replaced, not piled up).
 * Where: the operator's NODE_COMPILE_CACHE (Node enables it before any
 * module loads; NODE_DISABLE_COMPILE_CACHE turns it off) wins. Else the
 * user's cache directory (XDG_CACHE_HOME, or ~/.cache), else a directory
 * of the temporary directory named by user id. Cached code runs as the
 * engine, so a directory another user owns or may write is not used:
 * whoever could plant an entry there could run code in the engine. It is a
 * cache and never stops a start: a directory that cannot be made (a
 * read-only filesystem) or is not ours means no cache, silently, a failed
 * write is ignored by Node, and a damaged entry fails Node's checksum and is
 * compiled afresh (each entry is written to a temporary file and renamed, so
 * engines sharing the directory never read half an entry;
 * NODE_DEBUG_NATIVE=COMPILE_CACHE shows both). Entries are written once serving (all
 * start-up modules are loaded then) and at exit; a start that found them
 * all writes nothing.
 */
import { accessSync, constants, lstatSync, mkdirSync } from 'node:fs';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';

/**
 * The compile cache directory of an engine run by user `uid` (null where
 * there are no user ids), with environment `env` and temporary directory
 * `tmp`, when the operator set none (Note [Module compile cache]).
 */
export function defaultCompileCacheDir(env: Readonly<Record<string, string | undefined>>, tmp: string, uid: number | null): string {
  const xdg = env['XDG_CACHE_HOME'];
  if (xdg !== undefined && path.isAbsolute(xdg)) return path.join(xdg, 'engine', 'compile-cache');
  // A container user without a home of its own often has HOME=/ (not writable, or shared).
  const home = env['HOME'];
  if (home !== undefined && path.isAbsolute(home) && path.resolve(home) !== path.parse(home).root) {
    return path.join(home, '.cache', 'engine', 'compile-cache');
  }
  return path.join(tmp, `engine-compile-cache-${uid ?? 'user'}`);
}

/** Whether `dir` may hold the cache: a directory (made if missing) this user owns, writable by it and by no one else. */
function usableDir(dir: string, uid: number | null): boolean {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const st = lstatSync(dir);
    if (!st.isDirectory()) return false;
    if (uid !== null && (st.uid !== uid || (st.mode & 0o022) !== 0)) return false;
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Turns the module compile cache on for the modules loaded from now on (Note
 * [Module compile cache]); returns the directory in use, or null when there
 * is none (the operator's choice included: Node applied it already).
 */
export function enableEngineCompileCache(env: Readonly<Record<string, string | undefined>> = process.env): string | null {
  if (env['NODE_COMPILE_CACHE'] !== undefined || env['NODE_DISABLE_COMPILE_CACHE'] !== undefined) return module.getCompileCacheDir?.() ?? null;
  if (typeof module.enableCompileCache !== 'function') return null;
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  const dir = defaultCompileCacheDir(env, os.tmpdir(), uid);
  if (!usableDir(dir, uid)) return null;
  try {
    const result = module.enableCompileCache(dir);
    return result.status === module.constants.compileCacheStatus.ENABLED ? (result.directory ?? dir) : null;
  } catch {
    return null;
  }
}

/** Writes the entries of the modules loaded so far (Node ignores a failed write). */
export function flushEngineCompileCache(): void {
  try {
    module.flushCompileCache?.();
  } catch {
    // A cache never stops the engine.
  }
}
