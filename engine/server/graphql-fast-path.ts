/**
 * Note [GraphQL fast path]
 * POST /v1/graphql is nearly all of an engine's traffic, and on a plan-cache
 * hit the engine's own work is a few microseconds, so per-request framework
 * cost shows: fastify's routing, hooks, content-type parsing and reply
 * machinery (with @fastify/cors) cost about as much CPU as the engine's
 * request handling itself (test/bench, `npm run bench -- --ops AlbumByPK`).
 * So the HTTP server hands exactly `POST /v1/graphql` and `GET /v1/graphql?…`
 * (urql's default for queries) to this handler, on bare node:http, and
 * everything else (other routes, other methods such as the CORS preflight, a
 * POST with a query string, a server that is closing) to fastify.
 * Both answer through answerGraphql (graphql-answer.ts), and this handler
 * writes the same headers as the fastify route: content type, the CORS
 * headers of @fastify/cors as configured in cors.ts (Vary: Origin always;
 * allow-origin for an allowed Origin, allow-credentials for a named one) and the auth
 * webhook's Set-Cookie; and compresses as the route does (compression.ts).
 * Bodies over the limit get 413, as from fastify.
 * REST endpoints (`/api/rest/…`, any method the endpoints may serve) take the
 * same path for the same reason, answered through answerRest
 * (rest-answer.ts) like their fastify route: through fastify a REST request
 * cost about 20% more engine CPU than the same query on /v1/graphql
 * (test/bench/capabilities/rest.ts: 0.124 against 0.103 ms per request).
 * The checks for POST and GET /v1/graphql come first and are unchanged.
 *
 * Note [Fast path headers]
 * The answer's headers go to `writeHead` as one array of raw name/value
 * pairs, `X-Request-Id` among them, and nothing is set on the response
 * before: node:http then writes them as given. A header set earlier with
 * `setHeader` (the envelope used to set `X-Request-Id` on every request)
 * sends writeHead down its slow path, which copies every header into the
 * response's header map one `setHeader` at a time, and an object of headers
 * is walked by its keys; the `--cpu-prof` of AlbumByPK under load had
 * node:_http_outgoing at 2.4 µs of self time per request against 0.5 µs in
 * the raw-SQL peer, which writes two headers with an object. Such headers are
 * invisible to `getHeader`, so the body's size and content coding are left on
 * the request context for the http-log line (request-envelope.ts).
 *
 * Note [Per-request work on a plan-cache hit] (issue 35)
 * A small query's engine CPU per request is otherwise what a bare node:http
 * server and pg pool spend, plus small fixed costs, each cut where it was
 * cheap to do so: the response's single-shot events take plain `on`
 * listeners (`once` wraps and later removes them); authentication that needs
 * no I/O (no admin secret set, or the secret presented) is answered
 * synchronously (Authenticator.resolveAtOnce) instead of through an async
 * call; a cancellable statement runs with one async frame instead of three
 * (PgSourceConnection.queryJsonText) and a single read without joins awaits
 * it directly (execute/run.ts); a plan-cache hit on the entry already
 * most recent leaves the LRU map alone (a delete and a set per request
 * before). `node test/bench/compare-engines.ts /tmp/before-35d --ops
 * AlbumByPK,SearchAlbumsWithArtist --repeats 5` (load average 9-14 from
 * other work: req/s is noise, CPU per request the better figure): engine
 * µs/req AlbumByPK admin 41 → 39, customer 45 → 38; SearchAlbumsWithArtist
 * 54 → 58 (noise) and 57 → 54. Small, as expected of these cuts; what is
 * left is node:http's own per-request work that the raw peer shares (write
 * syscalls are ~43% of the engine's busy samples in a `--cpu-prof` under
 * load), reading the body (the raw peer ignores its body), the envelope's
 * context, request id and finish listener, and two extra headers. Admin is not dearer than customer per request: its Engine/raw ratio
 * reads lower because its statement costs PostgreSQL less (23 against 28 µs),
 * so the engine's fixed extra is a larger share of the total.
 * Cut since (issue 35, a second pass): the request id made as one flat
 * string (Note [Request id strings] in request-context.ts), a repeated
 * operation found in the plan cache without building its key (Note
 * [Repeated operation lookups] in execute/plan-cache.ts), one 'close'
 * listener per response instead of the envelope's 'finish' and this path's
 * 'close' (Note [One close listener] in request-envelope.ts), and one shared
 * admin session for requests naming no session variable
 * (auth/resolve-session.ts). `node test/bench/compare-engines.ts <before>
 * <after> --ops AlbumByPK,SearchAlbumsWithArtist,CustomerInvoices --repeats
 * 5 --seconds 3`, engine µs/req admin/customer: the first three (2026-11-28
 * 22:27, load 11-12, dda35b8 against it with those files of d9ebab6)
 * AlbumByPK 49 → 42, 47 → 43; SearchAlbumsWithArtist 55 → 57, 58 → 52;
 * CustomerInvoices 76 → 70, 86 → 82; all four (22:43, load 13-14, 7fb36a6
 * against it with the files of d9ebab6) AlbumByPK 46 → 43, 52 → 47;
 * SearchAlbumsWithArtist 71 → 60, 54 → 51; CustomerInvoices 79 → 73, 80 →
 * 78. Over HTTP the
 * engine still allocates ~18 KB per AlbumByPK request against the raw
 * peer's ~13.5 KB (V8's sampling heap profile with collected objects, and
 * `--trace-gc-nvp`'s allocated bytes): node:http and pg allocate the same
 * for both; the rest is the engine's own steps, each a few hundred bytes
 * (the async frames of answerGraphql, execute, #executeOne and runPlan,
 * the answer objects, the bound statement, the body's parse).
 * Cut since (issue 35, a third pass): those four async frames (Note
 * [Request path without async frames] in execute/graphql-service.ts), the
 * body reader's closures (Note [Body reads without closures]), the
 * envelope's per-response closure and the copy of a session's variables.
 * With the database answer replaced by a constant (so only the engine and
 * node:http are measured), an AlbumByPK request allocated 12.4 KB before
 * and 10.1-10.3 KB after, where a bare node:http server answering the same
 * bytes allocates 6.1 KB (V8's `--trace-gc-nvp` allocated bytes over
 * 100,000 requests). `node test/bench/compare-engines.ts <6540b48>
 * <c835505> --ops AlbumByPK --roles admin,customer --repeats 6 --seconds 3
 * --gc`, twice (2026-11-29 01:34-01:38, load 4-5), engine µs/req admin 37
 * → 35 and 36 → 34, customer 40 → 35 and 42 → 37 (req/s 1.07-1.20×).
 *
 * Note [First cell after idle] (issue 35)
 * The bench's first cell (`run.ts --quick`: AlbumByPK admin) read the engine
 * at ~50-78 µs of CPU per request where a warmed `compare-engines.ts` run
 * reads 36-45. Why: run.ts warms the peers in turn, Engine first, then
 * measures Engine first, so the engine has idled 20-30 s while PostGraphile
 * and raw SQL warmed up (raw is measured right after its own warm-up). After
 * ~8 s of idle, V8's memory reducer runs two full collections in
 * reduce-memory mode (`Mark-Compact (reduce)` in `--trace-gc`), and these
 * retire the optimized code of the whole request path: `--trace-deopt`
 * shows 161-180 functions "marked for deoptimization, reason: embedded weak
 * objects cleared" (node:http, streams, pg's client and parser, and the
 * engine's readBody, answer, respond, planRequest, #executeOne,
 * parseGraphqlRequest, FirstCellQuery, ...). The first seconds of load after
 * it compile them again: 163-236 compilations (79-123 by TurboFan) in the
 * first 8 s against 10-14 in a later round after the same idle, and the
 * compiler's threads are the process's CPU, charged to the first cell.
 * Keeping the last request's objects reachable (req, res, the answer) did
 * not change it (still 161 marked). With V8's `--no-memory-reducer-favors-memory`
 * (the reducer's collections are ordinary ones) the idle marks 0-2 functions
 * and the load compiles 22-41; alternated, the first 2 s after 20 s of idle
 * read 75.4/77.9/75.9 µs per request without the flag and 47.8/48.8/40.5
 * with it (load 7-12, 2026-11-28 22:31-22:36, `node
 * test/bench/first-cell.ts --rounds 3 default=<d9ebab6>
 * nofavor=<d9ebab6>:--no-memory-reducer-favors-memory`, its `--trace` counts
 * the marks and compilations), and two `run.ts --quick --skip-scale` each,
 * alternated at load 12-13, read the first cell's engine CPU at 54/58 µs
 * with the flag (in ENGINE_V8_FLAGS of a scratch checkout) against 78/74
 * without (raw SQL 33-38). Nothing on the request path keeps V8 from
 * retiring code whose embedded objects died; the lever is that V8 flag,
 * which belongs to Note [Engine V8 settings] (cli/v8-flags.ts) and trades
 * memory: an ordinary collection keeps freed pages pooled (`pooled: 34-39
 * MB` in `--trace-gc` after the idle on chinook, against 0). At 2,000 tables
 * × 10 roles (`node test/bench/rss-variants.ts --rounds 1 default=<d9ebab6>
 * nofavor=<d9ebab6>:--no-memory-reducer-favors-memory`, load 13-16) the RSS
 * 20 s after every role answered was 356 MiB after replace_metadata and 340
 * after a restart by default, 458 and 399 with the flag: it would undo the
 * settled-RSS goal (≤ 400 MiB), so the flag is not set; a narrower use (the
 * flag once a metadata change's burst has been collected, Note [Only a
 * metadata change's burst] in idle-gc.ts) is for that file's owner to weigh.
 * The reducer's collections also shrink V8's young generation, and a steady
 * request load does not grow it back (little of it survives): with the
 * database answer replaced by a constant, an engine answering AlbumByPK ran
 * 75 young collections per 100,000 requests before its first idle and
 * 556-619 after it (`--trace-gc`; 175 with `--min-semi-space-size=4`), and
 * that engine's CPU per request went from 12.6 to 15-18 µs and stayed there,
 * where one with `--no-memory-reducer` kept 11.8-14.7 over five rounds of 3
 * s of load and 12 s of idle (load 2-4, 2026-11-29 00:56-00:58; a bare
 * node:http server answering the same bytes: 11.4-11.8). So a per-request
 * figure depends on whether the engine idled before it, beyond the first
 * seconds; the young generation's size is the V8 settings' (Note [Engine V8
 * settings]). In the real path (`compare-engines.ts --idle 10`, 01:03)
 * `--min-semi-space-size=4` read admin 37 → 37 and customer 45 → 42 µs:
 * not conclusive on this machine; `--min-semi-space-size=16` was, and is
 * now set (Note [A young generation the reducer cannot shrink] in
 * cli/v8-flags.ts), and the reducer itself is off (Note [No memory reducer]
 * there).
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { contextOf } from './request-envelope.ts';
import type { AppDeps } from './deps.ts';
import type { CorsPolicy } from './cors.ts';
import { codingFor, compress, type Coding } from './compression.ts';
import { bodyBytes, type BodyEncoding } from './reply.ts';
import { answerGraphql, type GraphqlAnswer } from './graphql-answer.ts';
import { answerRest, REST_PREFIX, type RestAnswer } from './rest-answer.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { apiErrorBody, graphqlErrorBody } from '../errors/wire-body.ts';

/** Handles a request and returns true, or returns false to leave it to fastify. */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

