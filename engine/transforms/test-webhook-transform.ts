/**
 * `test_webhook_transform`: what a request transform makes of a sample
 * request, without sending it (v2 compat: `{body, headers, method,
 * webhook_url}`, headers as `[name, value]` pairs).
 */
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { Json } from './kriti/index.ts';
import { applyRequestTransform, compileRequestTransform, type TransformSession } from './request-transform.ts';
import { resolveUrlTemplate } from './url-template.ts';

/** The args of `test_webhook_transform`, schema-checked by the caller. */
export interface TestWebhookTransformArgs {
  readonly webhook_url: string | { readonly from_env: string };
  readonly body?: Json;
  readonly request_transform: unknown;
  readonly session_variables?: Readonly<Record<string, string>> | null;
  /** Header pairs or an object of the sample request (before the transform). */
  readonly headers?: ReadonlyArray<readonly [string, string]> | Readonly<Record<string, string>>;
  /** Values for `{{VAR}}` in the URL and `from_env`, used before the process environment. */
  readonly env?: Readonly<Record<string, string>>;
}

export interface TestWebhookTransformResult {
  /** The body as JSON when it is JSON, the text of a form, `""` when the transform removed it. */
  readonly body: Json | undefined;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly method: string;
  readonly webhook_url: string;
}

/**
 * Runs the transform on the sample. `lookupEnv` reads an environment variable
 * (the caller passes cli/env.ts's; transforms/ never reads the environment).
 * A template error is a `validation-failed` EngineError whose `internal`
 * names the position.
 */
export function testWebhookTransform(
  args: TestWebhookTransformArgs,
  path: string,
  lookupEnv: (name: string) => string | undefined,
): TestWebhookTransformResult {
  const env = (name: string): string | undefined => args.env?.[name] ?? lookupEnv(name);
  let url: string;
  if (typeof args.webhook_url === 'string') url = resolveUrlTemplate(args.webhook_url, env, `${path}.webhook_url`);
  else {
    const v = env(args.webhook_url.from_env);
    if (v === undefined) {
      throw new EngineError(ErrorCode.NotFound, `environment variable "${args.webhook_url.from_env}" is not set`, { path: `${path}.webhook_url`, status: 400 });
    }
    url = v;
  }
  const headers: Array<readonly [string, string]> = [['content-type', 'application/json']];
  const given = args.headers ?? [];
  for (const [k, v] of Array.isArray(given) ? given : Object.entries(given as Record<string, string>)) headers.push([k, v]);
  const session: TransformSession =
    args.session_variables === undefined || args.session_variables === null
      ? null
      : Object.fromEntries(Object.entries(args.session_variables).map(([k, v]) => [k.toLowerCase(), v]));
  let out;
  try {
    const t = compileRequestTransform(args.request_transform, `${path}.request_transform`);
    out = applyRequestTransform(t, { method: 'POST', url, headers, body: args.body ?? null }, session);
  } catch (e) {
    throw atArgs(e, path);
  }
  // v2's packTransformResult: header names case-folded, `content-type` first (v2's transforms
  // prepend it), and the body decoded from the bytes sent, so a removed body is "".
  const named = out.headers.map(([n, v]) => [n.toLowerCase(), v] as const);
  const ordered = [...named.filter(([n]) => n === 'content-type'), ...named.filter(([n]) => n !== 'content-type')];
  return { body: out.body === undefined ? '' : out.bodyValue, headers: ordered, method: out.method, webhook_url: out.url };
}

/**
 * v2 compat: a template that does not parse or evaluate is reported at the call's `$.args`
 * (v2's `throw400WithDetail ValidationFailed`, the Kriti errors in `internal`); a transform of
 * the wrong shape keeps the path of the bad key.
 */
function atArgs(e: unknown, path: string): unknown {
  if (!(e instanceof EngineError) || e.code !== ErrorCode.ValidationFailed || !Array.isArray(e.internal)) return e;
  return new EngineError(e.code, e.message, { path, status: e.status, internal: e.internal });
}
