/**
 * `/v1/metadata`, `/v1/query` and `/v2/query`: admin-only JSON APIs.
 */
import type { FastifyInstance } from 'fastify';
import type { ApiFamily } from '../../api/contract.ts';
import type { AppDeps } from '../deps.ts';
import { errorDetails } from '../../errors/engine-error.ts';
import { assertMetadataBody } from '../metadata-body.ts';
import { authenticate } from '../authenticate.ts';
import { parseJsonBody, tryParseJsonBody } from '../body.ts';
import { apiErrorBody, toEngineError } from '../../errors/wire-body.ts';
import { requireJsonContentType } from '../media-type.ts';
import { sendApiResponse } from '../reply.ts';
import { requireAdmin } from '../../auth/require-admin.ts';

const ROUTES: ReadonlyArray<readonly [string, ApiFamily]> = [
  ['/v1/metadata', 'metadata'],
  ['/v1/query', 'query-v1'],
  ['/v2/query', 'query-v2'],
];

/** Registers the metadata and query API routes. */
export async function registerMetadataRoutes(app: FastifyInstance, opts: { deps: AppDeps }): Promise<void> {
  const { deps } = opts;
  for (const [url, family] of ROUTES) {
    app.post(url, async (request, reply) => {
      let isAdmin = false;
      try {
        requireJsonContentType(request.headers['content-type']);
        const session = await authenticate(deps, request, reply, tryParseJsonBody(request.body));
        isAdmin = session.isAdmin;
        requireAdmin(session);
        const body = parseJsonBody(request.body);
        assertMetadataBody(body);
        return sendApiResponse(reply, await deps.metadata.handle(family, body, session));
      } catch (e) {
        const err = toEngineError(e);
        if (err.status >= 500) deps.logger.error('metadata request failed', { url, error: errorDetails(err) });
        return sendApiResponse(reply, { status: err.status, json: apiErrorBody(err, isAdmin) });
      }
    });
  }
}
