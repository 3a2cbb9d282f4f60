/**
 * A PostgreSQL source connection: a pg.Pool behind the SourceConnection
 * interface. Every value comes back as text (no client-side type parsing),
 * because results are JSON built by the database and passed on as text.
 *
 * Clients run in pg's pipeline mode: a query is written to the socket without
 * waiting for the previous one's answer. Callers awaiting each query see no
 * difference; a transaction's statements (BEGIN, the mutation statements,
 * COMMIT) are written together and cost one round trip. Each query keeps its
 * own Sync, so an error fails only its statement and, inside BEGIN, the rest
 * of the transaction (the server answers COMMIT of a failed transaction with
 * a rollback).
 */
import pg from 'pg';
import { pingDatabase } from './metadata-db/metadata-storage.ts';
import { pgConnectionConfig, type PostgresTls } from './ssl.ts';
import { isConnectFailure, isUnrunFailure, retryDelay } from './retries.ts';
import { ByteStringQuery, CellBytesClient, toByteString } from './answer-bytes.ts';
import { FirstCellQuery, type QueryCallback } from './first-cell-query.ts';
import { TransactionStatementError, type BoundStatement, type DatabasePeer, type PoolStats, type RunOptions, type SourceConnection } from '../backend.ts';

/** Pool settings of a source (v2 `pool_settings`, already resolved). */
export interface PostgresPoolSettings {
  readonly maxConnections?: number;
  readonly idleTimeoutSeconds?: number;
  readonly connectionLifetimeSeconds?: number;
  readonly connectTimeoutSeconds?: number;
  /** Statement timeout of every connection, in ms (0 or absent: none); see Note [Statement timeout]. */
  readonly statementTimeoutMs?: number;
  /** v2 `retries`: how many times a statement that could not run is tried again (absent: 0 here; configuration.ts gives v2's default 1); Note [Retries after connection errors]. */
  readonly retries?: number;
}

/**
 * Note [Retries after connection errors]
 * What v2 does (pg-client-hs, Database.PG.Query.Connection and .Pool): a
 * source's `pool_settings.retries` (default 1; the metadata database's is
 * `--retries` / HASURA_GRAPHQL_NO_OF_RETRIES, default 1) is the retry policy
 * of every connection: 100 ms doubling between tries (exponentialBackoff),
 * at most `retries` tries again, and never a wait of 6 s or more
 * (limitRetriesByDelay, so at most 6 whatever the setting). It applies twice:
 * opening a connection (initPQConn: any failure to connect is tried again, a
 * refused connection, a server starting up or shutting down, too many
 * clients, a refused password), and each statement (retryOnConnErr around
 * execQuery/execCmd/execMulti): when libpq finds the connection bad after a
 * statement, the connection is reset (PQreset: closed and opened again) and
 * the same statement sent again. Reads run without a transaction; a mutation
 * runs BEGIN, its statements and COMMIT as separate round trips, and the retry
 * is per statement, so a mutation statement retried after a reset runs on a
 * new session outside the transaction the first BEGIN opened, and a COMMIT
 * whose connection dropped is sent again on a new session (which answers
 * "there is no transaction in progress" as a warning) and reported as a
 * success whether or not the first one committed. Out of retries the client
 * gets `postgres-error` "connection error" with libpq's message as
 * `internal` (admins only), or `postgres-max-connections-error` "max
 * connections reached on postgres" for "too many clients" (Hasura.Base.Error,
 * FromPGConnErr).
 * What the engine does: the same setting, default, waits and bound, and the
 * same errors (errors.ts), but a statement is tried again only when the server
 * cannot have committed anything of it, so a mutation runs at most once:
 * - its checkout failed to open a connection (not a wait for a busy pool's
 *   free connection past `pool_timeout`, which no retry would shorten);
 * - pg refused it because its client had already lost the connection ("not
 *   queryable": nothing was written);
 * - writing it failed with EPIPE: the local end already knew the peer had
 *   reset the connection, so this write and every later one were not sent,
 *   and COMMIT is a transaction's last write;
 * - the server answered it with a FATAL (or PANIC) error, which ends the
 *   backend at once: it runs nothing after, and a FATAL ends an open
 *   transaction block by aborting it. This is what a pooled connection whose
 *   backend was ended while idle answers (`pg_terminate_backend`, a fast
 *   shutdown, `idle_session_timeout`): the backend sent FATAL and closed, and
 *   the engine read it only after writing its statement (a failover or
 *   restart seen before its close was read). For a transaction, only a FATAL
 *   answering a statement before COMMIT counts: one answering COMMIT may
 *   follow a commit.
 * A connection that ended with no FATAL after the statement was written (EOF,
 * ECONNRESET: a crash restart, a cut network, a proxy that died after passing
 * the bytes on) may have run it, even committed it, so it is not tried again,
 * for reads either (queryJsonText also runs single-statement mutations, and
 * does not know which it runs); there the engine retries less than v2. A
 * statement cancelled or past its statement timeout (ERROR, not FATAL) is
 * never tried again. A transaction is tried again whole, on another
 * connection, never statement by statement. The wait before a retry also lets
 * pg-pool drop the other idle connections whose close has arrived meanwhile,
 * so the retry gets a live one or a new one (v2 resets the same connection); a
 * request cancelled while waiting is answered as cancelled. The metadata
 * database's pool is a RetryingPool (retries.ts) with v2's `--retries`
 * (ENGINE_GRAPHQL_NO_OF_RETRIES, default 1): the same rule for its `query`,
 * checkouts and BEGIN. The source pool as `queryable` (introspection, the DDL stamp, the
 * event log) has no retries: its users poll again. Tested in
 * test/integration/backends/postgres-retries.test.ts.
 * The retry is decided on the failure path only; a statement that succeeds
 * costs what it did. 2026-11-28, 5fbd7e1 against a9ba989, `node
 * test/bench/request-path.ts <url> CustomerInvoices admin 20000 2`, five
 * alternated pairs at load 10-13 (warm run, engine user CPU per request, then
 * minus the same run's bare pg pool): before 27.0 24.7 33.1 24.7 23.5 µs
 * (3.5 2.3 4.5 -2.8 0.0), after 21.4 28.9 28.9 25.3 25.0 µs (0.1 0.1 0.4
 * -1.7 -0.4); AlbumByPK, four pairs: before 11.5-19.9, after 12.0-16.3 µs.
 */

