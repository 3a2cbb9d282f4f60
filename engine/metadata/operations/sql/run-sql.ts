/**
 * `run_sql` (`/v2/query` and legacy `/v1/query`): runs SQL on a source in one
 * transaction (`BEGIN READ ONLY` with `read_only`). Unless `read_only` or
 * `check_metadata_consistency: false`, the source is introspected again inside
 * that transaction and the catalog rebuilt: when tracked objects became
 * inconsistent (a table dropped, a column renamed), the transaction is rolled
 * back with a `dependency-error`, or with `cascade` the dependent metadata is
 * dropped and both are kept (v2 compat). Renamed tables and columns are
 * followed in the metadata (renames.ts).
 */
import type { RunSqlResult } from '../../../backends/backend.ts';
import { findBackend } from '../../../backends/registry.ts';
import { buildCatalog } from '../../../catalog/build.ts';
import { dependentsMessage, newInconsistencies } from '../../../catalog/dependencies.ts';
import type { Catalog } from '../../../catalog/types.ts';
import { cascade } from '../../cascade.ts';
import type { MetadataDocument } from '../../document.ts';
import type { PreparedSource } from '../../../catalog/prepared.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation, requireSource } from '../../define.ts';
import { findSource } from '../../edit.ts';
import { applyRenames, detectRenames } from '../../renames.ts';
import { argPath, type MetadataState } from '../../operation.ts';
import { runSqlArgs } from '../../schemas/args.ts';
import { wireInconsistencies } from '../manage/inconsistent-objects.ts';

interface RunSqlArgs {
  sql: string;
  source?: string;
  cascade?: boolean;
  check_metadata_consistency?: boolean;
  read_only?: boolean;
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
    const runInSource = findBackend(source.kind)?.runSql;
    if (prepared === undefined || !prepared.ok || conn === undefined || runInSource === undefined) {
      const why = prepared !== undefined && !prepared.ok ? prepared.reason : 'it is not a postgres source';
      throw new EngineError(ErrorCode.InvalidConfiguration, `source "${sourceName}" is inconsistent: ${why}`, {
        path: argPath(call, 'source'),
      });
    }
    const readOnly = args.read_only === true;
    const check = !readOnly && args.check_metadata_consistency !== false;
    const before = ctx.state;
    const outcome = await runInSource(
      conn,
      args.sql,
      readOnly,
      async (result, tx): Promise<{ result: RunSqlResult; next: MetadataState | null }> => {
        if (!check) return { result, next: null };
        const introspection = await tx.introspect();
        if (introspection.fingerprint === prepared.introspection.fingerprint) return { result, next: null };
        // v2 compat: renamed tables and columns are followed, not reported.
        const doc = applyRenames(before.doc, sourceName, detectRenames(prepared.introspection, introspection), before.catalog);
        const renamedSource = findSource(doc, sourceName) ?? source;
        const ready = await ctx.sql.preparer.prepareFromIntrospection(renamedSource, prepared, introspection, tx);
        const preparedMap = new Map<string, PreparedSource>(before.prepared);
        preparedMap.set(sourceName, ready);
        const build = async (d: MetadataDocument): Promise<{ doc: MetadataDocument; catalog: Catalog }> => ({
          doc: d,
          catalog: buildCatalog(d, preparedMap, before.resourceVersion + 1),
        });
        const first = await build(doc);
        const added = newInconsistencies(before.catalog, first.catalog);
        if (added.length > 0 && args.cascade !== true) {
          throw new EngineError(ErrorCode.DependencyError, dependentsMessage(added), {
            path: argPath(call),
            internal: wireInconsistencies(added),
          });
        }
        const done = await cascade(before.catalog, first, build);
        return { result, next: { doc: done.doc, resourceVersion: before.resourceVersion, catalog: done.catalog, prepared: preparedMap } };
      },
    );
    if (!readOnly) ctx.noteDatabaseChange(sourceName);
    if (outcome.next !== null) ctx.setState(outcome.next, new Set([sourceName]));
    return { response: outcome.result };
  },
});
