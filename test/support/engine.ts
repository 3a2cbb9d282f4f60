/**
 * Starts a real engine (in this process, listening on a loopback port) for a
 * test, and talks to it over HTTP.
 */
import { buildEngine, type BuiltEngine } from '../../engine/boot.ts';
import { defaultSettings, type Settings } from '../../engine/cli/settings.ts';
import { silentLogger } from '../../engine/logger.ts';

/** An HTTP answer: status, parsed JSON (or null), raw text and headers. */
export interface HttpResult<T = unknown> {
  readonly status: number;
  readonly body: T;
  readonly text: string;
  readonly headers: Headers;
}

/** A running test engine. */
export interface TestEngine {
  readonly url: string;
  readonly engine: BuiltEngine;
  /** POST a JSON body (object, or raw string sent as is) to a path. */
  post<T = unknown>(path: string, body: unknown, headers?: Record<string, string>): Promise<HttpResult<T>>;
  get(path: string, headers?: Record<string, string>): Promise<HttpResult>;
  /** POST /v1/metadata. */
  metadata<T = unknown>(body: unknown, headers?: Record<string, string>): Promise<HttpResult<T>>;
  /** POST /v1/graphql with `{query, variables, operationName}`. */
  graphql<T = unknown>(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>, operationName?: string): Promise<HttpResult<T>>;
  close(): Promise<void>;
}

async function send<T>(method: string, url: string, body: unknown, headers: Record<string, string>): Promise<HttpResult<T>> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const res = await fetch(url, init);
  const text = await res.text();
  let parsed: unknown = null;
  try {
    parsed = text.length > 0 ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return { status: res.status, body: parsed as T, text, headers: res.headers };
}

/** Builds an engine with `settings` (database URL at least) and listens on 127.0.0.1:<random>. */
export async function startTestEngine(settings: Partial<Settings>): Promise<TestEngine> {
  const engine = await buildEngine(defaultSettings({ logLevel: 'error', ...settings }), silentLogger);
  const address = await engine.app.listen({ port: 0, host: '127.0.0.1' });
  const adminHeaders: Record<string, string> = settings.adminSecret ? { 'x-engine-admin-secret': settings.adminSecret } : {};
  const te: TestEngine = {
    url: address,
    engine,
    post: (path, body, headers) => send('POST', address + path, body, headers ?? adminHeaders),
    get: (path, headers) => send('GET', address + path, undefined, headers ?? adminHeaders),
    metadata: (body, headers) => send('POST', `${address}/v1/metadata`, body, headers ?? adminHeaders),
    graphql: (query, variables, headers, operationName) => send('POST', `${address}/v1/graphql`, { query, variables, operationName }, headers ?? adminHeaders),
    close: () => engine.close(),
  };
  return te;
}
