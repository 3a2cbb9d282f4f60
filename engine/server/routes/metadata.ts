/**
 * `/v1/metadata`, `/v1/query` and `/v2/query`: admin-only JSON APIs, but for the v1 data
 * operations of the query APIs, which run with the request's role.
 */
import type { FastifyInstance } from 'fastify';
import type { ApiFamily } from '../../api/contract.ts';
import type { AppDeps } from '../deps.ts';
import { contextOf } from '../request-envelope.ts';
import type { RequestFailure } from '../../request-context.ts';
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
      const ctx = contextOf(request.raw);
      try {
        requireJsonContentType(request.headers['content-type']);
        const parsed = tryParseJsonBody(request.body);
        const session = await authenticate(deps, request, reply, parsed);
        isAdmin = session.isAdmin;
        ctx.session = session;
        // v1 data operations run with the request's role (Note [Legacy DML]); everything else is admin-only.
        const data = family === 'metadata' || parsed === undefined ? null : await deps.graphql.legacyQuery(session, parsed, ctx);
        if (data !== null) {
          if (data.status >= 400 && 'json' in data) ctx.failure = failureOf(data.json);
          if (ctx.trace !== null) ctx.operation = operationOf(parsed, ctx.failure);
          return sendApiResponse(reply, data);
        }
        requireAdmin(session, '$.args');
        const body = parseJsonBody(request.body);
        assertMetadataBody(body);
        const res = await deps.metadata.handle(family, body, session);
        if (res.status >= 400 && 'json' in res) ctx.failure = failureOf(res.json);
        if (ctx.trace !== null) ctx.operation = operationOf(body, ctx.failure);
        return sendApiResponse(reply, res);
      } catch (e) {
        const err = toEngineError(e);
        ctx.failure = err;
        if (err.status >= 500) deps.logger.error('metadata request failed', { request_id: ctx.requestId, url, error: err });
        return sendApiResponse(reply, { status: err.status, json: apiErrorBody(err, isAdmin) });
      }
    });
  }
}

/**
 * The operation type of a body the API accepted as one, for the request
 * span's name; null when the type itself was refused (an unknown name is a
 * user's text: Note [Span names and routes] in observability/tracing.ts).
 */
function operationOf(body: unknown, failure: RequestFailure | null): string | null {
  if (failure !== null && failure.path === '$.type') return null;
  const type = typeof body === 'object' && body !== null ? (body as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? type : null;
}

/** The `{code, error, path}` of a v2 error body, for the http-log. */
function failureOf(json: unknown): RequestFailure | null {
  if (typeof json !== 'object' || json === null) return null;
  const { code, error, path } = json as Record<string, unknown>;
  return typeof code === 'string' && typeof error === 'string' ? { code, message: error, path: typeof path === 'string' ? path : undefined } : null;
}