/**
 * Note [Statement timeout]
 * Every request statement is bounded by a statement timeout
 * (ENGINE_GRAPHQL_STATEMENT_TIMEOUT, default 60 s), given to PostgreSQL as a
 * startup parameter of each pooled connection, so it costs nothing per
 * request. Setting it per request instead needs a transaction around each
 * read (a read runs without one): measured with the one path that does so, a
 * role's `time_limit` (`set_config(…, true)` after BEGIN, Note [API limits]
 * in execute/api-limits.ts), AlbumByPK as `customer` on Chinook
 * (test/bench/request-path.ts, 20,000 requests × 3 rounds, twice) went from
 * 4,000-7,200 requests/s at 36-48 µs user CPU per request to 1,850-2,650/s at
 * 67-76 µs (under a machine load average near 19, so only the ratio means
 * anything). So only requests of a role with a `time_limit` pay for it. `run_sql` transactions lift the
 * timeout (`SET LOCAL statement_timeout = 0`): migrations may run long, and
 * only admins call it.
 *
 * Note [Cancel on disconnect]
 * When a request's client goes away, its running statement is cancelled with
 * the protocol's cancel request (a new connection carrying the backend's pid
 * and secret key; no pooled connection is needed, unlike
 * `pg_cancel_backend`, so it works when the pool is exhausted). The cancel
 * arrives asynchronously, possibly after the statement finished, so the
 * connection is destroyed rather than returned to the pool: a late cancel
 * must not hit the next request's statement.
 */

/** Something that runs SQL: a pool or one checked-out client. */
export type PgQueryable = pg.Pool | pg.ClientBase;

/** A transaction kept open by {@link PostgresConnection.openTransaction}. */
export interface OpenTransaction {
  readonly client: pg.ClientBase;
  /** COMMIT; throws when the server refuses (the transaction is then gone). */
  commit(): Promise<void>;
  /** ROLLBACK; never throws. */
  rollback(): Promise<void>;
}

