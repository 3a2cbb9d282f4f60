/**
 * Note [Automatic persisted queries]
 * ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
 * Apollo's and urql's persisted-query links send `extensions.persistedQuery
 * {version: 1, sha256Hash}` without the query text first (over GET or POST);
 * on `PersistedQueryNotFound` they send it again with the text, and from
 * then on the hash alone is enough. v2 refuses them (`not-supported`, a
 * message these links do not recognise, so their requests fail); the
 * engine serves them:
 * - hash and text: the text's SHA-256 must be the hash (else
 *   `persisted-query-hash-mismatch`), and the pair is remembered;
 * - hash alone: the remembered text, or `PersistedQueryNotFound` (the
 *   message both links match on) with code `persisted-query-not-found`.
 * The store is one per engine, not per role: an entry is only ever a text
 * whose hash was checked, so a hit is exactly that text sent by the client,
 * and it then goes through everything a sent text does (its role's schema
 * and permissions, the allow-list, the plan cache, which makes a hit
 * parse-free). It is bounded (least recently used goes first) by the bytes
 * of text it holds.
 */
import { createHash } from 'node:crypto';

/** Default bound on the text held: 8 MiB. */
export const PERSISTED_QUERY_BYTES = 8 * 1024 * 1024;

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** SHA-256 of a query text, lowercase hex (what the links send). */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Whether `hash` has the shape of a SHA-256 in hex. */
export function isSha256Hex(hash: string): boolean {
  return SHA256_HEX.test(hash);
}

/** Query texts by the SHA-256 of their text, least recently used dropped first. */
export class PersistedQueries {
  readonly #byHash = new Map<string, string>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes = PERSISTED_QUERY_BYTES) {
    this.#maxBytes = maxBytes;
  }

  /** The text of `hash`, or undefined; a hit becomes the most recently used. */
  get(hash: string): string | undefined {
    const text = this.#byHash.get(hash);
    if (text !== undefined) {
      this.#byHash.delete(hash);
      this.#byHash.set(hash, text);
    }
    return text;
  }

  /** Remembers `text` under its (checked) hash. A text larger than the whole bound is not kept. */
  set(hash: string, text: string): void {
    if (this.#byHash.has(hash) || text.length > this.#maxBytes) return;
    this.#byHash.set(hash, text);
    this.#bytes += text.length;
    for (const [h, t] of this.#byHash) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#byHash.delete(h);
      this.#bytes -= t.length;
    }
  }

  get size(): number {
    return this.#byHash.size;
  }
}
