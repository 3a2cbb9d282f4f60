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
import type { Dispatcher } from 'undici';
import { allowlistAgent } from '../tls-allowlist.ts';
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
 * Issue 35 profiled it again: undici's `request` wraps every call in an
 * AsyncResource, a Readable for the response body (consumed by
 * `body.text()`), an AbortController for the timeout and a URL parse, and
 * the garbage collector was the largest self time of the process after the
 * socket writes (19 µs per request in the `--cpu-prof`, 2.7 µs after). Calls
 * now go through the Agent's `dispatch` with a plain handler object
 * (Exchange: status and body chunks, one timer for the whole call, queued
 * or not), handler URLs are parsed once, and a webhook without a request
 * transform skips the transform's bindings. The bench cell, before and
 * after back to back (`node test/bench/run.ts --capabilities
 * event-triggers,actions --engine-root <before>`, then without it; load
 * average 11-12): engine CPU per sync action 0.089 → 0.068 ms, 6,551 →
 * 7,597 requests/s, p99 16 → 12 ms; the static query 0.022 and 0.020 ms.
 * Alone with one engine on a database (16 connections, 20,000 requests after
 * 5,000 of warm-up, engine CPU from /proc, before and after alternated):
 * 85 and 76 µs before, 54 and 59 after, `{ __typename }` 22-24 µs.
 */
/** The one Agent, made on the first call (Note [HTTP client on first use] in undici.ts) and again when the TLS allow-list changes (Note [TLS allow-list]). */
const agentOf = allowlistAgent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000, connections: 256 });

/** Headers undici refuses to send (it manages them itself); a transform adding one is not an error of the call. */
const UNSENDABLE = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'content-length']);

class HandlerTimeout extends Error {}

/** A handler URL as undici's dispatch takes it. */
interface Target {
  readonly origin: string;
  readonly path: string;
}

/** Parsed handler URLs (a handful per metadata; bounded all the same: transforms can make URLs per request). */
const targets = new Map<string, Target>();
const MAX_TARGETS = 1000;

function targetOf(url: string): Target {
  let t = targets.get(url);
  if (t === undefined) {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TypeError(`unsupported protocol ${u.protocol}`);
    t = { origin: u.origin, path: `${u.pathname}${u.search}` };
    if (targets.size >= MAX_TARGETS) targets.clear();
    targets.set(url, t);
  }
  return t;
}

/**
 * One exchange through undici's dispatch interface (Note [Sync action overhead]): the status and
 * the body's chunks, settled once; aborted with HandlerTimeout when `timeout` fires, queued or not.
 */
class Exchange implements Dispatcher.DispatchHandler {
  status = 0;
  readonly #chunks: Buffer[] = [];
  #controller: Dispatcher.DispatchController | null = null;
  #settled = false;
  readonly #resolve: (r: { status: number; text: string }) => void;
  readonly #reject: (e: unknown) => void;
  readonly #timer: NodeJS.Timeout;

  constructor(resolve: (r: { status: number; text: string }) => void, reject: (e: unknown) => void, timeoutMs: number) {
    this.#resolve = resolve;
    this.#reject = reject;
    this.#timer = setTimeout(() => this.#timeout(), timeoutMs);
  }

  #timeout(): void {
    const err = new HandlerTimeout('timeout');
    // A request still queued is aborted as soon as it starts (onRequestStart).
    this.#controller?.abort(err);
    this.fail(err);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.#settled) controller.abort(new HandlerTimeout('timeout'));
    else this.#controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.status = statusCode;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    const c = this.#chunks;
    this.#resolve({ status: this.status, text: c.length === 1 ? (c[0] as Buffer).toString('utf8') : Buffer.concat(c).toString('utf8') });
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    const name = error.name;
    this.fail(name === 'HeadersTimeoutError' || name === 'BodyTimeoutError' ? new HandlerTimeout('timeout') : error);
  }

  fail(e: unknown): void {
    if (this.#settled) return;
    this.#settled = true;
    clearTimeout(this.#timer);
    this.#reject(e);
  }
}

/** One request: the status and the body text; rejects with HandlerTimeout after `timeoutMs`. */
function send(
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
  return new Promise((resolve, reject) => {
    const exchange = new Exchange(resolve, reject, timeoutMs);
    try {
      const { origin, path } = targetOf(url);
      agentOf().dispatch(
        { origin, path, method: method as Dispatcher.HttpMethod, headers: h, body: body ?? null, headersTimeout: timeoutMs, bodyTimeout: timeoutMs },
        exchange,
      );
    } catch (e) {
      exchange.fail(e);
    }
  });
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
