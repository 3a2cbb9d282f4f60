/**
 * Header names, lower-cased as Node presents them. v2 compat: the product word
 * is `Engine` (shared/design/compat.md, "Names").
 */
export const Header = {
  AdminSecret: 'x-engine-admin-secret',
  Role: 'x-engine-role',
  SessionPrefix: 'x-engine-',
} as const;
