/**
 * Effects of metadata operations, and the runner that commits them with the
 * store.
 *
 * Note [Effects]
 * An operation checks its args against the pending state, applies a pure
 * edit of the document (run.ts), and may declare effects: work outside the
 * document that must happen if and only if the metadata change is stored
 * (trigger DDL in a source database, rows of scheduled events, clean-up of
 * async action results, and today the SQL of `run_sql`). Effects are
 * collected for the whole request, a `bulk` included, and run by
 * {@link commitWithEffects} once every call succeeded:
 *
 *   1. `beforeCommit` of each effect: the last point where an effect may
 *      refuse the request with nothing stored (run_sql checks its deferred
 *      constraints here).
 *   2. The store writes the new document. When an effect holds a transaction
 *      on the metadata database itself (run_sql on a source whose URL is the
 *      metadata URL, the default set-up), the store writes inside that
 *      transaction and its `afterCommit` commits both at once: SQL and
 *      metadata are stored together or not at all. "The metadata database"
 *      means the same URL text after resolving `from_env`; another spelling
 *      of the same database is handled as a separate one (still correct, one
 *      step less atomic).
 *      An effect with `inStoreTransaction` does its work in the transaction
 *      the document is written in (the host's, or the store's own), just
 *      before the write: the rows of asynchronous actions that drop_action's
 *      `clear_data` deletes live in the metadata database, so they go exactly
 *      when the action's definition does. It runs only when the document
 *      changed.
 *   3. `afterCommit` of the other effects, in the order declared. The
 *      metadata is stored by now; a failure here cannot undo it and is
 *      reported to the caller (see {@link CommitOutcome.failed}).
 *
 * When any call, step 1 or step 2 fails, every effect is abandoned (its
 * transaction rolled back). The order of 2 before 3 was chosen because the
 * store's write is the step likely to fail (a 409 when another instance
 * stored first); a COMMIT after `SET CONSTRAINTS ALL IMMEDIATE` fails only
 * when the connection or server fails in between. With PostgreSQL's prepared
 * transactions a separate metadata database could join a two-phase commit,
 * but `max_prepared_transactions` is 0 by default, so it is not relied on.
 */
import type { Introspector } from '../backends/backend.ts';
import type { MetadataTransaction } from '../backends/metadata-database.ts';

/** Work a request does outside the document; see Note [Effects]. */
export interface Effect {
  /** One effect per key per request (`source-transaction:<configKey>`); later calls reuse it. */
  readonly key: string;
  /** What it is, for error messages (`the SQL of source "default"`). */
  readonly description: string;
  /**
   * A transaction open on a database (configuration key `configKey`): the
   * catalog reads of that database during the request go through it, and
   * when it is the metadata database the store writes in it too.
   */
  readonly database?: {
    readonly configKey: string;
    /** Reads of this database during the request go through the transaction. */
    readonly introspector: Introspector;
    readonly isMetadataDatabase: boolean;
    /** The transaction as the metadata store writes in it when `isMetadataDatabase` (absent: a backend whose database cannot be the metadata database). */
    readonly metadataTransaction: MetadataTransaction | undefined;
  };
  /**
   * Step 2: work in the metadata database's transaction `tx` that writes the
   * document. Committed or rolled back with the document.
   */
  inStoreTransaction?(tx: MetadataTransaction): Promise<void>;
  /** Step 1: may refuse the request; nothing is stored yet. */
  beforeCommit(): Promise<void>;
  /** Step 3 (or 2, for the effect holding the store's transaction): make it permanent. */
  afterCommit(): Promise<void>;
  /** The request failed: undo or release. Never throws. */
  abandon(): Promise<void>;
}

/** What {@link commitWithEffects} did. */
export interface CommitOutcome<T> {
  /** What `store` returned, or undefined when nothing needed storing. */
  readonly stored: T | undefined;
  /** Effects of step 3 that failed after the metadata was stored, with why. */
  readonly failed: ReadonlyArray<{ readonly effect: Effect; readonly error: unknown }>;
}

/** Abandons every effect (rolls back held transactions). */
export async function abandonEffects(effects: Iterable<Effect>): Promise<void> {
  await Promise.all([...effects].map(async (e) => await e.abandon()));
}

/** Work to run in the transaction that writes the document. */
export type AlongsideStore = (tx: MetadataTransaction) => Promise<void>;

/**
 * Runs steps 1–3 of Note [Effects]. `store` writes the document (through the
 * given client when an effect holds a transaction on the metadata database),
 * running `alongside` (the effects' `inStoreTransaction`, or null) in the
 * same transaction first; it is called only when `changed`. Throws, with
 * every effect abandoned, when step 1 or 2 fails.
 */
export async function commitWithEffects<T>(
  effects: readonly Effect[],
  changed: boolean,
  store: (within: MetadataTransaction | undefined, alongside: AlongsideStore | null) => Promise<T>,
): Promise<CommitOutcome<T>> {
  const host = effects.find((e) => e.database?.isMetadataDatabase === true && e.database.metadataTransaction !== undefined);
  const inStore = effects.filter((e) => e.inStoreTransaction !== undefined);
  const alongside: AlongsideStore | null =
    inStore.length === 0
      ? null
      : async (tx) => {
          for (const e of inStore) await e.inStoreTransaction?.(tx);
        };
  let stored: T | undefined;
  try {
    for (const e of effects) await e.beforeCommit();
    if (changed) stored = await store(host?.database?.metadataTransaction, alongside);
    if (host !== undefined) await host.afterCommit();
  } catch (e) {
    await abandonEffects(effects);
    throw e;
  }
  const failed: Array<{ effect: Effect; error: unknown }> = [];
  for (const e of effects) {
    if (e === host) continue;
    try {
      await e.afterCommit();
    } catch (error) {
      failed.push({ effect: e, error });
    }
  }
  return { stored, failed };
}
