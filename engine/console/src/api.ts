/**
 * The console's only way to the engine: its public HTTP APIs (/v1/graphql,
 * /v1/metadata, /v1/query, /v1/graphql/explain, /v1alpha1/config, and /api/rest for the REST
 * page's try-it call), at URLs relative to the
 * page so a path prefix is kept (Note [Console under a path prefix] in
 * engine/server/routes/console.ts). The admin secret lives in sessionStorage:
 * it is gone when the tab closes and never appears in a URL.
 */
const SECRET_KEY = 'engine-console.admin-secret';

export function adminSecret(): string | null {
  return sessionStorage.getItem(SECRET_KEY);
}

export function setAdminSecret(secret: string | null): void {
  if (secret === null) sessionStorage.removeItem(SECRET_KEY);
  else sessionStorage.setItem(SECRET_KEY, secret);
}

/** An API URL relative to the console page (`../v1/graphql`). */
export function apiUrl(endpoint: string): string {
  return new URL(`../${endpoint}`, document.baseURI).toString();
}

/** The WebSocket URL of an endpoint (`ws:` / `wss:` as the page's scheme), relative to the page like apiUrl. */
export function wsUrl(endpoint: string): string {
  const u = new URL(apiUrl(endpoint));
  u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
  return u.toString();
}

/** A refused call: the HTTP status and v2's `{error, code, path}` when the body has them. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null,
    readonly path: string | null,
    /** v2's `internal` (an admin's details, such as a template's error positions), when the body has it. */
    readonly internal: unknown = undefined,
  ) {
    super(message);
  }
}

export function adminHeaders(): Record<string, string> {
  const secret = adminSecret();
  return secret === null ? {} : { 'x-engine-admin-secret': secret };
}

async function post(endpoint: string, body: unknown, headers: Record<string, string> = adminHeaders()): Promise<unknown> {
  const res = await fetch(apiUrl(endpoint), { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  if (!res.ok) {
    const e = (json ?? {}) as { error?: unknown; code?: unknown; path?: unknown; internal?: unknown };
    throw new ApiError(
      res.status,
      typeof e.error === 'string' ? e.error : text || res.statusText,
      typeof e.code === 'string' ? e.code : null,
      typeof e.path === 'string' ? e.path : null,
      e.internal,
    );
  }
  return json;
}

/** One `/v1/metadata` call as admin. */
export function metadata<T = unknown>(type: string, args: unknown = {}, extra: Record<string, unknown> = {}): Promise<T> {
  return post('v1/metadata', { type, args, ...extra }) as Promise<T>;
}

export interface SqlResult {
  readonly result_type: 'TuplesOk' | 'CommandOk';
  readonly result: string[][] | null;
}

/** `run_sql` through `/v1/query`. */
export function runSql(sql: string, opts: { source?: string; readOnly?: boolean; cascade?: boolean } = {}): Promise<SqlResult> {
  return post('v1/query', {
    type: 'run_sql',
    args: { source: opts.source ?? 'default', sql, read_only: opts.readOnly ?? false, cascade: opts.cascade ?? false },
  }) as Promise<SqlResult>;
}

export interface GraphqlResponse<T> {
  readonly data?: T;
  readonly errors?: ReadonlyArray<{ message: string; extensions?: { path?: string; code?: string } }>;
}

/** A GraphQL request with the given headers (admin's by default); throws on `errors`. */
export async function graphql<T>(query: string, variables: Record<string, unknown> = {}, headers: Record<string, string> = adminHeaders()): Promise<T> {
  const res = (await post('v1/graphql', { query, variables }, headers)) as GraphqlResponse<T>;
  if (res.errors !== undefined && res.errors.length > 0) {
    const first = res.errors[0]!;
    throw new ApiError(200, res.errors.map((e) => e.message).join('; '), first.extensions?.code ?? null, first.extensions?.path ?? null);
  }
  return res.data as T;
}

/** One join of an explained field: a statement on a source, or a request to a remote schema. */
export type ExplainedJoin =
  | { readonly kind: 'sql'; readonly path: string; readonly source: string; readonly sql: string; readonly plan: readonly string[] | null }
  | { readonly kind: 'remote'; readonly path: string; readonly remote_schema: string; readonly query: string };

export interface ExplainedField {
  readonly field: string;
  /** null for a remote schema's root field, which has `remote_request` instead. */
  readonly sql: string | null;
  readonly plan: readonly string[] | null;
  readonly remote_request?: { readonly remote_schema: string; readonly query: string };
  readonly joins?: readonly ExplainedJoin[];
}

/** `/v1/graphql/explain` for a query run with the given session variables. */
export async function explain(
  query: string,
  variables: Record<string, unknown>,
  operationName: string | null,
  user: Record<string, string>,
): Promise<ExplainedField[]> {
  return (await post('v1/graphql/explain', { query: { query, variables, ...(operationName !== null ? { operationName } : {}) }, user })) as ExplainedField[];
}

/** v2's `GET /v1alpha1/config` (admin only), the parts the console reads. */
export interface ServerConfig {
  readonly is_function_permissions_inferred: boolean;
  readonly is_remote_schema_permissions_enabled: boolean;
}

/** The server's configuration, as v2's console reads it (whether function permissions are inferred). */
export async function serverConfig(): Promise<ServerConfig> {
  const res = await fetch(apiUrl('v1alpha1/config'), { headers: adminHeaders() });
  if (!res.ok) throw new ApiError(res.status, (await res.text()) || res.statusText, null, null);
  return (await res.json()) as ServerConfig;
}

/** A readable one-line message for any failure. */
export function messageOf(e: unknown): string {
  if (e instanceof ApiError) return e.code !== null ? `${e.message} (${e.code}${e.path !== null ? ` at ${e.path}` : ''})` : e.message;
  return e instanceof Error ? e.message : String(e);
}

export interface RestAnswer {
  readonly status: number;
  readonly body: string;
}

/**
 * One call of a REST endpoint (`/api/rest/<path>`) as admin, for the REST
 * page's try-it panel: the answer as it came, whatever its status.
 */
export async function restCall(method: string, path: string, body: unknown | undefined): Promise<RestAnswer> {
  const init: RequestInit = { method, headers: { ...adminHeaders(), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(apiUrl(`api/rest/${path}`), init);
  return { status: res.status, body: await res.text() };
}
