/**
 * The contract between the HTTP layer and the engine's APIs: what a metadata
 * or GraphQL request answers, and the interfaces server/ calls
 * (implemented by metadata/service.ts and execute/graphql-service.ts). It
 * lives outside server/ so that those implementations do not import the HTTP
 * layer.
 */
import type { Session } from '../auth/session.ts';
import type { RequestContext } from '../request-context.ts';

/** An API answer: status plus either a JSON value or JSON text already serialized. */
export type ApiResponse = { readonly status: number; readonly json: unknown } | { readonly status: number; readonly jsonText: string };

/**
 * JSON as a byte string: its UTF-8 bytes, one character each, to be written with the `latin1`
 * encoding (Note [Answer bytes] in backends/postgres/answer-bytes.ts).
 */
export interface ByteStringResponse {
  readonly status: number;
  readonly jsonByteString: string;
}

/** A GraphQL answer: an ApiResponse, or (asked for with ExecuteOptions.bytes) a byte string. */
export type GraphqlResponse = ApiResponse | ByteStringResponse;

/** Which API family a metadata/query request came in on. */
export type ApiFamily = 'metadata' | 'query-v1' | 'query-v2';

/** The metadata and legacy query APIs. */
export interface MetadataApi {
  /** Handles one POST body of /v1/metadata, /v1/query or /v2/query. Never throws for bad input. */
  handle(api: ApiFamily, body: unknown, session: Session): Promise<ApiResponse>;
  /** Whether the metadata in force has inconsistent objects (for /healthz). */
  isConsistent(): boolean;
  /** Reaches the metadata database and each source (for /readyz). */
  readiness(timeoutMs: number): Promise<Readiness>;
  /**
   * Whether each remote schema of the metadata in force answers (`/readyz?remotes=true`); changes
   * nothing (Note [Probing a remote schema] in remote/probe.ts).
   */
  remoteReadiness(): Promise<readonly RemoteReadinessCheck[]>;
  /**
   * `/v1alpha1/pg_dump` of an admin: `{source?, opts, clean_output?}` → the source's SQL dump
   * (Note [pg_dump arguments] in backends/postgres/pg-dump.ts); throws an EngineError.
   */
  dumpSource?(body: unknown): Promise<string>;
}

/** One reachability check of /readyz. */
export interface ReadinessCheck {
  readonly kind: 'metadata' | 'source';
  readonly name: string;
  readonly ok: boolean;
  /** Why it could not be reached. */
  readonly error?: string;
  /** A source that was already unreachable when metadata was built (see /healthz). */
  readonly inconsistent?: string;
}

/** One remote schema's reachability (`/readyz?remotes=true`). */
export interface RemoteReadinessCheck {
  readonly name: string;
  readonly ok: boolean;
  /** Why it could not be reached (the remote's origin only, never its path or query). */
  readonly error?: string;
  readonly latencyMs: number;
  /** A remote that is inconsistent in the metadata (it could not be introspected when it was built), and why. */
  readonly inconsistent?: string;
}

/** The answer of /readyz. */
export interface Readiness {
  readonly ready: boolean;
  readonly checks: readonly ReadinessCheck[];
}

/** How a GraphQL request came in. */
export interface ExecuteOptions {
  /** A GET request: queries only; a mutation is refused with 405 (GraphQL over HTTP). */
  readonly readOnly?: boolean;
  /**
   * v2 compat (`/v1alpha1/graphql`): a single request that fails is answered with its error's
   * HTTP status (400, 500…) instead of 200; a batch still answers 200.
   */
  readonly errorStatus?: boolean;
  /** `/v1beta1/relay`: the Relay schema (Note [Relay schema] in graphql/schema/relay-types.ts). */
  readonly relay?: boolean;
  /** The answer may come as a {@link ByteStringResponse}: for a writer that sends it with the `latin1` encoding. */
  readonly bytes?: boolean;
}

/** The GraphQL API. */
export interface GraphqlApi {
  /**
   * Executes one GraphQL-over-HTTP request body. Errors come back as `{errors}` with status 200 (405: a mutation in a read-only request).
   * `ctx`: the client's address and the request's cancellation (the client left).
   */
  execute(session: Session, body: unknown, options?: ExecuteOptions, ctx?: RequestContext): Promise<GraphqlResponse>;
  /**
   * A v1 data call of `/v1/query` or `/v2/query` (`{type: select|count|insert|update|delete, args}`)
   * with the session's role and permissions; null when `body` is no such call (Note [Legacy DML]).
   */
  legacyQuery(session: Session, body: unknown, ctx?: RequestContext): Promise<ApiResponse | null>;
  /** `/v1/graphql/explain`: `{query: {query, variables, operationName}, user}` → `[{field, sql, plan, prepared_arguments, remote_request?, joins?}]`. */
  explain(body: unknown): Promise<ApiResponse>;
}

/** Where one WebSocket operation's results go; server/ws/ writes them in the socket's protocol. */
export interface OperationSink {
  /** A result as JSON text: `{"data":…}` or `{"errors":[…]}`. */
  next(resultText: string): void;
  /** The operation was refused before it ran (validation, permissions): its GraphQL errors; the operation is over. */
  error(errors: readonly unknown[]): void;
  /** The operation is over (a query or mutation answered, a subscription ended by the engine). */
  complete(): void;
}

/** A running WebSocket operation. */
export interface OperationHandle {
  /** Stops it (the client's `complete`/`stop`, or the socket closed); nothing more reaches its sink. */
  stop(): void;
}

/** GraphQL operations over a WebSocket: queries, mutations and subscriptions (engine/subscriptions/). */
export interface SocketApi {
  /**
   * Starts one operation (`{query, variables?, operationName?}`): a query or
   * mutation answers once and completes; a subscription answers until
   * stopped. Never throws for bad input: refusals go to `sink.error`.
   */
  start(session: Session, payload: unknown, sink: OperationSink, ctx?: RequestContext): Promise<OperationHandle>;
}

/** One request under `/api/rest/`. */
export interface RestRequest {
  readonly method: string;
  /** The path after `/api/rest/`, without the query string, still percent-encoded. */
  readonly path: string;
  /** The query string, without its `?`. */
  readonly query: string;
  /** The parsed JSON body (undefined when none). */
  readonly body: unknown;
}

/** An answer of a REST endpoint: an ApiResponse plus headers (`Allow` on a 405). */
/** A REST answer; a 200's data object may come as a byte string (Note [Answer bytes] in backends/postgres/answer-bytes.ts). */
export type RestResponse = (ApiResponse | ByteStringResponse) & { readonly headers?: Readonly<Record<string, string>> };

/** REST endpoints (engine/rest/rest-service.ts). */
export interface RestApi {
  /** Serves one request under `/api/rest/`; errors in v2's `{path, error, code}` with their status. Never throws. */
  handle(req: RestRequest, session: Session, ctx?: RequestContext): Promise<RestResponse>;
  /** The OpenAPI 3 document of every endpoint (`/api/swagger/json`). */
  openapi(): unknown;
}
