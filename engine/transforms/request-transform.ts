/**
 * v2's `request_transform`: compiled once (templates parsed, shape checked)
 * when metadata changes, applied per webhook call with no parsing.
 *
 * Note [Request transform semantics] (v2's RequestTransform, versions 1 and 2):
 * - Templates see `$body` (the JSON body the engine would send), `$base_url`
 *   (the webhook URL before the transform), `$session_variables` (an object, or
 *   null where there is no session), `$query_params` (the URL's query as an
 *   object of strings) and the function `getSessionVariable`.
 * - `method` replaces the method; `url` is a string template whose result is
 *   the new URL; `query_params` (an object of name → string template, or one
 *   string template for the whole query string) replaces the query; a name
 *   whose template gives null is left out.
 * - `request_headers.remove_headers` drops headers by name (case-insensitive),
 *   then `add_headers` (name → string template) sets headers.
 * - Version 1: `body` is a template string; `content_type:
 *   application/x-www-form-urlencoded` sends the template's object form-encoded.
 *   Version 2: `body` is `{action: transform, template}`, `{action: remove}` or
 *   `{action: x_www_form_urlencoded, form_template: {name: string template}}`.
 * - A form body sets `Content-Type: application/x-www-form-urlencoded`; a
 *   removed body also drops `Content-Type`.
 */
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import {
  escapeUri,
  evaluate,
  type Json,
  KritiError,
  type KritiTemplate,
  parseStringTemplate,
  parseTemplate,
  transformFunctions,
  unknownFunction,
} from './kriti/index.ts';

/** The wire JSON of a `request_transform` (what metadata stores). */
export interface RequestTransformDefinition {
  readonly version?: 1 | 2;
  readonly template_engine?: 'Kriti';
  readonly method?: string | null;
  readonly url?: string | null;
  readonly query_params?: Readonly<Record<string, string | null>> | string | null;
  readonly request_headers?: {
    readonly add_headers?: Readonly<Record<string, string>>;
    readonly remove_headers?: readonly string[];
  } | null;
  readonly body?: string | RequestBodyTransform | null;
  readonly content_type?: string | null;
}

export type RequestBodyTransform =
  | { readonly action: 'transform'; readonly template: string }
  | { readonly action: 'remove' }
  | { readonly action: 'x_www_form_urlencoded'; readonly form_template: Readonly<Record<string, string>> };

/** A webhook request before or after a transform. Headers keep their order and spelling. */
export interface WebhookRequest {
  readonly method: string;
  /** The full URL, query string included. */
  readonly url: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** The JSON body, or undefined for none. */
  readonly body: Json | undefined;
}

/** What a transform produces: the request to send, with the body already serialized. */
export interface TransformedRequest {
  readonly method: string;
  /** The full URL, query string included. */
  readonly url: string;
  /** The URL without its query string. */
  readonly baseUrl: string;
  readonly queryParams: ReadonlyArray<readonly [string, string]>;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  /** The body bytes as text (JSON, or a form), or undefined for no body. */
  readonly body: string | undefined;
  /** The body as JSON when it is JSON (what `test_webhook_transform` shows), else the text. */
  readonly bodyValue: Json | undefined;
}

/** Session variables as the transform sees them (names lower-cased by auth/). */
export type TransformSession = Readonly<Record<string, string>> | null;

type Compiled<T> = { readonly source: string; readonly template: T; readonly path: string };

/** A request transform ready to apply. Build with {@link compileRequestTransform}. */
export interface CompiledRequestTransform {
  readonly definition: RequestTransformDefinition;
  readonly method: string | null;
  readonly url: Compiled<KritiTemplate> | null;
  readonly queryParams:
    | { readonly kind: 'object'; readonly entries: ReadonlyArray<readonly [string, Compiled<KritiTemplate> | null]> }
    | { readonly kind: 'string'; readonly template: Compiled<KritiTemplate> }
    | null;
  readonly removeHeaders: readonly string[];
  readonly addHeaders: ReadonlyArray<readonly [string, Compiled<KritiTemplate>]>;
  readonly body:
    | { readonly kind: 'keep' }
    | { readonly kind: 'remove' }
    | { readonly kind: 'json'; readonly template: Compiled<KritiTemplate> }
    | { readonly kind: 'form-from-json'; readonly template: Compiled<KritiTemplate> }
    | { readonly kind: 'form'; readonly fields: ReadonlyArray<readonly [string, Compiled<KritiTemplate>]> };
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);
const FORM = 'application/x-www-form-urlencoded';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A `validation-failed` error at `path` for a malformed transform. */
function shapeError(path: string, message: string): EngineError {
  return new EngineError(ErrorCode.ValidationFailed, message, { path, status: 400 });
}

