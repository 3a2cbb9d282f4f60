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
import type { Span } from '../observability/tracing.ts';
import type { AppDeps } from './deps.ts';
import { parseJsonBody, tryParseJsonBody } from './body.ts';
import { graphqlErrorBody, toEngineError } from '../errors/wire-body.ts';
import { contentTypeOf, requireJsonContentType, responseMediaFor, type ResponseMedia } from './media-type.ts';
import { guardCookieRequest } from './cookie-guard.ts';

/** What to write back. */
export interface GraphqlAnswer {
  readonly status: number;
  /** The Content-Type header value. */
  readonly contentType: string;
  /** JSON text. */
  readonly body: string;
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

/** Authenticates and executes one GraphQL request; never throws. */
export async function answerGraphql(deps: AppDeps, req: GraphqlHttpRequest, ctx?: RequestContext): Promise<GraphqlAnswer> {
  const { headers } = req;
  const media = responseMediaFor(single(headers['accept']));
  const contentType = contentTypeOf(media);
  let isAdmin = false;
  let setCookies = NO_COOKIES;
  try {
    // A cookie-authenticated request a page of another site could have sent (Note [Cookie credentials]).
    guardCookieRequest(deps, req.method, headers);
    let parsed: unknown;
    if (req.method === 'POST') {
      requireJsonContentType(single(headers['content-type']));
      parsed = tryParseJsonBody(req.payload);
    } else {
      parsed = getRequestBody(typeof req.payload === 'string' ? req.payload : '');
    }
    // The authenticate step; an auth webhook gets its span as `traceparent` (Note [Tracing off costs a null check]).
    const span = ctx === undefined || ctx.trace === null ? null : ctx.trace.child('authenticate');
    const auth =
      span === null
        ? (deps.auth.resolveAtOnce(headers) ?? (await deps.auth.resolve(headers, parsed)))
        : await traced(span, deps.auth.resolve(withTraceContext(headers, span), parsed));
    setCookies = auth.setCookies;
    isAdmin = auth.session.isAdmin;
    if (ctx !== undefined) ctx.session = auth.session;
    const body = parsed === undefined ? parseJsonBody(req.payload) : parsed;
    const plain = req.errorStatus === true ? (req.method === 'GET' ? READ_ONLY_ERROR_STATUS : ERROR_STATUS) : req.method === 'GET' ? READ_ONLY : undefined;
    const options = req.relay === true ? { ...plain, relay: true } : plain;
    const res = await deps.graphql.execute(auth.session, body, options, ctx);
    const text = 'jsonText' in res ? res.jsonText : JSON.stringify(res.json);
    // graphql-response+json: no `data` means the request failed before execution (errorResponse's shape).
    const status =
      media === 'graphql-response' && res.status === 200 && text.startsWith('{"errors"')
        ? 400
        : media === 'json' && req.errorStatus !== true && res.status >= 500
          ? 200 // v2's allMod200: a server fault during execution is a 200 with the error too.
          : res.status;
    return { status, contentType, body: text, setCookies };
  } catch (e) {
    const err = toEngineError(e);
    if (ctx !== undefined) ctx.failure = err;
    // Failed before the operation was known (authentication, the body): v2's `unknown` operation type.
    deps.metrics?.graphqlOperation('unknown', false, 0);
    if (err.status >= 500) deps.logger.error('graphql request failed', { request_id: ctx?.requestId, error: err });
    return {
      status: req.errorStatus === true ? err.status : statusFor(media, err, deps.settings.preserve401Errors),
      contentType,
      body: JSON.stringify(graphqlErrorBody(err, isAdmin)),
      setCookies,
    };
  }
}

const READ_ONLY = { readOnly: true } as const;
const ERROR_STATUS = { errorStatus: true } as const;
const READ_ONLY_ERROR_STATUS = { readOnly: true, errorStatus: true } as const;

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
