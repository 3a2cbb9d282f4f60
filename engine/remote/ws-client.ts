/**
 * Subscriptions to remote schemas over the graphql-ws protocol
 * (`graphql-transport-ws`), with graphql-ws's client over ws: the remote's
 * URL with http(s) turned into ws(s).
 *
 * Note [Remote subscription transport]
 * One upstream socket per client subscription: it opens when the
 * subscription starts and is closed (graphql-ws `complete`, then the socket
 * closed) when the client completes or leaves, so no socket outlives the
 * subscription it serves. Sharing sockets between subscriptions with equal
 * headers would save handshakes but tie one client's failures to
 * another's; a subscription is long-lived, so its handshake is not a cost
 * that matters. The request's headers (configured, forwarded client
 * headers, the session as `X-Engine-*`) go twice: as HTTP headers of the
 * upgrade request (what a server reads from the handshake) and as
 * `connection_params: {headers: {...}}` (what Apollo-style servers read in
 * `onConnect`). No retry: a remote that is down or closes mid-stream ends
 * the subscription with an error the client sees; `timeout_seconds` bounds
 * the handshake, the wait for `connection_ack`, and the wait for the pong
 * of the ping sent every min(10 s, timeout) while the socket is quiet (a
 * remote that hangs without closing its socket is cut, not waited on
 * forever). Every failure becomes a message (nothing a remote does escapes
 * as an exception).
 */
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { RemoteAnswer } from './http-client.ts';

/** One subscription request to a remote schema. */
export interface RemoteSubscriptionRequest {
  /** The remote's http(s) URL. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly query: string;
  readonly variables: Readonly<Record<string, unknown>>;
  readonly timeoutMs: number;
}

/** What the subscription reports; after `error` or `complete` nothing more. */
export interface RemoteSubscriptionEvents {
  /** One event: the remote's result (`data` and/or `errors`). */
  next(answer: RemoteAnswer): void;
  /** The subscription failed: a message fit for a client, and the remote's GraphQL errors when it sent some. */
  error(message: string, errors?: ReadonlyArray<Record<string, unknown>>): void;
  /** The remote completed the subscription. */
  complete(): void;
}

/** The ws(s):// URL of a remote's http(s):// URL. */
export function wsUrlOf(url: string): string {
  return url.replace(/^http(s?):\/\//i, (_, s: string) => `ws${s}://`);
}

/** Headers ws writes itself on the upgrade: one of ours would break the handshake. */
function upgradeSafe(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (!k.startsWith('sec-websocket-') && k !== 'upgrade' && k !== 'connection' && k !== 'host') out[k] = v;
  return out;
}

function describe(e: unknown, url: string): string {
  if (Array.isArray(e)) {
    const first = e[0] as { message?: unknown } | undefined;
    return typeof first?.message === 'string' ? first.message : 'the remote schema answered an error';
  }
  if (typeof e === 'object' && e !== null && 'code' in e && typeof (e as { code: unknown }).code === 'number') {
    const { code, reason } = e as { code: number; reason?: unknown };
    const why = typeof reason === 'string' && reason !== '' ? `: ${reason}` : '';
    return `the remote schema closed the subscription (code ${code}${why})`;
  }
  const msg = e instanceof Error ? e.message : typeof e === 'object' && e !== null && 'message' in e ? String((e as { message: unknown }).message) : String(e);
  return `could not reach the remote schema at ${url}: ${msg}`;
}

/** Starts one subscription (Note [Remote subscription transport]); answers the function that stops it and closes the socket. */
export function subscribeRemote(req: RemoteSubscriptionRequest, events: RemoteSubscriptionEvents): () => void {
  const url = wsUrlOf(req.url);
  const headers = upgradeSafe(req.headers);
  const timeoutMs = req.timeoutMs;
  class HeaderSocket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers, handshakeTimeout: timeoutMs });
    }
  }
  let over = false;
  let pongTimer: NodeJS.Timeout | undefined;
  let silent = false;
  const client: Client = createClient({
    url,
    webSocketImpl: HeaderSocket,
    connectionParams: { headers },
    lazy: true,
    lazyCloseTimeout: 0,
    retryAttempts: 0,
    shouldRetry: () => false,
    connectionAckWaitTimeout: timeoutMs,
    keepAlive: Math.min(timeoutMs, 10_000),
    on: {
      ping: (received) => {
        if (received) return;
        clearTimeout(pongTimer);
        pongTimer = setTimeout(() => {
          silent = true;
          client.terminate();
        }, timeoutMs);
      },
      pong: (received) => {
        if (received) clearTimeout(pongTimer);
      },
      closed: () => clearTimeout(pongTimer),
    },
  });
  const end = (): void => {
    over = true;
    void Promise.resolve(client.dispose()).catch(() => undefined);
  };
  const unsubscribe = client.subscribe(
    { query: req.query, variables: req.variables as Record<string, unknown> },
    {
      next: (result) => {
        if (!over) events.next(result as RemoteAnswer);
      },
      error: (e: unknown) => {
        if (over) return;
        end();
        const message = silent ? `the remote schema did not answer a ping within ${timeoutMs / 1000} seconds` : describe(e, url);
        events.error(message, Array.isArray(e) ? (e as Array<Record<string, unknown>>) : undefined);
      },
      complete: () => {
        if (over) return;
        end();
        events.complete();
      },
    },
  );
  return () => {
    if (over) return;
    over = true;
    unsubscribe();
    void Promise.resolve(client.dispose()).catch(() => undefined);
  };
}
