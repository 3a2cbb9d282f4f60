/**
 * POSTs GraphQL requests to remote schemas over undici, with keep-alive
 * connections per origin and a deadline per request. Every failure (refused
 * connection, timeout, non-2xx status, a body that is not a GraphQL answer)
 * becomes a {@link RemoteCallError} with a message fit for a client; nothing
 * a remote does escapes as another exception.
 */
import type { Agent } from 'undici';
import { undici } from '../undici.ts';
import { allowlistAgent } from '../tls-allowlist.ts';

/**
 * One agent for every remote: undici keeps a keep-alive pool per origin inside it. Made on the
 * first call (Note [HTTP client on first use] in undici.ts) and again when the TLS allow-list
 * changes (Note [TLS allow-list]).
 */
const agentOf = allowlistAgent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 60_000, connections: 64 });

/** The agent of {@link RemoteRequest.unverifiedTls} calls (introspection while metadata changes: rare, kept apart). */
let unverifiedAgent: Agent | undefined;
function unverifiedAgentOf(): Agent {
  return (unverifiedAgent ??= new (undici().Agent)({ keepAliveTimeout: 1_000, connections: 8, connect: { rejectUnauthorized: false } }));
}

/** A GraphQL answer as the remote gave it. */
export interface RemoteAnswer {
  readonly data?: Record<string, unknown> | null;
  readonly errors?: ReadonlyArray<Record<string, unknown>>;
}

/** Why a remote call failed. */
export class RemoteCallError extends Error {
  /**
   * `transport` when no answer came (refused, reset, too slow), `status` when a non-2xx status
   * came without a GraphQL error answer, `answer` when the body is not a GraphQL answer.
   */
  readonly kind: 'transport' | 'status' | 'answer';
  /** The HTTP status of a `status` failure. */
  readonly status: number | undefined;
  constructor(message: string, kind: 'transport' | 'status' | 'answer' = 'answer', status?: number) {
    super(message);
    this.name = 'RemoteCallError';
    this.kind = kind;
    this.status = status;
  }
}

/** A request to a remote schema. */
export interface RemoteRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
  /**
   * Accept the remote's certificate unverified: its host is on the TLS allow-list of a document
   * being prepared, not yet installed (Note [TLS allow-list]); the installed lists need no flag.
   */
  readonly unverifiedTls?: boolean;
}

/** Sends one GraphQL request; the parsed answer, or a RemoteCallError. */
export async function postGraphql(req: RemoteRequest): Promise<RemoteAnswer> {
  let res;
  try {
    const { request } = undici();
    const agent = req.unverifiedTls === true ? unverifiedAgentOf() : agentOf();
    res = await request(req.url, {
      method: 'POST',
      headers: { ...req.headers, 'content-type': 'application/json', accept: 'application/json' },
      body: req.body,
      dispatcher: agent,
      signal: AbortSignal.timeout(req.timeoutMs),
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
    });
  } catch (e) {
    throw new RemoteCallError(describe(e, req), 'transport');
  }
  let text: string;
  try {
    text = await res.body.text();
  } catch (e) {
    throw new RemoteCallError(describe(e, req), 'transport');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw res.statusCode >= 300
      ? new RemoteCallError(`the remote schema answered HTTP ${res.statusCode}`, 'status', res.statusCode)
      : new RemoteCallError('the remote schema answered with invalid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !('data' in parsed || 'errors' in parsed)) {
    throw res.statusCode >= 300
      ? new RemoteCallError(`the remote schema answered HTTP ${res.statusCode}`, 'status', res.statusCode)
      : new RemoteCallError('the remote schema did not answer with a GraphQL response');
  }
  const answer = parsed as RemoteAnswer;
  if (answer.errors !== undefined && !Array.isArray(answer.errors)) throw new RemoteCallError('the remote schema answered with a malformed "errors"');
  if (res.statusCode >= 300 && (answer.errors === undefined || answer.errors.length === 0)) {
    throw new RemoteCallError(`the remote schema answered HTTP ${res.statusCode}`, 'status', res.statusCode);
  }
  return answer;
}

function describe(e: unknown, req: RemoteRequest): string {
  const name = e instanceof Error ? e.name : '';
  if (name === 'TimeoutError' || name === 'AbortError' || name === 'HeadersTimeoutError' || name === 'BodyTimeoutError') {
    return `the remote schema did not answer within ${req.timeoutMs / 1000} seconds`;
  }
  const code = typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : '';
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause.message : '';
  const msg = e instanceof Error ? e.message : String(e);
  return `could not reach the remote schema at ${req.url}: ${[code, cause || msg].filter((s) => s !== '').join(' ')}`;
}
