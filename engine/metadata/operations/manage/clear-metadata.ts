/**
 * `clear_metadata`: forgets everything. v2 compat: the `default` source keeps
 * its configuration (emptied of tables), as an engine started with a database
 * URL always has it.
 */
import { defineOperation } from '../../define.ts';
import { EMPTY_DOCUMENT } from '../../../model/document.ts';
import { findSource } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { emptyArgs } from '../../../model/schemas/args.ts';
import { keepUnexportedCron } from '../scheduled/unexported-cron.ts';

/** The clear-metadata operation. */
export const clearMetadata = defineOperation<Record<string, unknown>>({
  mutates: true,
  schema: emptyArgs,
  async run(ctx, _args, call) {
    const def = findSource(ctx.state.doc, 'default');
    const doc = keepUnexportedCron(ctx.state.doc, {
      ...EMPTY_DOCUMENT,
      sources: def === undefined ? [] : [{ ...def, tables: [], functions: [] }],
    });
    await ctx.commitEdit({ doc, touched: [], allowInconsistency: true, path: argPath(call) });
    return { response: SUCCESS };
  },
});
