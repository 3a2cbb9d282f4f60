/**
 * Note [Response compression]
 * v2 compresses responses for clients that accept it; so do we, for GraphQL
 * answers: brotli when the client accepts `br`, else gzip, with node:zlib's
 * asynchronous functions (they run on libuv's thread pool, so a large answer
 * does not stall the event loop). Small answers go out as they are: each
 * compression has a fixed cost (a zlib stream set up, a thread-pool hop)
 * that is larger than the engine's own work on a plan-cache hit, while a
 * small answer saves a few hundred bytes: below COMPRESS_MIN_BYTES it is not
 * worth it. The threshold is v2's, 700 bytes (issue 34: clients and proxies
 * tuned for v2 see the same answers compressed); 2 KB before. Brotli runs at quality 4, not its default 11: on a 64 KB answer
 * quality 11 took 210-265 ms against 0.5-3 ms for quality 4, for 4.7 KB
 * instead of 5.5 KB. Measured with `node test/bench/compression.ts` on the
 * shared 2-core machine while test suites ran (so absolute times are high
 * and noisy): 601 B → 192 B gzip in 110-360 µs; 2 KB → 400 B in 190-310 µs;
 * 8 KB → 1.2 KB gzip / 0.8 KB brotli in 130-550 µs; 64 KB → 8.9 KB gzip /
 * 5.5 KB brotli in 0.5-3 ms.
 */
import { brotliCompress, constants, gzip } from 'node:zlib';

/** A content coding this server writes. */
export type Coding = 'br' | 'gzip';

/** Answers smaller than this many bytes are not compressed (v2's threshold). */
export const COMPRESS_MIN_BYTES = 700;

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
export function compress(body: string | Buffer, coding: Coding): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, out: Buffer): void => (err === null ? resolve(out) : reject(err));
    if (coding === 'br') brotliCompress(body, BROTLI_OPTIONS, done);
    else gzip(body, GZIP_OPTIONS, done);
  });
}
