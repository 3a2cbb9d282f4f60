/**
 * POST /v1/graphql from headers and body text to status and body text, with
 * no HTTP framework in it: the fastify route (routes/graphql.ts) and the
 * node:http fast path (graphql-fast-path.ts) both answer through it, so the
 * two cannot drift apart.
 */
import type { RequestHeaders } from '../auth/resolve-session.ts';
import type { AppDeps } from './deps.ts';
import { parseJsonBody, tryParseJsonBody } from './body.ts';
import { graphqlErrorBody, toEngineError } from './error-response.ts';
import { errorDetails } from '../errors/engine-error.ts';

/** What to write back. */
export interface GraphqlAnswer {
  readonly status: number;
  /** JSON text. */
  readonly body: string;
  /** Set-Cookie values an auth webhook asked to pass on. */
  readonly setCookies: readonly string[];
}

const NO_COOKIES: readonly string[] = [];

/** Authenticates and executes one GraphQL request body; never throws. */
export async function answerGraphql(deps: AppDeps, headers: RequestHeaders, rawBody: unknown): Promise<GraphqlAnswer> {
  let isAdmin = false;
  let setCookies = NO_COOKIES;
  try {
    const parsed = tryParseJsonBody(rawBody);
    const auth = await deps.auth.resolve(headers, parsed);
    setCookies = auth.setCookies;
    isAdmin = auth.session.isAdmin;
    const body = parsed === undefined ? parseJsonBody(rawBody) : parsed;
    const res = await deps.graphql.execute(auth.session, body);
    return { status: res.status, body: 'jsonText' in res ? res.jsonText : JSON.stringify(res.json), setCookies };
  } catch (e) {
    const err = toEngineError(e);
    if (err.status >= 500) deps.logger.error('graphql request failed', { error: errorDetails(err) });
    // Auth and body failures keep their HTTP status; query errors are answered by execute() with 200.
    return { status: err.status, body: JSON.stringify(graphqlErrorBody(err, isAdmin)), setCookies };
  }
}
