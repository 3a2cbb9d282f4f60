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
import { introspectPostgres } from '../../../backends/postgres/introspect.ts';
import { runSqlText, type RunSqlResult } from '../../../backends/postgres/run-sql.ts';
import { buildCatalog } from '../../../catalog/build.ts';
import { parseObjectId } from '../../../catalog/object-id.ts';
import type { PreparedSource } from '../../../catalog/prepared.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation, requireSource } from '../../define.ts';
import { findSource, removeObject } from '../../edit.ts';
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

const MAX_CASCADE_ROUNDS = 10;

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
    if (prepared === undefined || !prepared.ok || conn === undefined) {
      const why = prepared !== undefined && !prepared.ok ? prepared.reason : 'it is not a postgres source';
      throw new EngineError(ErrorCode.InvalidConfiguration, `source "${sourceName}" is inconsistent: ${why}`, {
        path: argPath(call, 'source'),
      });
    }
    const readOnly = args.read_only === true;
    const check = !readOnly && args.check_metadata_consistency !== false;
    const before = ctx.state;
    const outcome = await conn.withTransaction(
      async (client): Promise<{ result: RunSqlResult; next: MetadataState | null }> => {
        const result = await runSqlText(client, args.sql);
        if (!check) return { result, next: null };
        const introspection = await introspectPostgres(client);
        if (introspection.fingerprint === prepared.introspection.fingerprint) return { result, next: null };
        // v2 compat: renamed tables and columns are followed, not reported.
        let doc = applyRenames(before.doc, sourceName, detectRenames(prepared.introspection, introspection), before.catalog);
        const renamedSource = findSource(doc, sourceName) ?? source;
        const ready = await ctx.sql.preparer.prepareFromIntrospection(renamedSource, prepared, introspection, client);
        const preparedMap = new Map<string, PreparedSource>(before.prepared);
        preparedMap.set(sourceName, ready);
        const old = new Set(before.catalog.inconsistencies.map((o) => o.id));
        let catalog = buildCatalog(doc, preparedMap, before.resourceVersion + 1);
        let added = catalog.inconsistencies.filter((o) => !old.has(o.id));
        if (added.length > 0 && args.cascade !== true) {
          const names = added.map((o) => o.name ?? o.type).join(', ');
          throw new EngineError(ErrorCode.DependencyError, `cannot drop due to the following dependent objects: ${names}`, {
            path: argPath(call),
            internal: wireInconsistencies(added),
          });
        }
        for (let round = 0; round < MAX_CASCADE_ROUNDS && added.length > 0; round++) {
          for (const o of added) {
            const ref = parseObjectId(o.id);
            if (ref !== null) doc = removeObject(doc, ref);
          }
          catalog = buildCatalog(doc, preparedMap, before.resourceVersion + 1);
          added = catalog.inconsistencies.filter((o) => !old.has(o.id));
        }
        return { result, next: { doc, resourceVersion: before.resourceVersion, catalog, prepared: preparedMap } };
      },
      readOnly ? 'BEGIN READ ONLY' : 'BEGIN',
    );
    if (!readOnly) ctx.noteDatabaseChange(sourceName);
    if (outcome.next !== null) ctx.setState(outcome.next, new Set([sourceName]));
    return { response: outcome.result };
  },
});