/** Options of {@link graphqlFastPath}. */
export interface FastPathOptions {
  readonly deps: AppDeps;
  /** Largest body accepted, in bytes. */
  readonly bodyLimit: number;
  /** The CORS policy (cors.ts). */
  readonly cors: CorsPolicy;
  /** True once the app is closing: fastify then answers 503. */
  readonly closing: () => boolean;
}

const TOO_LARGE = JSON.stringify(graphqlErrorBody(new EngineError(ErrorCode.BadRequest, 'Request body is too large', { path: '$' }), false));
const UNEXPECTED = JSON.stringify(graphqlErrorBody(new EngineError(ErrorCode.Unexpected, 'unexpected error', { path: '$' }), false));
const TOO_LARGE_REST = JSON.stringify(apiErrorBody(new EngineError(ErrorCode.BadRequest, 'Request body is too large', { path: '$' }), false));
const UNEXPECTED_REST = JSON.stringify(apiErrorBody(new EngineError(ErrorCode.Unexpected, 'unexpected error', { path: '$' }), false));
const JSON_TYPE = 'application/json; charset=utf-8';
/** Every GraphQL answer varies by these request headers (CORS, compression). */
export const VARY = 'Origin, Accept-Encoding';
const GET_PREFIX = '/v1/graphql?';
/** Methods REST endpoints may serve; others (OPTIONS, HEAD) go to fastify. */
const REST_METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

