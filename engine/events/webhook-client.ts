/**
 * The HTTP client of event and scheduled triggers: one request to a webhook,
 * bounded in time, with what a delivery needs to log and to decide on a retry.
 *
 *   const client = new WebhookClient({ poolSize: 100 });
 *   const r = await client.send({ url, headers: [['x-key', 'v']], body: JSON.stringify(payload), timeoutMs: 60_000 });
 *   if (r.kind === 'response' && r.status >= 200 && r.status < 300) ...  // else retry, r.retryAfterSec wins
 *   await client.close();
 *
 * `send` never throws: a connection failure or a timeout is a `failure`
 * result. Headers given are sent as they are (already resolved, see
 * webhook-config.ts), except those the client manages itself (below);
 * `content-type: application/json` and a `user-agent` are added unless given.
 *
 * Note [Webhook client]
 * undici, one Agent per client (`connections` = pool size per origin,
 * connections kept alive), the client of the action handler too (Note
 * [Handler client]), driven through its raw dispatch handler: no stream
 * object per answer. The total deadline is one timer aborting the request,
 * so it covers connecting, sending and the whole body; answers are read as
 * bytes up to `maxResponseBytes` and drained past it, so a large answer
 * neither fills memory nor loses the connection for reuse. Response headers
 * are read raw, so the log keeps their names as the webhook wrote them.
 * Headers undici manages itself (content-length, connection...) are not
 * passed on. Measured (client CPU per request, 20,000 POSTs of a 300-byte
 * body, 100 at once, to a local server in another process answering at once,
 * three alternated rounds on the shared 2-core machine): node:http with
 * keep-alive agents, as before, 63-107 µs; undici `request()` 43-85 µs; the
 * dispatch handler 29-55 µs (29 once warm).
 */
import type { Agent, Dispatcher } from 'undici';
import { allowlistAgent } from '../tls-allowlist.ts';
import { ENGINE_VERSION } from '../version.ts';

/** One request to a webhook. */
export interface WebhookRequest {
  readonly url: string;
  /** Defaults to POST (a request transform may choose another). */
  readonly method?: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: string;
  /** The whole exchange must end within this, or it is cut (`failure` with `timedOut`). */
  readonly timeoutMs: number;
}

/** The webhook answered (any status). */
export interface WebhookResponse {
  readonly kind: 'response';
  readonly status: number;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** The body as text, cut at `maxResponseBytes`. */
  readonly body: string;
  readonly truncated: boolean;
  /** Bytes received in all. */
  readonly size: number;
  /** `Retry-After` in seconds (delay or HTTP date), or null. */
  readonly retryAfterSec: number | null;
  readonly durationMs: number;
}

/** No answer: connection error, timeout, bad URL. */
export interface WebhookFailure {
  readonly kind: 'failure';
  readonly message: string;
  readonly timedOut: boolean;
  readonly durationMs: number;
}

/** What {@link WebhookClient.send} resolves with. */
export type WebhookResult = WebhookResponse | WebhookFailure;

/** Options of a {@link WebhookClient}. */
export interface WebhookClientOptions {
  /** Most connections open at once per host (v2 HASURA_GRAPHQL_EVENTS_HTTP_POOL_SIZE). */
  readonly poolSize: number;
  /** Response bytes kept (default 64 KiB). */
  readonly maxResponseBytes?: number;
}

const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

/** `Retry-After` as seconds from now: a delay in seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** Headers undici sets or refuses itself; passing them would make a request fail. */
const MANAGED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'content-length', 'host']);

const USER_AGENT = `engine/${ENGINE_VERSION}`;

/** `Retry-After` of raw headers (names in any case). */
function retryAfterOf(raw: ReadonlyArray<readonly [string, string]>): string | undefined {
  for (const [k, v] of raw) if (k.length === 11 && k.toLowerCase() === 'retry-after') return v;
  return undefined;
}

/** An HTTP client for webhooks; see the module comment. */
export class WebhookClient {
  /** Made on the first request (Note [HTTP client on first use] in undici.ts) and again when the TLS allow-list changes (Note [TLS allow-list]). */
  readonly #agents: () => Agent;
  #agent: Agent | null = null;
  readonly #maxBytes: number;

