/**
 * One request under `/api/rest/` from method, URL, headers and body text to
 * status, headers and body, with no HTTP framework in it: the fastify route
 * (routes/rest.ts) and the node:http fast path (graphql-fast-path.ts) both
 * answer through it, as they do for /v1/graphql through graphql-answer.ts.
 * The body is empty or JSON (`invalid-json` 400 otherwise); errors are v2's
 * `{path, error, code}` with their status.
 */
import type { RequestHeaders } from '../auth/resolve-session.ts';
import { errorDetails } from '../errors/engine-error.ts';
import { apiErrorBody, toEngineError } from '../errors/wire-body.ts';
import type { RequestContext } from '../request-context.ts';
import { parseJsonBody } from './body.ts';
import type { AppDeps } from './deps.ts';
import { guardCookieRequest } from './cookie-guard.ts';
import type { BodyEncoding } from './reply.ts';

/** The path prefix of REST endpoints. */
export const REST_PREFIX = '/api/rest/';

/** What to write back. */
export interface RestAnswer {
  readonly status: number;
  /** JSON text. */
  readonly body: string;
  /** How to write it (a lone read's data object is a byte string, as the database sent it). */
  readonly encoding: BodyEncoding;
  /** Extra response headers (`allow` on a 405). */
  readonly headers: Readonly<Record<string, string>>;
  /** Set-Cookie values an auth webhook asked to pass on. */
  readonly setCookies: readonly string[];
}

const NONE: Readonly<Record<string, string>> = Object.freeze({});
const NO_COOKIES: readonly string[] = [];

/** Authenticates and serves one REST request; `url` starts with {@link REST_PREFIX}. Never throws. */
export async function answerRest(
  deps: AppDeps,
  method: string,
  url: string,
  headers: RequestHeaders,
  payload: string,
  ctx?: RequestContext,
): Promise<RestAnswer> {
  let isAdmin = false;
  let setCookies = NO_COOKIES;
  try {
    // A cookie-authenticated request a page of another site could have sent (Note [Cookie credentials]).
    guardCookieRequest(deps, method, headers);
    const body = payload.trim().length > 0 ? parseJsonBody(payload) : undefined;
    const auth = await deps.auth.resolve(headers, body);
    setCookies = auth.setCookies;
    isAdmin = auth.session.isAdmin;
    const q = url.indexOf('?');
    const path = (q === -1 ? url : url.slice(0, q)).slice(REST_PREFIX.length);
    const res = await deps.rest.handle({ method, path, query: q === -1 ? '' : url.slice(q + 1), body }, auth.session, ctx);
    const headersOut = res.headers ?? NONE;
    if ('jsonByteString' in res) return { status: res.status, body: res.jsonByteString, encoding: 'latin1', headers: headersOut, setCookies };
    return { status: res.status, body: 'jsonText' in res ? res.jsonText : JSON.stringify(res.json), encoding: 'utf8', headers: headersOut, setCookies };
  } catch (e) {
    const err = toEngineError(e);
    if (err.status >= 500) deps.logger.error('rest request failed', { error: errorDetails(err) });
    return { status: err.status, body: JSON.stringify(apiErrorBody(err, isAdmin)), encoding: 'utf8', headers: NONE, setCookies };
  }
}
