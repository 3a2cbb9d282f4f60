/**
 * Note [Cookie credentials]
 * A browser attaches cookies to requests on its own, cross-site ones too:
 * a GET from an `<img>`, a form POST, a WebSocket upgrade. With the JWT in
 * a cookie (JWT `header: {type: "Cookie"}`) or an auth webhook that is shown
 * the request's cookies, such a request is authenticated as the user. v2
 * answered every origin under the default CORS setting with
 * `Access-Control-Allow-Credentials: true`, so any page could read a
 * user's data, and a cross-site GET ran query actions. Engine:
 * - grants credentials (the header, in answers and preflights) only to
 *   origins ENGINE_GRAPHQL_CORS_DOMAIN names; `*` (or unset) lets every
 *   origin read answers without credentials (cors.ts). Clients that send an
 *   Authorization header or the admin secret are unaffected: a browser
 *   never adds those by itself;
 * - refuses a request whose credentials would come from a cookie
 *   (Authenticator.usesCookieCredentials: no admin secret presented, and
 *   the JWT read from its cookie or a webhook shown a Cookie header) when
 *   it is cross-site: an Origin that is neither the engine's own (the Host
 *   header, or `Sec-Fetch-Site: same-origin`) nor named by the setting, or
 *   no Origin and `Sec-Fetch-Site: cross-site`;
 * - refuses such a GET, HEAD or POST that carries nothing a page cannot send
 *   cross-site without a preflight, as Apollo Server's CSRF prevention: a
 *   Content-Type other than the three a form may send, or a non-empty
 *   X-Requested-With, Authorization, X-Engine-* / X-Hasura-*,
 *   Apollo-Require-Preflight or X-Apollo-Operation-Name header. Other
 *   methods are always preflighted;
 * - refuses a cookie-authenticated WebSocket upgrade from a cross-site
 *   Origin (cross-site WebSocket hijacking: upgrades have no preflight).
 * Refusals are 403 `access-denied` in the route's v2 error shape, before the
 * request is authenticated or run. Requests without cookie credentials
 * (admin secret, Authorization header, unauthorized role) are unchanged.
 */
import type { RequestHeaders } from '../auth/resolve-session.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { Settings } from '../cli/settings.ts';
import { buildCorsPolicy, type CorsPolicy } from './cors.ts';
import type { AppDeps } from './deps.ts';

const policies = new WeakMap<Settings, CorsPolicy>();

/** The CORS policy of `settings`, built once. */
export function corsPolicyOf(settings: Settings): CorsPolicy {
  let p = policies.get(settings);
  if (p === undefined) {
    p = buildCorsPolicy(settings.corsDomain);
    policies.set(settings, p);
  }
  return p;
}

function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Content types a page may send cross-site without a preflight (the Fetch standard's CORS-safelisted ones). */
const SIMPLE_TYPES: ReadonlySet<string> = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);
/** Methods a page may send cross-site without a preflight. */
const SIMPLE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST']);
/** Headers whose non-empty presence shows the request was preflighted (or is not from a page). */
const PREFLIGHT_HEADERS = ['x-requested-with', 'authorization', 'apollo-require-preflight', 'x-apollo-operation-name'] as const;

/** True when `origin` is the engine's own (the console's, or a page served behind the same host). */
function sameOrigin(headers: RequestHeaders, origin: string): boolean {
  if (single(headers['sec-fetch-site']) === 'same-origin') return true;
  const host = single(headers['host']);
  if (host === undefined) return false;
  try {
    return new URL(origin).host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}

/** True when a browser sent this from a page of another site the setting does not name. */
export function isCrossSite(policy: CorsPolicy, headers: RequestHeaders): boolean {
  const origin = single(headers['origin']);
  if (origin === undefined) return single(headers['sec-fetch-site']) === 'cross-site';
  return !sameOrigin(headers, origin) && !policy.credentialed(origin);
}

/** True when the request carries something a page can only send after a preflight. */
function preflighted(method: string, headers: RequestHeaders): boolean {
  if (!SIMPLE_METHODS.has(method)) return true;
  const type = single(headers['content-type'])?.split(';')[0]?.trim().toLowerCase();
  if (type !== undefined && type !== '' && !SIMPLE_TYPES.has(type)) return true;
  for (const name of PREFLIGHT_HEADERS) if ((single(headers[name]) ?? '') !== '') return true;
  for (const name in headers) {
    if ((name.startsWith('x-engine-') || name.startsWith('x-hasura-')) && (single(headers[name]) ?? '') !== '') return true;
  }
  return false;
}

function refused(message: string): EngineError {
  return new EngineError(ErrorCode.AccessDenied, message, { status: 403 });
}

/** The refusal of a request authenticated by a cookie that a page of another site could have sent, or null. */
export function cookieRequestRefusal(policy: CorsPolicy, method: string, headers: RequestHeaders): EngineError | null {
  if (isCrossSite(policy, headers)) {
    const origin = single(headers['origin']);
    return refused(
      `cookie credentials are refused from ${origin === undefined ? 'a cross-site request' : `origin ${JSON.stringify(origin)}`}: ` +
        'only origins named in ENGINE_GRAPHQL_CORS_DOMAIN may send them',
    );
  }
  if (!preflighted(method, headers)) {
    return refused(
      'this request was refused as a possible cross-site request forgery: a request authenticated by a cookie must carry ' +
        'a Content-Type other than application/x-www-form-urlencoded, multipart/form-data or text/plain, ' +
        'or a non-empty X-Requested-With or X-Engine-* header',
    );
  }
  return null;
}

/** Throws the refusal of Note [Cookie credentials] when the request has cookie credentials and may be forged. */
export function guardCookieRequest(deps: AppDeps, method: string, headers: RequestHeaders): void {
  if (!deps.auth.usesCookieCredentials(headers)) return;
  const err = cookieRequestRefusal(corsPolicyOf(deps.settings), method, headers);
  if (err !== null) throw err;
}
