/** `pg_untrack_function` (legacy `untrack_function`): removes a function and its permissions. */
import { defineSourceOperation } from '../../define.ts';
import type { TableNameInput } from '../../../model/document.ts';
import { updateFunction } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { legacyFunctionArgs, requireTrackedFunction, untrackFunctionArgs } from './function-args.ts';

interface UntrackFunctionArgs {
  function: TableNameInput;
  source?: string;
}

/** The untrack-function operation. */
export const untrackFunction = defineSourceOperation<UntrackFunctionArgs>({
  mutates: true,
  schema: untrackFunctionArgs,
  legacyArgs: legacyFunctionArgs,
  async run(ctx, args, call, on) {
    const source = args.source ?? 'default';
    const fn = on.naming.parse(args.function);
    requireTrackedFunction(ctx, source, fn, call, on);
    const doc = updateFunction(ctx.state.doc, source, fn, () => null);
    await ctx.commitEdit({ doc, touched: [], drop: { cascade: false }, path: argPath(call) });
    return { response: SUCCESS };
  },
});
