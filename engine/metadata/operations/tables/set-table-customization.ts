/**
 * `pg_set_table_customization` (legacy `set_table_customization`, and
 * `set_table_custom_fields` whose args carry `custom_root_fields` and
 * `custom_column_names` directly): replaces a table's configuration.
 */
import { defineSourceOperation, requireTrackedTable } from '../../define.ts';
import type { TableConfiguration, TableNameInput } from '../../../model/document.ts';
import { updateTable } from '../../edit.ts';
import { argPath, SUCCESS, type SourceOperation } from '../../operation.ts';
import { setTableCustomizationArgs } from '../../../model/schemas/args.ts';
import { legacyTableArgs } from './legacy-table-args.ts';

interface SetTableCustomizationArgs {
  table: TableNameInput;
  source?: string;
  configuration?: TableConfiguration;
}

/** The set-table-customization operation. */
export const setTableCustomization: SourceOperation = defineSourceOperation<SetTableCustomizationArgs>({
  mutates: true,
  schema: setTableCustomizationArgs,
  legacyArgs: legacyTableArgs,
  async run(ctx, args, call, on) {
    const source = args.source ?? 'default';
    const table = on.naming.parse(args.table);
    requireTrackedTable(ctx, source, table, call, on);
    const configuration = args.configuration ?? {};
    const doc = updateTable(ctx.state.doc, source, table, (t) => ({ ...t, configuration }));
    await ctx.commitEdit({ doc, touched: [{ kind: 'table', source, table }], path: argPath(call) });
    return { response: SUCCESS };
  },
});

/** v2 compat: legacy `set_table_custom_fields` → `set_table_customization`, keeping `custom_name`. */
export const setTableCustomFields: SourceOperation = {
  mutates: true,
  async run(ctx, call, on) {
    const raw = legacyTableArgs(call.args ?? {});
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return await setTableCustomization.run(ctx, call, on);
    const { custom_root_fields, custom_column_names, ...rest } = raw as Record<string, unknown>;
    const configuration: Record<string, unknown> = {};
    if (custom_root_fields !== undefined) configuration['custom_root_fields'] = custom_root_fields;
    if (custom_column_names !== undefined) configuration['custom_column_names'] = custom_column_names;
    return await setTableCustomization.run(ctx, { ...call, args: { ...rest, configuration } }, on);
  },
};