  constructor(opts: WebhookClientOptions) {
    this.#agents = allowlistAgent({ connections: opts.poolSize, keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 });
    this.#maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  }

  #agentOf(): Agent {
    return (this.#agent = this.#agents());
  }

  /** Sends one request; never throws. */
  async send(req: WebhookRequest): Promise<WebhookResult> {
    const started = performance.now();
    const elapsed = (): number => Math.round((performance.now() - started) * 100) / 100;
    let url: URL;
    try {
      url = new URL(req.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported protocol "${url.protocol}"`);
    } catch (e) {
      return { kind: 'failure', message: `invalid webhook URL: ${e instanceof Error ? e.message : String(e)}`, timedOut: false, durationMs: elapsed() };
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of req.headers) {
      const name = k.toLowerCase();
      if (!MANAGED.has(name)) headers[name] = v;
    }
    headers['content-type'] ??= 'application/json';
    headers['user-agent'] ??= USER_AGENT;
    const maxBytes = this.#maxBytes;
    return await new Promise<WebhookResult>((resolve) => {
      let done = false;
      let controller: Dispatcher.DispatchController | null = null;
      let status = 0;
      let raw: ReadonlyArray<Buffer | string> = [];
      const chunks: Buffer[] = [];
      let kept = 0;
      let size = 0;
      const finish = (r: WebhookResult): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(r);
      };
      const timer = setTimeout(() => {
        finish({ kind: 'failure', message: `no answer within ${req.timeoutMs} ms`, timedOut: true, durationMs: elapsed() });
        controller?.abort(new Error('webhook timeout'));
      }, req.timeoutMs);
      // undici's raw handler: no stream per answer (Note [Webhook client]).
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart(c) {
          controller = c;
          if (done) c.abort(new Error('webhook timeout'));
        },
        onResponseStart(c, statusCode) {
          // Called again after a 1xx: the final answer wins.
          status = statusCode;
          raw = Array.isArray(c.rawHeaders) ? (c.rawHeaders as ReadonlyArray<Buffer | string>) : [];
        },
        onResponseData(_c, chunk) {
          size += chunk.length;
          if (kept < maxBytes) {
            const part = chunk.length <= maxBytes - kept ? chunk : chunk.subarray(0, maxBytes - kept);
            chunks.push(part);
            kept += part.length;
          }
        },
        onResponseEnd() {
          const out: Array<readonly [string, string]> = [];
          for (let i = 0; i + 1 < raw.length; i += 2) out.push([String(raw[i]), String(raw[i + 1])]);
          finish({
            kind: 'response',
            status,
            headers: out,
            body: chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8'),
            truncated: size > kept,
            size,
            retryAfterSec: parseRetryAfter(retryAfterOf(out)),
            durationMs: elapsed(),
          });
        },
        onResponseError(_c, e) {
          finish({ kind: 'failure', message: messageOf(e), timedOut: false, durationMs: elapsed() });
        },
      };
      try {
        this.#agentOf().dispatch(
          {
            origin: url.origin,
            path: `${url.pathname}${url.search}`,
            method: (req.method ?? 'POST') as Dispatcher.HttpMethod,
            headers,
            body: req.body,
            // The deadline is the timer's (over the whole exchange); undici's own would cut a longer timeout_sec.
            headersTimeout: 0,
            bodyTimeout: 0,
          },
          handler,
        );
      } catch (e) {
        finish({ kind: 'failure', message: messageOf(e), timedOut: false, durationMs: elapsed() });
      }
    });
  }

  /** Closes every connection; call once nothing is in flight. */
  close(): void {
    void this.#agent?.destroy().catch(() => {});
  }
}

/** The message of a request error (undici wraps connection errors: the cause says what happened). */
function messageOf(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = (e as { cause?: unknown }).cause;
  if (e.message === 'fetch failed' && cause instanceof Error) return cause.message;
  return e.message;
}
