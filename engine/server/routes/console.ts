/**
 * `/console`: the web console's page and assets (engine/console/), served
 * when ENGINE_GRAPHQL_ENABLE_CONSOLE is true. Static files only: the console
 * talks to the engine through the public APIs like any other client.
 *
 * Note [Console under a path prefix]
 * `/console` redirects to `console/` — a relative Location, so behind a proxy
 * that serves the engine under `/some/prefix/` the browser lands on
 * `/some/prefix/console/`. From there every URL of the page is relative
 * (assets, and `../v1/graphql` for the APIs). The page's Content-Security-Policy
 * allows only this origin (plus inline styles and data: fonts, which Monaco
 * and GraphiQL use), so a console that tried to load anything from elsewhere
 * would fail in the browser tests instead of quietly needing the internet.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppDeps } from '../deps.ts';
import type { ConsoleAssets, ConsoleFile } from '../../console/assets.ts';

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'self'",
].join('; ');

function pick(file: ConsoleFile, acceptEncoding: string | undefined): { body: Buffer; coding: 'br' | 'gzip' | null } {
  const accepted = (acceptEncoding ?? '').toLowerCase();
  if (file.br !== null && /\bbr\b/.test(accepted)) return { body: file.br, coding: 'br' };
  if (file.gzip !== null && /\bgzip\b/.test(accepted)) return { body: file.gzip, coding: 'gzip' };
  return { body: file.body, coding: null };
}

function sendFile(request: FastifyRequest, reply: FastifyReply, file: ConsoleFile): FastifyReply {
  void reply.header('cache-control', file.cacheControl).header('etag', file.etag).header('vary', 'accept-encoding').header('x-content-type-options', 'nosniff');
  if (file.contentType.startsWith('text/html')) void reply.header('content-security-policy', CSP).header('referrer-policy', 'no-referrer');
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  const { body, coding } = pick(file, request.headers['accept-encoding']);
  if (coding !== null) void reply.header('content-encoding', coding);
  return reply.code(200).type(file.contentType).send(body);
}

/** Registers the console routes; `assets` comes from engine/console/assets.ts. */
export async function registerConsoleRoutes(app: FastifyInstance, opts: { deps: AppDeps; assets: ConsoleAssets }): Promise<void> {
  const { assets } = opts;
  const index = assets.get('')!;
  // v2 sends the root to the console when it is enabled.
  app.get('/', async (_request, reply) => reply.code(302).header('location', 'console/').header('cache-control', 'no-cache').send());
  app.get('/console', async (_request, reply) => reply.code(302).header('location', 'console/').header('cache-control', 'no-cache').send());
  app.get('/console/', async (request, reply) => sendFile(request, reply, index));
  app.get<{ Params: { file: string } }>('/console/assets/:file', async (request, reply) => {
    const file = assets.get(`assets/${request.params.file}`);
    if (file === undefined) return reply.callNotFound();
    return sendFile(request, reply, file);
  });
}