/**
 * Note [Request statements in callbacks]
 * A request statement (queryJsonText) is checked out, run and released in
 * pg's own callbacks: pg-pool's connect callback submits the FirstCellQuery,
 * and the query's callback releases the client and settles the one promise
 * the caller awaits. Awaiting the checkout, then the query, then releasing in
 * a `finally` (as before) kept each request's objects (the result string, the
 * query, the promise chain of three async steps) alive across the microtask
 * hops between the socket read and the release, long enough for V8's young
 * generation to copy them twice and promote them: in process
 * (test/bench/request-path.ts) the old heap grew 5-27 KB per request and V8's
 * collector cost 10 µs per request on CustomerInvoices and 24-38 µs on
 * ArtistAggregates, against 1-4 µs for a bare pg pool; released in the
 * callback, the old heap grew 130-160 B per request. Measured in engine
 * processes: Note [Request statements in callbacks, measured] below.
 * What the path keeps, tested in test/integration/backends/postgres-connection.test.ts:
 * - the statement's name and the unnamed retry of a stale one (Note [Named
 *   prepared statements]), now on the same client: the error ended only that
 *   statement, and the connection was dropped before on the uncancellable path;
 * - the cancel of a request whose client left (Note [Cancel on disconnect]); a
 *   request cancelled while it waited for a client now runs nothing and gives
 *   the client back as it is (before, it ran with a cancel sent behind it and
 *   the connection was dropped);
 * - a statement-timeout or SQL error keeps its connection (as on the
 *   cancellable path before; the uncancellable one dropped it), a connection
 *   the server ended is dropped by pg-pool, and a checkout that times out on an
 *   exhausted pool fails the request.
 * pg calls a query back twice when binding its values throws (the error, then
 * the ReadyForQuery of its Sync), from inside client.query: the callback
 * settles once, and releases after an error in a microtask, so that a client
 * handed on to a waiting request cannot get that request's query queued ahead
 * of the failed one.
 *
 * Note [Request statements in callbacks, measured]
 * 2026-11-28, 085f259 against c2eb4c3, load average 10-16 from other work.
 * In process, `node test/bench/request-path.ts <url> <op> admin <n> 2` (a
 * database from `serve.ts`), before/after alternated twice, the second
 * (warm) run of each: engine user CPU per request, collector pauses, old-heap
 * growth per request:
 *   AlbumByPK         16.6/17.6 → 15.5/14.3 µs, GC 1.9/0.8 → 1.4/0.4 µs, 189/210 → 4/4 B
 *   CustomerInvoices  39.1/40.1 → 34.8/37.7 µs, GC 1.3/1.7 → 1.0/1.2 µs, 633/1,324 → 13/13 B
 *   ArtistAggregates  85.6/90.1 → 75.0/77.4 µs, GC 34.8/26.5 → 2.8/11.5 µs, 14.6/15.7 KB → 100/127 B
 *     (before, a full collection every 4,000 requests; none after).
 * In engine processes over HTTP, `node test/bench/compare-engines.ts <085f259>
 * <c2eb4c3> --ops AlbumByPK,CustomerInvoices,ArtistAggregates --repeats 5
 * --seconds 3 [--gc]` (four runs, engine µs per request): AlbumByPK admin
 * 48→46, 43→51, 49→42, 45→42; CustomerInvoices 81-85 → 77-89 (admin), 82-90 →
 * 80-85 (customer); ArtistAggregates 212→185, 185→151, 189→215, 180→177, and
 * its collector pauses 48→17, 38→42, 36→13 µs per request. A fresh engine
 * process under `--trace-gc-nvp` (ArtistAggregates admin, 4 s after 3 s of
 * warm-up, alternated twice) promoted 21.7-21.9 KB per request before (the
 * whole 21 KB answer) and 102-492 B after, engine CPU 244/271 → 216/234 µs. In
 * a fifth run (`--gc`, the engines warmed on AlbumByPK first, so V8's young
 * generation had grown to its 16 MiB cap) neither side promoted much (86 and 79
 * B per request) and the cell read 185 → 167 µs; in a sixth, 177 → 183
 * (130 and 212 B). So the old path promoted the answer when young collections
 * came often (a young generation not yet grown, as after a start or after idle
 * shrank it), the new one does not; with the young generation at its cap the
 * two cost the same over HTTP.
 */

/** A request's cancellation, when it has one. */
type Cancel = RunOptions['cancel'];

/** The query of a request statement: its first cell as text, or (`bytes`) as a byte string (Note [Answer bytes]). */
function cellQuery(stmt: BoundStatement, name: string | undefined, bytes: boolean, done: QueryCallback): FirstCellQuery {
  // pg reads the values (prepareValue) and never changes the array.
  return bytes ? new ByteStringQuery(stmt.text, stmt.values as unknown[], name, done) : new FirstCellQuery(stmt.text, stmt.values as unknown[], name, done);
}

/**
 * Runs `text` with `values` and returns the first column of the first row as
 * text. With `name`, it runs as that named prepared statement (see Note
 * [Named prepared statements]). Note [First-cell queries] in first-cell-query.ts
 * says how.
 */
export async function queryFirstText(q: PgQueryable, text: string, values: readonly unknown[] = [], name?: string): Promise<string | null> {
  if (q instanceof pg.Pool) {
    const client = await q.connect();
    let failed = true;
    try {
      const cell = await firstCell(client, text, values, name);
      failed = false;
      return cell;
    } finally {
      // As pool.query does: a client whose query failed is not reused.
      client.release(failed);
    }
  }
  return await firstCell(q, text, values, name);
}

