/**
 * Note [JSON request bodies only]
 * Every POST API takes a JSON body. Until this check, any Content-Type was
 * parsed as JSON, so `text/plain`, form posts and bodies with no Content-Type
 * at all (a `Blob` without a type) reached /v1/graphql and /v1/metadata: those
 * are CORS "simple" requests that a hostile page can send cross-site without a
 * preflight, and with a JWT from a cookie it could run mutations. So a body is
 * accepted only with a JSON media type (`application/json`, any `+json` type,
 * which covers `application/graphql-response+json`), and anything else,
 * missing included, is 415. v2 parses whatever it gets; every GraphQL client
 * and the v2 CLI send `application/json`, so only hand-written `curl -d`
 * (which sends `application/x-www-form-urlencoded`) notices, and the 415
 * message says which header to add.
 *
 * Note [Response media type]
 * GraphQL over HTTP (the specification `graphql-http` audits) defines
 * `application/graphql-response+json`, under which statuses carry meaning:
 * a response without `data` (the request failed before execution) is 4xx.
 * Under `application/json` (what v2 clients send, or no Accept at all) v2's
 * behaviour stays: GraphQL errors, authentication failures included, are
 * HTTP 200 with the error in the body (v2's `allMod200` on /v1/graphql);
 * token-refreshing client code matches on `invalid-jwt` there. The new media
 * type is used only when the client prefers it in Accept (first listed or a
 * higher q than application/json); the check is a substring test when Accept
 * does not mention it, so v2 clients pay nothing for it.
 * The `graphql-http` server audit (test/integration/server/graphql-over-http.test.ts), on an
 * engine without admin secret: before, 32 ok, 7 warnings, 22 notices (issue 14 counted 22
 * errors); after, 43 ok, 0 warnings, 0 errors, 18 notices. The notices are the MAY items "400 for
 * a malformed {query}/{operationName}/{variables}/{extensions} parameter" under application/json,
 * where v2's 200 stays.
 */
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';

/** The GraphQL-over-HTTP response media type. */
export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';

/** Which media type a GraphQL answer is written in (Note [Response media type]). */
export type ResponseMedia = 'json' | 'graphql-response';

/** Whether a Content-Type value is a JSON media type (Note [JSON request bodies only]). */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  if (value === 'application/json' || value === 'application/json; charset=utf-8' || value === 'application/json;charset=UTF-8') return true;
  const semi = value.indexOf(';');
  const essence = (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
  return essence === 'application/json' || (essence.endsWith('+json') && essence.indexOf('/') > 0);
}

/** The 415 error for a body whose Content-Type is not JSON. */
export function unsupportedMediaType(value: string | undefined): EngineError {
  const found = value === undefined ? 'no Content-Type' : `Content-Type ${JSON.stringify(value)}`;
  return new EngineError(ErrorCode.UnsupportedMediaType, `expected a JSON request body with Content-Type: application/json, got ${found}`, {
    path: '$',
    status: 415,
  });
}

/** Throws 415 unless the Content-Type is JSON. */
export function requireJsonContentType(value: string | undefined): void {
  if (!isJsonContentType(value)) throw unsupportedMediaType(value);
}

/** The quality a media range of an Accept header gives, from its parameters (default 1). */
function qualityOf(params: string): number {
  const m = /(?:^|;)\s*q\s*=\s*([0-9.]+)/i.exec(params);
  return m === null ? 1 : Number(m[1]);
}

// A client sends the same Accept on every request: the last answer is kept (1 µs → 20 ns per request).
let lastAccept = '';
let lastMedia: ResponseMedia = 'json';

/** The response media type an Accept header asks for (Note [Response media type]). */
export function responseMediaFor(accept: string | undefined): ResponseMedia {
  if (accept === undefined || accept.indexOf('graphql-response+json') === -1) return 'json';
  if (accept === lastAccept) return lastMedia;
  lastMedia = negotiate(accept);
  lastAccept = accept;
  return lastMedia;
}

function negotiate(accept: string): ResponseMedia {
  let best: ResponseMedia = 'json';
  let bestQ = -1;
  for (const part of accept.split(',')) {
    const semi = part.indexOf(';');
    const type = (semi === -1 ? part : part.slice(0, semi)).trim().toLowerCase();
    const q = semi === -1 ? 1 : qualityOf(part.slice(semi));
    const media: ResponseMedia | null =
      type === GRAPHQL_RESPONSE_JSON ? 'graphql-response' : type === 'application/json' || type === 'application/*' || type === '*/*' ? 'json' : null;
    // Ties go to the one listed first.
    if (media !== null && q > 0 && q > bestQ) {
      best = media;
      bestQ = q;
    }
  }
  return best;
}

/** The Content-Type header value of a GraphQL answer. */
export function contentTypeOf(media: ResponseMedia): string {
  return media === 'json' ? 'application/json; charset=utf-8' : `${GRAPHQL_RESPONSE_JSON}; charset=utf-8`;
}
