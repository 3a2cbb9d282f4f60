/**
 * Calling an action's handler (v2 compat, compat.md "Action handler"): POST
 * `{action: {name}, input, session_variables, request_query}` with the
 * action's headers (and the client's, with `forward_client_headers`, less
 * the session and credential headers: Note [Forwarded client headers]),
 * through the request and response transforms, cut at the action's timeout.
 *
 * Note [Handler answers]: a 2xx JSON body is the output; a 4xx body
 * `{message, code?, extensions?}` becomes a GraphQL error with that message
 * and those extensions, as given; without extensions they are `{path: "$",
 * code}`, the body's `code` or `unexpected` (v2's ActionWebhookErrorResponse,
 * its tests-py extensions_code_*.yaml); any other status,
 * a body that is not JSON, a refused connection or a timeout is an
 * `unexpected` error whose details (status, body) go to `internal`, which
 * only admins see. Never a 5xx of the engine.
 */
import { Agent, request, type Dispatcher } from 'undici';
import { forwardedClientHeaders } from '../auth/forwarded-headers.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { applyRequestTransform, applyResponseTransform, type kriti } from '../transforms/index.ts';
import type { ActionInfo } from './types.ts';

type Json = kriti.Json;

/** What a call sends besides the action's definition. */
export interface HandlerCall {
  readonly input: unknown;
  /** Session variables, lower-cased names (`x-engine-role` included). */
  readonly sessionVariables: Readonly<Record<string, string>>;
  readonly requestQuery: string;
  /**
   * The client's request headers, or the forwardable ones an async submission
   * stored; with `forward_client_headers` their forwardable part is sent
   * (Note [Forwarded client headers] in auth/forwarded-headers.ts).
   */
  readonly clientHeaders?: Readonly<Record<string, string | string[] | undefined>>;
}

function headersOf(info: ActionInfo, call: HandlerCall): Array<readonly [string, string]> {
  const out: Array<readonly [string, string]> = [['Content-Type', 'application/json']];
  // Filtered here too, whoever filtered before: rows stored by older engines hold the raw headers.
  if (info.forwardClientHeaders) for (const [k, v] of Object.entries(forwardedClientHeaders(call.clientHeaders))) out.push([k, v]);
  for (const h of info.headers) out.push([h.name, h.value]);
  return out;
}

/**
 * Note [Handler client]: undici, one Agent for every handler, which keeps a
 * keep-alive pool per handler origin. The first version used node:http with
 * keep-alive agents (faster than fetch: 551 and 1,164 requests/s against 254
 * and 494 in a loop of 16 concurrent POSTs); see Note [Sync action overhead]
 * for why undici replaced it.
 *
 * Note [Sync action overhead]
 * The bench cell (test/bench/capabilities/actions.ts) once measured 1,712
 * requests/s through the engine against 17,404 calling the handler directly.
 * A CPU profile of the engine under that load (`node --cpu-prof`, 16
 * connections, handler answering at once) showed: the engine idle 55% of
 * the time; its own JS (plan-cache hit, bind, payload, output check and
 * shaping, response) about 4% inclusive; the rest in node:http's client and
 * server machinery and the socket writes, whose samples also hold the time
 * the engine is preempted when a write wakes the reader (V8 samples wall
 * time). Connections were already kept alive; the plan-cache hit parses
 * nothing. So the one lever was the HTTP client: undici instead of
 * node:http. Alternated runs on the shared 2-core machine (same harness,
 * 5 s each): engine CPU 0.197 and 0.270 ms per request with node:http
 * against 0.178 and 0.175 with undici; 2,715 and 1,694 requests/s against
 * 2,851 and 2,758. What stays is structural: a static `{ __typename }`
 * through the same engine costs 0.041 ms of CPU per request and makes
 * 10,229 requests/s in the same conditions, so a handler call adds about
 * 0.14 ms of engine CPU (one HTTP exchange each way, kernel included) to a
 * request, more than the handler itself spends; with the load generator,
 * the engine and the handler sharing two cores, throughput follows the sum
 * of their CPU per request, so the 15% goal of issue 17 cannot be met on
 * this machine by a handler that does no work. The bench cell after the
 * change (`flock /work/fullsuite.lock npm run bench -- --capabilities
 * actions`, 16 connections, 6 s): 3,259 requests/s through the engine
 * (p99 28 ms, 0.166 ms engine CPU per request) against 18,145 calling the
 * handler directly (p99 3 ms) and 14,282 for the static query (0.041 ms);
 * before it, 1,712 against 17,404. With one connection the engine → handler
 * path takes 0.78 ms per request against 0.105 ms for the static query and
 * 0.1 ms for the direct call: about 0.5 ms of it is neither engine CPU nor
 * a round trip, waiting for the three processes to be scheduled in turn on
 * the loaded two cores; not explained further.
 */
