/**
 * `run_sql` (`/v2/query` and legacy `/v1/query`) and `mssql_run_sql`: runs SQL on a source in a
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
import type { TableNaming } from '../../../backends/backend.ts';
import type { SourceIntrospection } from '../../../backends/introspection.ts';
import { findBackend } from '../../../backends/registry.ts';
import { tableKey } from '../../../catalog/types.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation, requireSource } from '../../define.ts';
import type { SourceKind, SourceMetadata } from '../../../model/document.ts';
import { findSource } from '../../edit.ts';
import { argPath, type CallResult, type MetadataCall, type Operation, type RunContext } from '../../operation.ts';
import { applyRenames, detectRenames } from '../../renames.ts';
import { runSqlArgs, runSqlAtOnceArgs } from '../../../model/schemas/args.ts';
import { sourceTransaction, sourceTransactionKey, type SourceTransaction } from '../../source-transaction.ts';

interface RunSqlAtOnceArgs {
  sql: string;
  source: string;
  check_metadata_consistency?: boolean;
}

interface RunSqlArgs {
  sql: string;
  source?: string;
  cascade?: boolean;
  check_metadata_consistency?: boolean;
  read_only?: boolean;
}

/**
 * v2 compat: SQL may not overload a tracked function, nor make one VOLATILE (v2's run_sql
 * refuses both with `not-supported` at `$`, and the SQL is rolled back with the call).
 */
function refuseFunctionChanges(source: SourceMetadata, before: SourceIntrospection, after: SourceIntrospection, naming: TableNaming): void {
  const overloaded: string[] = [];
  for (const f of source.functions) {
    const key = tableKey(f.function);
    const was = before.functions?.get(key) ?? [];
    const now = after.functions?.get(key) ?? [];
    if (was.length <= 1 && now.length > 1) overloaded.push(naming.format(f.function));
    const [old] = was;
    const [changed] = now;
    if (now.length === 1 && old !== undefined && changed !== undefined && old.volatility !== 'volatile' && changed.volatility === 'volatile') {
      throw new EngineError(ErrorCode.NotSupported, `type of function "${naming.format(f.function)}" is altered to "VOLATILE" which is not supported now`, {
        path: '$',
      });
    }
  }
  if (overloaded.length > 0) {
    throw new EngineError(ErrorCode.NotSupported, `the following tracked function(s) cannot be overloaded: ${overloaded.join(', ')}`, { path: '$' });
  }
}

/*
 * Note [SQL without a transaction]
 * BigQuery has no transaction a request could hold open: v2's
 * `bigquery_run_sql` runs the SQL as one query job and answers its rows.
 * Its SQL is therefore no effect of the request (Note [Effects] in
 * effects.ts): it runs when the call runs, and what it changed stays changed
 * whatever becomes of the request (a later call of the same bulk failing, the
 * store refusing with 409); the backend says so by offering `runSqlAtOnce`
 * instead of `runSql`/`openSqlTransaction`. The engine adds one step to v2's:
 * unless `check_metadata_consistency: false`, the source is introspected
 * again after the job, as `reload_metadata` would, so that a table the SQL
 * made is trackable at once and a tracked table it dropped is reported
 * inconsistent (the call cannot be refused: the table is gone), instead of
 * failing each query that names it until the next reload.
 */

/** `<prefix>_run_sql` of a backend without transactions (`bigquery_run_sql` on `/v2/query`): Note [SQL without a transaction]. */
export function runSqlAtOnceFor(kind: SourceKind): Operation {
  return defineOperation<RunSqlAtOnceArgs>({
    mutates: true,
    schema: runSqlAtOnceArgs,
    async run(ctx, args, call) {
      await ctx.flush();
      const source = requireSource(ctx, args.source, call);
      if (source.kind !== kind) {
        throw new EngineError(
          ErrorCode.NotExists,
          `source with name "${source.name}" has backend type "${source.kind}" which does not match the expected type ${kind}`,
          { path: argPath(call) },
        );
      }
      const prepared = ctx.state.prepared.get(source.name);
      const conn = prepared === undefined ? undefined : ctx.sql.preparer.connection(prepared.configKey);
      const backend = findBackend(kind);
      const run = backend?.runSqlAtOnce;
      if (backend === undefined || prepared === undefined || !prepared.ok || conn === undefined || run === undefined) {
        const why = prepared !== undefined && !prepared.ok ? prepared.reason : `its ${kind} backend runs no SQL`;
        throw new EngineError(ErrorCode.InvalidConfiguration, `source "${source.name}" is inconsistent: ${why}`, { path: argPath(call, 'source') });
      }
      const result = await run.call(backend, conn, args.sql);
      if (args.check_metadata_consistency !== false) {
        await ctx.commitEdit({ doc: ctx.state.doc, touched: [], refresh: new Set([source.name]), allowInconsistency: true, path: argPath(call) });
      }
      return { response: result };
    },
  });
}