function firstCell(client: pg.ClientBase, text: string, values: readonly unknown[], name: string | undefined): Promise<string | null> {
  // pg reads the values (prepareValue) and never changes the array.
  const query = new FirstCellQuery(text, values as unknown[], name);
  return new Promise<string | null>((resolve, reject) => {
    (query as unknown as { callback: QueryCallback }).callback = (err) => (err === undefined || err === null ? resolve(query.first ?? null) : reject(err));
    void client.query(query);
  });
}

/**
 * Note [Named prepared statements]
 * Request statements run as named prepared statements, so each pooled
 * connection parses and plans a statement text once instead of on every
 * request (on the Chinook bench this more than halved PostgreSQL's CPU per
 * request on the nested queries; v2 prepares its statements too). A source
 * names its first MAX_NAMED_STATEMENTS distinct texts and keeps those names
 * for its life; later texts run unnamed, so what each server connection holds
 * stays bounded (until the pool recycles it, `connection_lifetime`). A
 * statement's result is one text column, so a schema change (after which
 * PostgreSQL re-plans) never changes its result type; a column type change
 * that its kept parameter types no longer fit retires the name and runs the
 * text unnamed once (see STALE_PREPARED_STATE). Poolers in transaction mode
 * need prepared-statement support (PgBouncer ≥ 1.21).
 */
const MAX_NAMED_STATEMENTS = 2000;

/** A role's time limit for one transaction (Note [Statement timeout]). */
const SET_TIMEOUT = `SELECT set_config('statement_timeout', $1, true)`;

/**
 * SQLSTATEs of a prepared statement outliving a schema change: PostgreSQL
 * re-plans it but keeps the parameter types of its first parse, so after a
 * column type change `col = $1` can stop resolving (42883 undefined_function,
 * 42804 datatype_mismatch, 42725 ambiguous_function; 0A000 for a changed
 * result type). The same text parsed afresh may well succeed.
 */
const STALE_PREPARED_STATE = new Set(['42883', '42804', '42725', '0A000']);

function isStalePreparedStatement(e: unknown): boolean {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' && STALE_PREPARED_STATE.has(code);
}

/** The error of a statement not run because its request was cancelled first. */
function cancelledError(): Error {
  return Object.assign(new Error('canceling statement due to user request'), { code: '57014' });
}

/** Sends the protocol's cancel request for `client`'s running statement (Note [Cancel on disconnect]). */
function sendCancel(client: pg.PoolClient): void {
  const c = client as unknown as { processID: number | null; secretKey: number | null; host: string; port: number };
  if (c.processID === null || c.secretKey === null) return;
  const con = new pg.Connection() as pg.Connection & { cancel(pid: number, key: number): void; connect(port: number | string, host?: string): void };
  const pid = c.processID;
  const key = c.secretKey;
  con.on('error', () => {});
  con.on('connect', () => {
    con.cancel(pid, key);
    con.stream.end();
  });
  if (c.host.startsWith('/')) con.connect(`${c.host}/.s.PGSQL.${c.port}`);
  else con.connect(c.port, c.host);
}

/**
 * Note [Errors of checked-out clients]
 * pg-pool listens for a client's 'error' event only while the client is idle
 * in the pool. When the server ends a connection (a shutdown, a failover,
 * `pg_terminate_backend`) while the client is checked out between two
 * statements, no query is waiting for the message, the client emits 'error'
 * with no listener, and the process dies of an uncaught exception (exit 1).
 * That was the `npm start` flake: a SIGTERM during the engine's start-up
 * stopped PostgreSQL while ensureEngineTables held a client between BEGIN and
 * its DDL, and the start exited 1 instead of 143. Every pool of the engine
 * therefore gives each new client a listener that ignores the event, once per
 * connection (nothing per checkout): the failure still reaches the holder as
 * the rejection of its next statement ("not queryable"), and release() drops
 * a client that is no longer queryable. test/integration/sources/
 * terminated-connection.test.ts crashes without it.
 */

/**
 * The database a URL names, for the database spans: host (or the `host`
 * parameter, a socket directory), port (default 5432) and database (default:
 * the user's name, as libpq). No credentials. A string that is not a URL
 * (libpq's `key=value` form) names only the system.
 */
