/**
 * Header and session variable names, lower-cased as Node presents them. v2
 * compat: the product word is `Engine` (docs/compat.md, "Names"), and v2's
 * `X-Hasura-*` spellings are read as aliases (Note [v2 session names]).
 */
export const Header = {
  AdminSecret: 'x-engine-admin-secret',
  Role: 'x-engine-role',
  /** `true` (case-insensitive) on an admin-secret request: use backend_only mutation permissions. */
  UseBackendOnlyPermissions: 'x-engine-use-backend-only-permissions',
  SessionPrefix: 'x-engine-',
} as const;

/**
 * Note [v2 session names]
 * A v2 deployment's clients send `X-Hasura-Admin-Secret`, `X-Hasura-Role` and
 * `X-Hasura-*` session variables; its JWTs carry `x-hasura-allowed-roles`,
 * its auth webhook answers `X-Hasura-Role`, and its metadata's permissions
 * and presets name `X-Hasura-User-Id`. Ignoring those ran a v2 client's
 * request as admin (the role header unread) and compared a permission with
 * the literal text "X-Hasura-User-Id". So every session name is made
 * canonical in one place, here: lower-cased, with the `x-hasura-` prefix read
 * as `x-engine-` (v2's deprecated `x-hasura-access-key` as the admin secret).
 * When both spellings of one name are given, the `x-engine-` one wins. The
 * session then holds only `x-engine-*` names, which is what permissions,
 * presets, remote schemas and action handlers see.
 */
const V2_PREFIX = 'x-hasura-';
/** v2's deprecated name of the admin secret header. */
const V2_ACCESS_KEY = 'x-hasura-access-key';

/** The canonical (lower-case, `x-engine-`) spelling of a session variable or header name (Note [v2 session names]). */
export function canonicalSessionName(name: string): string {
  const lower = name.toLowerCase();
  if (!lower.startsWith(V2_PREFIX)) return lower;
  return lower === V2_ACCESS_KEY ? Header.AdminSecret : Header.SessionPrefix + lower.slice(V2_PREFIX.length);
}

/** Whether a permission or preset value names a session variable: `x-engine-*` or v2's `x-hasura-*`, any case. */
export function isSessionVariableName(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  const lower = v.slice(0, V2_PREFIX.length).toLowerCase();
  return lower.startsWith(Header.SessionPrefix) || lower === V2_PREFIX;
}

/** The session variable a permission or preset value names (canonical), or null when it is a plain value. */
export function sessionVariableOf(v: unknown): string | null {
  return isSessionVariableName(v) ? canonicalSessionName(v) : null;
}

/**
 * `record` with its names made canonical (Note [v2 session names]): names
 * lower-cased, `x-hasura-*` read as `x-engine-*`, the `x-engine-` spelling
 * winning when both are present, whatever their order.
 */
export function canonicalNames<T>(record: Readonly<Record<string, T>>): Record<string, T> {
  const out: Record<string, T> = {};
  const fromEngineSpelling = new Set<string>();
  // for-in, not Object.entries: this runs on every request and headers are a plain object.
  for (const name in record) {
    const value = record[name] as T;
    const lower = name.toLowerCase();
    const key = canonicalSessionName(lower);
    if (key === lower) {
      out[key] = value;
      fromEngineSpelling.add(key);
    } else if (fromEngineSpelling.has(key)) continue;
    // v2 too prefers x-hasura-admin-secret to its deprecated name.
    else if (lower === V2_ACCESS_KEY && key in out) continue;
    else out[key] = value;
  }
  return out;
}

/** Whether a request presents an admin secret under any of its names (the engine's, v2's, v2's deprecated one), without building the aliased headers. */
export function presentsAdminSecret(headers: Readonly<Record<string, unknown>>): boolean {
  return headers[Header.AdminSecret] !== undefined || headers[`${V2_PREFIX}admin-secret`] !== undefined || headers[V2_ACCESS_KEY] !== undefined;
}

/** Request headers with v2's names read as the engine's (Note [v2 session names]); the same object when it has none. */
export function withV2Aliases<T>(headers: Readonly<Record<string, T>>): Readonly<Record<string, T>> {
  for (const name in headers) if (name.toLowerCase().startsWith(V2_PREFIX)) return canonicalNames(headers);
  return headers;
}
