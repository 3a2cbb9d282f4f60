/**
 * REST endpoint URL templates: `authors/:id/books` is segments separated by
 * `/`, a segment `:name` being a path parameter that binds the query's
 * variable `name`.
 *
 * Note [URL template clashes]
 * Two endpoints clash when some URL would match both for one method: same
 * number of segments, and at each position equal literals or a parameter on
 * either side (`authors/:id` and `authors/top` clash; `authors/:id` and
 * `books/:id` do not). A clash is refused rather than resolved by
 * precedence (v2 reports such endpoints as ambiguous too), so which
 * endpoint answers a URL never depends on the order of metadata.
 */

/** One segment of a template. */
export type UrlSegment = { readonly param: false; readonly text: string } | { readonly param: true; readonly name: string };

/** A parameter name: a GraphQL variable name. */
const PARAM = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** Parses `url`; a string is the reason it is not a template. */
export function parseUrlTemplate(url: string): readonly UrlSegment[] | string {
  if (url.startsWith('/') || url.endsWith('/')) return `the url "${url}" must not start or end with "/"`;
  if (/[?#\s]/.test(url)) return `the url "${url}" must not contain "?", "#" or whitespace`;
  const segments: UrlSegment[] = [];
  const seen = new Set<string>();
  for (const part of url.split('/')) {
    if (part.length === 0) return `the url "${url}" has an empty segment`;
    if (!part.startsWith(':')) {
      segments.push({ param: false, text: part });
      continue;
    }
    const name = part.slice(1);
    if (!PARAM.test(name)) return `the url "${url}": "${part}" is not a valid parameter (":" and a GraphQL variable name)`;
    if (seen.has(name)) return `the url "${url}" names the parameter "${name}" twice`;
    seen.add(name);
    segments.push({ param: true, name });
  }
  return segments;
}

/** Whether some path matches both templates (Note [URL template clashes]). */
export function templatesClash(a: readonly UrlSegment[], b: readonly UrlSegment[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((s, i) => {
    const t = b[i]!;
    return s.param || t.param || s.text === t.text;
  });
}

/** The parameters of `path` (decoded segments) under `template`, or null when it does not match. */
export function matchTemplate(template: readonly UrlSegment[], path: readonly string[]): Record<string, string> | null {
  if (template.length !== path.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const s = template[i]!;
    const p = path[i]!;
    if (s.param) params[s.name] = p;
    else if (s.text !== p) return null;
  }
  return params;
}

/** The OpenAPI path of a template: `/api/rest/authors/{id}`. */
export function openapiPath(template: readonly UrlSegment[]): string {
  return `/api/rest/${template.map((s) => (s.param ? `{${s.name}}` : s.text)).join('/')}`;
}
