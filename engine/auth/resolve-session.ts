/**
 * Request headers → Session. Issue #2 scope: admin secret only; JWT and the
 * auth webhook come with the authentication issue (TODO(#5)).
 */
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { isAdminSecretValid } from './admin-secret.ts';
import { Header } from './headers.ts';
import { ADMIN_ROLE, buildSession, type Session } from './session.ts';

/** What session resolution needs to know of the settings. */
export interface AuthConfig {
  readonly adminSecret: string | null;
}

/** Request headers as Node gives them (lower-cased names). */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** The `x-engine-*` headers of a request, as session variables. */
function sessionVariablesOf(headers: RequestHeaders): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const v = single(value);
    if (v === undefined || !name.startsWith(Header.SessionPrefix) || name === Header.AdminSecret) continue;
    vars[name] = v;
  }
  return vars;
}

/**
 * v2 compat: without an admin secret every request is admin, but may pick a
 * role with `X-Engine-Role` (then its `X-Engine-*` headers are the session).
 * With a secret, the right `X-Engine-Admin-Secret` is required; anything else
 * is 401 `access-denied`.
 */
export function resolveSession(config: AuthConfig, headers: RequestHeaders): Session {
  if (config.adminSecret !== null) {
    const presented = single(headers[Header.AdminSecret]);
    if (presented === undefined) {
      throw new EngineError(ErrorCode.AccessDenied, 'x-engine-admin-secret required, but not found', { status: 401 });
    }
    if (!isAdminSecretValid(config.adminSecret, presented)) {
      throw new EngineError(ErrorCode.AccessDenied, 'invalid x-engine-admin-secret', { status: 401 });
    }
  }
  const vars = sessionVariablesOf(headers);
  const role = vars[Header.Role] ?? ADMIN_ROLE;
  return buildSession(role, vars);
}
