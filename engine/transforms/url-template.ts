/**
 * v2's webhook URL templates: `{{ENV_VAR}}/path` (actions' `handler`, event
 * triggers' `webhook`), resolved from the environment. Not Kriti: only
 * `{{NAME}}` with an environment variable name is allowed.
 */
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';

const VAR = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** The names of the environment variables a URL template uses. */
export function urlTemplateVariables(template: string): string[] {
  return [...template.matchAll(VAR)].map((m) => m[1] as string);
}

/** The URL with each `{{VAR}}` replaced; an unset variable is a 400 naming it (`not-found`, as v2). */
export function resolveUrlTemplate(template: string, lookupEnv: (name: string) => string | undefined, path: string): string {
  return template.replace(VAR, (_m, name: string) => {
    const v = lookupEnv(name);
    if (v === undefined) throw new EngineError(ErrorCode.NotFound, `environment variable "${name}" is not set`, { path, status: 400 });
    return v;
  });
}
