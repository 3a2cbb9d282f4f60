/**
 * `/v1/graphql`, `/v1alpha1/graphql`, `/v1beta1/relay` and `/v1/graphql/explain`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../deps.ts';
import { authenticate } from '../authenticate.ts';
import { parseJsonBody, tryParseJsonBody } from '../body.ts';
import { apiErrorBody, toEngineError } from '../../errors/wire-body.ts';
import { codingFor, compress } from '../compression.ts';
import { answerGraphql, type GraphqlAnswer } from '../graphql-answer.ts';
import { VARY } from '../graphql-fast-path.ts';
import { requireJsonContentType } from '../media-type.ts';
import { bodyBytes, sendApiResponse } from '../reply.ts';
import type { RequestContext } from '../../request-context.ts';
import { contextOf } from '../request-envelope.ts';
import { requireAdmin } from '../../auth/require-admin.ts';

/** Registers the GraphQL routes. */
export async function registerGraphqlRoutes(app: FastifyInstance, opts: { deps: AppDeps }): Promise<void> {
  const { deps } = opts;

  // Plain `POST /v1/graphql` and `GET /v1/graphql?…` take the fast path before fastify (Note [GraphQL
  // fast path]); these routes answer the rest (a POST with a query string, inject in tests) the same way.
  const send = async (request: FastifyRequest, reply: FastifyReply, a: GraphqlAnswer): Promise<FastifyReply> => {
    if (a.setCookies.length > 0) void reply.header('set-cookie', [...a.setCookies]);
    void reply.header('vary', VARY);
    const coding = codingFor(request.headers['accept-encoding'], a.body.length);
    const text = bodyBytes(a.body, a.encoding);
    const body = coding === null ? text : await compress(text, coding);
    if (coding !== null) void reply.header('content-encoding', coding);
    return reply.code(a.status).type(a.contentType).send(body);
  };
  // A client that leaves before its answer cancels the request's SQL (Note [Cancel on disconnect]).
  const cancellable = (request: FastifyRequest, reply: FastifyReply): RequestContext => {
    const ctx = contextOf(request.raw);
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) ctx.cancel();
    });
    return ctx;
  };
  app.post('/v1/graphql', async (request, reply) =>
    send(request, reply, await answerGraphql(deps, { method: 'POST', headers: request.headers, payload: request.body }, cancellable(request, reply))),
  );
  app.get('/v1/graphql', async (request, reply) => {
    const q = request.url.indexOf('?');
    return send(
      request,
      reply,
      await answerGraphql(deps, { method: 'GET', headers: request.headers, payload: q === -1 ? '' : request.url.slice(q + 1) }, cancellable(request, reply)),
    );
  });

  // v2 compat: the older endpoint, the same API with errors answered with their HTTP status (400, 500…).
  app.post('/v1alpha1/graphql', async (request, reply) =>
    send(
      request,
      reply,
      await answerGraphql(deps, { method: 'POST', headers: request.headers, payload: request.body, errorStatus: true }, cancellable(request, reply)),
    ),
  );

  // v2 compat: the Relay API (Note [Relay schema] in graphql/schema/relay-types.ts).
  app.post('/v1beta1/relay', async (request, reply) =>
    send(
      request,
      reply,
      await answerGraphql(deps, { method: 'POST', headers: request.headers, payload: request.body, relay: true }, cancellable(request, reply)),
    ),
  );
  app.get('/v1beta1/relay', async (request, reply) => {
    const q = request.url.indexOf('?');
    return send(
      request,
      reply,
      await answerGraphql(
        deps,
        { method: 'GET', headers: request.headers, payload: q === -1 ? '' : request.url.slice(q + 1), relay: true },
        cancellable(request, reply),
      ),
    );
  });

  app.post('/v1/graphql/explain', async (request, reply) => {
    let isAdmin = false;
    try {
      requireJsonContentType(request.headers['content-type']);
      const session = await authenticate(deps, request, reply, tryParseJsonBody(request.body));
      isAdmin = session.isAdmin;
      requireAdmin(session);
      return sendApiResponse(reply, await deps.graphql.explain(parseJsonBody(request.body)));
    } catch (e) {
      const err = toEngineError(e);
      return sendApiResponse(reply, { status: err.status, json: apiErrorBody(err, isAdmin) });
    }
  });
}
