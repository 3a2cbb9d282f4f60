/**
 * buildApp(deps): the fastify application. The only importer of fastify.
 * Each route family is an encapsulated plugin under routes/.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { AppDeps } from './deps.ts';
import { registerGraphqlRoutes } from './routes/graphql.ts';
import { registerMetadataRoutes } from './routes/metadata.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerBodyParser } from './body.ts';
import { registerCors } from './cors.ts';

/** Largest request body accepted (metadata documents can be big). */
const BODY_LIMIT = 64 * 1024 * 1024;

/** Builds the HTTP app; call `listen` on it (or `inject` in tests). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: deps.settings.logLevel === 'debug' ? { level: 'debug' } : { level: deps.settings.logLevel === 'info' ? 'warn' : deps.settings.logLevel },
    bodyLimit: BODY_LIMIT,
    // In-flight requests finish on close; idle keep-alive sockets are closed at once.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
  });
  registerBodyParser(app);
  await registerCors(app, deps.settings.corsDomain);
  await app.register(registerHealthRoutes, { deps });
  await app.register(registerMetadataRoutes, { deps });
  await app.register(registerGraphqlRoutes, { deps });
  return app;
}

/**
 * Closes the app gracefully: no new requests, in-flight ones finish. Keep-alive
 * sockets that become idle after their last response would otherwise hold
 * `close()` open forever, so idle sockets are closed until it resolves.
 */
export async function closeApp(app: FastifyInstance): Promise<void> {
  const timer = setInterval(() => app.server.closeIdleConnections(), 50);
  try {
    await app.close();
  } finally {
    clearInterval(timer);
  }
}
