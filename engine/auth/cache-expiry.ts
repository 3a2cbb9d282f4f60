/**
 * How long an HTTP answer may be reused, from its `Cache-Control: max-age`
 * (relative seconds) or `Expires` (absolute date). Used for the auth
 * webhook's sessions and for JWK sets.
 */

/** Absolute expiry time in ms since the epoch, or null when the answer says nothing (or no-cache). */
export function cacheExpiryOf(headers: { get(name: string): string | null }, now: number = Date.now()): number | null {
  const cc = headers.get('cache-control');
  if (cc !== null) {
    const directives = cc
      .toLowerCase()
      .split(',')
      .map((d) => d.trim());
    if (directives.some((d) => d === 'no-cache' || d === 'no-store')) return null;
    for (const d of directives) {
      const m = /^(?:s-)?max-age\s*=\s*"?(\d+)"?$/.exec(d);
      if (m?.[1] !== undefined) return now + Number(m[1]) * 1000;
    }
  }
  const expires = headers.get('expires');
  if (expires !== null) {
    const t = Date.parse(expires);
    if (!Number.isNaN(t)) return t;
  }
  return null;
}
