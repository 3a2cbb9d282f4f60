/**
 * `/healthz`, `/readyz` and `/v1/version`. v2 compat: inconsistent metadata
 * still answers 200 on /healthz, with a warning body; /healthz is liveness
 * (the process serves) and never touches a database.
 *
 * Note [Readiness]
 * `/readyz` is the engine's own (v2 has none): 200 when the metadata database
 * and every open source answer a round trip within READY_TIMEOUT_MS, 503
 * otherwise, with the checks as JSON either way. A liveness probe that
 * touched the database would restart every engine during a database outage;
 * readiness only takes them out of the Service until it is back.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';
import { ENGINE_VERSION } from '../../version.ts';

/** How long each database may take to answer a readiness round trip. */
const READY_TIMEOUT_MS = 2_000;

/** Registers the health and version routes. */
export async function registerHealthRoutes(app: FastifyInstance, opts: { deps: AppDeps }): Promise<void> {
  const { deps } = opts;
  app.get('/healthz', async (_request, reply) => {
    reply.type('text/plain; charset=utf-8');
    return deps.metadata.isConsistent() ? 'OK' : 'WARN: inconsistent objects in schema';
  });
  app.get('/readyz', async (_request, reply) => {
    const r = await deps.metadata.readiness(READY_TIMEOUT_MS);
    return reply.code(r.ready ? 200 : 503).send({ status: r.ready ? 'ready' : 'not ready', checks: r.checks });
  });
  app.get('/v1/version', async () => ({ version: ENGINE_VERSION }));
}
