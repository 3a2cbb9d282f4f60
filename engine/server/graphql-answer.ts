/**
 * /v1/graphql from method, headers and payload to status, content type and
 * body text, with no HTTP framework in it: the fastify route
 * (routes/graphql.ts) and the node:http fast path (graphql-fast-path.ts) both
 * answer through it, so the two cannot drift apart.
 *
 * Statuses (Note [Response media type] in media-type.ts): a body that is not
 * JSON by its Content-Type is 415 and malformed JSON 400 under either media
 * type; under `application/json` every other failure is HTTP 200 with the
 * error in the body, as v2 answers (authentication failures and server faults
 * too; 401s keep their status with ENGINE_GRAPHQL_PRESERVE_401_ERRORS); under
 * `application/graphql-response+json` authentication failures keep their 401
 * and a response without `data` is 400.
 */
import type { RequestHeaders } from '../auth/resolve-session.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { RequestContext } from '../request-context.ts';
import type { ExecuteOptions, GraphqlResponse } from '../api/contract.ts';
import type { Span } from '../observability/tracing.ts';
import type { AppDeps } from './deps.ts';
import { parseJsonBody, tryParseJsonBody } from './body.ts';
import { graphqlErrorBody, toEngineError } from '../errors/wire-body.ts';
import { contentTypeOf, requireJsonContentType, responseMediaFor, type ResponseMedia } from './media-type.ts';
import { guardCookieRequest } from './cookie-guard.ts';
import type { BodyEncoding } from './reply.ts';

/** What to write back. */
export interface GraphqlAnswer {
  readonly status: number;
  /** The Content-Type header value. */
  readonly contentType: string;
  /** JSON text. */
  readonly body: string;
  /** How to write it (a lone read's answer is a byte string, as the database sent it). */
  readonly encoding: BodyEncoding;
  /** Set-Cookie values an auth webhook asked to pass on. */
  readonly setCookies: readonly string[];
}

/** One request of /v1/graphql. */
export interface GraphqlHttpRequest {
  readonly method: 'GET' | 'POST';
  readonly headers: RequestHeaders;
  /** POST: the body text. GET: the query string, without its `?`. */
  readonly payload: unknown;
  /** `/v1alpha1/graphql`: errors keep their HTTP status (v2 compat; see ExecuteOptions.errorStatus). */
  readonly errorStatus?: boolean;
  /** `/v1beta1/relay`: the Relay schema (ExecuteOptions.relay). */
  readonly relay?: boolean;
}

const NO_COOKIES: readonly string[] = [];

function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** The request object of a GET (`query`, `operationName`, `variables` and `extensions` as JSON text). */
export function getRequestBody(queryString: string): Record<string, unknown> {
  const params = new URLSearchParams(queryString);
  const body: Record<string, unknown> = {};
  const query = params.get('query');
  if (query !== null) body['query'] = query;
  const operationName = params.get('operationName');
  if (operationName !== null && operationName !== '') body['operationName'] = operationName;
  for (const key of ['variables', 'extensions']) {
    const text = params.get(key);
    if (text === null || text === '') continue;
    try {
      body[key] = JSON.parse(text) as unknown;
    } catch (e) {
      throw new EngineError(ErrorCode.InvalidJson, `Error in $.${key}: ${(e as Error).message}`, { path: `$.${key}` });
    }
  }
  return body;
}

/**
 * The status written for `err` with this media type (see the header comment). Under
 * `application/json` v2's /v1/graphql answers every error with 200 (its `allMod200`), server
 * faults and a failing auth webhook too, and 401s keep their status with
 * ENGINE_GRAPHQL_PRESERVE_401_ERRORS. Kept apart on purpose (docs/compat.md): 403 for a refused
 * cross-site cookie request (cookie-guard.ts), which a browser must see fail, and the
 * GraphQL-over-HTTP answers to a request that is not one (415, 413, malformed JSON 400).
 */
function statusFor(media: ResponseMedia, err: EngineError, preserve401: boolean): number {
  if (err.status === 403 || err.status === 415 || err.status === 413 || err.code === ErrorCode.InvalidJson) return err.status;
  if (media !== 'json') return err.status;
  return preserve401 && err.status === 401 ? 401 : 200;
}

/**
 * Authenticates and executes one GraphQL request; never rejects. When authentication needs no I/O and
 * nothing is traced (the common case), the answer is chained on the execution's promise rather than
 * awaited (Note [Request path without async frames] in execute/graphql-service.ts).
 */
export function answerGraphql(deps: AppDeps, req: GraphqlHttpRequest, ctx?: RequestContext): Promise<GraphqlAnswer> {
  const { headers } = req;
  const media = responseMediaFor(single(headers['accept']));
  const contentType = contentTypeOf(media);
  let isAdmin = false;
  let setCookies = NO_COOKIES;
  try {
    const parsed = parsedRequest(deps, req);
    // The authenticate step: at once, unless it needs I/O or is traced (Note [Tracing off costs a null check]).
    const auth = ctx === undefined || ctx.trace === null ? deps.auth.resolveAtOnce(headers) : undefined;
    if (auth === undefined) return answerAfterIo(deps, req, ctx, media, parsed);
    setCookies = auth.setCookies;
    isAdmin = auth.session.isAdmin;
    if (ctx !== undefined) ctx.session = auth.session;
    const cookies = setCookies;
    const admin = isAdmin;
    return deps.graphql.execute(auth.session, bodyOf(req, parsed), executeOptions(req), ctx).then(
      (res) => {
        try {
          return answerOf(req, media, contentType, cookies, res);
        } catch (e) {
          return failureOf(deps, req, ctx, media, contentType, admin, cookies, e);
        }
      },
      (e: unknown) => failureOf(deps, req, ctx, media, contentType, admin, cookies, e),
    );
  } catch (e) {
    return Promise.resolve(failureOf(deps, req, ctx, media, contentType, isAdmin, setCookies, e));
  }
}

