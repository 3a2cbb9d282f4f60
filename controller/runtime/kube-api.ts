/**
 * A small JSON client for the Kubernetes API over a {@link KubeConnection} (kubeconfig or
 * in-cluster service account; see Note [Own Kubernetes client] in kube-connection.ts).
 *
 * Why not client-node's generated clients: their serializer turns `MicroTime` fields (Lease
 * renewTime, Event eventTime) into millisecond timestamps that the apiserver refuses, their patch
 * calls default to content types custom resources reject, and custom objects are untyped anyway
 * (operator-notes.md §4.3/§4.5). Plain JSON over an authenticated dispatcher avoids all three.
 */
import { fetch } from 'undici';
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

/** HTTP methods the controller uses. */
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** JSON requests against the apiserver of a connection. */
export class KubeApi {
  readonly connection: KubeConnection;
  readonly #timeoutMs: number;

  constructor(connection: KubeConnection, timeoutMs = 15_000) {
    this.connection = connection;
    this.#timeoutMs = timeoutMs;
  }

  /** The apiserver base URL. */
  get server(): string {
    return this.connection.server;
  }

  /** Sends one request and parses the JSON answer; throws {@link KubeApiError} on non-2xx. */
  async request<T>(method: Method, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const url = this.server + path;
    let res;
    try {
      const headers: Record<string, string> = { ...this.connection.authHeaders(), accept: 'application/json' };
      if (body !== undefined) headers['content-type'] = contentType;
      res = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: this.connection.dispatcher,
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (e) {
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      const detail = cause === undefined ? '' : ` (${[cause.code, cause.message].filter((x) => x !== undefined).join(': ')})`;
      throw new KubeApiError(0, undefined, `${method} ${path}: ${(e as Error).message}${detail}`);
    }
    const text = await res.text();
    if (!res.ok) {
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
    return (text === '' ? {} : JSON.parse(text)) as T;
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
