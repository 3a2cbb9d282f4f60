/**
 * Request → Session, the same for every endpoint. v2 compat (spec,
 * "Authentication"; v2's X-Hasura-* header names too, Note [v2 session names]
 * in headers.ts): without an admin secret every request is admin (and may
 * pick a role with X-Engine-Role); with one, the right X-Engine-Admin-Secret
 * wins outright, else JWT or the auth webhook decides, else the unauthorized
 * role serves requests without credentials, else 401 `access-denied`.
 */
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { Logger } from '../logger.ts';
import { isAdminSecretValid } from './admin-secret.ts';
import { AuthWebhook } from './auth-webhook.ts';
import { Header, presentsAdminSecret, withV2Aliases } from './headers.ts';
import type { JwtAuthenticator } from './jwt.ts';
import { parseJwtConfig } from './jwt-config.ts';
import { ADMIN_ROLE, ADMIN_SESSION, buildSession, type Session } from './session.ts';

/** Request headers as Node gives them (lower-cased names). */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** The authentication settings. */
export interface AuthSettings {
  readonly adminSecret: string | null;
  readonly jwtSecret: string | null;
  readonly authHook: string | null;
  readonly authHookMode: 'GET' | 'POST';
  readonly authHookTimeout: number;
  readonly unauthorizedRole: string | null;
}

/** The session of a request, plus cookies an auth webhook asked to set. */
export interface AuthResult {
  readonly session: Session;
  readonly setCookies: readonly string[];
}

function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** The `x-engine-*` headers of a request, as session variables; null when it has none. */
function sessionVariablesOf(headers: RequestHeaders): Record<string, string> | null {
  let vars: Record<string, string> | null = null;
  // for-in, not Object.entries: this runs on every request and headers are a plain object.
  for (const name in headers) {
    if (!name.startsWith(Header.SessionPrefix) || name === Header.AdminSecret) continue;
    const v = single(headers[name]);
    if (v !== undefined) (vars ??= {})[name] = v;
  }
  return vars;
}

/**
 * The session of a request trusted with the admin secret (or of any request
 * when none is configured): the role and variables its headers name, with
 * backend-only permissions when it asks for them (v2
 * `x-hasura-use-backend-only-permissions`).
 */
function fromHeaders(headers: RequestHeaders): Session {
  const vars = sessionVariablesOf(headers);
  // No session header at all (so not backend-only either, an x-engine-* header): the one admin session (issue 35:
  // building it cost an object of variables, their canonical copy and the session per request).
  if (vars === null) return ADMIN_SESSION;
  const backendOnly = single(headers[Header.UseBackendOnlyPermissions])?.trim().toLowerCase() === 'true';
  // The names are canonical already (lower-case header names, v2's read as ours by withV2Aliases), and `vars` is
  // this request's own object: the session takes it as it is, without buildSession's canonical copy (issue 35).
  const role = vars[Header.Role] ?? ADMIN_ROLE;
  vars[Header.Role] = role;
  return { role, isAdmin: role === ADMIN_ROLE, variables: vars, backendOnly };
}

const NO_COOKIES: readonly string[] = Object.freeze([]);
const ADMIN_RESULT: AuthResult = Object.freeze({ session: ADMIN_SESSION, setCookies: NO_COOKIES });

/** The result of a session that needed no I/O: no cookies to set. */
function resultOf(session: Session): AuthResult {
  return session === ADMIN_SESSION ? ADMIN_RESULT : { session, setCookies: NO_COOKIES };
}

function denied(message: string): EngineError {
  return new EngineError(ErrorCode.AccessDenied, message, { status: 401 });
}

/** Resolves sessions for every endpoint. */
export class Authenticator {
  readonly #adminSecret: string | null;
  readonly #jwt: JwtAuthenticator | null;
  readonly #webhook: AuthWebhook | null;
  readonly #unauthorizedRole: string | null;

  private constructor(adminSecret: string | null, jwt: JwtAuthenticator | null, webhook: AuthWebhook | null, unauthorizedRole: string | null) {
    this.#adminSecret = adminSecret;
    this.#jwt = jwt;
    this.#webhook = webhook;
    this.#unauthorizedRole = unauthorizedRole;
  }

