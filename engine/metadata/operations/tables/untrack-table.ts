/**
 * `pg_untrack_table` (legacy `untrack_table`): removes a table with its own
 * relationships and permissions. Objects of other tables that depend on it
 * (relationships pointing to it, permissions through those) are reported as a
 * `dependency-error`, or removed too with `cascade`.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineSourceOperation, requireSource } from '../../define.ts';
import type { TableNameInput } from '../../../model/document.ts';
import { findTable, updateTable } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { untrackTableArgs } from '../../../model/schemas/args.ts';
import { legacyTrackArgs } from './legacy-table-args.ts';

interface UntrackTableArgs {
  table: TableNameInput;
  source?: string;
  cascade?: boolean;
}

/** The untrack-table operation. */
export const untrackTable = defineSourceOperation<UntrackTableArgs>({
  mutates: true,
  schema: untrackTableArgs,
  legacyArgs: legacyTrackArgs,
  async run(ctx, args, call, on) {
    const source = args.source ?? 'default';
    const table = on.naming.parse(args.table);
    requireSource(ctx, source, call);
    const tracked = findTable(ctx.state.doc, source, table);
    if (tracked === undefined) {
      throw new EngineError(ErrorCode.AlreadyUntracked, `view/table already untracked: "${on.naming.format(table)}"`, {
        // v2 compat: reported at `$.args`.
        path: argPath(call),
      });
    }
    // Event triggers live under the table, so they go with it; their capture is dropped when stored.
    if (tracked.event_triggers.length > 0 && args.cascade !== true) {
      const names = tracked.event_triggers.map((e) => `event_trigger ${String(e['name'])} on table ${on.naming.format(table)} in source ${source}`);
      throw new EngineError(ErrorCode.DependencyError, `cannot drop due to the following dependent objects: ${names.join(', ')}`, { path: argPath(call) });
    }
    const doc = updateTable(ctx.state.doc, source, table, () => null);
    await ctx.commitEdit({ doc, touched: [], drop: { cascade: args.cascade === true }, path: argPath(call) });
    return { response: SUCCESS };
  },
});
