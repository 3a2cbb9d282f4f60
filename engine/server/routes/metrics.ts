/**
 * `GET /v1/metrics`: Prometheus text exposition (observability/metrics.ts).
 *
 * Note [Metrics secret]
 * v2 EE guards the endpoint with its own secret (HASURA_GRAPHQL_METRICS_SECRET,
 * sent as `Authorization: Bearer <secret>`), which Prometheus sends with
 * `authorization: {credentials: …}` in its scrape config; so does the engine
 * with ENGINE_GRAPHQL_METRICS_SECRET. Without one, the admin secret guards it
 * when set (`X-Engine-Admin-Secret`, or as the bearer token), since the
 * metrics tell a stranger about traffic and metadata; with neither, the
 * endpoint is open, as every other endpoint is then. A refusal is 401
 * `access-denied` in v2's `{path, error, code}` shape.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppDeps } from '../deps.ts';
import { isAdminSecretValid } from '../../auth/admin-secret.ts';
import { Header, withV2Aliases } from '../../auth/headers.ts';
import { ErrorCode } from '../../errors/codes.ts';
import { EngineError } from '../../errors/engine-error.ts';
import { apiErrorBody } from '../../errors/wire-body.ts';
import { codingFor, compress } from '../compression.ts';

function bearer(request: FastifyRequest): string | null {
  const auth = request.headers.authorization;
  const m = typeof auth === 'string' ? /^Bearer\s+(.+)$/i.exec(auth) : null;
  return m === null ? null : (m[1] as string).trim();
}

/** Whether the request may read the metrics (Note [Metrics secret]). */
function allowed(deps: AppDeps, request: FastifyRequest): boolean {
  const { metricsSecret, adminSecret } = deps.settings;
  if (metricsSecret !== null) {
    const token = bearer(request);
    return token !== null && isAdminSecretValid(metricsSecret, token);
  }
  if (adminSecret !== null) {
    // v2's X-Hasura-Admin-Secret too (Note [v2 session names]).
    const header = withV2Aliases(request.headers)[Header.AdminSecret];
    const presented = typeof header === 'string' ? header : bearer(request);
    return presented !== null && isAdminSecretValid(adminSecret, presented);
  }
  return true;
}

/** Registers GET /v1/metrics (when the engine has metrics: deps.metrics). */
export async function registerMetricsRoutes(app: FastifyInstance, opts: { deps: AppDeps }): Promise<void> {
  const { deps } = opts;
  const metrics = deps.metrics;
  if (metrics === undefined) return;
  app.get('/v1/metrics', async (request, reply) => {
    if (!allowed(deps, request)) {
      const how = deps.settings.metricsSecret !== null ? 'send "Authorization: Bearer <metrics secret>"' : 'send the admin secret';
      const err = new EngineError(ErrorCode.AccessDenied, `invalid metrics secret: ${how}`, { path: '$', status: 401 });
      return reply
        .code(401)
        .type('application/json; charset=utf-8')
        .send(JSON.stringify(apiErrorBody(err, false)));
    }
    const text = await metrics.text();
    // Compressed when asked (Note [Response compression]): a scrape with per-trigger series runs to tens of KB.
    void reply.header('vary', 'accept-encoding');
    const coding = codingFor(request.headers['accept-encoding'], text.length);
    if (coding === null) return reply.type(metrics.contentType).send(text);
    return reply
      .type(metrics.contentType)
      .header('content-encoding', coding)
      .send(await compress(text, coding));
  });
}
