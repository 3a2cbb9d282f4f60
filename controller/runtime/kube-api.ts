/**
 * A small JSON client for the Kubernetes API on top of client-node's KubeConfig (which handles
 * kubeconfig files, in-cluster service accounts, tokens and TLS).
 *
 * Why not the generated clients: their serializer turns `MicroTime` fields (Lease renewTime,
 * Event eventTime) into millisecond timestamps that the apiserver refuses, their patch calls
 * default to content types custom resources reject, and custom objects are untyped anyway
 * (operator-notes.md §4.3/§4.5). Plain JSON over the authenticated dispatcher avoids all three.
 */
import { HttpMethod, RequestContext, type KubeConfig } from '@kubernetes/client-node';
import { fetch } from 'undici';

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

const METHODS: Readonly<Record<string, HttpMethod>> = {
  GET: HttpMethod.GET,
  POST: HttpMethod.POST,
  PUT: HttpMethod.PUT,
  PATCH: HttpMethod.PATCH,
  DELETE: HttpMethod.DELETE,
};

/** JSON requests against the apiserver of a KubeConfig's current context. */
export class KubeApi {
  readonly config: KubeConfig;
  readonly #timeoutMs: number;

  constructor(config: KubeConfig, timeoutMs = 15_000) {
    this.config = config;
    this.#timeoutMs = timeoutMs;
  }

  /** The apiserver base URL. */
  get server(): string {
    const cluster = this.config.getCurrentCluster();
    if (cluster === null) throw new KubeApiError(0, undefined, 'kubeconfig has no current cluster');
    return cluster.server.replace(/\/$/, '');
  }

  /** Sends one request and parses the JSON answer; throws {@link KubeApiError} on non-2xx. */
  async request<T>(method: keyof typeof METHODS, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    const url = this.server + path;
    const ctx = new RequestContext(url, METHODS[method] ?? HttpMethod.GET);
    await this.config.applySecurityAuthentication(ctx);
    const headers: Record<string, string> = { ...ctx.getHeaders(), accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = contentType;
    let res;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: ctx.getDispatcher(),
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