export function peerOf(databaseUrl: string): DatabasePeer {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    return { system: 'postgresql' };
  }
  const host = url.searchParams.get('host') ?? url.hostname.replace(/^\[(.*)\]$/, '$1');
  const database = decodeURIComponent(url.pathname.slice(1)) || url.searchParams.get('dbname') || decodeURIComponent(url.username);
  const port = Number(url.port === '' ? (url.searchParams.get('port') ?? 5432) : url.port);
  return {
    system: 'postgresql',
    ...(database === '' ? {} : { namespace: database }),
    ...(host === '' ? {} : { address: host }),
    ...(Number.isInteger(port) ? { port } : {}),
  };
}

/** A pooled connection to one PostgreSQL source. */
export class PostgresConnection implements SourceConnection {
  readonly kind = 'postgres' as const;
  readonly #pool: pg.Pool;
  /** Statement text → its prepared-statement name. */
  readonly #names = new Map<string, string>();
  #nextName = 1;
  #closed = false;
  /** Whether connections start with a statement timeout (run_sql lifts it). */
  readonly #statementTimeout: boolean;
  /** v2 `retries` (Note [Retries after connection errors]). */
  readonly #retries: number;
  /** The database URL (LISTEN connections of live queries and of the event log open their own client). */
  readonly url: string;
  readonly maxConnections: number;
  readonly peer: DatabasePeer;
  /** What a client of its own connects with: the URL, and with a TLS setting its `ssl` option (Note [Source SSL] in ssl.ts). */
  readonly clientConfig: Readonly<pg.ClientConfig>;
  /** The TLS setting (null: the URL alone), for programs connecting with libpq (pg_dump). */
  readonly tls: PostgresTls | null;

