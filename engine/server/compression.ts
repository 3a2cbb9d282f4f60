/**
 * Note [Response compression]
 * v2 compresses responses for clients that accept it; so do we, for GraphQL
 * answers: brotli when the client accepts `br`, else gzip, with node:zlib's
 * asynchronous functions (they run on libuv's thread pool, so a large answer
 * does not stall the event loop). Small answers go out as they are: below
 * COMPRESS_MIN_BYTES the saving is a few hundred bytes at most while the
 * cost is a thread-pool round trip (about 25-40 µs each, more than the
 * engine's own work on a plan-cache hit). Brotli runs at quality 4, not its
 * default 11: on a 100 KB answer quality 11 costs ~100x the time for ~10%
 * fewer bytes. Measured with `node test/bench/compression.ts`.
 */
import { brotliCompress, constants, gzip } from 'node:zlib';

/** A content coding this server writes. */
export type Coding = 'br' | 'gzip';

/** Answers smaller than this many bytes are not compressed. */
export const COMPRESS_MIN_BYTES = 2048;

const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } };
const GZIP_OPTIONS = { level: 6 };

/** Whether a coding is listed in an Accept-Encoding value with a quality above 0. */
function accepts(header: string, coding: Coding): boolean {
  for (const part of header.split(',')) {
    const semi = part.indexOf(';');
    const name = (semi === -1 ? part : part.slice(0, semi)).trim().toLowerCase();
    if (name !== coding && name !== '*') continue;
    if (semi === -1) return true;
    const q = /q\s*=\s*([0-9.]+)/i.exec(part.slice(semi));
    return q === null || Number(q[1]) > 0;
  }
  return false;
}

/** The coding to use for a body of `size` bytes, or null to send it as is. */
export function codingFor(acceptEncoding: string | undefined, size: number): Coding | null {
  if (acceptEncoding === undefined || size < COMPRESS_MIN_BYTES) return null;
  if (accepts(acceptEncoding, 'br')) return 'br';
  if (accepts(acceptEncoding, 'gzip')) return 'gzip';
  return null;
}

/** Compresses `body` with `coding`. */
export function compress(body: string, coding: Coding): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, out: Buffer): void => (err === null ? resolve(out) : reject(err));
    if (coding === 'br') brotliCompress(body, BROTLI_OPTIONS, done);
    else gzip(body, GZIP_OPTIONS, done);
  });
}
