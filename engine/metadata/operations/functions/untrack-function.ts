/** `pg_untrack_function` (legacy `untrack_function`): removes a function and its permissions. */
import { defineOperation } from '../../define.ts';
import { parseTableName, type TableNameInput } from '../../document.ts';
import { updateFunction } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { legacyFunctionArgs, requireTrackedFunction, untrackFunctionArgs } from './function-args.ts';

interface UntrackFunctionArgs {
  function: TableNameInput;
  source?: string;
}

/** The untrack-function operation. */
export const untrackFunction = defineOperation<UntrackFunctionArgs>({
  mutates: true,
  schema: untrackFunctionArgs,
  legacyArgs: legacyFunctionArgs,
  async run(ctx, args, call) {
    const source = args.source ?? 'default';
    const fn = parseTableName(args.function);
    requireTrackedFunction(ctx, source, fn, call);
    const doc = updateFunction(ctx.state.doc, source, fn, () => null);
    await ctx.commitEdit({ doc, touched: [], drop: { cascade: false }, path: argPath(call) });
    return { response: SUCCESS };
  },
});
