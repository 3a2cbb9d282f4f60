/**
 * What the HTTP layer knows of one request that the layers below need: where
 * it came from (rate limits by IP) and whether its client is gone (the SQL of
 * a request nobody waits for is cancelled). A plain class rather than an
 * AbortController: creating one, adding and removing a listener cost 1.2 µs
 * per request on Node 24 against 0.04 µs for this (1e6 iterations each).
 *
 * Note [Request ids]
 * Every HTTP request gets an id: the client's `X-Request-Id` when it sends a
 * sane one (1-128 visible ASCII characters; a proxy's id joins its logs to
 * ours), else a new UUID. It is echoed as `X-Request-Id` in the response and
 * is the `request_id` of every log line about the request. It travels in
 * this context, passed explicitly (not AsyncLocalStorage: the context is
 * already handed to the steps that log, and an explicit argument costs
 * nothing when nobody reads it).
 */
import { randomFillSync } from 'node:crypto';
import type { Session } from './auth/session.ts';
import type { Span } from './observability/tracing.ts';

/** A request's cancellation, as the database layer sees it. */
export interface Cancellation {
  readonly cancelled: boolean;
  /** Calls `hook` when the request is cancelled (at once if it already is); one hook at a time. */
  watch(hook: () => void): void;
  /** Forgets the hook. */
  unwatch(): void;
}

const SANE_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * Note [Request id strings] (issue 35)
 * A request id is a random (version 4) UUID, as crypto.randomUUID makes, but
 * written into a byte buffer and read out as one flat string: randomUUID
 * joins twenty pieces (a two-hex-digit string per byte and the dashes), a
 * rope of ~20 string objects (~0.5 KB per request, the sampling heap profile
 * of an AlbumByPK load) that is flattened again when node:http checks the
 * header. In a loop of 2,000,000 ids each tested against a header pattern
 * (so both are flattened), on the shared 2-core machine: randomUUID 317-358
 * ns per id, this 152-158 ns. The random bytes come from
 * crypto.randomFillSync, 256 ids at a time, as randomUUID's own cache does.
 */
const IDS_PER_FILL = 256;
const randomBytes = Buffer.allocUnsafeSlow(16 * IDS_PER_FILL);
let nextId = IDS_PER_FILL;
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
/** Where each of the 16 bytes' two hex digits go in `xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx`. */
const HEX_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const idText = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1');

/** A new random UUID (version 4, RFC 9562), as crypto.randomUUID gives (Note [Request id strings]). */
export function newRequestId(): string {
  if (nextId === IDS_PER_FILL) {
    randomFillSync(randomBytes);
    nextId = 0;
  }
  const at = 16 * nextId++;
  for (let i = 0; i < 16; i++) {
    let b = randomBytes[at + i] as number;
    // The version (4) and the variant (10xx) bits.
    if (i === 6) b = (b & 0x0f) | 0x40;
    else if (i === 8) b = (b & 0x3f) | 0x80;
    const to = HEX_AT[i] as number;
    idText[to] = HEX_DIGITS[b >> 4] as number;
    idText[to + 1] = HEX_DIGITS[b & 15] as number;
  }
  return idText.toString('latin1', 0, 36);
}

/** The client's `X-Request-Id` when sane, else a new UUID (Note [Request ids]). */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_ID.test(header) ? header : newRequestId();
}

/** A failed request's error, as logged. */
export interface RequestFailure {
  readonly code: string;
  readonly message: string;
  readonly path?: string | undefined;
}

/** Request headers by lower-case name, as node:http gives them. */
export type ClientHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** One request's context. */
export class RequestContext implements Cancellation {
  readonly clientAddress: string | undefined;
  /** Note [Request ids]. */
  readonly requestId: string;
  /** When the request arrived (performance.now(); v2's execution time counts from there). */
  readonly startedAt: number = performance.now();
  /** The request's span when tracing, else null (Note [Tracing off costs a null check]). */
  trace: Span | null = null;
  /** The route template that served the request (`/v1/graphql`, `/api/rest/*`), once routed; null: none matched. */
  route: string | null = null;
  /** The metadata or query API operation type, once the API accepted it (the request span's name: Note [Span names and routes]). */
  operation: string | null = null;
  /** The session once authenticated (the http-log's `user_vars`). */
  session: Session | null = null;
  /** Why the request failed, when it did (the http-log's `error`; an EngineError fits). */
  failure: RequestFailure | null = null;
  /** The client's request headers (actions and remote schemas with `forward_client_headers` send them on); set by server/, the object the HTTP layer has, not a copy. */
  headers: ClientHeaders | undefined = undefined;
  /** The body's bytes and content coding as written by the fast path (the http-log's; null: read the response's headers). */
  responseSize: number | null = null;
  contentEncoding: string | null = null;
  #cancelled = false;
  #hook: (() => void) | null = null;

  constructor(clientAddress: string | undefined, requestId: string = newRequestId()) {
    this.clientAddress = clientAddress;
    this.requestId = requestId;
  }

  get cancelled(): boolean {
    return this.#cancelled;
  }

  watch(hook: () => void): void {
    if (this.#cancelled) hook();
    else this.#hook = hook;
  }

  unwatch(): void {
    this.#hook = null;
  }

  /** The client went away: runs the hook once. */
  cancel(): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    const hook = this.#hook;
    this.#hook = null;
    if (hook !== null) hook();
  }
}
