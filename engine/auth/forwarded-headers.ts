/**
 * The client headers an action handler or a remote schema with
 * `forward_client_headers` receives (v2 compat: `mkClientHeadersForward`).
 *
 * Note [Forwarded client headers]
 * Forwarding hands the client's request to a third party, so what names the
 * engine's own trust never goes: the admin secret and every session header
 * (`x-engine-*`, and v2's `x-hasura-*` spellings, which clients may send
 * too). The session reaches an action handler in `session_variables` and a
 * remote schema as the engine's own `x-engine-*` headers, both built from
 * the resolved session; a forwarded `x-engine-user-id` next to them would
 * let a client pose as another user to a handler that reads headers, and a
 * forwarded admin secret would give every handler the keys of the engine.
 * v2 also drops the headers that describe the client's connection rather
 * than the request (`commonClientHeadersIgnored`: Host, User-Agent, Accept…)
 * and sends Host, User-Agent and Origin on as `X-Forwarded-*`; this does the
 * same and also drops the hop-by-hop headers of RFC 9110 §7.6.1. What is
 * left (Authorization, Cookie, custom headers) is what forwarding is for.
 * Async actions store only this result, never the raw request headers
 * (backends/postgres/metadata-db/action-storage.ts).
 */

/** v2's `commonClientHeadersIgnored`: client headers no webhook or remote is sent (the auth webhook's GET mode too). */
export const V2_IGNORED_CLIENT_HEADERS: ReadonlySet<string> = new Set([
  'content-length',
  'content-md5',
  'content-type',
  'user-agent',
  'host',
  'origin',
  'referer',
  'accept',
  'accept-encoding',
  'accept-language',
  'accept-datetime',
  'cache-control',
  'connection',
  'dnt',
]);

/** v2's ignored headers, plus the hop-by-hop headers. */
const IGNORED = new Set([
  ...V2_IGNORED_CLIENT_HEADERS,
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
]);

/** v2 compat: these go on under another name. */
const RENAMED: ReadonlyMap<string, string> = new Map([
  ['host', 'x-forwarded-host'],
  ['user-agent', 'x-forwarded-user-agent'],
  ['origin', 'x-forwarded-origin'],
]);

/** Whether a header names the session or the engine's credentials (Note [Forwarded client headers]). */
export function isSessionHeader(lowerName: string): boolean {
  return lowerName.startsWith('x-engine-') || lowerName.startsWith('x-hasura-');
}

/**
 * The forwardable part of `headers` (Note [Forwarded client headers]), by
 * lower-case name; a repeated header is joined with `, `. Applying it to its
 * own result changes nothing, so stored headers may be filtered again.
 */
export function forwardedClientHeaders(headers: Readonly<Record<string, string | string[] | undefined>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (headers === undefined) return out;
  const renamed: Array<[string, string]> = [];
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const k = name.toLowerCase();
    const v = typeof raw === 'string' ? raw : raw.join(', ');
    const as = RENAMED.get(k);
    if (as !== undefined) renamed.push([as, v]);
    if (IGNORED.has(k) || isSessionHeader(k)) continue;
    out[k] = v;
  }
  // An X-Forwarded-* the client sent (a proxy in front of the engine) is kept over the one made here, as in v2.
  for (const [k, v] of renamed) out[k] ??= v;
  return out;
}