const AGENT = new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: 256 });

/** Headers undici refuses to send (it manages them itself); a transform adding one is not an error of the call. */
const UNSENDABLE = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'content-length']);

class HandlerTimeout extends Error {}

/** One request: the status and the body text; rejects with HandlerTimeout after `timeoutMs`. */
async function send(
  method: string,
  url: string,
  headers: ReadonlyArray<readonly [string, string]>,
  body: string | undefined,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  const h: Record<string, string> = {};
  // By lower-case name, the last one winning: a configured header replaces a forwarded one of the same name (v2 prefers configured ones).
  for (const [k, v] of headers) {
    const name = k.toLowerCase();
    if (!UNSENDABLE.has(name)) h[name] = v;
  }
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const res = await request(url, {
      method: method as Dispatcher.HttpMethod,
      headers: h,
      body: body ?? null,
      dispatcher: AGENT,
      signal: abort.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    return { status: res.statusCode, text: await res.body.text() };
  } catch (e) {
    const name = e instanceof Error ? e.name : '';
    if (abort.signal.aborted || name === 'HeadersTimeoutError' || name === 'BodyTimeoutError') throw new HandlerTimeout('timeout');
    throw e;
  } finally {
    clearTimeout(timer);
  }
}

function unexpected(message: string, internal: unknown): EngineError {
  return new EngineError(ErrorCode.Unexpected, message, { status: 200, internal });
}

function parseJson(text: string): { ok: true; value: Json } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as Json };
  } catch {
    return { ok: false };
  }
}

/**
 * Calls the handler and returns its output (after the response transform).
 * Throws an EngineError as Note [Handler answers] says.
 */
export async function callHandler(info: ActionInfo, call: HandlerCall): Promise<Json> {
  const payload: Json = {
    action: { name: info.name },
    input: (call.input ?? {}) as Json,
    session_variables: { ...call.sessionVariables },
    request_query: call.requestQuery,
  };
  const req = applyRequestTransform(
    info.requestTransform,
    { method: 'POST', url: info.handler, headers: headersOf(info, call), body: payload },
    call.sessionVariables,
  );
  let status: number;
  let text: string;
  try {
    ({ status, text } = await send(req.method, req.url, req.headers, req.method === 'GET' || req.method === 'HEAD' ? undefined : req.body, info.timeoutMs));
  } catch (e) {
    if (e instanceof HandlerTimeout)
      throw unexpected(`the action handler of "${info.name}" did not answer within ${info.timeoutMs / 1000} s`, {
        webhook: req.url,
        timeout_seconds: info.timeoutMs / 1000,
      });
    throw unexpected('http exception when calling webhook', { webhook: req.url, error: e instanceof Error ? e.message : String(e) });
  }
  const parsed = parseJson(text);
  if (status >= 200 && status < 300) {
    if (!parsed.ok) throw unexpected('invalid JSON in the response of the action handler', { webhook: req.url, status, body: text.slice(0, 2000) });
    return applyResponseTransform(info.responseTransform, parsed.value, {
      requestBody: req.bodyValue,
      queryParams: req.queryParams,
      session: call.sessionVariables,
      status,
    });
  }
  if (status >= 400 && status < 500 && parsed.ok && typeof parsed.value === 'object' && parsed.value !== null && !Array.isArray(parsed.value)) {
    const body = parsed.value as Record<string, Json>;
    const message = typeof body['message'] === 'string' ? body['message'] : typeof body['error'] === 'string' ? body['error'] : null;
    if (message !== null) {
      const ext = body['extensions'];
      const code = typeof body['code'] === 'string' ? body['code'] : ErrorCode.Unexpected;
      const extensions = typeof ext === 'object' && ext !== null && !Array.isArray(ext) ? (ext as Record<string, unknown>) : { path: '$', code };
      throw new EngineError(ErrorCode.Unexpected, message, { status: 200, extensions });
    }
  }
  throw unexpected(`the action handler of "${info.name}" answered with status ${status}`, { webhook: req.url, status, body: text.slice(0, 2000) });
}
