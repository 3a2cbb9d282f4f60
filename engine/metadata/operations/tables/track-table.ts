/**
 * `pg_track_table` (legacy `track_table`, `add_existing_table_or_view`):
 * exposes a table or view of the source in the GraphQL schema.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineSourceOperation, requireSource } from '../../define.ts';
import { emptyTable, type TableConfiguration, type TableNameInput } from '../../../model/document.ts';
import { findFunction, findTable, updateSource } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { trackTableArgs } from '../../../model/schemas/args.ts';
import { legacyTrackArgs } from './legacy-table-args.ts';

interface TrackTableArgs {
  table: TableNameInput;
  source?: string;
  configuration?: TableConfiguration;
  is_enum?: boolean;
}

/** The track-table operation. */
export const trackTable = defineSourceOperation<TrackTableArgs>({
  mutates: true,
  schema: trackTableArgs,
  legacyArgs: legacyTrackArgs,
  async run(ctx, args, call, on) {
    const source = args.source ?? 'default';
    const table = on.naming.parse(args.table);
    requireSource(ctx, source, call);
    if (findTable(ctx.state.doc, source, table) !== undefined) {
      // v2 compat: this check (and the next) is reported at `$.args`.
      throw new EngineError(ErrorCode.AlreadyTracked, `view/table already tracked: "${on.naming.format(table)}"`, { path: argPath(call) });
    }
    if (findFunction(ctx.state.doc, source, table) !== undefined) {
      // v2 compat: a table and a tracked function of the same name would share root fields.
      throw new EngineError(ErrorCode.NotSupported, `function with name "${on.naming.format(table)}" already exists`, { path: argPath(call) });
    }
    // v2 compat: a table the database lacks is not refused here but by the catalog build, as v2's
    // schema cache does: "Inconsistent object: no such table/view exists in source" (invalid-configuration at `$.args`).
    const entry = {
      ...emptyTable(table),
      ...(args.configuration === undefined ? {} : { configuration: args.configuration }),
      ...(args.is_enum === true ? { is_enum: true } : {}),
    };
    const doc = updateSource(ctx.state.doc, source, (s) => ({ ...s, tables: [...s.tables, entry] }));
    await ctx.commitEdit({ doc, touched: [{ kind: 'table', source, table }], path: argPath(call) });
    return { response: SUCCESS };
  },
});
