/**
 * `/api/rest/<url>` (REST endpoints from metadata) and `/api/swagger/json`
 * (their OpenAPI document, admin only). The work is behind RestApi
 * (rest/rest-service.ts); here the request is authenticated and the body
 * read: empty, or JSON (`invalid-json` 400 otherwise).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RestResponse } from '../../api/contract.ts';
import { requireAdmin } from '../../auth/require-admin.ts';
import { errorDetails } from '../../errors/engine-error.ts';
import { apiErrorBody, toEngineError } from '../../errors/wire-body.ts';
import { RequestContext } from '../../request-context.ts';
import { authenticate } from '../authenticate.ts';
import { parseJsonBody } from '../body.ts';
import type { AppDeps } from '../deps.ts';
import { sendApiResponse } from '../reply.ts';

const PREFIX = '/api/rest/';

function send(reply: FastifyReply, res: RestResponse): FastifyReply {
  if (res.headers !== undefined) for (const [k, v] of Object.entries(res.headers)) void reply.header(k, v);
  return sendApiResponse(reply, res);
}

/** Registers the REST routes. */
export async function registerRestRoutes(app: FastifyInstance, opts: { deps: AppDeps }): Promise<void> {
  const { deps } = opts;
  const serve = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    let isAdmin = false;
    try {
      const raw = request.body;
      const body = typeof raw === 'string' && raw.trim().length > 0 ? parseJsonBody(raw) : undefined;
      const session = await authenticate(deps, request, reply, body);
      isAdmin = session.isAdmin;
      const q = request.url.indexOf('?');
      const path = (q === -1 ? request.url : request.url.slice(0, q)).slice(PREFIX.length);
      const ctx = new RequestContext(request.ip);
      // A client that leaves before its answer cancels the request's SQL (Note [Cancel on disconnect]).
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) ctx.cancel();
      });
      return send(reply, await deps.rest.handle({ method: request.method, path, query: q === -1 ? '' : request.url.slice(q + 1), body }, session, ctx));
    } catch (e) {
      const err = toEngineError(e);
      if (err.status >= 500) deps.logger.error('rest request failed', { error: errorDetails(err) });
      return sendApiResponse(reply, { status: err.status, json: apiErrorBody(err, isAdmin) });
    }
  };
  app.route({ method: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'], url: `${PREFIX}*`, handler: serve });

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
