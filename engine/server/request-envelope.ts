/**
 * What every HTTP request gets before it is routed (fast path or fastify):
 * its RequestContext with the request id (echoed as `X-Request-Id`, Note
 * [Request ids] in request-context.ts), and once the response is written,
 * the `http-log` line and the request's observers (metrics).
 *
 * Note [Request envelope cost]
 * Per request this costs reading one header, a UUID when the client sent no
 * id (crypto.randomUUID draws from a cached entropy pool: about 0.1 µs), one
 * header set, and one 'finish' listener, which exists only when something
 * observes finished requests (the http-log is enabled at this level, or
 * metrics are served). The http-log is v2's default, at level `info`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.ts';
import { RequestContext, requestIdOf } from '../request-context.ts';

const CONTEXT = Symbol('engine.requestContext');
type WithContext = IncomingMessage & { [CONTEXT]?: RequestContext };

/** The context of `req`, made now if the envelope did not make one (fastify's inject in tests). */
export function contextOf(req: IncomingMessage): RequestContext {
  const r = req as WithContext;
  let ctx = r[CONTEXT];
  if (ctx === undefined) {
    ctx = new RequestContext(req.socket?.remoteAddress, requestIdOf(req.headers['x-request-id']));
    r[CONTEXT] = ctx;
  }
  return ctx;
}

/** Something told of every finished request (metrics). */
export type FinishedRequest = (req: IncomingMessage, res: ServerResponse, ctx: RequestContext, seconds: number) => void;

/** Handles a request (routing it somewhere). */
export type Dispatch = (req: IncomingMessage, res: ServerResponse) => void;

/** Wraps `dispatch` with the request context, the `X-Request-Id` header, the http-log and `observers`. */
export function requestEnvelope(logger: Logger, observers: readonly FinishedRequest[], dispatch: Dispatch): Dispatch {
  const httpLog = logger.enabled('http-log', 'info');
  const httpErrorLog = logger.enabled('http-log', 'error');
  const watching = httpErrorLog || observers.length > 0;
  return (req, res) => {
    const ctx = new RequestContext(req.socket.remoteAddress, requestIdOf(req.headers['x-request-id']));
    (req as WithContext)[CONTEXT] = ctx;
    res.setHeader('x-request-id', ctx.requestId);
    if (watching) {
      const start = performance.now();
      res.once('finish', () => {
        const seconds = (performance.now() - start) / 1000;
        for (const o of observers) o(req, res, ctx, seconds);
        const failed = res.statusCode >= 400 || ctx.failure !== null;
        if (failed ? httpErrorLog : httpLog) logHttp(logger, req, res, ctx, seconds, failed);
      });
    }
    dispatch(req, res);
  };
}

/** v2's http-log line. */
function logHttp(logger: Logger, req: IncomingMessage, res: ServerResponse, ctx: RequestContext, seconds: number, failed: boolean): void {
  const size = res.getHeader('content-length');
  const failure = ctx.failure;
  logger.log('http-log', failed ? 'error' : 'info', {
    request_id: ctx.requestId,
    operation: {
      request_id: ctx.requestId,
      query_execution_time: seconds,
      user_vars: ctx.session === null ? null : ctx.session.variables,
      response_size: typeof size === 'number' ? size : typeof size === 'string' ? Number(size) : null,
      error: failure === null ? null : { code: failure.code, error: failure.message, path: failure.path },
    },
    http_info: {
      status: res.statusCode,
      http_version: req.httpVersion,
      url: req.url ?? null,
      ip: ctx.clientAddress ?? null,
      method: req.method ?? null,
      content_encoding: res.getHeader('content-encoding') ?? null,
    },
  });
}
