/**
 * Storage of asynchronous actions in the metadata database: one row per
 * submitted action in `engine_metadata.action_log` with its input, session,
 * state and result. Only SQL lives here; actions/async-store.ts and
 * actions/worker.ts decide when to call it.
 *
 * Note [Async action leases]: a worker claims rows by setting `claimed_until`
 * (now + the action's timeout + a margin) in one `UPDATE … FOR UPDATE SKIP
 * LOCKED`, so engines sharing the database never take the same row at once.
 * A row still `processing` after its lease ran out belongs to a worker that
 * died mid-call (kill -9): it is claimed again and the handler called again,
 * so every submitted action ends `completed` or `error` (at-least-once, as v2).
 *
 * Note [Action result notifications]: storing a result or an error NOTIFYs
 * `engine_action_result` with the action's id in the same statement, so the
 * notification is delivered at its commit, to every engine listening on the
 * metadata database (the worker that ran the handler may be another
 * engine's). Subscriptions to an action's result (subscriptions/service.ts)
 * read the row again only when their id is announced: no polling.
 */
import pg from 'pg';
import { ensureEngineTables } from './metadata-storage.ts';

/** A submitted action as a worker takes it. */
export interface ClaimedAction {
  readonly id: string;
  readonly action: string;
  readonly input: unknown;
  readonly sessionVariables: Record<string, string>;
  readonly requestHeaders: Record<string, string>;
  readonly requestQuery: string;
  readonly attempts: number;
}

/** A stored action as the result query reads it. */
export interface StoredAction {
  readonly id: string;
  readonly action: string;
  readonly createdAt: string;
  readonly status: 'created' | 'processing' | 'completed' | 'error';
  readonly output: unknown;
  readonly errors: unknown;
  readonly sessionVariables: Record<string, string>;
}

/** The store's pool and statements. */
export interface ActionStorage {
  insert(row: { id: string; action: string; input: unknown; sessionVariables: unknown; requestHeaders: unknown; requestQuery: string }): Promise<void>;
  /** Claims up to `limit` pending rows (new, or processing with an expired lease) for `leaseSeconds`. */
  claim(worker: string, limit: number, leaseSeconds: (action: string) => number): Promise<ClaimedAction[]>;
  complete(id: string, output: unknown): Promise<void>;
  fail(id: string, errors: unknown): Promise<void>;
  read(id: string, action: string): Promise<StoredAction | null>;
  /** Deletes the action's rows through `handle`, a client of a transaction on the metadata database (Note [Effects]). */
  clearIn(handle: unknown, action: string): Promise<void>;
  /** Rows not yet completed or failed (tests, shutdown). */
  pending(): Promise<number>;
  /**
   * Listens for stored results (Note [Action result notifications]): `stored(id)`
   * after each commit of a result or an error; `lost()` when the listening
   * connection was lost (notifications may have been missed) and again once it
   * is back. Reconnects by itself; resolves after the first attempt to listen.
   */
  listen(stored: (id: string) => void, lost: () => void): Promise<ResultListener>;
  close(): Promise<void>;
}

/** A LISTEN connection on the metadata database. */
export interface ResultListener {
  /** Whether the connection listens now. */
  readonly listening: boolean;
  close(): Promise<void>;
}

const RESULT_CHANNEL = 'engine_action_result';

/** The LISTEN connection of Note [Action result notifications], reconnecting after a loss. */
class PostgresResultListener implements ResultListener {
  readonly #url: string;
  readonly #stored: (id: string) => void;
  readonly #lost: () => void;
  #client: pg.Client | null = null;
  #closed = false;
  #retry: NodeJS.Timeout | null = null;
  listening = false;

  constructor(url: string, stored: (id: string) => void, lost: () => void) {
    this.#url = url;
    this.#stored = stored;
    this.#lost = lost;
  }

