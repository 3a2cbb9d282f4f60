/**
 * The one admin check of the admin-only APIs (/v1/metadata, /v1/query,
 * /v2/query, /v1/graphql/explain).
 */
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { Session } from './session.ts';

/**
 * v2 compat: a non-admin session on an admin API is refused with 400 `access-denied`, at
 * `path`: `$.args` on /v1/metadata, /v1/query and /v2/query (v2's authorizeV1MetadataApi and
 * friends throw under `withPathK "args"`), `$` elsewhere.
 */
export function requireAdmin(session: Session, path = '$'): void {
  if (!session.isAdmin) {
    throw new EngineError(ErrorCode.AccessDenied, 'restricted access : admin only', { path, status: 400 });
  }
}
