/**
 * A small JSON client for the Kubernetes API over a {@link KubeConnection} (kubeconfig or
 * in-cluster service account; see Note [Own Kubernetes client] in kube-connection.ts).
 *
 * Why not client-node's generated clients: their serializer turns `MicroTime` fields (Lease
 * renewTime, Event eventTime) into millisecond timestamps that the apiserver refuses, their patch
 * calls default to content types custom resources reject, and custom objects are untyped anyway
 * (operator-notes.md §4.3/§4.5). Plain JSON over an authenticated dispatcher avoids all three.
 */
import { fetch, type Response } from 'undici';
import type { KubeConnection } from './kube-connection.ts';

/** An error answer of the apiserver (a `Status` object) or a transport failure (status 0). */
export class KubeApiError extends Error {
  /** HTTP status; 0 when the apiserver could not be reached. */
  readonly status: number;
  /** `Status.reason` (`NotFound`, `Conflict`, `AlreadyExists`...), when the apiserver sent one. */
  readonly reason: string | undefined;

  constructor(status: number, reason: string | undefined, message: string) {
    super(message);
    this.name = 'KubeApiError';
    this.status = status;
    this.reason = reason;
  }
}

/** Content types of the patch flavours custom resources accept. */
export const PatchType = {
  Merge: 'application/merge-patch+json',
  Json: 'application/json-patch+json',
  Apply: 'application/apply-patch+yaml',
} as const;

/** One of {@link PatchType}. */
export type PatchContentType = (typeof PatchType)[keyof typeof PatchType];

/** A list answer: items plus the list's resourceVersion. */
export interface KubeList<T> {
  readonly items: T[];
  readonly metadata: { readonly resourceVersion?: string; readonly continue?: string };
}

/**
 * Note [Retry-After]
 * A busy apiserver sheds load with API Priority and Fairness: 429 with `Retry-After` (and 503 with
 * it while it starts or stops). client-go waits the number of seconds it is told and retries, for
 * any method (the request was not executed), at most 10 times. So does {@link KubeApi.request},
 * with two bounds of its own so a worker is never parked for minutes: one wait at most 30 s, all
 * waits of one request at most 60 s; then the answer is the error. A watch that gets such an
 * answer waits at least as long before the informer tries again (watch.ts, informer.ts).
 */
const MAX_RETRIES = 10;
const MAX_WAIT_MS = 30_000;
const MAX_TOTAL_WAIT_MS = 60_000;

/**
 * How long to wait before retrying an answer (Note [Retry-After]): for a 429 or 5xx with a
 * `Retry-After` of seconds or an HTTP date, that wait capped at 30 s; otherwise undefined.
 */
export function retryAfterMs(status: number, header: string | null, now = Date.now()): number | undefined {
  if ((status !== 429 && status < 500) || header === null) return undefined;
  const text = header.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return undefined;
    ms = Math.max(0, at - now);
  }
  return Math.min(ms, MAX_WAIT_MS);
}

/** HTTP methods the controller uses. */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** JSON requests against the apiserver of a connection. */
export class KubeApi {
  readonly connection: KubeConnection;
  readonly #timeoutMs: number;
  /** Requests retried after a `Retry-After` answer (for metrics and tests). */
  retries = 0;

  constructor(connection: KubeConnection, timeoutMs = 15_000) {
    this.connection = connection;
    this.#timeoutMs = timeoutMs;
  }

  /** The apiserver base URL. */
  get server(): string {
    return this.connection.server;
  }

  /**
   * Sends one request and parses the JSON answer; throws {@link KubeApiError} on non-2xx. A 429
   * or 5xx with `Retry-After` is retried after the wait the server asks for (Note [Retry-After]);
   * a 401 is retried once with fresh credentials when the connection can get new ones (a token
   * file re-read, an exec plugin run again).
   */
  async request<T>(method: Method, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    let retries = 0;
    let waitedMs = 0;
    let reauthenticated = false;
    for (;;) {
      const res = await this.#send(method, path, body, contentType);
      const text = await res.text();
      if (res.ok) return (text === '' ? {} : JSON.parse(text)) as T;
      if (res.status === 401 && !reauthenticated && this.connection.invalidate()) {
        reauthenticated = true;
        continue;
      }
      const waitMs = retryAfterMs(res.status, res.headers.get('retry-after'));
      if (waitMs !== undefined && retries < MAX_RETRIES && waitedMs + waitMs <= MAX_TOTAL_WAIT_MS) {
        retries++;
        waitedMs += waitMs;
        this.retries++;
        await new Promise((r) => setTimeout(r, waitMs));
        continue;
      }
      let reason: string | undefined;
      let message = text;
      try {
        const status = JSON.parse(text) as { reason?: string; message?: string };
        reason = status.reason;
        message = status.message ?? text;
      } catch {
        // not a Status object; keep the text
      }
      throw new KubeApiError(res.status, reason, `${method} ${path}: ${res.status} ${message}`);
    }
  }

  async #send(method: Method, path: string, body: unknown, contentType: string): Promise<Response> {
    try {
      const auth = await this.connection.auth();
      const headers: Record<string, string> = { ...auth.headers, accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = contentType;
      return await fetch(this.server + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: auth.dispatcher,
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      const detail = cause === undefined ? '' : ` (${[cause.code, cause.message].filter((x) => x !== undefined).join(': ')})`;
      throw new KubeApiError(0, undefined, `${method} ${path}: ${(e as Error).message}${detail}`);
    }
  }

  /** GET that answers null on 404. */
  async getOrNull<T>(path: string): Promise<T | null> {
    try {
      return await this.request<T>('GET', path);
    } catch (e) {
      if (e instanceof KubeApiError && e.status === 404) return null;
      throw e;
    }
  }
}

/** The collection path of a namespaced resource (`/apis/g/v/namespaces/ns/plural`, or all namespaces). */
export function collectionPath(apiVersion: string, plural: string, namespace?: string): string {
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return namespace === undefined ? `${base}/${plural}` : `${base}/namespaces/${encodeURIComponent(namespace)}/${plural}`;
}

/** The path of one namespaced object. */
export function objectPath(apiVersion: string, plural: string, namespace: string, name: string): string {
  return `${collectionPath(apiVersion, plural, namespace)}/${encodeURIComponent(name)}`;
}

/** `metav1.MicroTime` text: RFC 3339 with exactly six fractional digits. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** `metav1.Time` text: RFC 3339 in whole seconds. */
export function kubeTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
