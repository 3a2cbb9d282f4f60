/**
 * The retry policy of PostgreSQL connections, v2's `retries` (Note [Retries
 * after connection errors] in connection.ts): the waits and their bound,
 * which failures show the server ran nothing, and a pg.Pool that applies
 * them to its promise-form `connect` and `query` (the metadata database's).
 */
import pg from 'pg';

/** The longest wait before a retry, exclusive (v2's limitRetriesByDelay): at most 6 retries. */
const RETRY_DELAY_LIMIT_MS = 6000;

/** The wait before retry `attempt` (0: the first), or null when no retry is left (Note [Retries after connection errors]). */
export function retryDelay(attempt: number, retries: number): number | null {
  const delay = 100 * 2 ** attempt;
  return attempt < retries && delay < RETRY_DELAY_LIMIT_MS ? delay : null;
}

/** pg's failure of a checkout that waited past `connectionTimeoutMillis` for a busy pool's connection (not a connection failure). */
const POOL_WAIT_TIMEOUT = 'timeout exceeded when trying to connect';

/** Whether a checkout failed to open a connection (tried again), not a wait for a free one past the pool timeout. */
export function isConnectFailure(e: unknown): boolean {
  return !(e instanceof Error && e.message === POOL_WAIT_TIMEOUT);
}

/**
 * SQLSTATEs only ever sent as FATAL, the backend ending: admin_shutdown (a
 * terminated backend, a fast shutdown), crash_shutdown, cannot_connect_now,
 * idle_session_timeout. The severity pg reads is the localized one (an
 * lc_messages other than English words FATAL otherwise), so these count too.
 */
const BACKEND_END_STATES: ReadonlySet<unknown> = new Set(['57P01', '57P02', '57P03', '57P05']);

/** Whether an error with this severity and code ended its backend (FATAL, PANIC). */
export function isBackendEnd(severity: unknown, code: unknown): boolean {
  return severity === 'FATAL' || severity === 'PANIC' || BACKEND_END_STATES.has(code);
}

/**
 * Whether a statement's failure shows the server ran nothing of it: not sent
 * (the client had lost its connection, or EPIPE), or answered with FATAL/PANIC
 * (its backend ended). Note [Retries after connection errors].
 */
export function isUnrunFailure(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const { severity, code, message } = e as { severity?: unknown; code?: unknown; message?: unknown };
  if (isBackendEnd(severity, code)) return true;
  if (code === 'EPIPE') return true;
  return typeof message === 'string' && message.endsWith('is not queryable') && severity === undefined;
}

/** Resolves after `ms`. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A pg.Pool whose promise-form `connect` and `query` are tried again after
 * connection errors as a source's statements are (Note [Retries after
 * connection errors]): a checkout that fails to open a connection, a
 * statement the server cannot have run. The metadata database's pool (v2
 * retries its statements too, `--retries`, default 1). The callback forms
 * are pg-pool's own (its `query` checks out through them) and are not.
 */
export class RetryingPool extends pg.Pool {
  readonly #retries: number;

  constructor(config: pg.PoolConfig, retries: number) {
    super(config);
    this.#retries = retries;
  }

  override connect(): Promise<pg.PoolClient>;
  override connect(callback: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void): void;
  override connect(
    callback?: (err: Error | undefined, client: pg.PoolClient | undefined, done: (release?: unknown) => void) => void,
  ): Promise<pg.PoolClient> | void {
    if (callback !== undefined) return super.connect(callback);
    return this.#connectRetrying();
  }

  async #connectRetrying(): Promise<pg.PoolClient> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await super.connect();
      } catch (e) {
        const delay = isConnectFailure(e) ? retryDelay(attempt, this.#retries) : null;
        if (delay === null) throw e;
        await sleep(delay);
      }
    }
  }

  // pg's query has a dozen overloads; this one takes them all and hands the callback and stream forms on.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const [first] = args as [unknown];
    if (typeof args.at(-1) === 'function' || typeof (first as { submit?: unknown } | null)?.submit === 'function')
      return (super.query as (...a: unknown[]) => unknown)(...args);
    return this.#queryRetrying(args);
  }

  /** pool.query's checkout, statement and release, the statement tried again when the server cannot have run it. */
  async #queryRetrying(args: unknown[]): Promise<pg.QueryResult> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.#connectRetrying();
      try {
        const result = await (client.query as (...a: unknown[]) => Promise<pg.QueryResult>)(...args);
        client.release();
        return result;
      } catch (e) {
        // As pool.query does: a client whose statement failed is not reused.
        client.release(true);
        const delay = isUnrunFailure(e) ? retryDelay(attempt, this.#retries) : null;
        if (delay === null) throw e;
        await sleep(delay);
      }
    }
  }

  /** A client in a transaction opened with `begin`, checkout and BEGIN tried again after a connection failure (nothing ran yet). */
  async begin(begin = 'BEGIN'): Promise<pg.PoolClient> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.#connectRetrying();
      try {
        await client.query(begin);
        return client;
      } catch (e) {
        client.release(true);
        const delay = isUnrunFailure(e) ? retryDelay(attempt, this.#retries) : null;
        if (delay === null) throw e;
        await sleep(delay);
      }
    }
  }
}
