/**
 * `/api/rest/<url>` (REST endpoints from metadata) and `/api/swagger/json`
 * (their OpenAPI document, admin only). Plain requests to `/api/rest/` take
 * the fast path before fastify (Note [GraphQL fast path]); this route answers
 * the rest (inject in tests, a closing server) the same way, through
 * answerRest (rest-answer.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireAdmin } from '../../auth/require-admin.ts';
import { apiErrorBody, toEngineError } from '../../errors/wire-body.ts';
import { contextOf } from '../request-envelope.ts';
import { authenticate } from '../authenticate.ts';
import type { AppDeps } from '../deps.ts';
import { VARY } from '../graphql-fast-path.ts';
import { bodyBytes, sendApiResponse } from '../reply.ts';
import { answerRest, REST_PREFIX } from '../rest-answer.ts';

/** Registers the REST routes. */
export async function registerRestRoutes(app: FastifyInstance, opts: { deps: AppDeps }): Promise<void> {
  const { deps } = opts;
  const serve = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const ctx = contextOf(request.raw);
    // A client that leaves before its answer cancels the request's SQL (Note [Cancel on disconnect]).
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) ctx.cancel();
    });
    const payload = typeof request.body === 'string' ? request.body : '';
    const a = await answerRest(deps, request.method, request.url, request.headers, payload, ctx);
    if (a.setCookies.length > 0) void reply.header('set-cookie', [...a.setCookies]);
    for (const [k, v] of Object.entries(a.headers)) void reply.header(k, v);
    void reply.header('vary', VARY);
    return reply.code(a.status).type('application/json; charset=utf-8').send(bodyBytes(a.body, a.encoding));
  };
  app.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], url: `${REST_PREFIX}*`, handler: serve });

  app.get('/api/swagger/json', async (request, reply) => {
    let isAdmin = false;
    try {
      const session = await authenticate(deps, request, reply, undefined);
      isAdmin = session.isAdmin;
      requireAdmin(session);
      return sendApiResponse(reply, { status: 200, json: deps.rest.openapi() });
    } catch (e) {
      const err = toEngineError(e);
      return sendApiResponse(reply, { status: err.status, json: apiErrorBody(err, isAdmin) });
    }
  });
}
