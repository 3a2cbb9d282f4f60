/**
 * The transaction a metadata request holds on a source's database until the
 * store commits (an effect, Note [Effects] in effects.ts): the SQL of
 * `run_sql` and the event-trigger DDL of the same request run in it, so they
 * commit with the metadata, together when the source is the metadata database.
 */
import type { Backend, SourceConnection, SqlTransaction } from '../backends/backend.ts';
import { backendFor } from '../backends/registry.ts';
import { resolveEnv } from '../cli/env.ts';
import type { ReadySource } from '../catalog/prepared.ts';
import type { SourceMetadata } from '../model/document.ts';
import type { Effect } from './effects.ts';
import type { RunContext } from './operation.ts';

/** A transaction held open on a source's database until the store commits. */
export interface SourceTransaction extends Effect {
  readonly tx: SqlTransaction;
}

/** The key of the effect holding a transaction on the database of configuration `configKey`. */
export const sourceTransactionKey = (configKey: string): string => `source-transaction:${configKey}`;

/** The transaction this request holds on `source`'s database, opened on first use. */
export async function sourceTransaction(
  ctx: RunContext,
  open: NonNullable<Backend['openSqlTransaction']>,
  source: SourceMetadata,
  prepared: ReadySource,
  conn: SourceConnection,
): Promise<SourceTransaction> {
  return await ctx.effect<SourceTransaction>(sourceTransactionKey(prepared.configKey), async () => {
    const tx = await open(conn);
    const isMetadataDatabase = backendFor(source.kind).configuration.isDatabase(source.configuration, ctx.metadataDatabaseUrl, resolveEnv);
    return {
      key: sourceTransactionKey(prepared.configKey),
      description: `the SQL of source "${source.name}"`,
      tx,
      database: { configKey: prepared.configKey, introspector: tx.introspector, isMetadataDatabase, metadataTransaction: tx.metadataTransaction },
      beforeCommit: async () => await tx.prepareCommit(),
      afterCommit: async () => await tx.commit(),
      abandon: async () => await tx.rollback(),
    };
  });
}
