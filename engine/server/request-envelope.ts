/**
 * What every HTTP request gets before it is routed (fast path or fastify):
 * its RequestContext with the request id (which the handlers echo as
 * `X-Request-Id`, Note [Request ids] in request-context.ts), and once the response is written,
 * the `http-log` line and the request's observers (metrics). When tracing,
 * it also starts the request's span (continuing the client's `traceparent`)
 * and ends it with the response's status.
 *
 * Note [One close listener] (issue 35)
 * A response's one listener is the envelope's, on 'close' (which node:http
 * emits for every response, a tick after 'finish' when it was written, or
 * when its connection ended first): a written response goes to the observers
 * and the http-log, an unwritten one cancels the request's SQL (Note [Cancel
 * on disconnect]). The fast path kept a 'close' listener of its own for the
 * cancel, and the envelope one on 'finish': two listener registrations and
 * two events with listeners per request. The fastify routes keep theirs:
 * `inject` in tests reaches them without the envelope (a second cancel is
 * a no-op).
 *
 * Note [Request envelope cost]
 * Per request this costs reading one header, a UUID when the client sent no
 * id (a random UUID, Note [Request id strings] in request-context.ts), and one
 * 'close' listener (Note [One close listener]), which reads the clock and
 * tells the observers only when something observes finished requests (the
 * http-log at the configured level, or the metrics, which every engine has). `node test/bench/observability-cost.ts`
 * (in process, CPU per request, best of 5 × 200,000, on the shared 2-core
 * machine under load): a bare ServerResponse made and finished 0.13 µs,
 * through the envelope at level warn (no line written) 1.04 µs, so about
 * 0.9 µs added; at level info, with v2's http-log line serialized, 3.6 µs.
 * An AlbumByPK request costs the engine about 120 µs of CPU, so the
 * default-level http-log (v2's default too) is about 3% of it; level warn
 * writes only failed requests' lines. The request span exists only when
 * tracing is configured.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../logger.ts';
import type { Span, Tracer } from '../observability/tracing.ts';
import { RequestContext, requestIdOf } from '../request-context.ts';

const CONTEXT = Symbol('engine.requestContext');
type WithContext = IncomingMessage & { [CONTEXT]?: RequestContext };

/** The context of `req`, made now if the envelope did not make one (fastify's inject in tests). */
export function contextOf(req: IncomingMessage): RequestContext {
  const r = req as WithContext;
  let ctx = r[CONTEXT];
  if (ctx === undefined) {
    ctx = new RequestContext(req.socket?.remoteAddress, requestIdOf(req.headers['x-request-id']));
    ctx.headers = req.headers;
    r[CONTEXT] = ctx;
  }
  return ctx;
}

/** Something told of every finished request (metrics). */
export type FinishedRequest = (req: IncomingMessage, res: ServerResponse, ctx: RequestContext, seconds: number) => void;

/** Handles a request (routing it somewhere). */
export type Dispatch = (req: IncomingMessage, res: ServerResponse) => void;

/** What the envelope needs. */
export interface EnvelopeOptions {
  readonly logger: Logger;
  readonly observers: readonly FinishedRequest[];
  readonly tracer: Tracer | null;
}

/**
 * Wraps `dispatch` with the request context, the http-log, `observers` and the request span.
 * `dispatch` writes the `X-Request-Id` header (the fast path among its raw headers, Note [Fast path headers]).
 */
export function requestEnvelope(opts: EnvelopeOptions, dispatch: Dispatch): Dispatch {
  const { logger, observers, tracer } = opts;
  const httpLog = logger.enabled('http-log', 'info');
  const httpErrorLog = logger.enabled('http-log', 'error');
  const watching = httpErrorLog || observers.length > 0;
  // One listener per response for both ends of it (Note [One close listener]), the same function for every
  // response (it finds the request and its context from the response), so a request allocates no closure for it.
  function onClose(this: ServerResponse): void {
    finished(this);
  }
  function finished(res: ServerResponse): void {
    const req = res.req as WithContext;
    const ctx = req[CONTEXT] as RequestContext;
    // The client left before the whole answer was written: its SQL is cancelled (Note [Cancel on disconnect]), and,
    // as before, no http-log line or metrics are written for it.
    if (!res.writableFinished) return ctx.cancel();
    if (!watching) return;
    const seconds = (performance.now() - ctx.startedAt) / 1000;
    for (const o of observers) o(req, res, ctx, seconds);
    const failed = res.statusCode >= 400 || ctx.failure !== null;
    if (failed ? httpErrorLog : httpLog) logHttp(logger, req, res, ctx, seconds, failed);
  }
  return (req, res) => {
    const ctx = new RequestContext(req.socket.remoteAddress, requestIdOf(req.headers['x-request-id']));
    ctx.headers = req.headers;
    (req as WithContext)[CONTEXT] = ctx;
    if (tracer !== null) traceRequest(tracer, req, res, ctx);
    // 'close' fires once per response: `on` spares once's wrapper and its removal.
    res.on('close', onClose);
    dispatch(req, res);
  };
}

function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Starts the request's span (a child of the client's `traceparent` when valid) and ends it with the response. */
function traceRequest(tracer: Tracer, req: IncomingMessage, res: ServerResponse, ctx: RequestContext): void {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const method = req.method ?? 'GET';
  // Named by its route once routed (Note [Span names and routes] in observability/tracing.ts).
  const span: Span = tracer.startRequest(method, single(req.headers.traceparent), single(req.headers.tracestate), {
    'http.request.method': method,
    'url.path': path,
    'engine.request_id': ctx.requestId,
  });
  ctx.trace = span;
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    span.setAttribute('http.response.status_code', res.statusCode);
    const route = ctx.route;
    if (route !== null) {
      span.setAttribute('http.route', route);
      const operation = ctx.operation;
      if (operation === null) span.rename(`${method} ${route}`);
      else {
        span.setAttribute('engine.metadata.operation', operation);
        span.rename(`${method} ${route} ${operation}`);
      }
    }
    const failure = ctx.failure;
    if (!res.writableFinished) span.end(new Error('the client closed the connection before the response'));
    else if (res.statusCode >= 500) span.end(failure ?? new Error(`HTTP ${res.statusCode}`));
    else span.end();
  };
  res.once('finish', end);
  res.once('close', end);
}

/** v2's http-log line. */
function logHttp(logger: Logger, req: IncomingMessage, res: ServerResponse, ctx: RequestContext, seconds: number, failed: boolean): void {
  // The fast path writes raw headers, which getHeader does not see; it leaves them on the context.
  const size = ctx.responseSize ?? res.getHeader('content-length');
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
      content_encoding: ctx.responseSize === null ? (res.getHeader('content-encoding') ?? null) : ctx.contentEncoding,
    },
  });
}
