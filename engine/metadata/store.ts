/**
 * The metadata store: the document with its resource_version in the metadata
 * database, and change notices between engine processes sharing it.
 *
 * Note [Metadata change propagation]
 * A write stores the document as resource_version + 1 (guarded by
 * `WHERE resource_version = old`, so two instances cannot both win) and sends
 * a NOTIFY in the same transaction carrying the writer's id, the new version
 * and which sources it introspected afresh. Other instances LISTEN (on the
 * metadata database's one LISTEN connection, Note [Metadata database]) and
 * reload within a moment. When that connection may have missed notices (lost,
 * and back) the store reads the version at once, and polls it every second
 * while it is down (and every 10 s even while it listens); a change seen only
 * by polling refreshes every source.
 *
 * Note [Document stamp]
 * A start validated the stored document against the document schema
 * (ajv): at 2,000 tables × 10 roles, compiling that schema's validator cost
 * 150-170 ms of CPU and running it over the 3 MiB document 40-60 ms, for
 * a document the engine itself wrote after its last change. So every write stores beside the document a stamp: a
 * SHA-256 of the stamp key (the engine's version and its stored-document
 * schema: Note [Stamp key] in document-schemas.ts) and the document's exact text
 * (the column is json, which keeps the text as sent). A load whose stamp
 * equals the one this engine computes for the text it read is `written`:
 * an engine with the same document schema wrote exactly this text from the
 * state it served, so the reader normalizes it without validating and
 * reaches the same state (the writer's document passed the same schema
 * when its parts came in; an engine's written document is checked to
 * validate unchanged in test/integration/metadata/document-stamp.test.ts).
 * Anything else is validated as before: a row edited by hand (its text no
 * longer matches the stamp, which the edit left alone), a document written
 * by another engine version or schema (another key), by an older engine
 * (no stamp, or one over another text), or converted from jsonb. So a bad
 * stored document gives the same error at start as without stamps. The
 * hash costs 2-4 ms per write at 3 MiB. Measured 2026-11-28 (load 8-14):
 * `node test/bench/document-parse-cost.ts` gives the validator's compile
 * 160 ms and the validation 29-53 ms of CPU; a start at 2,000 tables × 10
 * roles took 4,594 → 4,470 ms of engine CPU until every role answered and
 * 3,387 → 3,244 ms until /healthz (medians of 4 alternated starts of
 * 248fae0 without and with this: `node test/bench/start-profile.ts 2000 10
 * 4 /tmp/sp --before-root <checkout> --no-prof`).
 */
import { createHash } from 'node:crypto';
import { metadataStorage, type MetadataDatabase } from '../backends/registry.ts';
import type { ChannelSubscription, MetadataTransaction } from '../backends/metadata-database.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { Logger } from '../logger.ts';

const { ensureMetadataSchema, initializeMetadata, listenMetadata, loadMetadata, loadResourceVersion, saveMetadata, saveMetadataIn } = metadataStorage;
/** The stored document, and whether its stamp shows it written by an engine of the same stamp key (Note [Document stamp]). */
export type StoredMetadata = metadataStorage.StoredMetadata & { readonly written: boolean };

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
  readonly #db: MetadataDatabase;
  readonly #instance: string;
  readonly #logger: Logger;
  #subscription: ChannelSubscription | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;
  #lastSeen = 0;
  #onChange: ((c: MetadataChange) => void) | null = null;
  /** The stamp key of documents this engine writes, or null to write no stamp and trust none (Note [Document stamp]). */
  readonly #stampKey: string | null;

  private constructor(db: MetadataDatabase, instance: string, logger: Logger, stampKey: string | null) {
    this.#db = db;
    this.#instance = instance;
    this.#logger = logger;
    this.#stampKey = stampKey;
  }

  /** The stamp of document text `text` (Note [Document stamp]). */
  #stampOf(text: string): string | null {
    return this.#stampKey === null ? null : createHash('sha256').update(this.#stampKey).update('\n').update(text).digest('hex');
  }

  #document(metadata: unknown): metadataStorage.DocumentText {
    const text = JSON.stringify(metadata);
    return { text, stamp: this.#stampOf(text) };
  }

  #checked(stored: metadataStorage.StoredMetadata): StoredMetadata {
    return { ...stored, written: stored.stamp !== null && stored.stamp === this.#stampOf(stored.text) };
  }

  /** The URL of the metadata database. */
  get url(): string {
    return this.#db.url;
  }

  /**
   * Makes sure the schema exists in `db` (which the caller opened and
   * closes); documents are stamped with `stampKey` (Note [Document stamp]).
   */
  static async open(db: MetadataDatabase, instance: string, logger: Logger, stampKey: string | null = null): Promise<MetadataStore> {
    await ensureMetadataSchema(db);
    return new MetadataStore(db, instance, logger, stampKey);
  }

  /** Reads the stored document; when there is none, stores `initial` as version 1 first. */
  async loadOrInitialize(initial: unknown): Promise<StoredMetadata> {
    const stored = (await loadMetadata(this.#db)) ?? (await initializeMetadata(this.#db, this.#document(initial), 1));
    this.#lastSeen = Math.max(this.#lastSeen, stored.resourceVersion);
    return this.#checked(stored);
  }

  /** Reads the stored document (after a change notice). */
  async load(): Promise<StoredMetadata | null> {
    const stored = await loadMetadata(this.#db);
    return stored === null ? null : this.#checked(stored);
  }

  /**
   * Stores `metadata` as `expected + 1`; 409 `conflict` when another writer
   * stored first. Returns the new version. With `within` (a transaction open
   * on the metadata database, Note [Effects]), writes in it and leaves
   * committing to the caller. `alongside` runs in the same transaction
   * before the write.
   */
  async save(
    metadata: unknown,
    expected: number,
    refreshed: readonly string[] | 'all',
    within?: MetadataTransaction,
    alongside: ((tx: MetadataTransaction) => Promise<void>) | null = null,
  ): Promise<number> {
    const notice: Notice = { instance: this.#instance, resource_version: expected + 1, refreshed };
    const text = JSON.stringify(notice);
    const document = this.#document(metadata);
    const v =
      within === undefined
        ? await saveMetadata(this.#db, document, expected, text, alongside)
        : await saveMetadataIn(within, document, expected, text, alongside);
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
    this.#subscription = await listenMetadata(
      this.#db,
      (payload) => this.#onNotice(payload),
      () => this.#missed(),
    );
    this.#schedulePoll();
  }

  /** Notices may have been missed (the LISTEN connection lost, or back): read the version now. */
  #missed(): void {
    if (this.#closed) return;
    if (!this.#db.listening) this.#logger.log('schema-sync', 'warn', { message: 'metadata listener lost; polling until it is back' });
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    void this.#poll();
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
    if (this.#timer !== null) clearTimeout(this.#timer);
    const delay = this.#db.listening ? POLL_WHILE_LISTENING_MS : POLL_WHILE_LOST_MS;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.#poll();
    }, delay);
    this.#timer.unref();
  }

  async #poll(): Promise<void> {
    try {
      const v = await loadResourceVersion(this.#db);
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
    await this.#db.ping();
  }

  /** Stops watching (the metadata database stays open for its owner to close). */
  close(): void {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#subscription?.close();
    this.#subscription = null;
  }
}