  constructor(databaseUrl: string, settings: PostgresPoolSettings = {}, tls: PostgresTls | null = null) {
    this.url = databaseUrl;
    this.peer = peerOf(databaseUrl);
    this.maxConnections = settings.maxConnections ?? 50;
    this.tls = tls;
    this.clientConfig = pgConnectionConfig(databaseUrl, tls);
    this.#pool = new pg.Pool({
      ...this.clientConfig,
      max: this.maxConnections,
      idleTimeoutMillis: (settings.idleTimeoutSeconds ?? 180) * 1000,
      maxLifetimeSeconds: settings.connectionLifetimeSeconds ?? 600,
      connectionTimeoutMillis: (settings.connectTimeoutSeconds ?? 10) * 1000,
      pipeline: true,
      // Its DataRows can be taken as bytes (Note [Answer bytes] in answer-bytes.ts).
      Client: CellBytesClient,
      ...(settings.statementTimeoutMs === undefined || settings.statementTimeoutMs <= 0 ? {} : { statement_timeout: settings.statementTimeoutMs }),
    });
    this.#statementTimeout = (settings.statementTimeoutMs ?? 0) > 0;
    this.#retries = settings.retries ?? 0;
    // An idle client losing its server must not crash the process; the pool drops it.
    this.#pool.on('error', () => {});
    // A checked-out one neither (Note [Errors of checked-out clients]).
    this.#pool.on('connect', (client) => client.on('error', () => {}));
  }

  /**
   * Runs a statement returning one row with one column, and returns that
   * column as text: from checkout to release in pg's callbacks (Note [Request
   * statements in callbacks]), cancelled with `opts.cancel` (Note [Cancel on
   * disconnect]), and under a role's `opts.timeoutMs` in a transaction (Note
   * [Statement timeout]).
   */
  queryJsonText(stmt: BoundStatement, opts?: RunOptions): Promise<string | null> {
    if ((opts?.timeoutMs ?? null) !== null) return this.#queryInTransaction(stmt, opts);
    const cancel = opts?.cancel;
    if (cancel?.cancelled === true) return Promise.reject(cancelledError());
    return new Promise<string | null>((resolve, reject) => this.#firstCell(stmt, false, cancel, 0, resolve, reject));
  }

  /**
   * queryJsonText's cell as a byte string (Note [Answer bytes] in
   * answer-bytes.ts): the same checkout, retries and cancellation. Under a
   * role's time limit the text of the transaction path is converted.
   */
  queryJsonByteString(stmt: BoundStatement, opts?: RunOptions): Promise<string | null> {
    if ((opts?.timeoutMs ?? null) !== null) return this.#queryInTransaction(stmt, opts).then(toByteString);
    const cancel = opts?.cancel;
    if (cancel?.cancelled === true) return Promise.reject(cancelledError());
    return new Promise<string | null>((resolve, reject) => this.#firstCell(stmt, true, cancel, 0, resolve, reject));
  }

  /**
   * Try `attempt` (0: the first) of queryJsonText or (`bytes`) queryJsonByteString: checkout, statement
   * and release in pg's callbacks.
   */
  #firstCell(
    stmt: BoundStatement,
    bytes: boolean,
    cancel: Cancel,
    attempt: number,
    resolve: (cell: string | null) => void,
    reject: (e: unknown) => void,
  ): void {
    this.#pool.connect((connectError, client, release) => {
      // pg-pool: a checkout that failed or timed out (pool exhausted past connectTimeout) has no client.
      if (connectError !== undefined && connectError !== null) {
        if (isConnectFailure(connectError))
          this.#retryOr(attempt, cancel, connectError, () => this.#firstCell(stmt, bytes, cancel, attempt + 1, resolve, reject), reject);
        else reject(connectError);
        return;
      }
      const pooled = client as pg.PoolClient;
      let cancelled = false;
      if (cancel !== undefined) {
        // Cancelled while waiting for a client: nothing ran, so the client goes back as it is.
        if (cancel.cancelled) {
          release();
          return reject(cancelledError());
        }
        cancel.watch(() => {
          cancelled = true;
          sendCancel(pooled);
        });
      }
      let name = this.#nameOf(stmt.text);
      let settled = false;
      const done: QueryCallback = (e) => {
        // pg may call a query back twice (an error binding its values, then its Sync's ReadyForQuery).
        if (settled) return;
        if (e !== undefined && e !== null && name !== undefined && !cancelled && isStalePreparedStatement(e)) {
          // Prepared before a schema change that its kept parameter types no longer fit: retire the
          // name (the next use prepares a fresh one on every connection) and run this one unnamed, on
          // the same client (the error ended only this statement; its Sync was sent with it).
          this.#names.delete(stmt.text);
          name = undefined;
          query = cellQuery(stmt, undefined, bytes, done);
          void pooled.query(query);
          return;
        }
        settled = true;
        cancel?.unwatch();
        // A cancelled client is not reused (Note [Cancel on disconnect]); pg-pool drops one that lost its server.
        const destroy = cancelled;
        if (e === undefined || e === null) {
          release(destroy);
          resolve(query.first ?? null);
          return;
        }
        const unrun = !cancelled && isUnrunFailure(e);
        // An error may come from inside client.query (values pg cannot serialize): a client released
        // there could be handed on and its next query queued before this one. So after pg returns.
        // A connection the server ended is dropped now, before its close is read (a request could take it meanwhile).
        queueMicrotask(() => release(destroy || unrun));
        if (unrun) this.#retryOr(attempt, cancel, e, () => this.#firstCell(stmt, bytes, cancel, attempt + 1, resolve, reject), reject);
        else reject(e);
      };
      let query = cellQuery(stmt, name, bytes, done);
      void pooled.query(query);
    });
  }

  /**
   * After try `attempt` failed with `e` where the server ran nothing: runs
   * `again` after v2's wait, or rejects with `e` when no retry is left, or as
   * cancelled when the request is cancelled meanwhile (Note [Retries after
   * connection errors]).
   */
  #retryOr(attempt: number, cancel: Cancel, e: unknown, again: () => void, reject: (e: unknown) => void): void {
    const delay = this.#closed ? null : retryDelay(attempt, this.#retries);
    if (delay === null) return reject(e);
    const timer = setTimeout(() => {
      cancel?.unwatch();
      again();
    }, delay);
    cancel?.watch(() => {
      clearTimeout(timer);
      reject(cancelledError());
    });
  }

  /** v2's wait before another try of an async step, or the failure when no retry is left or the request was cancelled meanwhile. */
  async #waitToRetry(attempt: number, cancel: Cancel, e: unknown): Promise<void> {
    await new Promise<void>((resolve, reject) => this.#retryOr(attempt, cancel, e, resolve, reject));
  }

  /** queryJsonText under a role's time limit: the statement alone in a transaction that sets it. */
  async #queryInTransaction(stmt: BoundStatement, opts: RunOptions | undefined): Promise<string | null> {
    try {
      return (await this.transactionJsonText([stmt], opts))[0] ?? null;
    } catch (e) {
      throw e instanceof TransactionStatementError ? e.cause : e;
    }
  }

  /**
   * Runs one query on a client of its own and returns its rows: cancelled with
   * `opts.cancel` (Note [Cancel on disconnect]), under `opts.timeoutMs` inside a
   * transaction when given (Note [Statement timeout]). Multiplexed live queries
   * (live-query.ts) run this way.
   */
  async queryRows(config: pg.QueryArrayConfig, opts?: RunOptions): Promise<unknown[][]> {
    const cancel = opts?.cancel;
    for (let attempt = 0; ; attempt++) {
      if (cancel?.cancelled === true) throw cancelledError();
      const client = await this.#checkout(cancel);
      let cancelled = false;
      try {
        return await this.#rowsOn(client, config, opts, () => (cancelled = true));
      } catch (e) {
        if (cancelled || !isUnrunFailure(e)) throw e;
        await this.#waitToRetry(attempt, cancel, e);
      }
    }
  }

  /** One try of queryRows on `client` (released here); `onCancel` hears a cancel sent. */
  async #rowsOn(client: pg.PoolClient, config: pg.QueryArrayConfig, opts: RunOptions | undefined, onCancel: () => void): Promise<unknown[][]> {
    const cancel = opts?.cancel;
    let broken = false;
    cancel?.watch(() => {
      broken = true;
      onCancel();
      sendCancel(client);
    });
    try {
      const timeoutMs = opts?.timeoutMs ?? null;
      if (timeoutMs === null) return (await client.query(config)).rows as unknown[][];
      const begin = client.query('BEGIN');
      const timeout = client.query(`SELECT set_config('statement_timeout', $1, true)`, [String(timeoutMs)]);
      const run = client.query(config);
      const commit = client.query('COMMIT');
      const [b, t, r, c] = await Promise.allSettled([begin, timeout, run, commit]);
      // Without BEGIN or COMMIT the connection's state is unknown: it is not reused.
      if (b.status === 'rejected') {
        broken = true;
        throw b.reason;
      }
      if (t.status === 'rejected') throw t.reason;
      if (r.status === 'rejected') throw r.reason;
      if (c.status === 'rejected') {
        broken = true;
        throw c.reason;
      }
      return r.value.rows as unknown[][];
    } finally {
      cancel?.unwatch();
      client.release(broken);
    }
  }

  /** The prepared-statement name of `text`, or undefined once the bound is reached. */
  #nameOf(text: string): string | undefined {
    let name = this.#names.get(text);
    if (name === undefined && this.#names.size < MAX_NAMED_STATEMENTS) {
      name = `engine_${this.#nextName++}`;
      this.#names.set(text, name);
    }
    return name;
  }

  /**
   * Runs statements in order in one transaction, all written at once (one
   * round trip); any failure rolls back all and is thrown as a
   * TransactionStatementError naming the failed statement.
   */
  async transactionJsonText(stmts: readonly BoundStatement[], opts?: RunOptions): Promise<(string | null)[]> {
    const cancel = opts?.cancel;
    for (let attempt = 0; ; attempt++) {
      if (cancel?.cancelled === true) throw new TransactionStatementError(0, cancelledError());
      const client = await this.#checkout(cancel);
      let tried = await this.#transactionOn(client, stmts, opts, true);
      if ('failure' in tried && tried.stale) {
        // A name prepared before a schema change its parameter types no longer fit
        // (Note [Named prepared statements]): nothing committed, so the whole transaction once more, unnamed.
        for (const s of stmts) this.#names.delete(s.text);
        tried = await this.#transactionOn(await this.#checkout(cancel), stmts, opts, false);
      }
      if (!('failure' in tried)) return tried.values;
      if (!tried.unrun) throw tried.failure;
      // Nothing of it can have committed: the whole transaction again (Note [Retries after connection errors]).
      await this.#waitToRetry(attempt, cancel, tried.failure);
    }
  }

  /**
   * One try of transactionJsonText on `client` (released here): its answers,
   * or its failure, whether the server cannot have committed any of it, and
   * whether a named statement failed as stale. Its statements run as named
   * prepared statements when `named` (Note [Generic plans for mutations] in
   * compile-mutation.ts: unnamed, each was parsed and custom-planned on every
   * request).
   */
  async #transactionOn(
    client: pg.PoolClient,
    stmts: readonly BoundStatement[],
    opts: RunOptions | undefined,
    named: boolean,
  ): Promise<{ values: (string | null)[] } | { failure: TransactionStatementError; unrun: boolean; stale: boolean }> {
    const cancel = opts?.cancel;
    let broken = false;
    let cancelled = false;
    cancel?.watch(() => {
      broken = true;
      cancelled = true;
      sendCancel(client);
    });
    try {
      const begin = client.query('BEGIN');
      const timeoutMs = opts?.timeoutMs ?? null;
      // A role's time limit, for this transaction only (Note [Statement timeout]).
      const timeout = timeoutMs === null ? null : queryFirstText(client, SET_TIMEOUT, [String(timeoutMs)], this.#nameOf(SET_TIMEOUT));
      const runs = stmts.map((s) => queryFirstText(client, s.text, s.values, named ? this.#nameOf(s.text) : undefined));
      const commit = client.query('COMMIT');
      const settled = await Promise.allSettled([begin, ...(timeout === null ? [] : [timeout]), ...runs, commit]);
      const first = settled.findIndex((r) => r.status === 'rejected');
      if (first === -1) return { values: settled.slice(timeout === null ? 1 : 2, -1).map((r) => (r as PromiseFulfilledResult<string | null>).value) };
      const reason = (settled[first] as PromiseRejectedResult).reason;
      // EPIPE: COMMIT, the last write, was not sent; FATAL or not sent before COMMIT: the backend ended before it.
      const unrun = !cancelled && ((reason as { code?: unknown }).code === 'EPIPE' || (first < settled.length - 1 && isUnrunFailure(reason)));
      // A connection the server ended is dropped now, before its close is read.
      if (unrun) broken = true;
      const b = settled[0];
      if (b?.status === 'rejected') {
        // Without BEGIN the statements may have run on their own; the connection cannot be trusted.
        broken = true;
        return { failure: new TransactionStatementError(0, b.reason), unrun, stale: false };
      }
      if (timeout !== null && settled[1]?.status === 'rejected') return { failure: new TransactionStatementError(0, settled[1].reason), unrun, stale: false };
      const i = first - (timeout === null ? 1 : 2);
      if (i === stmts.length) broken = true;
      const stale = named && !cancelled && i < stmts.length && isStalePreparedStatement(reason);
      return { failure: new TransactionStatementError(Math.min(i, stmts.length - 1), reason), unrun, stale };
    } finally {
      cancel?.unwatch();
      client.release(broken);
    }
  }

  /**
   * Runs `fn` inside BEGIN..COMMIT on one client (ROLLBACK when it throws).
   * `begin` lets callers open the transaction differently (`BEGIN READ ONLY`).
   */
  async withTransaction<T>(fn: (client: PgQueryable) => Promise<T>, begin = 'BEGIN'): Promise<T> {
    // run_sql is not bounded by the request statement timeout (Note [Statement timeout]).
    const client = await this.#begun(begin, this.#statementTimeout);
    let broken = false;
    try {
      try {
        const result = await fn(client);
        await client.query('COMMIT');
        return result;
      } catch (e) {
        try {
          await client.query('ROLLBACK');
        } catch {
          broken = true;
        }
        throw e;
      }
    } finally {
      client.release(broken);
    }
  }

  /**
   * Opens a transaction on one client and keeps it open: the caller runs
   * statements on `client` and ends it with `commit` or `rollback` (a bulk's
   * `run_sql` statements, committed with the metadata; see Note [Effects] in
   * metadata/effects.ts). `begin` as in {@link withTransaction}.
   */
  async openTransaction(begin = 'BEGIN'): Promise<OpenTransaction> {
    const client = await this.#begun(begin, false);
    let done = false;
    const end = async (statement: 'COMMIT' | 'ROLLBACK'): Promise<void> => {
      if (done) return;
      done = true;
      let broken = false;
      try {
        await client.query(statement);
      } catch (e) {
        broken = true;
        throw e;
      } finally {
        client.release(broken);
      }
    };
    return { client, commit: async () => await end('COMMIT'), rollback: async () => await end('ROLLBACK').catch(() => {}) };
  }

  /** A pooled client, its checkout tried again while it fails to open a connection (Note [Retries after connection errors]). */
  async #checkout(cancel?: Cancel): Promise<pg.PoolClient> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.#pool.connect();
      } catch (e) {
        if (!isConnectFailure(e)) throw e;
        await this.#waitToRetry(attempt, cancel, e);
      }
    }
  }

  /**
   * A client in a transaction opened with `begin` (and the statement timeout
   * lifted when `untimed`): checkout and BEGIN are tried again after a
   * connection failure, since none of the caller's statements ran yet.
   */
  async #begun(begin: string, untimed: boolean): Promise<pg.PoolClient> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.#checkout();
      try {
        await client.query(begin);
        if (untimed) await client.query('SET LOCAL statement_timeout = 0');
        return client;
      } catch (e) {
        client.release(true);
        if (!isUnrunFailure(e)) throw e;
        await this.#waitToRetry(attempt, undefined, e);
      }
    }
  }

  /** The pool itself, for one-off queries (introspection). */
  get queryable(): PgQueryable {
    return this.#pool;
  }

  /** One round trip on a pooled connection (readiness). */
  async ping(): Promise<void> {
    await pingDatabase(this.#pool);
  }

  /** The pool's connections now (metrics). */
  poolStats(): PoolStats {
    return { total: this.#pool.totalCount, idle: this.#pool.idleCount, waiting: this.#pool.waitingCount };
  }

  /** Closes the pool after in-flight queries finish. Safe to call twice. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}
