/**
 * The session of one request: the role and the session variables. v2 compat:
 * variable names are case-insensitive, so they are stored lower-cased
 * (shared/design/compat.md, "Names").
 */
export interface Session {
  readonly role: string;
  /** True for the admin role, which bypasses permissions. */
  readonly isAdmin: boolean;
  /** Session variables with lower-cased names (`x-engine-user-id`), role included. */
  readonly variables: Readonly<Record<string, string>>;
}

/** The name of the role that bypasses permissions. */
export const ADMIN_ROLE = 'admin';

/** Builds a session from a role and raw variables, lower-casing names. */
export function buildSession(role: string, variables: Readonly<Record<string, string>>): Session {
  const vars: Record<string, string> = {};
  for (const [k, v] of Object.entries(variables)) vars[k.toLowerCase()] = v;
  vars['x-engine-role'] = role;
  return { role, isAdmin: role === ADMIN_ROLE, variables: vars };
}

/** The admin session used when no admin secret is configured. */
export const ADMIN_SESSION: Session = buildSession(ADMIN_ROLE, {});