/**
 * `run_sql` (postgres) and `mssql_run_sql` (v2 compat: only on `/v2/query`,
 * `source` defaults to `default`, no `read_only` in v2's, accepted here):
 * the same operation on a backend with a transaction (`runSql`/`openSqlTransaction`),
 * refusing a source of another kind as v2's askSourceInfo does.
 */
export function runSqlFor(kind: SourceKind): Operation {
  return defineOperation<RunSqlArgs>({
    mutates: true,
    schema: runSqlArgs,
    run: async (ctx, args, call) => await runSqlOn(kind, ctx, args, call),
  });
}

async function runSqlOn(kind: SourceKind, ctx: RunContext, args: RunSqlArgs, call: MetadataCall): Promise<CallResult> {
  await ctx.flush();
  const sourceName = args.source ?? 'default';
  const source = requireSource(ctx, sourceName, call);
  const prepared = ctx.state.prepared.get(sourceName);
  const conn = prepared === undefined ? undefined : ctx.sql.preparer.connection(prepared.configKey);
  const backend = findBackend(source.kind);
  const runAlone = backend?.runSql;
  const open = backend?.openSqlTransaction;
  if (prepared !== undefined && prepared.ok && source.kind !== kind) {
    throw new EngineError(
      ErrorCode.NotExists,
      `source with name "${source.name}" has backend type "${source.kind}" which does not match the expected type ${kind}`,
      { path: argPath(call) },
    );
  }
  if (backend === undefined || prepared === undefined || !prepared.ok || conn === undefined || runAlone === undefined || open === undefined) {
    const why = prepared !== undefined && !prepared.ok ? prepared.reason : `its ${kind} backend runs no SQL`;
    throw new EngineError(ErrorCode.InvalidConfiguration, `source "${sourceName}" is inconsistent: ${why}`, {
      path: argPath(call, 'source'),
    });
  }
  if (args.read_only === true) {
    const held = ctx.effects.find((e) => e.key === sourceTransactionKey(prepared.configKey)) as SourceTransaction | undefined;
    const result =
      held === undefined ? await runAlone.call(backend, conn, args.sql, true, async (r) => await Promise.resolve(r)) : await held.tx.runSql(args.sql, true);
    return { response: result };
  }
  const { tx } = await sourceTransaction(ctx, open.bind(backend), source, prepared, conn);
  const result = await tx.runSql(args.sql, false);
  if (args.check_metadata_consistency === false) return { response: result };
  const introspection = await tx.introspector.introspect();
  if (introspection.fingerprint === prepared.introspection.fingerprint) return { response: result };
  refuseFunctionChanges(source, prepared.introspection, introspection, backend.naming);
  // v2 compat: renamed tables and columns are followed, not reported.
  const before = ctx.state;
  const doc = applyRenames(before.doc, sourceName, detectRenames(prepared.introspection, introspection), before.catalog, backend.naming);
  const ready = await ctx.sql.preparer.prepareFromIntrospection(findSource(doc, sourceName) ?? source, prepared, introspection, tx.introspector);
  await ctx.commitEdit({
    doc,
    touched: [],
    drop: { cascade: args.cascade === true },
    prepared: new Map([[sourceName, ready]]),
    path: argPath(call),
  });
  return { response: result };
}

/** The run-sql operation (postgres). */
export const runSql = runSqlFor('postgres');