/** The rest of answerGraphql when authentication needs I/O (JWT, the auth webhook) or the request is traced. */
async function answerAfterIo(
  deps: AppDeps,
  req: GraphqlHttpRequest,
  ctx: RequestContext | undefined,
  media: ResponseMedia,
  parsed: unknown,
): Promise<GraphqlAnswer> {
  const { headers } = req;
  const contentType = contentTypeOf(media);
  let isAdmin = false;
  let setCookies = NO_COOKIES;
  try {
    // An auth webhook gets the authenticate span as `traceparent`.
    const span = ctx === undefined || ctx.trace === null ? null : ctx.trace.child('authenticate');
    const auth = span === null ? await deps.auth.resolve(headers, parsed) : await traced(span, deps.auth.resolve(withTraceContext(headers, span), parsed));
    setCookies = auth.setCookies;
    isAdmin = auth.session.isAdmin;
    if (ctx !== undefined) ctx.session = auth.session;
    const res = await deps.graphql.execute(auth.session, bodyOf(req, parsed), executeOptions(req), ctx);
    return answerOf(req, media, contentType, setCookies, res);
  } catch (e) {
    return failureOf(deps, req, ctx, media, contentType, isAdmin, setCookies, e);
  }
}

/** The body's JSON (undefined when it is not JSON: the auth webhook then gets none), after the checks that come before authentication. */
function parsedRequest(deps: AppDeps, req: GraphqlHttpRequest): unknown {
  // A cookie-authenticated request a page of another site could have sent (Note [Cookie credentials]).
  guardCookieRequest(deps, req.method, req.headers);
  if (req.method !== 'POST') return getRequestBody(typeof req.payload === 'string' ? req.payload : '');
  requireJsonContentType(single(req.headers['content-type']));
  return tryParseJsonBody(req.payload);
}

/** The request body execute takes: a body that was not JSON fails here, once authenticated, as invalid JSON. */
function bodyOf(req: GraphqlHttpRequest, parsed: unknown): unknown {
  return parsed === undefined ? parseJsonBody(req.payload) : parsed;
}

/** Both writers (the fast path, the fastify routes) send bytes as they are. */
function executeOptions(req: GraphqlHttpRequest): ExecuteOptions {
  const plain = req.errorStatus === true ? (req.method === 'GET' ? READ_ONLY_ERROR_STATUS : ERROR_STATUS) : req.method === 'GET' ? READ_ONLY : PLAIN;
  return req.relay === true ? { ...plain, relay: true } : plain;
}

/** The answer of an executed request. */
function answerOf(req: GraphqlHttpRequest, media: ResponseMedia, contentType: string, setCookies: readonly string[], res: GraphqlResponse): GraphqlAnswer {
  // A byte string is a read's `{"data":…}`, never errors.
  if ('jsonByteString' in res) return { status: res.status, contentType, body: res.jsonByteString, encoding: 'latin1', setCookies };
  const text = 'jsonText' in res ? res.jsonText : JSON.stringify(res.json);
  // graphql-response+json: no `data` means the request failed before execution (errorResponse's shape).
  const status =
    media === 'graphql-response' && res.status === 200 && text.startsWith('{"errors"')
      ? 400
      : media === 'json' && req.errorStatus !== true && res.status >= 500
        ? 200 // v2's allMod200: a server fault during execution is a 200 with the error too.
        : res.status;
  return { status, contentType, body: text, encoding: 'utf8', setCookies };
}

/** The answer of a request that failed before or outside execution (authentication, the body). */
function failureOf(
  deps: AppDeps,
  req: GraphqlHttpRequest,
  ctx: RequestContext | undefined,
  media: ResponseMedia,
  contentType: string,
  isAdmin: boolean,
  setCookies: readonly string[],
  e: unknown,
): GraphqlAnswer {
  const err = toEngineError(e);
  if (ctx !== undefined) ctx.failure = err;
  // Failed before the operation was known (authentication, the body): v2's `unknown` operation type.
  deps.metrics?.graphqlOperation('unknown', false, 0);
  if (err.status >= 500) deps.logger.error('graphql request failed', { request_id: ctx?.requestId, error: err });
  return {
    status: req.errorStatus === true ? err.status : statusFor(media, err, deps.settings.preserve401Errors),
    contentType,
    body: JSON.stringify(graphqlErrorBody(err, isAdmin)),
    encoding: 'utf8',
    setCookies,
  };
}

const PLAIN = { bytes: true } as const;
const READ_ONLY = { readOnly: true, bytes: true } as const;
const ERROR_STATUS = { errorStatus: true, bytes: true } as const;
const READ_ONLY_ERROR_STATUS = { readOnly: true, errorStatus: true, bytes: true } as const;

/** The client's headers with the trace context of `span` (what an auth webhook is sent). */
function withTraceContext(headers: RequestHeaders, span: Span): RequestHeaders {
  const out: Record<string, string | string[] | undefined> = { ...headers, traceparent: span.traceparent() };
  delete out['tracestate'];
  return out;
}

/** `p`, ending `span` when it settles (with the error when it fails). */
async function traced<T>(span: Span, p: Promise<T>): Promise<T> {
  try {
    const v = await p;
    span.end();
    return v;
  } catch (e) {
    span.end(e);
    throw e;
  }
}
