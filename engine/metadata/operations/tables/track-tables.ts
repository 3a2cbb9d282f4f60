/**
 * `<prefix>_track_tables` and `<prefix>_untrack_tables` (v2.24+, the console's
 * "track all"): many `<prefix>_track_table` / `<prefix>_untrack_table` calls in
 * one, which keep what can be done.
 *
 * Note [Tracking many tables]
 * v2 tracks every table it can and answers `{message: "success", warnings}`,
 * one warning (`{message, type, name, code: "track-table-failed"}`) per table
 * left out; with `allow_warnings: false` any warning fails the whole call
 * (`metadata-warnings`, nothing changed), and when no table could be tracked
 * the call fails with `invalid-configuration` ("all tables failed to track").
 * A table named twice is refused before anything runs (`bad-request`). Here
 * the tables are the items of one deferred bulk, so tracking N tables builds
 * the catalog once (Note [Deferred builds] in run.ts); when a table makes the
 * build fail, the error's path names it: it becomes a warning, the state is
 * put back (Note [Attempts]) and the others are tried again, so each table
 * left out costs one more build. Each item is checked by its own call, the
 * kind of its source included.
 */
import type { Backend } from '../../../backends/backend.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import type { TableNameInput } from '../../../model/document.ts';
import { trackTablesArgs, untrackTablesArgs } from '../../../model/schemas/args.ts';
import { assertValid } from '../../../model/schemas/validate.ts';
import { argPath, SUCCESS, type CallResult, type MetadataCall, type OnSource, type RunContext, type SourceOperation } from '../../operation.ts';

interface ManyTablesArgs {
  readonly tables: ReadonlyArray<Record<string, unknown>>;
  readonly allow_warnings?: boolean;
}

/** v2's metadata warning. */
interface TableWarning {
  readonly message: string;
  readonly type: 'table';
  readonly name: string;
  readonly code: string;
}

function manyTables(backend: Backend, one: 'track_table' | 'untrack_table'): SourceOperation {
  const verb = one === 'track_table' ? 'track' : 'untrack';
  return {
    mutates: true,
    async run(ctx: RunContext, call: MetadataCall, on: OnSource): Promise<CallResult> {
      const args = assertValid<ManyTablesArgs>(one === 'track_table' ? trackTablesArgs : untrackTablesArgs, call.args ?? {}, argPath(call));
      const items = args.tables.map((t, i) => {
        const source = typeof t['source'] === 'string' ? t['source'] : 'default';
        let table: string;
        try {
          table = on.naming.format(on.naming.parse(t['table'] as TableNameInput));
        } catch {
          table = JSON.stringify(t['table']);
        }
        const path = `${argPath(call, 'tables')}[${i}]`;
        const itemCall: MetadataCall = { type: `${backend.operationPrefix}${one}`, args: t, version: undefined, path, legacy: false };
        return { name: `${table} in source ${source}`, key: `${source}.${table}`, path, call: itemCall };
      });
      const seen = new Set<string>();
      const twice = [...new Set(items.map((i) => i.key).filter((k) => seen.has(k) || !seen.add(k)))];
      if (twice.length > 0) {
        throw new EngineError(ErrorCode.BadRequest, `The following tables occur more than once in the request: ${twice.join(', ')}`, {
          path: argPath(call, 'tables'),
        });
      }
      const warnings: TableWarning[] = [];
      let remaining = items;
      while (remaining.length > 0) {
        const tried = remaining;
        const r = await ctx.attempt(async () => {
          await ctx.batch(async () => {
            for (const item of tried) await ctx.runCall(item.call);
          });
        });
        if (r.ok) break;
        const failed = tried.find((i) => r.error.path === i.path || r.error.path.startsWith(`${i.path}.`) || r.error.path.startsWith(`${i.path}[`));
        if (failed === undefined) throw r.error;
        warnings.push({ message: r.error.message, type: 'table', name: failed.name, code: `${verb}-table-failed` });
        remaining = tried.filter((i) => i !== failed);
      }
      if (remaining.length === 0 && items.length > 0) {
        throw new EngineError(ErrorCode.InvalidConfiguration, `all tables failed to ${verb}`, { path: argPath(call), internal: warnings });
      }
      if (args.allow_warnings === false && warnings.length > 0) {
        throw new EngineError(ErrorCode.MetadataWarnings, 'failed due to metadata warnings', { path: argPath(call), internal: warnings });
      }
      return { response: warnings.length === 0 ? SUCCESS : { ...SUCCESS, warnings } };
    },
  };
}

/** `<prefix>_track_tables`. */
export const trackTablesFor = (backend: Backend): SourceOperation => manyTables(backend, 'track_table');

/** `<prefix>_untrack_tables`. */
export const untrackTablesFor = (backend: Backend): SourceOperation => manyTables(backend, 'untrack_table');
