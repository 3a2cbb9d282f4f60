/**
 * `/v1/graphql` and `/v1/graphql/explain`.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { authenticate } from '../authenticate.ts';
import { parseJsonBody, tryParseJsonBody } from '../body.ts';
import { apiErrorBody, toEngineError } from '../error-response.ts';
import { answerGraphql } from '../graphql-answer.ts';
import { sendApiResponse } from '../reply.ts';

/** Registers the GraphQL routes. */
export async function registerGraphqlRoutes(app: FastifyInstance, opts: { deps: AppDeps }): Promise<void> {
  const { deps } = opts;

  // Plain `POST /v1/graphql` takes the fast path before fastify (Note [GraphQL fast path]); this
  // route answers the rest (a query string, inject in tests) the same way.
  app.post('/v1/graphql', async (request, reply) => {
    const a = await answerGraphql(deps, request.headers, request.body);
    if (a.setCookies.length > 0) void reply.header('set-cookie', [...a.setCookies]);
    return reply.code(a.status).type('application/json; charset=utf-8').send(a.body);
  });

  app.post('/v1/graphql/explain', async (request, reply) => {
    let isAdmin = false;
    try {
      const session = await authenticate(deps, request, reply, tryParseJsonBody(request.body));
      isAdmin = session.isAdmin;
      if (!session.isAdmin) {
        throw new EngineError(ErrorCode.AccessDenied, 'restricted access : admin only', { path: '$', status: 400 });
      }
      return sendApiResponse(reply, await deps.graphql.explain(parseJsonBody(request.body)));
    } catch (e) {
      const err = toEngineError(e);
      return sendApiResponse(reply, { status: err.status, json: apiErrorBody(err, isAdmin) });
    }
  });
}
