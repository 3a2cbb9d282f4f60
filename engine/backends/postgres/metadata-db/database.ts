/**
 * The engine's own database: one pool and one LISTEN connection for the
 * metadata store, asynchronous actions and scheduled events.
 *
 * Note [Metadata database]
 * Metadata is stored in PostgreSQL whatever the sources are (as v2), in
 * schema `engine_metadata`. boot.ts opens one MetadataDatabase and hands it
 * to its three users (metadata/store.ts, actions/runtime.ts,
 * events/scheduled/), which used to open a pool and a LISTEN connection each.
 * It owns:
 * - one pg.Pool (at most {@link POOL_MAX} connections) for every statement
 *   of the storage files of this folder;
 * - one LISTEN connection (notifications.ts) multiplexing every channel the
 *   engine listens to there: metadata changes, async action results,
 *   scheduled events. When it is lost it connects again by itself (250 ms,
 *   doubling to 5 s) and tells each subscriber `missed()` at the loss and
 *   again once it listens, so each re-reads what it watches; the users keep
 *   their own safety polls.
 * A transaction on it crosses layers as a typed {@link MetadataTransaction}
 * (backends/metadata-database.ts), not as `unknown`: the store's own write
 * makes one, and so does a `run_sql` transaction of the postgres backend
 * (its `metadataTransaction`), so that when a source is the metadata database
 * its SQL and the metadata write commit together (Note [Effects]).
 * Measured: one engine whose source is another database, connections to
 * the metadata database in pg_stat_activity (`datname` = it, `query LIKE
 * 'LISTEN%'` for the listeners) sampled each second once idle 12 s or more:
 * before, 4 with 2 LISTEN (5 with an async action defined, its worker
 * polling; a third LISTEN once an action result is subscribed); after, 2
 * with 1 LISTEN in every case. With the default source on the metadata
 * database itself (its pool's idle connection counted too): 5 (6 with an
 * async action) with 2 LISTEN before, 3 with 1 LISTEN after. test/integration/metadata/
 * metadata-database.test.ts holds an idle engine to one LISTEN connection.
 */
import type pg from 'pg';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import type { ChannelHandlers, ChannelSubscription, MetadataTransaction } from '../../metadata-database.ts';
import { Notifications } from './notifications.ts';
import { metadataClientConfig } from '../ssl.ts';
import { RetryingPool } from '../retries.ts';

/** Connections of the pool: the three users used to have 4 each, mostly idle. */
const POOL_MAX = 8;

/** A transaction on the metadata database: the client it runs on. */
class PostgresMetadataTransaction implements MetadataTransaction {
  readonly metadataTransaction = true;
  readonly client: pg.ClientBase;
  constructor(client: pg.ClientBase) {
    this.client = client;
  }
}

/** `client`'s open transaction as the metadata database's storage takes it (the caller commits it). */
export function metadataTransactionOn(client: pg.ClientBase): MetadataTransaction {
  return new PostgresMetadataTransaction(client);
}

/** The client of a transaction made by {@link metadataTransactionOn}. */
export function clientOf(tx: MetadataTransaction): pg.ClientBase {
  if (tx instanceof PostgresMetadataTransaction) return tx.client;
  throw new EngineError(ErrorCode.Unexpected, 'a transaction of another database was given to the metadata database', { status: 500 });
}

/** v2's default retries of the metadata database (`--retries`): Note [Retries after connection errors] in ../connection.ts. */
const DEFAULT_RETRIES = 1;

/** Idle pooled connections close after this long: longer than the 10 s polls, as a source's pool (180 s). */
const IDLE_TIMEOUT_MS = 180_000;

/** The engine's metadata database; see Note [Metadata database]. */
export class MetadataDatabase {
  readonly url: string;
  /** The pool the storage files of this folder run statements on; connection errors are retried as v2 does. */
  readonly pool: pg.Pool;
  /** The same pool, for its retried BEGIN. */
  readonly #retrying: RetryingPool;
  readonly #notifications: Notifications;

  private constructor(url: string, onListenerLost: (error: unknown) => void, retries: number) {
    this.url = url;
    // pg's default idle timeout (10 s) equals the polls' period (metadata version, scheduled events): each
    // poll opened a connection (fork and password exchange) that timed out before the next (issue 35).
    this.#retrying = new RetryingPool({ ...metadataClientConfig(url), max: POOL_MAX, idleTimeoutMillis: IDLE_TIMEOUT_MS }, retries);
    this.pool = this.#retrying;
    this.pool.on('error', () => {
      // An idle client lost its server; the next query connects again.
    });
    this.pool.on('connect', (client) => client.on('error', () => {})); // Note [Errors of checked-out clients] in ../connection.ts
    this.#notifications = new Notifications(url, onListenerLost);
  }

  /**
   * Opens the pool and checks the database can be reached. `onListenerLost`
   * hears each loss of the LISTEN connection (to log it); `retries` is v2's
   * `--retries` (ENGINE_GRAPHQL_NO_OF_RETRIES).
   */
  static async open(url: string, onListenerLost: (error: unknown) => void = () => {}, retries = DEFAULT_RETRIES): Promise<MetadataDatabase> {
    const db = new MetadataDatabase(url, onListenerLost, retries);
    try {
      await db.ping();
    } catch (e) {
      await db.pool.end().catch(() => {});
      throw e;
    }
    return db;
  }

  /** Subscribes to a channel on the shared LISTEN connection (the storage files name the channels). */
  async listen(channel: string, handlers: ChannelHandlers): Promise<ChannelSubscription> {
    return await this.#notifications.listen(channel, handlers);
  }

  /** Whether the LISTEN connection listens now (users poll more often while it does not). */
  get listening(): boolean {
    return this.#notifications.listening;
  }

  /**
   * Runs `fn` in a transaction and commits it; rolls back when `fn` throws
   * or answers `{ commit: false }`.
   */
  async transaction<T>(fn: (tx: MetadataTransaction) => Promise<{ readonly commit: boolean; readonly value: T }>): Promise<T> {
    const client = await this.#retrying.begin();
    try {
      const { commit, value } = await fn(metadataTransactionOn(client));
      await client.query(commit ? 'COMMIT' : 'ROLLBACK');
      return value;
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      client.release();
    }
  }

  /** One round trip (readiness). */
  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  /** Closes the LISTEN connection and the pool (after its users closed). */
  async close(): Promise<void> {
    await this.#notifications.close();
    await this.pool.end();
  }
}
