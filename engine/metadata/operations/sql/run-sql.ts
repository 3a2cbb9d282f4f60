/**
 * `run_sql` (`/v2/query` and legacy `/v1/query`): runs SQL on a source in a
 * transaction that stays open until the request's metadata is stored, and is
 * committed with it (an effect, see Note [Effects] in effects.ts): a `bulk`
 * whose later call fails leaves no trace of its SQL. `read_only` SQL runs in
 * `BEGIN READ ONLY` (or read-only inside a transaction this request already
 * holds on that database). Unless `read_only` or
 * `check_metadata_consistency: false`, the source is introspected again inside
 * the transaction and the result is an edit like any other: renamed tables
 * and columns are followed (renames.ts), and tracked objects that became
 * inconsistent refuse the call with `dependency-error`, or with `cascade` are
 * dropped (v2 compat).
 */
import type { Backend, SourceConnection, SqlTransaction } from '../../../backends/backend.ts';
import { findBackend } from '../../../backends/registry.ts';
import { resolveDatabaseUrl } from '../../../backends/source-preparer.ts';
import type { ReadySource } from '../../../catalog/prepared.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation, requireSource } from '../../define.ts';
import type { SourceMetadata } from '../../document.ts';
import { findSource } from '../../edit.ts';
import type { Effect } from '../../effects.ts';
import { argPath, type RunContext } from '../../operation.ts';
import { applyRenames, detectRenames } from '../../renames.ts';
import { runSqlArgs } from '../../schemas/args.ts';

interface RunSqlArgs {
  sql: string;
  source?: string;
  cascade?: boolean;
  check_metadata_consistency?: boolean;
  read_only?: boolean;
}

/** A transaction held open on a source's database until the store commits. */
interface SourceTransaction extends Effect {
  readonly tx: SqlTransaction;
}

const effectKey = (configKey: string): string => `source-transaction:${configKey}`;

/** The transaction this request holds on `source`'s database, opened on first use. */
async function sourceTransaction(
  ctx: RunContext,
  open: NonNullable<Backend['openSqlTransaction']>,
  source: SourceMetadata,
  prepared: ReadySource,
  conn: SourceConnection,
): Promise<SourceTransaction> {
  return await ctx.effect<SourceTransaction>(effectKey(prepared.configKey), async () => {
    const tx = await open(conn);
    const resolved = resolveDatabaseUrl(source.configuration.connection_info.database_url);
    // Same URL text means same database; another spelling of it is handled as another database (Note [Effects]).
    const isMetadataDatabase = 'url' in resolved && resolved.url === ctx.metadataDatabaseUrl;
    return {
      key: effectKey(prepared.configKey),
      description: `the SQL of source "${source.name}"`,
      tx,
      database: { configKey: prepared.configKey, introspector: tx.introspector, isMetadataDatabase, storeHandle: tx.storeHandle },
      beforeCommit: async () => await tx.prepareCommit(),
      afterCommit: async () => await tx.commit(),
      abandon: async () => await tx.rollback(),
    };
  });
}

/** The run-sql operation. */
export const runSql = defineOperation<RunSqlArgs>({
  mutates: true,
  schema: runSqlArgs,
  async run(ctx, args, call) {
    await ctx.flush();
    const sourceName = args.source ?? 'default';
    const source = requireSource(ctx, sourceName, call);
    const prepared = ctx.state.prepared.get(sourceName);
    const conn = prepared === undefined ? undefined : ctx.sql.preparer.connection(prepared.configKey);
    const backend = findBackend(source.kind);
    const runAlone = backend?.runSql;
    const open = backend?.openSqlTransaction;
    if (prepared === undefined || !prepared.ok || conn === undefined || runAlone === undefined || open === undefined) {
      const why = prepared !== undefined && !prepared.ok ? prepared.reason : 'it is not a postgres source';
      throw new EngineError(ErrorCode.InvalidConfiguration, `source "${sourceName}" is inconsistent: ${why}`, {
        path: argPath(call, 'source'),
      });
    }
    if (args.read_only === true) {
      const held = ctx.effects.find((e) => e.key === effectKey(prepared.configKey)) as SourceTransaction | undefined;
      const result =
        held === undefined
          ? await runAlone.call(backend, conn, args.sql, true, async (r) => await Promise.resolve(r))
          : await held.tx.runSql(args.sql, true);
      return { response: result };
    }
    const { tx } = await sourceTransaction(ctx, open.bind(backend), source, prepared, conn);
    const result = await tx.runSql(args.sql, false);
    if (args.check_metadata_consistency === false) return { response: result };
    const introspection = await tx.introspector.introspect();
    if (introspection.fingerprint === prepared.introspection.fingerprint) return { response: result };
    // v2 compat: renamed tables and columns are followed, not reported.
    const before = ctx.state;
    const doc = applyRenames(before.doc, sourceName, detectRenames(prepared.introspection, introspection), before.catalog);
    const ready = await ctx.sql.preparer.prepareFromIntrospection(findSource(doc, sourceName) ?? source, prepared, introspection, tx.introspector);
    await ctx.commitEdit({
      doc,
      touched: [],
      drop: { cascade: args.cascade === true },
      prepared: new Map([[sourceName, ready]]),
      path: argPath(call),
    });
    return { response: result };
  },
});