const ignore = (): void => {};

/**
 * Note [Body reads without closures] (issue 35)
 * Reading a body took, per request, a closure for each of its 'data' and
 * 'end' listeners and one for what to do with the text, all sharing a
 * context of the read's state. Now the state is one BodyRead on the request
 * (its response, its chunks, its size, where the text goes) and the
 * listeners are the same two functions for every request, finding it
 * through `this`, the request that emits them.
 */
const BODY = Symbol('engine.bodyRead');
type Reading = IncomingMessage & { [BODY]?: BodyRead };

/** One body being read: see Note [Body reads without closures]. */
class BodyRead {
  readonly res: ServerResponse;
  /** Null: a POST of /v1/graphql; else the URL of the REST endpoint request. */
  readonly restUrl: string | null;
  readonly chunks: Buffer[] = [];
  size = 0;
  tooLarge = false;

  constructor(res: ServerResponse, restUrl: string | null) {
    this.res = res;
    this.restUrl = restUrl;
  }
}

/** The routes of the fastify application these requests would have taken (the request span's `http.route`). */
const GRAPHQL_ROUTE = '/v1/graphql';
const REST_ROUTE = `${REST_PREFIX}*`;

/** The fast path of POST and GET /v1/graphql; see Note [GraphQL fast path]. */
export function graphqlFastPath(opts: FastPathOptions): FastPath {
  const { deps, bodyLimit, cors, closing } = opts;
  function write(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    contentType: string,
    body: string | Buffer,
    coding: Coding | null,
    setCookies: readonly string[],
    extra?: Readonly<Record<string, string>>,
    encoding: BodyEncoding = 'utf8',
  ): void {
    // Raw header pairs: writeHead takes them as they are (Note [Fast path headers]).
    const ctx = contextOf(req);
    // A byte string has a byte per character (Note [Answer bytes] in backends/postgres/answer-bytes.ts).
    const size = encoding === 'latin1' && typeof body === 'string' ? body.length : Buffer.byteLength(body);
    ctx.responseSize = size;
    ctx.contentEncoding = coding;
    const headers: Array<string | number | string[]> = ['content-type', contentType, 'content-length', size, 'vary', VARY, 'x-request-id', ctx.requestId];
    if (extra !== undefined) for (const k in extra) headers.push(k, extra[k] as string);
    if (coding !== null) headers.push('content-encoding', coding);
    const origin = req.headers.origin;
    if (origin !== undefined && cors.allows(origin)) {
      headers.push('access-control-allow-origin', origin);
      // Only origins the setting names get credentials (Note [Cookie credentials] in cookie-guard.ts).
      if (cors.credentialed(origin)) headers.push('access-control-allow-credentials', 'true');
    }
    if (setCookies.length > 0) headers.push('set-cookie', [...setCookies]);
    res.writeHead(status, headers as unknown as OutgoingHttpHeaders);
    // The http-log line is the envelope's (request-envelope.ts), for both paths.
    res.end(body, encoding);
  }

  function respond(req: IncomingMessage, res: ServerResponse, a: GraphqlAnswer | RestAnswer): void {
    const contentType = 'contentType' in a ? a.contentType : JSON_TYPE;
    const extra = 'headers' in a ? a.headers : undefined;
    const encoding = a.encoding;
    const coding = codingFor(req.headers['accept-encoding'], a.body.length);
    if (coding === null) return write(req, res, a.status, contentType, a.body, null, a.setCookies, extra, encoding);
    compress(bodyBytes(a.body, encoding), coding).then(
      (bytes) => write(req, res, a.status, contentType, bytes, coding, a.setCookies, extra),
      () => write(req, res, a.status, contentType, a.body, null, a.setCookies, extra, encoding),
    );
  }

  function answer(req: IncomingMessage, res: ServerResponse, method: 'GET' | 'POST', payload: string): void {
    // A client that leaves before its answer cancels the request's SQL (Note [Cancel on disconnect]): the
    // envelope's 'close' listener does it (Note [One close listener] in request-envelope.ts).
    const ctx = contextOf(req);
    ctx.route = GRAPHQL_ROUTE;
    answerGraphql(deps, { method, headers: req.headers, payload }, ctx).then(
      (a) => respond(req, res, a),
      // answerGraphql does not throw; this guards a bug from leaving the client hanging.
      (e: unknown) => {
        deps.logger.error('graphql request failed', { request_id: contextOf(req).requestId, error: e });
        if (!res.headersSent) write(req, res, 500, JSON_TYPE, UNEXPECTED, null, []);
      },
    );
  }

  function answerRestRequest(req: IncomingMessage, res: ServerResponse, url: string, payload: string): void {
    const ctx = contextOf(req);
    ctx.route = REST_ROUTE;
    answerRest(deps, req.method ?? 'GET', url, req.headers, payload, ctx).then(
      (a) => respond(req, res, a),
      (e: unknown) => {
        deps.logger.error('rest request failed', { request_id: ctx.requestId, error: e });
        if (!res.headersSent) write(req, res, 500, JSON_TYPE, UNEXPECTED_REST, null, []);
      },
    );
  }

  /**
   * Reads the body (413 past the limit, as fastify), then answers it: a GraphQL POST when `restUrl` is
   * null, else the REST endpoint of `restUrl`. The read's state is one object on the request and its
   * listeners the same functions for every request (Note [Body reads without closures]).
   */
  function readBody(req: IncomingMessage, res: ServerResponse, restUrl: string | null): void {
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > bodyLimit) {
      // Like fastify: answer without reading the body, and close the connection.
      res.setHeader('connection', 'close');
      write(req, res, 413, JSON_TYPE, restUrl === null ? TOO_LARGE : TOO_LARGE_REST, null, []);
      req.resume();
      return;
    }
    (req as Reading)[BODY] = new BodyRead(res, restUrl);
    req.on('data', onBodyData);
    req.on('end', onBodyEnd);
    // A client that goes away mid-body: nothing to answer.
    req.on('error', ignore);
  }

  function onBodyData(this: IncomingMessage, chunk: Buffer): void {
    const read = (this as Reading)[BODY] as BodyRead;
    if (read.tooLarge) return;
    read.size += chunk.length;
    if (read.size > bodyLimit) {
      read.tooLarge = true;
      read.res.setHeader('connection', 'close');
      write(this, read.res, 413, JSON_TYPE, read.restUrl === null ? TOO_LARGE : TOO_LARGE_REST, null, []);
      return;
    }
    read.chunks.push(chunk);
  }

  function onBodyEnd(this: IncomingMessage): void {
    const read = (this as Reading)[BODY] as BodyRead;
    if (read.tooLarge) return;
    // Chunks are kept as bytes and decoded once (a body is usually one chunk).
    const chunks = read.chunks;
    const payload = chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8');
    if (read.restUrl === null) answer(this, read.res, 'POST', payload);
    else answerRestRequest(this, read.res, read.restUrl, payload);
  }

  return (req, res) => {
    if (closing()) return false;
    const url = req.url;
    if (req.method === 'GET') {
      // GET carries the request in its query string (GraphQL over HTTP); no body to read.
      if (url !== undefined && url.startsWith(GET_PREFIX)) {
        answer(req, res, 'GET', url.slice(GET_PREFIX.length));
        req.resume();
        return true;
      }
      if (url === undefined || !url.startsWith(REST_PREFIX)) return false;
      readBody(req, res, url);
      return true;
    }
    if (req.method !== 'POST' || url !== '/v1/graphql') {
      if (url === undefined || !url.startsWith(REST_PREFIX) || !REST_METHODS.has(req.method ?? '')) return false;
      readBody(req, res, url);
      return true;
    }
    readBody(req, res, null);
    return true;
  };
}