/**
 * The error of a template that does not parse or evaluate: v2's
 * `{code: validation-failed, error, internal: [{error_code, message, source_position}]}`,
 * with the message naming the field and the position.
 */
export function templateError(e: KritiError, field: string, path: string): EngineError {
  return new EngineError(ErrorCode.ValidationFailed, `${field}: ${e.message}`, { path, status: 400, internal: [e.toJSON()] });
}

/** Every function a transform template may call. */
export const TRANSFORM_FUNCTIONS: ReadonlySet<string> = new Set(Object.keys(transformFunctions(null)));

function compileTemplate(source: unknown, path: string, field: string, kind: 'value' | 'string'): Compiled<KritiTemplate> {
  if (typeof source !== 'string') throw shapeError(path, `${field} must be a string (a Kriti template)`);
  try {
    const template = kind === 'value' ? parseTemplate(source) : parseStringTemplate(source);
    // An unknown function is refused when the transform is defined, not when it first runs.
    const unknown = unknownFunction(template, TRANSFORM_FUNCTIONS);
    if (unknown !== null) throw unknown;
    return { source, template, path };
  } catch (e) {
    if (e instanceof KritiError) throw templateError(e, field, path);
    throw e;
  }
}

const KNOWN_KEYS = new Set(['version', 'template_engine', 'method', 'url', 'query_params', 'request_headers', 'body', 'content_type']);

/**
 * Checks a `request_transform` and parses its templates. Throws a
 * `validation-failed` EngineError at `path` (e.g. `$.args.definition.request_transform`)
 * naming the bad key, or the template's position for a template that does not parse.
 */
export function compileRequestTransform(raw: unknown, path: string): CompiledRequestTransform {
  if (!isRecord(raw)) throw shapeError(path, 'request_transform must be an object');
  for (const k of Object.keys(raw)) if (!KNOWN_KEYS.has(k)) throw shapeError(`${path}.${k}`, `unknown key "${k}" in request_transform`);
  const version = raw['version'] ?? 1;
  if (version !== 1 && version !== 2) throw shapeError(`${path}.version`, 'request_transform version must be 1 or 2');
  const engine = raw['template_engine'] ?? 'Kriti';
  if (engine !== 'Kriti') throw shapeError(`${path}.template_engine`, `unknown template engine ${JSON.stringify(engine)}; only "Kriti" is supported`);

  let method: string | null = null;
  if (raw['method'] !== undefined && raw['method'] !== null) {
    if (typeof raw['method'] !== 'string' || !METHODS.has(raw['method'].toUpperCase())) {
      throw shapeError(`${path}.method`, `method must be one of ${[...METHODS].join(', ')}`);
    }
    method = raw['method'].toUpperCase();
  }
  const url = raw['url'] === undefined || raw['url'] === null ? null : compileTemplate(raw['url'], `${path}.url`, 'url', 'string');

  let queryParams: CompiledRequestTransform['queryParams'] = null;
  const qp = raw['query_params'];
  if (typeof qp === 'string') queryParams = { kind: 'string', template: compileTemplate(qp, `${path}.query_params`, 'query_params', 'string') };
  else if (isRecord(qp)) {
    queryParams = {
      kind: 'object',
      entries: Object.entries(qp).map(
        ([k, v]) => [k, v === null ? null : compileTemplate(v, `${path}.query_params.${k}`, `query_params.${k}`, 'string')] as const,
      ),
    };
  } else if (qp !== undefined && qp !== null) throw shapeError(`${path}.query_params`, 'query_params must be an object or a string');

  const removeHeaders: string[] = [];
  const addHeaders: Array<readonly [string, Compiled<KritiTemplate>]> = [];
  const rh = raw['request_headers'];
  if (rh !== undefined && rh !== null) {
    if (!isRecord(rh)) throw shapeError(`${path}.request_headers`, 'request_headers must be an object');
    for (const k of Object.keys(rh)) {
      if (k !== 'add_headers' && k !== 'remove_headers') throw shapeError(`${path}.request_headers.${k}`, `unknown key "${k}" in request_headers`);
    }
    const rem = rh['remove_headers'] ?? [];
    if (!Array.isArray(rem) || !rem.every((h) => typeof h === 'string')) {
      throw shapeError(`${path}.request_headers.remove_headers`, 'remove_headers must be a list of header names');
    }
    removeHeaders.push(...rem.map((h) => h.toLowerCase()));
    const add = rh['add_headers'] ?? {};
    if (!isRecord(add)) throw shapeError(`${path}.request_headers.add_headers`, 'add_headers must be an object of header name → template');
    for (const [k, v] of Object.entries(add)) {
      addHeaders.push([k, compileTemplate(v, `${path}.request_headers.add_headers.${k}`, `add_headers.${k}`, 'string')]);
    }
  }

  const contentType = raw['content_type'];
  if (contentType !== undefined && contentType !== null && contentType !== 'application/json' && contentType !== FORM) {
    throw shapeError(`${path}.content_type`, `content_type must be "application/json" or "${FORM}"`);
  }
  const body = compileBody(raw['body'], version, contentType === FORM, `${path}.body`);
  return { definition: raw as RequestTransformDefinition, method, url, queryParams, removeHeaders, addHeaders, body };
}

