/**
 * `POST /v1alpha1/pg_dump`: a postgres source's `pg_dump` as SQL text (v2's
 * Hasura.Server.App v1Alpha1PGDumpHandler), for admins only; the body is v2's
 * `{source?, opts, clean_output?}`. The answer is `application/sql`; errors are
 * v2's JSON bodies. The work is the metadata service's and the backend's
 * (Note [pg_dump arguments] in backends/postgres/pg-dump.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { apiErrorBody, toEngineError } from '../../errors/wire-body.ts';
import { authenticate } from '../authenticate.ts';
import { parseJsonBody, tryParseJsonBody } from '../body.ts';
import { requireJsonContentType } from '../media-type.ts';
import { contextOf } from '../request-envelope.ts';
import { sendApiResponse } from '../reply.ts';

/** Registers POST /v1alpha1/pg_dump. */
export async function registerPgDumpRoutes(app: FastifyInstance, opts: { deps: AppDeps }): Promise<void> {
  const { deps } = opts;
  app.post('/v1alpha1/pg_dump', async (request, reply) => {
    let isAdmin = false;
    const ctx = contextOf(request.raw);
    try {
      requireJsonContentType(request.headers['content-type']);
      const session = await authenticate(deps, request, reply, tryParseJsonBody(request.body));
      ctx.session = session;
      isAdmin = session.isAdmin;
      if (!isAdmin) throw new EngineError(ErrorCode.AccessDenied, 'You have to be an admin to access this endpoint', { path: '$', status: 400 });
      const dump = deps.metadata.dumpSource;
      if (dump === undefined) throw new EngineError(ErrorCode.NotFound, 'resource does not exist', { path: '$', status: 404 });
      const sql = await dump.call(deps.metadata, parseJsonBody(request.body));
      return reply.code(200).type('application/sql; charset=utf-8').send(sql);
    } catch (e) {
      const err = toEngineError(e);
      ctx.failure = err;
      if (err.status >= 500) deps.logger.error('pg_dump request failed', { request_id: ctx.requestId, error: err });
      return sendApiResponse(reply, { status: err.status, json: apiErrorBody(err, isAdmin) });
    }
  });
}
