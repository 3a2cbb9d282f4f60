/**
 * Header names, lower-cased as Node presents them. v2 compat: the product word
 * is `Engine` (docs/compat.md, "Names").
 */
export const Header = {
  AdminSecret: 'x-engine-admin-secret',
  Role: 'x-engine-role',
  /** `true` (case-insensitive) on an admin-secret request: use backend_only mutation permissions. */
  UseBackendOnlyPermissions: 'x-engine-use-backend-only-permissions',
  SessionPrefix: 'x-engine-',
} as const;
