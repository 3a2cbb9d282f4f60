/**
 * Webhook mode: ask the user's authentication webhook who the caller is.
 * v2 compat: the request and response rules of the spec's "Webhook request"
 * and "Webhook response" tables.
 */
import { createHash } from 'node:crypto';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError, isEngineError } from '../errors/engine-error.ts';
import type { Logger } from '../logger.ts';
import { cacheExpiryOf } from './cache-expiry.ts';
import { V2_IGNORED_CLIENT_HEADERS } from './forwarded-headers.ts';
import { canonicalNames, Header } from './headers.ts';
import type { RequestHeaders } from './resolve-session.ts';
import { buildSession, type Session } from './session.ts';
import { allowlistAgent } from '../tls-allowlist.ts';
import { undici } from '../undici.ts';

/**
 * Headers that differ on every request (the request id, the trace context):
 * passed to the webhook, so that its logs and spans join the engine's, but
 * left out of the cache key, or no answer would ever be reused.
 */
const PER_REQUEST = new Set(['x-request-id', 'traceparent', 'tracestate']);
/** A webhook that has not answered by then makes the request fail with 500, never hang. */
const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_CACHE_ENTRIES = 10_000;
/** A webhook answer longer than this is refused (it is a few session variables). */
const MAX_ANSWER_BYTES = 1 << 20;
/** Headers undici refuses to send, or that describe the client's own connection. */
const UNSENDABLE = new Set(['keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'te', 'trailer', 'connection', 'content-length', 'host']);

/*
 * Note [Webhook calls without fetch]
 * Without a `Cache-Control` or `Expires` in its answer, the webhook is called
 * on every request. Through `fetch` that call cost the engine 0.23-0.31 ms of
 * CPU per request, against 0.04 for the same query with role headers
 * (`node test/bench/auth-webhook-cost.ts`, 2026-11-29): a Request, a Response
 * and their streams each time. undici's `request` on a kept-alive Agent, as
 * the action handlers' calls do (Note [Handler client]), skips them; the
 * Agent follows the TLS allow-list (Note [TLS allow-list]). Measured with
 * that bench, before and after alternated, 16 connections: 0.23-0.31 → 0.089-
 * 0.095 ms of engine CPU per request, 3,742-4,766 → 9,415-10,077 requests/s,
 * p99 8-13 → 4 ms.
 */
const agentOf = allowlistAgent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: 256 });

/** The webhook's answer: status, headers as undici gives them, and the body text. */
interface HookAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: string;
}

/** One header of an answer (undici lists repeated ones), as `Headers.get` gives it. */
function headerOf(answer: HookAnswer, name: string): string | null {
  const v = answer.headers[name];
  return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
}

/** The body text, refused past `max` bytes. */
async function boundedText(body: AsyncIterable<Buffer>, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of body) {
    size += c.length;
    if (size > max) throw new EngineError(ErrorCode.Unexpected, 'Invalid response from authorization hook: the answer is too large', { status: 500 });
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}

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
    const expiresAt = cacheExpiryOf({ get: (name) => headerOf(res, name) });
    const session = this.#sessionOf(res);
    const cookies = res.headers['set-cookie'];
    // A socket authenticated by this answer lives until it expires (server/ws/).
    const result: WebhookResult = {
      session: expiresAt === null ? session : { ...session, expiresAt },
      setCookies: cookies === undefined ? [] : Array.isArray(cookies) ? cookies : [cookies],
    };
    if (expiresAt !== null && expiresAt > Date.now()) {
      if (this.#cache.size >= MAX_CACHE_ENTRIES) this.#evictExpired();
      if (this.#cache.size < MAX_CACHE_ENTRIES) this.#cache.set(key, { result, expiresAt });
    }
    return result;
  }

  /** Calls the webhook (Note [Webhook calls without fetch]). */
  async #call(forwarded: Record<string, string>, all: Record<string, string>, body: unknown): Promise<HookAnswer> {
    const timeouts = { signal: AbortSignal.timeout(this.#timeoutMs), headersTimeout: this.#timeoutMs, bodyTimeout: this.#timeoutMs };
    try {
      let init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string };
      if (this.#mode === 'GET') {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(forwarded)) if (!UNSENDABLE.has(k)) headers[k] = v;
        init = { method: 'GET', headers };
      } else {
        const payload: Record<string, unknown> = { headers: all };
        if (body !== undefined) payload['request'] = body;
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        // The trace context as real headers too, for the webhook's own tracing.
        for (const h of ['traceparent', 'tracestate']) if (all[h] !== undefined) headers[h] = all[h] as string;
        init = { method: 'POST', headers, body: JSON.stringify(payload) };
      }
      const res = await undici().request(this.#url, { ...init, ...timeouts, dispatcher: agentOf() });
      return { status: res.statusCode, headers: res.headers, body: await boundedText(res.body, MAX_ANSWER_BYTES) };
    } catch (e) {
      if (isEngineError(e)) throw e;
      this.#logger.log('webhook-log', 'error', { message: 'authentication webhook unreachable', url: this.#url, method: this.#mode, http_error: e });
      throw new EngineError(ErrorCode.Unexpected, 'authentication webhook did not answer', { status: 500, cause: e });
    }
  }

  #sessionOf(res: HookAnswer): Session {
    let body: unknown;
    try {
      body = JSON.parse(res.body);
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
