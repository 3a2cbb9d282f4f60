/**
 * The authentication step of every route: refuse cookie credentials a page
 * of another site could have sent (Note [Cookie credentials] in
 * cookie-guard.ts), resolve the session and pass on cookies the auth
 * webhook set.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Session } from '../auth/session.ts';
import type { AppDeps } from './deps.ts';
import { guardCookieRequest } from './cookie-guard.ts';

/** Resolves the request's session; `body` is its parsed JSON (undefined when not JSON). */
export async function authenticate(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, body: unknown): Promise<Session> {
  guardCookieRequest(deps, request.method, request.headers);
  const result = await deps.auth.resolve(request.headers, body);
  if (result.setCookies.length > 0) void reply.header('set-cookie', [...result.setCookies]);
  return result.session;
}
