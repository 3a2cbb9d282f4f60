/**
 * Storage of asynchronous actions in the metadata database: one row per
 * submitted action in `engine_metadata.action_log` with its input, session,
 * state and result. Only SQL lives here; actions/runtime.ts decides when
 * to call it.
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
import type { ChannelSubscription, MetadataTransaction } from '../../metadata-database.ts';
import { clientOf, type MetadataDatabase } from './database.ts';
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

/** The statements of the store (on the metadata database's pool). */
export interface ActionStorage {
  insert(row: { id: string; action: string; input: unknown; sessionVariables: unknown; requestHeaders: unknown; requestQuery: string }): Promise<void>;
  /** Claims up to `limit` pending rows (new, or processing with an expired lease) for `leaseSeconds`. */
  claim(worker: string, limit: number, leaseSeconds: (action: string) => number): Promise<ClaimedAction[]>;
  complete(id: string, output: unknown): Promise<void>;
  fail(id: string, errors: unknown): Promise<void>;
  read(id: string, action: string): Promise<StoredAction | null>;
  /** Deletes the action's rows in `tx`, a transaction on the metadata database (Note [Effects]). */
  clearIn(tx: MetadataTransaction, action: string): Promise<void>;
  /** Rows not yet completed or failed (tests, shutdown). */
  pending(): Promise<number>;
  /**
   * Listens for stored results (Note [Action result notifications]) on the
   * metadata database's LISTEN connection: `stored(id)` after each commit of a
   * result or an error; `missed()` when the connection was lost
   * (notifications may have been missed) and again once it is back. Resolves
   * after the first attempt to listen.
   */
  listen(stored: (id: string) => void, missed: () => void): Promise<ChannelSubscription>;
}

const RESULT_CHANNEL = 'engine_action_result';

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

/** The store on the metadata database `db`, creating its table if missing. */
export async function openActionStorage(db: MetadataDatabase): Promise<ActionStorage> {
  const pool = db.pool;
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
    async clearIn(tx, action) {
      await clientOf(tx).query('DELETE FROM engine_metadata.action_log WHERE action_name = $1', [action]);
    },
    async pending() {
      const res = await pool.query<{ n: string }>("SELECT count(*) AS n FROM engine_metadata.action_log WHERE status IN ('created', 'processing')");
      return Number(res.rows[0]?.n ?? 0);
    },
    async listen(stored, missed) {
      return await db.listen(RESULT_CHANNEL, { notify: (id) => stored(id), missed });
    },
  };
}