  /** Validates the combination of settings and prepares JWT keys; refuses what cannot work. */
  static async create(settings: AuthSettings, logger: Logger): Promise<Authenticator> {
    const { adminSecret, jwtSecret, authHook } = settings;
    if ((jwtSecret !== null || authHook !== null) && adminSecret === null) {
      throw new EngineError(ErrorCode.InvalidConfiguration, 'JWT and webhook modes need an admin secret (ENGINE_GRAPHQL_ADMIN_SECRET)');
    }
    if (jwtSecret !== null && authHook !== null) {
      throw new EngineError(ErrorCode.InvalidConfiguration, 'JWT and webhook modes cannot both be set');
    }
    // jwt.ts (and jose) load only when JWT mode is on: one module graph fewer at every other start (issue 35).
    const jwtConfig = jwtSecret === null ? null : parseJwtConfig(jwtSecret);
    const jwt = jwtConfig === null ? null : await (await import('./jwt.ts')).JwtAuthenticator.create(jwtConfig, logger);
    const webhook = authHook === null ? null : new AuthWebhook(authHook, settings.authHookMode, logger, settings.authHookTimeout * 1000);
    return new Authenticator(adminSecret, jwt, webhook, settings.unauthorizedRole);
  }

  /**
   * The session of a request when it needs no I/O (no admin secret set, or the admin secret
   * presented), else undefined: `resolve` then. Throws as `resolve` rejects. The GraphQL
   * request path calls this first, sparing an async call per request (issue 35).
   */
  resolveAtOnce(headers: RequestHeaders): AuthResult | undefined {
    if (this.#adminSecret !== null && !presentsAdminSecret(headers)) return undefined;
    const h = withV2Aliases(headers);
    if (this.#adminSecret === null) return resultOf(fromHeaders(h));
    const presented = single(h[Header.AdminSecret]);
    if (presented === undefined) return undefined;
    if (!isAdminSecretValid(this.#adminSecret, presented)) throw denied('invalid x-engine-admin-secret');
    return resultOf(fromHeaders(h));
  }

  /** The session of a request; `body` is its parsed JSON body (undefined when not JSON), for POST webhooks. */
  async resolve(headers: RequestHeaders, body: unknown): Promise<AuthResult> {
    // No admin secret set, or one presented: no I/O.
    const atOnce = this.resolveAtOnce(headers);
    if (atOnce !== undefined) return atOnce;
    // v2's X-Hasura-* spellings count as X-Engine-* from here on, for HTTP and WebSocket alike (Note [v2 session names]).
    const h = withV2Aliases(headers);
    if (this.#jwt !== null) {
      const token = this.#jwt.tokenOf(h);
      if (token === null) {
        if (this.#unauthorizedRole !== null) return { session: buildSession(this.#unauthorizedRole, {}), setCookies: [] };
        throw denied("Missing 'Authorization' or 'Cookie' header in JWT authentication mode");
      }
      return { session: await this.#jwt.session(token, single(h[Header.Role])), setCookies: [] };
    }
    // The webhook sees the client's headers as sent (a v2 webhook reads its own names).
    if (this.#webhook !== null) return await this.#webhook.resolve(headers, body);
    if (this.#unauthorizedRole !== null) return { session: buildSession(this.#unauthorizedRole, {}), setCookies: [] };
    throw denied('x-engine-admin-secret required, but not found');
  }

  /**
   * True when `resolve` would take the request's credentials from a cookie, which a browser
   * attaches by itself, cross-site too (Note [Cookie credentials] in server/cookie-guard.ts):
   * no admin secret presented, and JWT mode reading a cookie the request carries, or the webhook
   * (shown the client's headers) and a Cookie header.
   */
  usesCookieCredentials(headers: RequestHeaders): boolean {
    if (this.#adminSecret === null) return false;
    // Every spelling of the admin secret resolveAtOnce accepts (v2's deprecated x-hasura-access-key too): such a request is not cookie-authenticated.
    if (headers['cookie'] === undefined || presentsAdminSecret(headers)) return false;
    if (this.#jwt !== null) {
      if (!this.#jwt.readsCookie) return false;
      try {
        return this.#jwt.tokenOf(headers) !== null;
      } catch {
        return true;
      }
    }
    return this.#webhook !== null;
  }
}
