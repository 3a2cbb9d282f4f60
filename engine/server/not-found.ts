/**
 * Unknown routes, wrong methods and fastify's own failures in v2's
 * `{path, error, code}` shape instead of fastify's `{statusCode, error,
 * message}`: 404 `not-found` for a path nothing serves (v2's message), 405
 * `method-not-allowed` with an Allow header for a known path and another method.
 */
import type { FastifyError, FastifyInstance, HTTPMethods } from 'fastify';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { apiErrorBody } from '../errors/wire-body.ts';

function body(code: ErrorCode, message: string): Record<string, unknown> {
  return apiErrorBody(new EngineError(code, message, { path: '$' }), false);
}

const METHODS: readonly HTTPMethods[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Registers the not-found and error handlers on the root app. */
export function registerNotFound(app: FastifyInstance): void {
  app.setNotFoundHandler(async (request, reply) => {
    const q = request.url.indexOf('?');
    const url = q === -1 ? request.url : request.url.slice(0, q);
    const allowed = METHODS.filter((method) => app.hasRoute({ method, url }));
    if (allowed.length > 0) {
      return reply
        .code(405)
        .header('allow', [...allowed, 'OPTIONS'].join(', '))
        .send(body(ErrorCode.MethodNotAllowed, `method ${request.method} is not allowed on ${url}; use ${allowed.join(' or ')}`));
    }
    return reply.code(404).send(body(ErrorCode.NotFound, 'resource does not exist'));
  });
  app.setErrorHandler(async (error: FastifyError, _request, reply) => {
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 ? error.statusCode : 500;
    const code = status === 415 ? ErrorCode.UnsupportedMediaType : status >= 500 ? ErrorCode.Unexpected : ErrorCode.BadRequest;
    return reply.code(status).send(body(code, status >= 500 ? 'unexpected error' : error.message));
  });
}