function compileBody(b: unknown, version: 1 | 2, formV1: boolean, path: string): CompiledRequestTransform['body'] {
  if (b === undefined || b === null) return { kind: 'keep' };
  if (version === 1 || typeof b === 'string') {
    const template = compileTemplate(b, path, 'body', 'value');
    return formV1 ? { kind: 'form-from-json', template } : { kind: 'json', template };
  }
  if (!isRecord(b)) throw shapeError(path, 'body must be an object with an "action"');
  switch (b['action']) {
    case 'transform':
      return { kind: 'json', template: compileTemplate(b['template'], `${path}.template`, 'body.template', 'value') };
    case 'remove':
      return { kind: 'remove' };
    case 'x_www_form_urlencoded': {
      const ft = b['form_template'];
      if (!isRecord(ft)) throw shapeError(`${path}.form_template`, 'form_template must be an object of field → template');
      return {
        kind: 'form',
        fields: Object.entries(ft).map(([k, v]) => [k, compileTemplate(v, `${path}.form_template.${k}`, `form_template.${k}`, 'string')] as const),
      };
    }
    default:
      throw shapeError(`${path}.action`, 'body.action must be "transform", "remove" or "x_www_form_urlencoded"');
  }
}

function splitUrl(url: string): { base: string; query: Array<[string, string]> } {
  const q = url.indexOf('?');
  if (q < 0) return { base: url, query: [] };
  const params = new URLSearchParams(url.slice(q + 1));
  return { base: url.slice(0, q), query: [...params.entries()] };
}

function formEncode(pairs: ReadonlyArray<readonly [string, string]>): string {
  return pairs.map(([k, v]) => `${escapeUri(k)}=${escapeUri(v)}`).join('&');
}

/** The text of a form field or query value: strings as is, other scalars as JSON; null leaves the field out. */
function fieldText(v: Json, what: string, path: string): string | null {
  if (v === null) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  throw shapeError(path, `${what} must give a string, got ${Array.isArray(v) ? 'an array' : 'an object'}`);
}

/**
 * Applies a compiled transform to a request. Throws a `validation-failed`
 * EngineError (with the template position in `internal`) when a template
 * fails to evaluate, so a webhook caller can answer with it.
 */