  /** Connects and listens; on failure retries every 500 ms, calling `lost` once it listens again. */
  async connect(reconnect: boolean): Promise<void> {
    const client = new pg.Client({ connectionString: this.#url });
    client.on('notification', (m) => {
      if (m.channel === RESULT_CHANNEL && m.payload !== undefined) this.#stored(m.payload);
    });
    const onLoss = (): void => {
      if (this.#client !== client) return;
      this.#client = null;
      this.listening = false;
      client.removeAllListeners('error');
      client.on('error', () => {});
      void client.end().catch(() => {});
      if (this.#closed) return;
      this.#lost();
      this.#scheduleRetry();
    };
    client.on('error', onLoss);
    client.on('end', onLoss);
    this.#client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${RESULT_CHANNEL}`);
    } catch {
      onLoss();
      return;
    }
    if (this.#closed || this.#client !== client) return;
    this.listening = true;
    // Results stored while nobody listened: whoever waits reads again.
    if (reconnect) this.#lost();
  }

  #scheduleRetry(): void {
    if (this.#closed || this.#retry !== null) return;
    this.#retry = setTimeout(() => {
      this.#retry = null;
      void this.connect(true);
    }, 500);
    this.#retry.unref();
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.listening = false;
    if (this.#retry !== null) clearTimeout(this.#retry);
    const c = this.#client;
    this.#client = null;
    if (c !== null) await c.end().catch(() => {});
  }
}

const SCHEMA_LOCK_KEY = 727_017;

/** Marks a table whose `request_headers` were scrubbed (Note [Stored request headers]). */
const HEADERS_COMMENT = 'forwardable client headers of a pending call only; no credentials; emptied when the call ends';

/**
 * Note [Stored request headers]
 * `request_headers` holds what the worker forwards when it calls the handler
 * (auth/forwarded-headers.ts, Note [Forwarded client headers]): never the
 * admin secret or session headers, and nothing once the call has ended
 * (complete/fail empty it, so an Authorization or Cookie does not outlive
 * the call). Engines before issue 29 stored every client header, admin
 * secret included: once per database (the column comment marks it done) the
 * headers of ended calls are emptied and those of pending ones lose their
 * `x-engine-*` and `x-hasura-*` entries. The worker filters what it sends
 * again in any case (actions/handler.ts).
 */
const SCRUB_STORED_HEADERS = `DO $scrub$
BEGIN
  IF col_description('engine_metadata.action_log'::regclass,
       (SELECT attnum FROM pg_attribute WHERE attrelid = 'engine_metadata.action_log'::regclass AND attname = 'request_headers'))
     IS DISTINCT FROM '${HEADERS_COMMENT}' THEN
    UPDATE engine_metadata.action_log SET request_headers = '{}'::jsonb
     WHERE status NOT IN ('created', 'processing') AND request_headers <> '{}'::jsonb;
    UPDATE engine_metadata.action_log l
       SET request_headers = COALESCE(
             (SELECT jsonb_object_agg(e.key, e.value) FROM jsonb_each(l.request_headers) AS e
               WHERE lower(e.key) NOT LIKE 'x-engine-%' AND lower(e.key) NOT LIKE 'x-hasura-%'),
             '{}'::jsonb)
     WHERE status IN ('created', 'processing') AND request_headers <> '{}'::jsonb;
    COMMENT ON COLUMN engine_metadata.action_log.request_headers IS '${HEADERS_COMMENT}';
  END IF;
END
$scrub$`;

/** Opens a small pool on the metadata database and creates the table if missing. */
export async function openActionStorage(url: string): Promise<ActionStorage> {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => {
    // An idle client lost its server; the next query reconnects.
  });
  pool.on('connect', (client) => client.on('error', () => {})); // Note [Errors of checked-out clients] in connection.ts
  await ensureEngineTables(pool, SCHEMA_LOCK_KEY, [
    `CREATE TABLE IF NOT EXISTS engine_metadata.action_log (
      id uuid PRIMARY KEY,
      action_name text NOT NULL,
      input jsonb NOT NULL,
      session_variables jsonb NOT NULL,
      request_headers jsonb NOT NULL,
      request_query text NOT NULL,
      status text NOT NULL DEFAULT 'created',
      response_payload jsonb,
      errors jsonb,
      attempts integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      claimed_by text,
      claimed_until timestamptz
    )`,
    "CREATE INDEX IF NOT EXISTS action_log_pending ON engine_metadata.action_log (created_at) WHERE status IN ('created', 'processing')",
    SCRUB_STORED_HEADERS,
  ]);
  return {
    async insert(row) {
      await pool.query(
        'INSERT INTO engine_metadata.action_log (id, action_name, input, session_variables, request_headers, request_query) VALUES ($1, $2, $3, $4, $5, $6)',
        [row.id, row.action, JSON.stringify(row.input), JSON.stringify(row.sessionVariables), JSON.stringify(row.requestHeaders), row.requestQuery],
      );
    },
    async claim(worker, limit, leaseSeconds) {
      // Claim first with a short lease, then extend each row's lease to its action's timeout.
      const res = await pool.query<{
        id: string;
        action_name: string;
        input: unknown;
        session_variables: Record<string, string>;
        request_headers: Record<string, string>;
        request_query: string;
        attempts: number;
      }>(
        `UPDATE engine_metadata.action_log l
            SET status = 'processing', claimed_by = $1, claimed_until = now() + interval '60 seconds', attempts = l.attempts + 1
          WHERE l.id IN (
            SELECT id FROM engine_metadata.action_log
             WHERE status = 'created' OR (status = 'processing' AND claimed_until < now())
             ORDER BY created_at
             FOR UPDATE SKIP LOCKED
             LIMIT $2)
        RETURNING l.id, l.action_name, l.input, l.session_variables, l.request_headers, l.request_query, l.attempts`,
        [worker, limit],
      );
      const rows = res.rows;
      if (rows.length > 0) {
        await pool.query(
          `UPDATE engine_metadata.action_log l SET claimed_until = now() + make_interval(secs => v.secs)
             FROM unnest($1::uuid[], $2::float8[]) AS v(id, secs)
            WHERE l.id = v.id AND l.claimed_by = $3`,
          [rows.map((r) => r.id), rows.map((r) => leaseSeconds(r.action_name)), worker],
        );
      }
      return rows.map((r) => ({
        id: r.id,
        action: r.action_name,
        input: r.input,
        sessionVariables: r.session_variables,
        requestHeaders: r.request_headers,
        requestQuery: r.request_query,
        attempts: r.attempts,
      }));
    },
    async complete(id, output) {
      await pool.query(
        `WITH done AS (
           UPDATE engine_metadata.action_log SET status = 'completed', response_payload = $2, claimed_until = NULL, request_headers = '{}'
            WHERE id = $1 AND status <> 'completed' RETURNING id)
         SELECT pg_notify('${RESULT_CHANNEL}', id::text) FROM done`,
        [id, JSON.stringify(output)],
      );
    },
    async fail(id, errors) {
      await pool.query(
        `WITH done AS (
           UPDATE engine_metadata.action_log SET status = 'error', errors = $2, claimed_until = NULL, request_headers = '{}'
            WHERE id = $1 AND status <> 'completed' RETURNING id)
         SELECT pg_notify('${RESULT_CHANNEL}', id::text) FROM done`,
        [id, JSON.stringify(errors)],
      );
    },
    async read(id, action) {
      const res = await pool.query<{
        id: string;
        action_name: string;
        created_at: string;
        status: StoredAction['status'];
        response_payload: unknown;
        errors: unknown;
        session_variables: Record<string, string>;
      }>(
        `SELECT id, action_name, to_json(created_at) #>> '{}' AS created_at, status, response_payload, errors, session_variables
           FROM engine_metadata.action_log WHERE id = $1 AND action_name = $2`,
        [id, action],
      );
      const r = res.rows[0];
      if (r === undefined) return null;
      return {
        id: r.id,
        action: r.action_name,
        createdAt: r.created_at,
        status: r.status,
        output: r.response_payload,
        errors: r.errors,
        sessionVariables: r.session_variables,
      };
    },
    async clearIn(handle, action) {
      await (handle as pg.ClientBase).query('DELETE FROM engine_metadata.action_log WHERE action_name = $1', [action]);
    },
    async pending() {
      const res = await pool.query<{ n: string }>("SELECT count(*) AS n FROM engine_metadata.action_log WHERE status IN ('created', 'processing')");
      return Number(res.rows[0]?.n ?? 0);
    },
    async listen(stored, lost) {
      const listener = new PostgresResultListener(url, stored, lost);
      await listener.connect(false);
      return listener;
    },
    async close() {
      await pool.end();
    },
  };
}
