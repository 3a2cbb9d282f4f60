/**
 * `/v1/graphql` and `/v1/graphql/explain`.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { authenticate } from '../authenticate.ts';
import { parseJsonBody, tryParseJsonBody } from '../body.ts';
import { apiErrorBody, graphqlErrorBody, toEngineError } from '../error-response.ts';
import { sendApiResponse } from '../reply.ts';

/** Registers the GraphQL routes. */
export async function registerGraphqlRoutes(app: FastifyInstance, opts: { deps: AppDeps }): Promise<void> {
  const { deps } = opts;

  app.post('/v1/graphql', async (request, reply) => {
    let isAdmin = false;
    try {
      const parsed = tryParseJsonBody(request.body);
      const session = await authenticate(deps, request, reply, parsed);
      isAdmin = session.isAdmin;
      const body = parsed === undefined ? parseJsonBody(request.body) : parsed;
      return sendApiResponse(reply, await deps.graphql.execute(session, body));
    } catch (e) {
      const err = toEngineError(e);
      if (err.status >= 500) deps.logger.error('graphql request failed', { error: String(err.internal ?? err.message) });
      // Auth and body failures keep their HTTP status; query errors are answered by execute() with 200.
      return sendApiResponse(reply, { status: err.status, json: graphqlErrorBody(err, isAdmin) });
    }
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
