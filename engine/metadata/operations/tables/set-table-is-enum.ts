/**
 * `pg_set_table_is_enum` (legacy `set_table_is_enum`): marks a tracked table
 * as an enum table, or unmarks it. The table must then pass the enum checks.
 */
import { defineSourceOperation, requireTrackedTable } from '../../define.ts';
import type { TableNameInput } from '../../../model/document.ts';
import { updateTable } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { setTableIsEnumArgs } from '../../../model/schemas/args.ts';
import { legacyTableArgs } from './legacy-table-args.ts';

interface SetTableIsEnumArgs {
  table: TableNameInput;
  source?: string;
  is_enum: boolean;
}

/** The set-table-is-enum operation. */
export const setTableIsEnum = defineSourceOperation<SetTableIsEnumArgs>({
  mutates: true,
  schema: setTableIsEnumArgs,
  legacyArgs: legacyTableArgs,
  async run(ctx, args, call, on) {
    const source = args.source ?? 'default';
    const table = on.naming.parse(args.table);
    requireTrackedTable(ctx, source, table, call, on);
    const doc = updateTable(ctx.state.doc, source, table, (t) => {
      const { is_enum: _old, ...rest } = t;
      return args.is_enum ? { ...rest, is_enum: true } : rest;
    });
    await ctx.commitEdit({ doc, touched: [{ kind: 'table', source, table }], path: argPath(call) });
    return { response: SUCCESS };
  },
});
