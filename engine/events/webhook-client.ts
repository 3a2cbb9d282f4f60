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
 * webhook-config.ts); `content-type: application/json` and a `user-agent` are
 * added unless given.
 *
 * Note [Webhook client]
 * node:http with one keep-alive agent per client (`maxSockets` = pool size)
 * rather than fetch: the total deadline covers connecting, sending and the
 * whole body (fetch's AbortSignal leaves the body read to the caller), and
 * answers are read as bytes up to `maxResponseBytes` and drained past it, so
 * a large answer neither fills memory nor loses the connection for reuse.
 */
import http from 'node:http';
import https from 'node:https';
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

/** An HTTP client for webhooks; see the module comment. */
export class WebhookClient {
  readonly #http: http.Agent;
  readonly #https: https.Agent;
  readonly #maxBytes: number;

  constructor(opts: WebhookClientOptions) {
    this.#http = new http.Agent({ keepAlive: true, maxSockets: opts.poolSize });
    this.#https = new https.Agent({ keepAlive: true, maxSockets: opts.poolSize });
    this.#maxBytes = opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
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
    for (const [k, v] of req.headers) headers[k.toLowerCase()] = v;
    headers['content-type'] ??= 'application/json';
    headers['user-agent'] ??= `engine/${ENGINE_VERSION}`;
    headers['content-length'] = String(Buffer.byteLength(req.body));
    const lib = url.protocol === 'https:' ? https : http;
    return await new Promise<WebhookResult>((resolve) => {
      let done = false;
      const finish = (r: WebhookResult): void => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve(r);
      };
      const request = lib.request(url, { method: req.method ?? 'POST', headers, agent: url.protocol === 'https:' ? this.#https : this.#http }, (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (kept < this.#maxBytes) {
            const part = c.subarray(0, this.#maxBytes - kept);
            chunks.push(part);
            kept += part.length;
          }
        });
        res.on('end', () => {
          const out: Array<readonly [string, string]> = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) out.push([res.rawHeaders[i] ?? '', res.rawHeaders[i + 1] ?? '']);
          const retryAfter = res.headers['retry-after'];
          finish({
            kind: 'response',
            status: res.statusCode ?? 0,
            headers: out,
            body: Buffer.concat(chunks).toString('utf8'),
            truncated: size > kept,
            size,
            retryAfterSec: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter),
            durationMs: elapsed(),
          });
        });
        res.on('error', (e) => finish({ kind: 'failure', message: e.message, timedOut: false, durationMs: elapsed() }));
      });
      const timer = setTimeout(() => {
        finish({ kind: 'failure', message: `no answer within ${req.timeoutMs} ms`, timedOut: true, durationMs: elapsed() });
        request.destroy();
      }, req.timeoutMs);
      request.on('error', (e) => finish({ kind: 'failure', message: e.message, timedOut: false, durationMs: elapsed() }));
      request.end(req.body);
    });
  }

  /** Closes every connection; call once nothing is in flight. */
  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}
