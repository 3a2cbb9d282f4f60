/**
 * Webhook mode: ask the user's authentication webhook who the caller is.
 * v2 compat: the request and response rules of the spec's "Webhook request"
 * and "Webhook response" tables.
 */
import { createHash } from 'node:crypto';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { Logger } from '../logger.ts';
import { cacheExpiryOf } from './cache-expiry.ts';
import { V2_IGNORED_CLIENT_HEADERS } from './forwarded-headers.ts';
import { canonicalNames, Header } from './headers.ts';
import type { RequestHeaders } from './resolve-session.ts';
import { buildSession, type Session } from './session.ts';

/**
 * Headers that differ on every request (the request id, the trace context):
 * passed to the webhook, so that its logs and spans join the engine's, but
 * left out of the cache key, or no answer would ever be reused.
 */
const PER_REQUEST = new Set(['x-request-id', 'traceparent', 'tracestate']);
/** A webhook that has not answered by then makes the request fail with 500, never hang. */
const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_CACHE_ENTRIES = 10_000;

/** What the webhook decided, plus cookies it wants set on the client. */
export interface WebhookResult {
  readonly session: Session;
  readonly setCookies: readonly string[];
}

interface CacheEntry {
  readonly result: WebhookResult;
  readonly expiresAt: number;
}

function flatten(headers: RequestHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** Calls the authentication webhook, caching answers as long as they say. */
export class AuthWebhook {
  readonly #url: string;
  readonly #mode: 'GET' | 'POST';
  readonly #timeoutMs: number;
  readonly #logger: Logger;
  readonly #cache = new Map<string, CacheEntry>();

  constructor(url: string, mode: 'GET' | 'POST', logger: Logger, timeoutMs: number = DEFAULT_TIMEOUT_MS) {
    this.#url = url;
    this.#mode = mode;
    this.#logger = logger;
    this.#timeoutMs = timeoutMs;
  }

  /** Resolves the session of a request; `body` is the parsed client body, or undefined when it was not JSON. */
  async resolve(headers: RequestHeaders, body: unknown): Promise<WebhookResult> {
    const all = flatten(headers);
    const forwarded: Record<string, string> = {};
    for (const [k, v] of Object.entries(all)) if (!V2_IGNORED_CLIENT_HEADERS.has(k)) forwarded[k] = v;
    const keyHeaders = this.#mode === 'GET' ? forwarded : all;
    const keyEntries = Object.entries(keyHeaders).filter(([k]) => !PER_REQUEST.has(k));
    const key = createHash('sha256')
      .update(JSON.stringify(keyEntries.sort(([a], [b]) => (a < b ? -1 : 1))))
      .digest('hex');
    const hit = this.#cache.get(key);
    if (hit !== undefined) {
      if (hit.expiresAt > Date.now()) return hit.result;
      this.#cache.delete(key);
    }
    const res = await this.#call(forwarded, all, body);
    if (res.status === 401) {
      throw new EngineError(ErrorCode.AccessDenied, 'Authentication hook unauthorized this request', { status: 401 });
    }
    if (res.status !== 200) {
      this.#logger.log('webhook-log', 'error', { message: 'authentication webhook failed', url: this.#url, method: this.#mode, status_code: res.status });
      throw new EngineError(ErrorCode.Unexpected, 'Invalid response from authorization hook', { status: 500 });
    }
    const expiresAt = cacheExpiryOf(res.headers);
    const session = await this.#sessionOf(res);
    // A socket authenticated by this answer lives until it expires (server/ws/).
    const result: WebhookResult = { session: expiresAt === null ? session : { ...session, expiresAt }, setCookies: res.headers.getSetCookie() };
    if (expiresAt !== null && expiresAt > Date.now()) {
      if (this.#cache.size >= MAX_CACHE_ENTRIES) this.#evictExpired();
      if (this.#cache.size < MAX_CACHE_ENTRIES) this.#cache.set(key, { result, expiresAt });
    }
    return result;
  }

  async #call(forwarded: Record<string, string>, all: Record<string, string>, body: unknown): Promise<Response> {
    const signal = AbortSignal.timeout(this.#timeoutMs);
    try {
      if (this.#mode === 'GET') return await fetch(this.#url, { method: 'GET', headers: forwarded, signal });
      const payload: Record<string, unknown> = { headers: all };
      if (body !== undefined) payload['request'] = body;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      // The trace context as real headers too, for the webhook's own tracing.
      for (const h of ['traceparent', 'tracestate']) if (all[h] !== undefined) headers[h] = all[h] as string;
      return await fetch(this.#url, { method: 'POST', headers, body: JSON.stringify(payload), signal });
    } catch (e) {
      this.#logger.log('webhook-log', 'error', { message: 'authentication webhook unreachable', url: this.#url, method: this.#mode, http_error: e });
      throw new EngineError(ErrorCode.Unexpected, 'authentication webhook did not answer', { status: 500, cause: e });
    }
  }

  async #sessionOf(res: Response): Promise<Session> {
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      throw new EngineError(ErrorCode.Unexpected, 'Invalid response from authorization hook: not JSON', { status: 500 });
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw new EngineError(ErrorCode.Unexpected, 'Invalid response from authorization hook: expected a JSON object', { status: 500 });
    }
    const raw: Record<string, string> = {};
    for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
      // v2 compat: values are strings; anything else is kept as its JSON text.
      raw[k] = typeof v === 'string' ? v : JSON.stringify(v);
    }
    // A v2 webhook answers X-Hasura-Role and X-Hasura-* (Note [v2 session names]).
    const vars = canonicalNames(raw);
    const role = vars[Header.Role];
    if (role === undefined) {
      throw new EngineError(ErrorCode.Unexpected, 'Invalid response from authorization hook: missing x-engine-role', { status: 500 });
    }
    return buildSession(role, vars);
  }

  #evictExpired(): void {
    const now = Date.now();
    for (const [k, e] of this.#cache) if (e.expiresAt <= now) this.#cache.delete(k);
  }
}
