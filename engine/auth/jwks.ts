/**
 * A JWK set fetched from `jwk_url`, refreshed when the answer's
 * Cache-Control/Expires says it is stale, and refetched (rate-limited) when a
 * token names a key id the set does not have (key rotation).
 */
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { Logger } from '../logger.ts';
import { cacheExpiryOf } from './cache-expiry.ts';
import { allowlistFetch } from '../tls-allowlist.ts';

/** Shortest time between two refetches caused by unknown key ids. */
const MIN_REFETCH_MS = 1000;
const FETCH_TIMEOUT_MS = 10_000;

/** A cached, self-refreshing JWK set. */
export class RemoteJwks {
  readonly #url: string;
  readonly #logger: Logger;
  #keys: JWTVerifyGetKey | null = null;
  #kids = new Set<string>();
  #expiresAt: number | null = null;
  #fetchedAt = 0;
  #inflight: Promise<void> | null = null;

  constructor(url: string, logger: Logger) {
    this.#url = url;
    this.#logger = logger;
  }

  /** Fetches the set now (start-up and refresh). */
  async refresh(): Promise<void> {
    this.#inflight ??= this.#fetch().finally(() => {
      this.#inflight = null;
    });
    await this.#inflight;
  }

  async #fetch(): Promise<void> {
    const res = await allowlistFetch(this.#url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    if (!res.ok) throw new Error(`JWK set ${this.#url} answered ${res.status}`);
    const body = (await res.json()) as JSONWebKeySet;
    if (!Array.isArray(body.keys)) throw new Error(`JWK set ${this.#url} has no "keys" list`);
    this.#keys = createLocalJWKSet(body);
    this.#kids = new Set(body.keys.map((k) => k.kid).filter((k): k is string => typeof k === 'string'));
    this.#fetchedAt = Date.now();
    this.#expiresAt = cacheExpiryOf(res.headers, this.#fetchedAt);
  }

  /** The key resolver for a token with key id `kid`, refreshing first when stale or the kid is unknown. */
  async resolver(kid: string | undefined): Promise<JWTVerifyGetKey> {
    const now = Date.now();
    const stale = this.#keys === null || (this.#expiresAt !== null && now >= this.#expiresAt);
    const unknownKid = kid !== undefined && !this.#kids.has(kid) && now - this.#fetchedAt >= MIN_REFETCH_MS;
    if (stale || unknownKid) {
      try {
        await this.refresh();
      } catch (e) {
        this.#logger.log('jwk-refresh-log', 'error', { message: 'JWK set refresh failed', url: this.#url, http_error: e });
      }
    }
    if (this.#keys === null) throw new EngineError(ErrorCode.InvalidJwt, 'Could not verify JWT: the JWK set could not be fetched');
    return this.#keys;
  }
}
