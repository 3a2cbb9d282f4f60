#!/usr/bin/env node
/**
 * Builds the web console (src/ → dist/) with esbuild. Run by `npm install`
 * (postinstall) and by `npm start` when dist/ is missing or was built from
 * other sources;
 * `node engine/console/build.ts` builds by hand. dist/ is committed (Note
 * [Committed console build]); `--check` says whether it is current.
 *
 * Note [Committed console build]
 * The console's build tools (esbuild, React, GraphiQL, Monaco: about 190 MB
 * of node_modules) are dev dependencies, so `npm ci --omit=dev`, the way to
 * install only the engine (199 MB instead of 736 MB), cannot build it. The
 * built console is therefore committed: a clone serves it with no tools at
 * all. Every build writes `build-stamp.txt`, a hash of what it was built from
 * (sourceStamp: src/, this file, package-lock.json); `--check` (run by CI on
 * a clean clone, .ci/run, before installing) fails when the committed stamp
 * is not that of the committed sources, so a change to the console's sources
 * or to the locked packages is committed with its rebuilt dist/ (`npm run
 * build:console`; `npm start` rebuilds it too). The postinstall build runs
 * only when dist/ is stale and the tools are installed; without them a stale
 * dist/ is kept and reported.
 *
 * Note [Console build layout]
 * Everything the page loads is in dist/: index.html (served without caching)
 * and assets/ whose names carry a content hash (served as immutable). Every URL
 * inside the page is relative (`assets/…`, `../v1/graphql`), so the console
 * works under any path prefix a proxy adds; routing is in the hash
 * (`#/data`), so the page itself is always `console/`. Monaco (GraphiQL 5's
 * editor) runs three web workers; esbuild bundles each as its own classic
 * script and the main bundle learns their hashed names through `define`
 * (the graphiql/setup-workers modules assume Vite or webpack). Fonts are
 * inlined by GraphiQL's CSS as data URLs; nothing is fetched from elsewhere.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { CONSOLE_DIST, CONSOLE_SRC } from './paths.ts';

/** The Monaco workers: label → module inside node_modules. */
const WORKERS = {
  editor: 'monaco-editor/esm/vs/editor/editor.worker.js',
  json: 'monaco-editor/esm/vs/language/json/json.worker.js',
  graphql: 'monaco-graphql/esm/graphql.worker.js',
} as const;

/**
 * A hash of the sources and of the versions of the packages bundled, written
 * to dist/ by a build. Contents, not modification times: a checkout or a copy
 * of the folder gives files new times without changing what a build makes.
 */
function sourceStamp(): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(p);
      else hash.update(`${path.relative(CONSOLE_SRC, p)}\0`).update(readFileSync(p));
    }
  };
  walk(CONSOLE_SRC);
  hash.update(readFileSync(path.join(CONSOLE_SRC, '..', 'build.ts')));
  try {
    hash.update(readFileSync(path.join(CONSOLE_SRC, '..', '..', '..', 'package-lock.json')));
  } catch {
    // A copy without the lock file: the sources alone decide.
  }
  return hash.digest('hex');
}

const STAMP = 'build-stamp.txt';

/** True when dist/ is missing or was built from other sources. */
export function consoleBuildIsStale(): boolean {
  const stamp = path.join(CONSOLE_DIST, STAMP);
  if (!existsSync(path.join(CONSOLE_DIST, 'index.html')) || !existsSync(stamp)) return true;
  return readFileSync(stamp, 'utf8').trim() !== sourceStamp();
}

/** True when the build tools (devDependencies) are installed. */
export function consoleBuildToolsPresent(): boolean {
  try {
    createRequire(import.meta.url).resolve('esbuild');
    return true;
  } catch {
    return false;
  }
}

/** Brotli quality for the precompressed copies (Note [Console caching] in assets.ts). */
const BROTLI_QUALITY = 9;

/** Writes `file` and, for a text file worth it, its .br and .gz copies. */
function writeWithCompressed(file: string, body: Uint8Array): void {
  writeFileSync(file, body);
  if (body.length < 2048 || !/\.(js|css|html|json|svg)$/.test(file)) return;
  writeFileSync(
    `${file}.br`,
    brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } }),
  );
  writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
}