export function applyRequestTransform(t: CompiledRequestTransform | null, req: WebhookRequest, session: TransformSession): TransformedRequest {
  const { base, query } = splitUrl(req.url);
  // No transform (most webhooks): the request as given, without the bindings only templates read (Note [Sync action overhead]).
  if (t === null) {
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    const qs = query.length === 0 ? '' : `?${formEncode(query)}`;
    return { method: req.method, url: base + qs, baseUrl: base, queryParams: query, headers: req.headers, body, bodyValue: req.body };
  }
  const bindings: Record<string, Json> = {
    $body: req.body ?? null,
    $base_url: base,
    $session_variables: session === null ? null : { ...session },
    $query_params: Object.fromEntries(query),
  };
  const functions = transformFunctions(session);
  const run = (c: Compiled<KritiTemplate>, field: string): Json => {
    try {
      return evaluate(c.template, bindings, functions);
    } catch (e) {
      if (e instanceof KritiError) throw templateError(e, field, c.path);
      throw e;
    }
  };

  let method = req.method;
  let url = base;
  let queryParams: Array<readonly [string, string]> = query;
  let headers: Array<readonly [string, string]> = [...req.headers];
  let body: string | undefined = req.body === undefined ? undefined : JSON.stringify(req.body);
  let bodyValue: Json | undefined = req.body;

  if (t !== null) {
    if (t.method !== null) method = t.method;
    if (t.url !== null) {
      const u = run(t.url, 'url') as string;
      const split = splitUrl(u);
      url = split.base;
      if (split.query.length > 0) queryParams = split.query;
    }
    if (t.queryParams !== null) {
      if (t.queryParams.kind === 'string') {
        const text = run(t.queryParams.template, 'query_params') as string;
        queryParams = [...new URLSearchParams(text.startsWith('?') ? text.slice(1) : text).entries()];
      } else {
        queryParams = [];
        for (const [k, c] of t.queryParams.entries) {
          if (c === null) continue;
          const v = fieldText(run(c, `query_params.${k}`), `query_params.${k}`, c.path);
          if (v !== null) queryParams.push([k, v]);
        }
      }
    }
    if (t.removeHeaders.length > 0) headers = headers.filter(([n]) => !t.removeHeaders.includes(n.toLowerCase()));
    for (const [name, c] of t.addHeaders) {
      const v = run(c, `add_headers.${name}`) as string;
      headers = headers.filter(([n]) => n.toLowerCase() !== name.toLowerCase());
      headers.push([name, v]);
    }
    const setContentType = (value: string | null): void => {
      headers = headers.filter(([n]) => n.toLowerCase() !== 'content-type');
      if (value !== null) headers.push(['Content-Type', value]);
    };
    switch (t.body.kind) {
      case 'keep':
        break;
      case 'remove':
        body = undefined;
        bodyValue = undefined;
        setContentType(null);
        break;
      case 'json': {
        const v = run(t.body.template, 'body');
        body = JSON.stringify(v);
        bodyValue = v;
        break;
      }
      case 'form-from-json': {
        const v = run(t.body.template, 'body');
        if (v === null || typeof v !== 'object' || Array.isArray(v)) {
          throw shapeError(t.body.template.path, 'a form body template must give an object');
        }
        const pairs: Array<readonly [string, string]> = [];
        for (const [k, x] of Object.entries(v)) {
          const s = fieldText(x, `form field ${k}`, t.body.template.path);
          if (s !== null) pairs.push([k, s]);
        }
        body = formEncode(pairs);
        bodyValue = body;
        setContentType(FORM);
        break;
      }
      case 'form': {
        const pairs: Array<readonly [string, string]> = [];
        for (const [k, c] of t.body.fields) {
          const s = fieldText(run(c, `form_template.${k}`), `form_template.${k}`, c.path);
          if (s !== null) pairs.push([k, s]);
        }
        body = formEncode(pairs);
        bodyValue = body;
        setContentType(FORM);
        break;
      }
    }
  }
  const qs = queryParams.length === 0 ? '' : `?${formEncode(queryParams)}`;
  return { method, url: url + qs, baseUrl: url, queryParams, headers, body, bodyValue };
}
