/**
 * `/healthz` and `/v1/version`. v2 compat: inconsistent metadata still
 * answers 200, with a warning body.
 */
import type { FastifyInstance } from 'fastify';
import type { AppDeps } from '../deps.ts';
import { ENGINE_VERSION } from '../../version.ts';

/** Registers the health and version routes. */
export async function registerHealthRoutes(app: FastifyInstance, opts: { deps: AppDeps }): Promise<void> {
  const { deps } = opts;
  app.get('/healthz', async (_request, reply) => {
    reply.type('text/plain; charset=utf-8');
    return deps.metadata.isConsistent() ? 'OK' : 'WARN: inconsistent objects in schema';
  });
  app.get('/v1/version', async () => ({ version: ENGINE_VERSION }));
}
