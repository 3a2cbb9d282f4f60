/**
 * Calling an action's handler (v2 compat, compat.md "Action handler"): POST
 * `{action: {name}, input, session_variables, request_query}` with the
 * action's headers (and the client's, with `forward_client_headers`),
 * through the request and response transforms, cut at the action's timeout.
 *
 * Note [Handler answers]: a 2xx JSON body is the output; a 4xx body
 * `{message, extensions}` becomes a GraphQL error with that message and those
 * extensions (`{path, code: unexpected}` when it has none); any other status,
 * a body that is not JSON, a refused connection or a timeout is an
 * `unexpected` error whose details (status, body) go to `internal`, which
 * only admins see. Never a 5xx of the engine.
 */
import http from 'node:http';
import https from 'node:https';
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
  /** The client's request headers (forwarded with `forward_client_headers`). */
  readonly clientHeaders?: Readonly<Record<string, string | string[] | undefined>>;
}

/** Client headers never forwarded: they describe the client's connection, not the request. */
const HOP_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'accept-encoding',
  'te',
  'trailer',
]);

function headersOf(info: ActionInfo, call: HandlerCall): Array<readonly [string, string]> {
  const out: Array<readonly [string, string]> = [['Content-Type', 'application/json']];
  if (info.forwardClientHeaders && call.clientHeaders !== undefined) {
    for (const [k, v] of Object.entries(call.clientHeaders)) {
      if (v === undefined || HOP_HEADERS.has(k.toLowerCase())) continue;
      out.push([k, Array.isArray(v) ? v.join(', ') : v]);
    }
  }
  for (const h of info.headers) out.push([h.name, h.value]);
  return out;
}

/**
 * Note [Handler client]: node:http with keep-alive agents rather than fetch:
 * on the shared two-core machine a loop of 16 concurrent POSTs to a local
 * server made 551 and 1,164 requests/s with http.request against 254 and
 * 494 with fetch (two alternated rounds of 3,000 requests, server in the same process).
 */
const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 256 });

class HandlerTimeout extends Error {}

/** One request: the status and the body text; rejects with HandlerTimeout after `timeoutMs`. */
function send(
  method: string,
  url: string,
  headers: ReadonlyArray<readonly [string, string]>,
  body: string | undefined,
  timeoutMs: number,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const secure = u.protocol === 'https:';
    const h: Record<string, string> = {};
    for (const [k, v] of headers) h[k] = v;
    if (body !== undefined) h['Content-Length'] = String(Buffer.byteLength(body));
    const req = (secure ? https : http).request(u, { method, headers: h, agent: secure ? httpsAgent : httpAgent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
    const timer = setTimeout(() => {
      req.destroy(new HandlerTimeout('timeout'));
    }, timeoutMs);
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(body);
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
      const extensions =
        typeof ext === 'object' && ext !== null && !Array.isArray(ext) ? (ext as Record<string, unknown>) : { path: '$', code: ErrorCode.Unexpected };
      throw new EngineError(ErrorCode.Unexpected, message, { status: 200, extensions });
    }
  }
  throw unexpected(`the action handler of "${info.name}" answered with status ${status}`, { webhook: req.url, status, body: text.slice(0, 2000) });
}
