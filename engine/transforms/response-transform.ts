/**
 * v2's `response_transform`: reshapes a webhook's JSON answer before the
 * engine reads it.
 *
 * Note [Response transform semantics]: `{version, template_engine, body}` with
 * `body` a template string (version 1) or `{action: transform, template}` /
 * `{action: remove}` (version 2). Templates see `$body` (the response's JSON,
 * or its text when it is not JSON), `$request` (`{body, session_variables,
 * query_params}` of the request that was sent), `$session_variables` and
 * `$response` (`{status}`).
 */
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { evaluate, type Json, KritiError, type KritiTemplate, parseTemplate, transformFunctions, unknownFunction } from './kriti/index.ts';
import { templateError, TRANSFORM_FUNCTIONS, type TransformSession } from './request-transform.ts';

/** The wire JSON of a `response_transform`. */
export interface ResponseTransformDefinition {
  readonly version?: 1 | 2;
  readonly template_engine?: 'Kriti';
  readonly body?: string | { readonly action: 'transform'; readonly template: string } | { readonly action: 'remove' } | null;
}

/** A response transform ready to apply. */
export interface CompiledResponseTransform {
  readonly definition: ResponseTransformDefinition;
  readonly body:
    { readonly kind: 'keep' } | { readonly kind: 'remove' } | { readonly kind: 'transform'; readonly template: KritiTemplate; readonly path: string };
}

/** What the response template may read of the request that was sent. */
export interface ResponseTransformContext {
  readonly requestBody: Json | undefined;
  readonly queryParams: ReadonlyArray<readonly [string, string]>;
  readonly session: TransformSession;
  readonly status: number;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function shapeError(path: string, message: string): EngineError {
  return new EngineError(ErrorCode.ValidationFailed, message, { path, status: 400 });
}

function parseAt(source: unknown, path: string): KritiTemplate {
  if (typeof source !== 'string') throw shapeError(path, 'the body template must be a string (a Kriti template)');
  try {
    const template = parseTemplate(source);
    const unknown = unknownFunction(template, TRANSFORM_FUNCTIONS);
    if (unknown !== null) throw unknown;
    return template;
  } catch (e) {
    if (e instanceof KritiError) throw templateError(e, 'response_transform body', path);
    throw e;
  }
}

/** Checks a `response_transform` and parses its template; errors as {@link compileRequestTransform}. */
export function compileResponseTransform(raw: unknown, path: string): CompiledResponseTransform {
  if (!isRecord(raw)) throw shapeError(path, 'response_transform must be an object');
  for (const k of Object.keys(raw)) {
    if (!['version', 'template_engine', 'body'].includes(k)) throw shapeError(`${path}.${k}`, `unknown key "${k}" in response_transform`);
  }
  const version = raw['version'] ?? 1;
  if (version !== 1 && version !== 2) throw shapeError(`${path}.version`, 'response_transform version must be 1 or 2');
  const engine = raw['template_engine'] ?? 'Kriti';
  if (engine !== 'Kriti') throw shapeError(`${path}.template_engine`, `unknown template engine ${JSON.stringify(engine)}; only "Kriti" is supported`);
  const b = raw['body'];
  const definition = raw as ResponseTransformDefinition;
  if (b === undefined || b === null) return { definition, body: { kind: 'keep' } };
  if (typeof b === 'string') return { definition, body: { kind: 'transform', template: parseAt(b, `${path}.body`), path: `${path}.body` } };
  if (!isRecord(b)) throw shapeError(`${path}.body`, 'body must be a template string or an object with an "action"');
  if (b['action'] === 'remove') return { definition, body: { kind: 'remove' } };
  if (b['action'] === 'transform') {
    return { definition, body: { kind: 'transform', template: parseAt(b['template'], `${path}.body.template`), path: `${path}.body.template` } };
  }
  throw shapeError(`${path}.body.action`, 'body.action must be "transform" or "remove"');
}

/**
 * The response body after the transform: the template's value, null for
 * `remove`, the body unchanged without a transform. A template that fails to
 * evaluate throws a `validation-failed` EngineError naming its position.
 */
export function applyResponseTransform(t: CompiledResponseTransform | null, body: Json, ctx: ResponseTransformContext): Json {
  if (t === null || t.body.kind === 'keep') return body;
  if (t.body.kind === 'remove') return null;
  const session = ctx.session === null ? null : { ...ctx.session };
  const bindings: Record<string, Json> = {
    $body: body,
    $request: { body: ctx.requestBody ?? null, session_variables: session, query_params: Object.fromEntries(ctx.queryParams) },
    $session_variables: session,
    $response: { status: ctx.status },
  };
  try {
    return evaluate(t.body.template, bindings, transformFunctions(ctx.session));
  } catch (e) {
    if (e instanceof KritiError) throw templateError(e, 'response_transform body', t.body.path);
    throw e;
  }
}
