/**
 * The authentication step of every route: resolve the session and pass on
 * cookies the auth webhook set.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Session } from '../auth/session.ts';
import type { AppDeps } from './deps.ts';

/** Resolves the request's session; `body` is its parsed JSON (undefined when not JSON). */
export async function authenticate(deps: AppDeps, request: FastifyRequest, reply: FastifyReply, body: unknown): Promise<Session> {
  const result = await deps.auth.resolve(request.headers, body);
  if (result.setCookies.length > 0) void reply.header('set-cookie', [...result.setCookies]);
  return result.session;
}
