/**
 * Request bodies are read as text and parsed by the routes, so that malformed
 * JSON gets the engine's own error shape (`invalid-json`) instead of
 * fastify's, whatever Content-Type the client sent.
 */
import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';

/** Replaces fastify's body parsers with one that keeps the raw text. */
export function registerBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));
}

/** Parses a request body as JSON or throws `invalid-json` (400). */
export function parseJsonBody(raw: unknown): unknown {
  if (typeof raw !== 'string' || raw.length === 0) {
    throw new EngineError(ErrorCode.InvalidJson, 'Error in $: expected a JSON request body', { path: '$' });
  }
  try {
    return JSON.parse(raw) as unknown;
  } catch (e) {
    throw new EngineError(ErrorCode.InvalidJson, `Error in $: ${(e as Error).message}`, { path: '$' });
  }
}

/** The parsed body, or undefined when it is not JSON (the auth webhook then gets no body). */
export function tryParseJsonBody(raw: unknown): unknown {
  try {
    return parseJsonBody(raw);
  } catch {
    return undefined;
  }
}
