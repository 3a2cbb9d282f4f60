/**
 * buildApp(deps): the fastify application. The only importer of fastify.
 * Each route family is an encapsulated plugin under routes/.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { AppDeps } from './deps.ts';
import { registerGraphqlRoutes } from './routes/graphql.ts';
import { registerMetadataRoutes } from './routes/metadata.ts';
import { registerHealthRoutes } from './routes/health.ts';
import { registerRestRoutes } from './routes/rest.ts';
import { registerBodyParser } from './body.ts';
import { registerCors } from './cors.ts';
import { corsPolicyOf } from './cookie-guard.ts';
import { graphqlFastPath } from './graphql-fast-path.ts';
import { registerNotFound } from './not-found.ts';
import { contextOf, requestEnvelope, type FinishedRequest } from './request-envelope.ts';
import { registerMetricsRoutes } from './routes/metrics.ts';
import { registerConfigRoutes } from './routes/config.ts';
import { registerPgDumpRoutes } from './routes/pg-dump.ts';
import { attachWebSocket, type WebSocketEndpoint } from './ws/upgrade.ts';
import { registerConsoleRoutes } from './routes/console.ts';
import { loadConsoleAssets } from '../console/assets.ts';

const endpoints = new WeakMap<FastifyInstance, WebSocketEndpoint>();

/** The WebSocket endpoint of an app built by buildApp (open sockets: tests, metrics). */
export function webSocketsOf(app: FastifyInstance): WebSocketEndpoint | undefined {
  return endpoints.get(app);
}

/** Largest request body accepted (metadata documents can be big). */
const BODY_LIMIT = 64 * 1024 * 1024;

/** fastify's defaults for the servers it creates itself (we create ours: serverFactory). */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/**
 * Builds the HTTP app; call `listen` on it (or `inject` in tests, which
 * reaches the fastify routes only: see Note [GraphQL fast path]).
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  // Read before anything listens: an enabled but unbuilt console stops the start with how to build it.
  const consoleAssets = deps.settings.enableConsole ? loadConsoleAssets() : null;
  let closing = false;
  const cors = corsPolicyOf(deps.settings);
  const fastPath = graphqlFastPath({ deps, bodyLimit: BODY_LIMIT, cors, closing: () => closing });
  const app = Fastify({
    serverFactory: (handler: (req: IncomingMessage, res: ServerResponse) => void) => {
      const server = createServer(
        requestEnvelope({ logger: deps.logger, observers: observersOf(deps), tracer: deps.tracer ?? null }, (req, res) => {
          if (fastPath(req, res)) return;
          // The fast path writes X-Request-Id among its raw headers; fastify's answers carry it from here.
          res.setHeader('x-request-id', contextOf(req).requestId);
          handler(req, res);
        }),
      );
      server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
      return server;
    },
    // One logger, one line shape (Note [One logger]); the http-log replaces fastify's request lines.
    loggerInstance: deps.logger.pino as unknown as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // fastify's request id is the envelope's (Note [Request ids]).
    genReqId: (req) => contextOf(req).requestId,
    bodyLimit: BODY_LIMIT,
    // In-flight requests finish on close; idle keep-alive sockets are closed at once.
    forceCloseConnections: 'idle',
    return503OnClosing: true,
  });
  // GraphQL over WebSocket: upgrades of /v1/graphql (server/ws/).
  const sockets = attachWebSocket(app.server, deps, cors);
  // Runs when close() begins, before the server stops accepting: from then on fastify answers 503.
  app.addHook('preClose', (done) => {
    closing = true;
    sockets.close();
    done();
  });
  // Requests that did not come through the envelope (inject in tests) echo their id too.
  app.addHook('onRequest', (request, reply, done) => {
    if (!reply.raw.hasHeader('x-request-id')) void reply.header('x-request-id', request.id);
    // The route template (`/api/rest/*`), undefined when none matched: the request span's http.route.
    const route = request.routeOptions.url;
    if (route !== undefined) contextOf(request.raw).route = route;
    done();
  });
  endpoints.set(app, sockets);
  registerBodyParser(app);
  registerNotFound(app);
  await registerCors(app, cors);
  await app.register(registerHealthRoutes, { deps });
  await app.register(registerMetadataRoutes, { deps });
  await app.register(registerGraphqlRoutes, { deps });
  await app.register(registerMetricsRoutes, { deps });
  await app.register(registerConfigRoutes, { deps });
  await app.register(registerPgDumpRoutes, { deps });
  if (consoleAssets !== null) await app.register(registerConsoleRoutes, { deps, assets: consoleAssets });
  await app.register(registerRestRoutes, { deps });
  return app;
}

/** Who is told of each finished request: the given observers, and the metrics when there are any. */
function observersOf(deps: AppDeps): FinishedRequest[] {
  const out = [...(deps.observers ?? [])];
  const metrics = deps.metrics;
  if (metrics !== undefined) out.push((req, res, _ctx, seconds) => metrics.httpRequest(req.url, res.statusCode, seconds));
  return out;
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