function hashed(name: string, body: Uint8Array, ext: string): string {
  return `${name}-${createHash('sha256').update(body).digest('hex').slice(0, 12)}${ext}`;
}

/** Builds dist/ from src/; returns the file names written under dist/assets. */
export async function buildConsole(): Promise<string[]> {
  const esbuild = await import('esbuild');
  const require = createRequire(import.meta.url);
  // Built beside dist/ and renamed into place: a build running at the same time (two test files)
  // or a server reading dist/ never sees half a build.
  const out = `${CONSOLE_DIST}.building-${process.pid}-${Date.now()}`;
  const assets = path.join(out, 'assets');
  mkdirSync(assets, { recursive: true });
  const written: string[] = [];
  const emit = (name: string, ext: string, body: Uint8Array): string => {
    const file = hashed(name, body, ext);
    writeWithCompressed(path.join(assets, file), body);
    written.push(file);
    return file;
  };
  const common = { bundle: true, minify: true, write: false, target: 'es2022', logLevel: 'warning', legalComments: 'none' } as const;

  const workerFiles: Record<string, string> = {};
  for (const [label, mod] of Object.entries(WORKERS)) {
    const out = await esbuild.build({ ...common, entryPoints: [require.resolve(mod)], format: 'iife' });
    workerFiles[label] = emit(`${label}.worker`, '.js', out.outputFiles[0]!.contents);
  }

  const main = await esbuild.build({
    ...common,
    entryPoints: [path.join(CONSOLE_SRC, 'main.tsx')],
    format: 'esm',
    splitting: false,
    outdir: assets,
    entryNames: 'console',
    jsx: 'automatic',
    loader: { '.ttf': 'dataurl', '.woff': 'dataurl', '.woff2': 'dataurl', '.svg': 'dataurl' },
    define: {
      'process.env.NODE_ENV': '"production"',
      __CONSOLE_WORKERS__: JSON.stringify(workerFiles),
    },
  });
  let js = '';
  let css = '';
  for (const f of main.outputFiles) {
    if (f.path.endsWith('.js')) js = emit('console', '.js', f.contents);
    else if (f.path.endsWith('.css')) css = emit('console', '.css', f.contents);
  }
  const template = readFileSync(path.join(CONSOLE_SRC, 'index.html'), 'utf8');
  writeWithCompressed(path.join(out, 'index.html'), Buffer.from(template.replace('%CSS%', `assets/${css}`).replace('%JS%', `assets/${js}`)));
  writeFileSync(path.join(out, STAMP), `${sourceStamp()}\n`);
  const old = `${out}.old`;
  try {
    renameSync(CONSOLE_DIST, old);
  } catch {
    // No previous build.
  }
  renameSync(out, CONSOLE_DIST);
  rmSync(old, { recursive: true, force: true });
  return written;
}

function isEntryPoint(): boolean {
  return process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
}

if (isEntryPoint()) {
  const where = path.relative(process.cwd(), CONSOLE_DIST) || CONSOLE_DIST;
  if (process.argv.includes('--check')) {
    // CI: the committed dist/ must be the build of the committed sources (Note [Committed console build]).
    if (consoleBuildIsStale()) {
      process.stderr.write(`[console] ${where} was not built from the current sources: run \`npm run build:console\` and commit ${where}\n`);
      process.exitCode = 1;
    } else process.stdout.write(`[console] ${where} is current\n`);
  } else if (process.argv.includes('--if-tools') && !consoleBuildIsStale()) {
    // The committed build (or an earlier one) is current: nothing to do.
  } else if (process.argv.includes('--if-tools') && !consoleBuildToolsPresent()) {
    process.stdout.write(
      `[console] ${where} is missing or older than the console's sources and the build tools are not installed (production install): it is not rebuilt\n`,
    );
  } else {
    const started = Date.now();
    const files = await buildConsole();
    process.stdout.write(`[console] built ${files.length} assets into ${where} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
}
