/**
 * The built console (dist/, see build.ts) read into memory once, with the
 * answer headers each file is served with. The server's console route serves
 * only what this returns; nothing here knows HTTP frameworks.
 *
 * Note [Console caching]
 * Files under assets/ carry a content hash in their name, so they are served
 * `immutable` for a year: a new build has new names. index.html names them
 * and is served `no-cache` (revalidated with its ETag on every load), so a
 * browser picks up a rebuilt console at once. The build writes a brotli and a
 * gzip copy next to each large text file; the server picks one by the
 * request's Accept-Encoding and never compresses a console file per request.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { CONSOLE_DIST } from './paths.ts';

/** One servable file. */
export interface ConsoleFile {
  readonly body: Buffer;
  readonly br: Buffer | null;
  readonly gzip: Buffer | null;
  readonly contentType: string;
  readonly cacheControl: string;
  readonly etag: string;
}

/** The console's files by their path below `/console/` (`''` is index.html). */
export type ConsoleAssets = ReadonlyMap<string, ConsoleFile>;

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

function load(file: string, cacheControl: string): ConsoleFile {
  const body = readFileSync(file);
  const sibling = (ext: string): Buffer | null => (existsSync(file + ext) ? readFileSync(file + ext) : null);
  return {
    body,
    br: sibling('.br'),
    gzip: sibling('.gz'),
    contentType: TYPES[path.extname(file)] ?? 'application/octet-stream',
    cacheControl,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
  };
}

/** Reads dist/; throws an `invalid-configuration` error saying how to build it when it is missing. */
export function loadConsoleAssets(dist: string = CONSOLE_DIST): ConsoleAssets {
  const index = path.join(dist, 'index.html');
  if (!existsSync(index)) {
    throw new EngineError(
      ErrorCode.InvalidConfiguration,
      `the web console is enabled but not built (${index} is missing): run \`npm install\` or \`node engine/console/build.ts\` in the engine's folder, or set ENGINE_GRAPHQL_ENABLE_CONSOLE=false`,
    );
  }
  const files = new Map<string, ConsoleFile>([['', load(index, REVALIDATE)]]);
  const assets = path.join(dist, 'assets');
  for (const name of readdirSync(assets)) {
    if (name.endsWith('.br') || name.endsWith('.gz')) continue;
    files.set(`assets/${name}`, load(path.join(assets, name), IMMUTABLE));
  }
  return files;
}
