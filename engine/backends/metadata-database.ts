/**
 * The engine's own database as the layers outside backends/ see it: a
 * transaction open on it, and subscriptions to its notification channels.
 * The implementation (always PostgreSQL, as v2) is
 * postgres/metadata-db/database.ts, reached through registry.ts; see Note
 * [Metadata database] there.
 */

/**
 * A transaction open on the metadata database, committed by whoever opened
 * it: the metadata store's own write, or a `run_sql` transaction on a source
 * that is the metadata database too (Note [Effects] in metadata/effects.ts),
 * so that the source's SQL and the metadata write commit together. Only the
 * metadata database's storage reads what is inside.
 */
export interface MetadataTransaction {
  /** Tells a metadata transaction from any other value (the storage checks what it is given). */
  readonly metadataTransaction: true;
}

/** What a subscriber to one notification channel of the metadata database is told. */
export interface ChannelHandlers {
  /** A notification on the channel, with its payload. */
  notify(payload: string): void;
  /**
   * Notifications may have been missed: the listening connection was lost
   * (called then), and again once it listens again. Read the state afresh.
   */
  missed(): void;
}

/** A subscription to a channel; `close` ends it (the connection stays for the others). */
export interface ChannelSubscription {
  close(): void;
}
