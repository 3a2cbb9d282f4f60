import { canonicalNames } from './headers.ts';

/**
 * The session of one request: the role and the session variables. v2 compat:
 * variable names are case-insensitive, so they are stored lower-cased
 * (docs/compat.md, "Names").
 */
export interface Session {
  readonly role: string;
  /** True for the admin role, which bypasses permissions. */
  readonly isAdmin: boolean;
  /** Session variables with lower-cased names (`x-engine-user-id`), role included. */
  readonly variables: Readonly<Record<string, string>>;
  /**
   * True when the request may use `backend_only` insert/update/delete
   * permissions: authorized by the admin secret (or sent with none
   * configured) and carrying `X-Engine-Use-Backend-Only-Permissions: true`
   * (resolve-session.ts). Absent means false.
   */
  readonly backendOnly?: boolean;
  /**
   * When the credentials behind the session expire (ms since the epoch): a
   * JWT's `exp`, an auth webhook answer's `Expires`/`Cache-Control`. A
   * WebSocket is closed then (server/ws/). Absent: never.
   */
  readonly expiresAt?: number;
}

/** The name of the role that bypasses permissions. */
export const ADMIN_ROLE = 'admin';

/**
 * Builds a session from a role and raw variables, with canonical names
 * (lower-cased, v2's `x-hasura-*` read as `x-engine-*`: Note [v2 session
 * names]); `backendOnly` (default false) grants the role's backend-only
 * mutation permissions, see {@link Session.backendOnly}.
 */
export function buildSession(role: string, variables: Readonly<Record<string, string>>, backendOnly = false): Session {
  const vars = canonicalNames(variables);
  vars['x-engine-role'] = role;
  return { role, isAdmin: role === ADMIN_ROLE, variables: vars, backendOnly };
}

/**
 * What a session's schema, compiled permissions and cached plans are keyed
 * by: its role, set apart when it uses backend-only permissions (admin
 * bypasses permissions, so it never is). Role names are not empty, so the
 * backend key (starting with NUL) never equals a role's.
 */
export function roleViewKey(session: Session): string {
  return session.backendOnly === true && !session.isAdmin ? `\0backend\0${session.role}` : session.role;
}

/**
 * The session of an admin request that names no session variable (resolve-session.ts), one for
 * every such request; frozen, as it is shared.
 */
export const ADMIN_SESSION: Session = Object.freeze({ ...buildSession(ADMIN_ROLE, {}), variables: Object.freeze({ 'x-engine-role': ADMIN_ROLE }) });
