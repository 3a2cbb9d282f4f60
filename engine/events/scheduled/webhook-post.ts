/**
 * One request to a webhook (a POST unless a request transform says otherwise), bounded in time and in what is kept of the answer:
 * the attempt of a scheduled event. A connection error, a timeout or a
 * non-2xx status is a failure with its reason; nothing here throws.
 */
import { Agent, request } from 'undici';

/** What to send. */
export interface WebhookRequest {
  readonly method: string;
  readonly url: string;
  /** In order; a request transform may have set `Content-Type`. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** Undefined: no body (a transform removed it). */
  readonly body: string | undefined;
  readonly timeoutMs: number;
}

/** What came back (or why nothing did). */
export interface WebhookResponse {
  readonly ok: boolean;
  /** The HTTP status; null when no response arrived. */
  readonly status: number | null;
  /** The body, cut at {@link MAX_KEPT_BODY} characters. */
  readonly body: string;
  readonly headers: ReadonlyArray<{ readonly name: string; readonly value: string }>;
  /** From `Retry-After` (seconds or an HTTP date), when the webhook asked. */
  readonly retryAfterMs: number | null;
  /** Why the request failed before a response (timeout, refused connection). */
  readonly error: string | null;
  readonly elapsedMs: number;
}

/** Bytes of a response body kept in the invocation log (and read at all). */
export const MAX_KEPT_BODY = 10_000;

/** Parses `Retry-After`: delay-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** A keep-alive connection pool for webhook calls, `connections` per origin. */
export function webhookAgent(connections: number): Agent {
  return new Agent({ connections, keepAliveTimeout: 10_000 });
}

/** Sends `req` through `agent`. */
export async function postWebhook(agent: Agent, req: WebhookRequest): Promise<WebhookResponse> {
  const started = performance.now();
  const elapsed = (): number => Math.round((performance.now() - started) * 10) / 10;
  try {
    const headers: Record<string, string> = req.body === undefined ? {} : { 'content-type': 'application/json' };
    for (const [name, value] of req.headers) headers[name.toLowerCase()] = value;
    const res = await request(req.url, {
      method: req.method as 'POST',
      headers,
      body: req.body,
      dispatcher: agent,
      signal: AbortSignal.timeout(req.timeoutMs),
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
    });
    let body = '';
    for await (const chunk of res.body) {
      body += (chunk as Buffer).toString('utf8');
      if (body.length >= MAX_KEPT_BODY) {
        body = body.slice(0, MAX_KEPT_BODY);
        res.body.destroy();
        break;
      }
    }
    const answered: Array<{ name: string; value: string }> = [];
    for (const [name, value] of Object.entries(res.headers)) {
      if (value === undefined) continue;
      answered.push({ name, value: Array.isArray(value) ? value.join(', ') : value });
    }
    const retryHeader = res.headers['retry-after'];
    return {
      ok: res.statusCode >= 200 && res.statusCode < 300,
      status: res.statusCode,
      body,
      headers: answered,
      retryAfterMs: retryAfterMs(Array.isArray(retryHeader) ? retryHeader[0] : retryHeader, Date.now()),
      error: null,
      elapsedMs: elapsed(),
    };
  } catch (e) {
    const timedOut = e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError' || /timeout/i.test(e.message));
    const reason = timedOut ? `timed out after ${req.timeoutMs} ms` : e instanceof Error ? e.message : String(e);
    return { ok: false, status: null, body: '', headers: [], retryAfterMs: null, error: reason, elapsedMs: elapsed() };
  }
}
