/**
 * The metadata store: the document with its resource_version in the metadata
 * database, and change notices between engine processes sharing it.
 *
 * Note [Metadata change propagation]
 * A write stores the document as resource_version + 1 (guarded by
 * `WHERE resource_version = old`, so two instances cannot both win) and sends
 * a NOTIFY in the same transaction carrying the writer's id, the new version
 * and which sources it introspected afresh. Other instances LISTEN and reload
 * within a moment. If the LISTEN connection drops, the store polls the version
 * every second until it can LISTEN again (and every 10 s even while it can, in
 * case a notice was missed); a change seen only by polling refreshes every source.
 */
import pg from 'pg';
import { metadataStorage } from '../backends/registry.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { Logger } from '../logger.ts';

const { ensureMetadataSchema, initializeMetadata, listenMetadata, loadMetadata, loadResourceVersion, pingDatabase, saveMetadata, saveMetadataIn } =
  metadataStorage;
type StoredMetadata = metadataStorage.StoredMetadata;

/** A change made by another instance. */
export interface MetadataChange {
  readonly resourceVersion: number;
  /** Sources to introspect afresh: names, or all. */
  readonly refreshed: readonly string[] | 'all';
}

interface Notice {
  readonly instance: string;
  readonly resource_version: number;
  readonly refreshed: readonly string[] | 'all';
}

const POLL_WHILE_LOST_MS = 1_000;
const POLL_WHILE_LISTENING_MS = 10_000;

/** The stored metadata of one metadata database. */
export class MetadataStore {
  readonly #pool: pg.Pool;
  readonly #url: string;
  readonly #instance: string;
  readonly #logger: Logger;
  #listener: pg.Client | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;
  #lastSeen = 0;
  #onChange: ((c: MetadataChange) => void) | null = null;

  private constructor(url: string, instance: string, logger: Logger) {
    this.#url = url;
    this.#instance = instance;
    this.#logger = logger;
    this.#pool = new pg.Pool({ connectionString: url, max: 4 });
    this.#pool.on('error', () => {});
    this.#pool.on('connect', (client) => client.on('error', () => {})); // Note [Errors of checked-out clients] (backends/postgres/connection.ts)
  }

  /** The URL of the metadata database. */
  get url(): string {
    return this.#url;
  }

  /** Connects and makes sure the schema exists. */
  static async open(url: string, instance: string, logger: Logger): Promise<MetadataStore> {
    const store = new MetadataStore(url, instance, logger);
    try {
      await ensureMetadataSchema(store.#pool);
    } catch (e) {
      await store.#pool.end();
      throw e;
    }
    return store;
  }

  /** Reads the stored document; when there is none, stores `initial` as version 1 first. */
  async loadOrInitialize(initial: unknown): Promise<StoredMetadata> {
    const stored = (await loadMetadata(this.#pool)) ?? (await initializeMetadata(this.#pool, initial, 1));
    this.#lastSeen = Math.max(this.#lastSeen, stored.resourceVersion);
    return stored;
  }

  /** Reads the stored document (after a change notice). */
  async load(): Promise<StoredMetadata | null> {
    return await loadMetadata(this.#pool);
  }

  /**
   * Stores `metadata` as `expected + 1`; 409 `conflict` when another writer
   * stored first. Returns the new version. With `within` (a transaction's
   * handle from the metadata database's backend), writes in that transaction
   * and leaves committing to the caller. `alongside` runs in the same
   * transaction before the write (Note [Effects]).
   */
  async save(
    metadata: unknown,
    expected: number,
    refreshed: readonly string[] | 'all',
    within?: unknown,
    alongside: ((handle: unknown) => Promise<void>) | null = null,
  ): Promise<number> {
    const notice: Notice = { instance: this.#instance, resource_version: expected + 1, refreshed };
    const text = JSON.stringify(notice);
    // `within`: the client of a transaction open on this same database, committed by the caller (Note [Effects]).
    const v =
      within === undefined
        ? await saveMetadata(this.#pool, metadata, expected, text, alongside)
        : await saveMetadataIn(within as pg.ClientBase, metadata, expected, text, alongside);
    if (v === null) {
      throw new EngineError(ErrorCode.Conflict, 'metadata was changed by another engine instance; retry the call', {
        path: '$',
      });
    }
    this.#lastSeen = Math.max(this.#lastSeen, v);
    return v;
  }

  /** Starts watching for changes by other instances. */
  async watch(onChange: (c: MetadataChange) => void): Promise<void> {
    this.#onChange = onChange;
    await this.#listen();
    this.#schedulePoll();
  }

  async #listen(): Promise<void> {
    if (this.#closed) return;
    try {
      this.#listener = await listenMetadata(
        this.#url,
        (payload) => this.#onNotice(payload),
        (e) => this.#lost(e),
      );
    } catch (e) {
      this.#lost(e);
    }
  }

  #lost(e: unknown): void {
    if (this.#closed || this.#listener === null) {
      this.#listener = null;
      return;
    }
    this.#logger.log('schema-sync', 'warn', { message: 'metadata listener lost; polling until it is back', error: e });
    const l = this.#listener;
    this.#listener = null;
    void l.end().catch(() => {});
    // Poll at the short interval from now on, until LISTEN works again.
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#schedulePoll();
  }

  #onNotice(payload: string): void {
    let n: Notice;
    try {
      n = JSON.parse(payload) as Notice;
    } catch {
      return;
    }
    if (n.instance === this.#instance || n.resource_version <= this.#lastSeen) return;
    this.#lastSeen = n.resource_version;
    this.#onChange?.({ resourceVersion: n.resource_version, refreshed: n.refreshed });
  }

  #schedulePoll(): void {
    if (this.#closed) return;
    const delay = this.#listener === null ? POLL_WHILE_LOST_MS : POLL_WHILE_LISTENING_MS;
    this.#timer = setTimeout(() => void this.#poll(), delay);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    try {
      if (this.#listener === null) await this.#listen();
      const v = await loadResourceVersion(this.#pool);
      if (v !== null && v > this.#lastSeen) {
        this.#lastSeen = v;
        this.#onChange?.({ resourceVersion: v, refreshed: 'all' });
      }
    } catch (e) {
      this.#logger.log('schema-sync', 'warn', { message: 'metadata poll failed', error: e });
    } finally {
      this.#schedulePoll();
    }
  }

  /** One round trip to the metadata database (readiness). */
  async ping(): Promise<void> {
    await pingDatabase(this.#pool);
  }

  /** Stops watching and closes connections. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    const l = this.#listener;
    this.#listener = null;
    if (l !== null) await l.end().catch(() => {});
    await this.#pool.end();
  }
}
