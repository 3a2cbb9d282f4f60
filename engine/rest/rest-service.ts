/**
 * REST endpoints served under `/api/rest/<url>` (the fastify route is
 * server/routes/rest.ts). A request finds its endpoint among the catalog's
 * resolved ones, its variables are read from the path, the query string and
 * the JSON body (variables.ts), and the endpoint's stored query goes through
 * the same request steps as /v1/graphql (GraphqlService.runRequest: plan
 * cache keyed by the stored text, allow-list, API limits, permissions).
 * Statuses, all bodies in v2's `{path, error, code}`: 200 with the `data`
 * object unwrapped; 404 `not-found` for a URL no endpoint matches; 405
 * `method-not-allowed` with an `Allow` header naming the endpoint's methods;
 * 400 for a missing or unreadable variable and for GraphQL errors (their
 * code kept); 401 for authentication; 500 for server faults only.
 * Finding the endpoint is a scan of the endpoints with as many segments as
 * the path (a handful in practice; URL templates never clash, Note [URL
 * template clashes], so at most one matches a method).
 *
 * Note [REST and allow-list cost]
 * Measured with the bench cell (test/bench/capabilities/rest.ts, `npm run
 * bench -- --capabilities rest`, sf1, AlbumByPK, 6 alternating rounds) on
 * the shared two-core machine while other engineers' test suites ran.
 * - In one process (answerGraphql vs answerRest, CPU per request including
 *   the client side of the database round trip): /v1/graphql 61.0 µs, REST
 *   61.0 µs (before the REST path skipped URL decoding, query-string parsing
 *   and the schema lookup when not needed: 63.8 vs 69.0); allow-list off
 *   59.6, on 60.6 µs (an earlier run: 65.3 and 68.2), the runs of both
 *   overlapping (52.7-68.6): the check runs on a plan-cache miss only, so a
 *   hit executes the same instructions.
 * - Over HTTP one run's throughput swung between 1,600 and 7,100 req/s with
 *   the machine's load, so the RPS goals (REST within 5% of /v1/graphql,
 *   allow-list no difference) cannot be read off it: REST had 141% of
 *   /v1/graphql's median (paired 139%), allow-list on 110% of off (paired
 *   129%); engine CPU per request 0.102 vs 0.099 ms and 0.113 vs 0.113 ms.
 *   Through fastify, before REST took the node:http fast path, it was 0.124
 *   vs 0.103 ms.
 */
import type { GraphQLSchema } from 'graphql';
import type { ByteStringResponse, RestApi, RestRequest, RestResponse } from '../api/contract.ts';
import type { Session } from '../auth/session.ts';
import type { CatalogRef } from '../catalog/snapshot.ts';
import type { RestEndpointInfo } from '../catalog/types.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError, isEngineError } from '../errors/engine-error.ts';
import { apiErrorBody } from '../errors/wire-body.ts';
import type { GraphqlRequest } from '../execute/request-body.ts';
import type { RequestContext } from '../request-context.ts';
import { buildOpenApi } from './openapi.ts';
import { matchTemplate } from '../catalog/url-template.ts';
import { restVariables } from './variables.ts';

/** What REST endpoints need from the GraphQL side (execute/graphql-service.ts implements it). */
export interface RestRunner {
  /** The request through every step; the `data` object's JSON text, or its byte string answered 200 (a lone read). Throws EngineError. */
  runRequest(session: Session, req: GraphqlRequest, ctx?: RequestContext): Promise<string | ByteStringResponse>;
  /** The admin's client-facing schema of the catalog in force. */
  adminSchema(): GraphQLSchema;
}

const NOT_FOUND = new EngineError(ErrorCode.NotFound, 'Endpoint not found', { path: '$', status: 404 });

function errorResponse(e: EngineError, isAdmin: boolean, headers?: Record<string, string>): RestResponse {
  // GraphQL errors have no HTTP status of their own (they are 200 on /v1/graphql): a REST client gets 400.
  const status = e.status >= 400 ? e.status : 400;
  return { status, json: apiErrorBody(e, isAdmin), ...(headers === undefined ? {} : { headers }) };
}

/** Splits a path into decoded segments; null when a segment is not valid percent-encoding. */
function segmentsOf(path: string): string[] | null {
  const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
  const parts = trimmed.split('/');
  if (!trimmed.includes('%')) return parts;
  try {
    return parts.map(decodeURIComponent);
  } catch {
    return null;
  }
}

/** The REST API over the catalog in force. */
export class RestService implements RestApi {
  readonly #catalogRef: CatalogRef;
  readonly #runner: RestRunner;
  readonly #adminSchema: () => GraphQLSchema;

  constructor(catalogRef: CatalogRef, runner: RestRunner) {
    this.#catalogRef = catalogRef;
    this.#runner = runner;
    this.#adminSchema = () => runner.adminSchema();
  }

  async handle(req: RestRequest, session: Session, ctx?: RequestContext): Promise<RestResponse> {
    try {
      const endpoints = this.#catalogRef.current.queryCollections?.endpoints ?? [];
      const path = segmentsOf(req.path);
      if (path === null) return errorResponse(NOT_FOUND, session.isAdmin);
      let found: { endpoint: RestEndpointInfo; params: Record<string, string> } | null = null;
      const allowed: string[] = [];
      for (const endpoint of endpoints) {
        if (endpoint.segments.length !== path.length) continue;
        const params = matchTemplate(endpoint.segments, path);
        if (params === null) continue;
        if (endpoint.methods.includes(req.method)) {
          found = { endpoint, params };
          break;
        }
        for (const m of endpoint.methods) if (!allowed.includes(m)) allowed.push(m);
      }
      if (found === null) {
        if (allowed.length === 0) return errorResponse(NOT_FOUND, session.isAdmin);
        const refused = new EngineError(ErrorCode.MethodNotAllowed, `method ${req.method} is not allowed; this endpoint allows ${allowed.join(', ')}`, {
          path: '$',
          status: 405,
        });
        return errorResponse(refused, session.isAdmin, { allow: allowed.join(', ') });
      }
      const { endpoint, params } = found;
      const variables = restVariables(endpoint.operation, this.#adminSchema, params, req.query, req.body);
      const data = await this.#runner.runRequest(session, { query: endpoint.query, variables, operationName: endpoint.operation.name?.value ?? null }, ctx);
      return typeof data === 'string' ? { status: 200, jsonText: data } : data;
    } catch (e) {
      const err = isEngineError(e) ? e : new EngineError(ErrorCode.Unexpected, 'unexpected error', { internal: String(e), cause: e });
      return errorResponse(err, session.isAdmin);
    }
  }

  openapi(): unknown {
    return buildOpenApi(this.#catalogRef.current.queryCollections?.endpoints ?? [], this.#runner.adminSchema());
  }
}
