/**
 * The `allow` request step (Note [Request steps]): whether this request may
 * run at all, apart from what its operation says. It runs on every request,
 * cache hit or not, and costs nothing for a role without API limits.
 * - the request: its role's batch limit, then its rate limit, which counts
 *   each operation of a batch (Note [API limits]);
 * - the operation: a mutation sent with GET is refused with 405 (GraphQL
 *   over HTTP), for the whole request.
 * - the document: with the allow-list enabled, a non-admin role runs only
 *   documents an allow-listed collection grants it (Note [Allow-list
 *   matching] in catalog/normalize-document.ts). Checked on a plan-cache miss
 *   only, right after `parse` and before `validate` (v2's order: a query
 *   that is not allowed is refused whatever it asks for); a plan-cache entry
 *   exists only for a document that passed, under a key that holds the role
 *   and the catalog version, so a hit has been allowed already and pays
 *   nothing for the check.
 * The size bounds of an operation (fields, depth, nodes) belong to `validate`
 * (validate.ts): they are checked once, on a plan-cache miss.
 */
import type { DocumentNode, OperationTypeNode } from 'graphql';
import type { Session } from '../auth/session.ts';
import type { QueryCollectionsInfo } from '../catalog/types.ts';
import { allowlistKey } from '../catalog/normalize-document.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { limitExceeded, rateLimitExceeded, type RateLimiter, type RoleLimits } from './api-limits.ts';

/** GraphQL over HTTP: GET must not change anything, so a mutation there is 405 (the whole request). */
export const MUTATION_OVER_GET = new EngineError(ErrorCode.MethodNotAllowed, 'mutations cannot be sent with GET; use POST', { path: '$', status: 405 });

/**
 * The request half of `allow`: a refusal (rate or batch limit) or null.
 * `clientAddress` keys rate limits by IP; `batchSize` is null for a single operation.
 */
export function allowRequest(
  session: Session,
  limits: RoleLimits,
  rates: RateLimiter,
  clientAddress: string | undefined,
  batchSize: number | null,
): EngineError | null {
  // The batch limit first: a refused batch runs nothing, so it uses none of the rate.
  if (batchSize !== null && limits.batch !== null && batchSize > limits.batch) return limitExceeded('batch', limits.batch);
  const rate = limits.rate;
  if (rate !== null) {
    let key = session.role;
    if (rate.by === 'ip') key += `\u0000${clientAddress ?? ''}`;
    else if (rate.by !== null) for (const name of rate.by) key += `\u0000${session.variables[name] ?? ''}`;
    // A batch counts its operations, all or none (Note [API limits]); an empty one is still a request.
    if (!rates.take(key, rate.max, Date.now(), Math.max(1, batchSize ?? 1))) return rateLimitExceeded(rate.max);
  }
  return null;
}

/** v2 compat: a subscription needs a WebSocket (server/ws/). */
export const SUBSCRIPTION_OVER_HTTP = new EngineError(ErrorCode.ValidationFailed, 'subscriptions are not supported over HTTP, use websockets instead', {
  path: '$',
});

/**
 * The operation half of `allow`: throws {@link MUTATION_OVER_GET} for a
 * mutation in a read-only (GET) request, {@link SUBSCRIPTION_OVER_HTTP} for a
 * subscription not sent over a WebSocket (`socket`).
 */
export function allowOperation(kind: OperationTypeNode, readOnly: boolean, socket = false): void {
  if (readOnly && kind === 'mutation') throw MUTATION_OVER_GET;
  if (kind === 'subscription' && !socket) throw SUBSCRIPTION_OVER_HTTP;
}

/** v2 compat: the error of a document the allow-list does not grant. */
export const QUERY_NOT_ALLOWED = new EngineError(ErrorCode.ValidationFailed, 'query is not allowed', { path: '$' });

/**
 * The document half of `allow`: throws {@link QUERY_NOT_ALLOWED} unless the
 * session is admin or an allow-listed collection grants `document` to its
 * role (globally or by a role scope; any one grant is enough).
 */
export function allowDocument(collections: QueryCollectionsInfo | undefined, session: Session, document: DocumentNode): void {
  if (session.isAdmin) return;
  const grant = collections?.allowlist.get(allowlistKey(document));
  if (grant === undefined || !(grant.global || grant.roles.has(session.role))) throw QUERY_NOT_ALLOWED;
}
