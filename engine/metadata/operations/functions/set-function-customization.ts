/** `pg_set_function_customization`: replaces a tracked function's configuration. */
import { defineOperation } from '../../define.ts';
import { parseTableName, type FunctionConfiguration, type TableNameInput } from '../../document.ts';
import { updateFunction } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { requireTrackedFunction, setFunctionCustomizationArgs } from './function-args.ts';

interface SetFunctionCustomizationArgs {
  function: TableNameInput;
  source?: string;
  configuration?: FunctionConfiguration;
}

/** The set-function-customization operation. */
export const setFunctionCustomization = defineOperation<SetFunctionCustomizationArgs>({
  mutates: true,
  schema: setFunctionCustomizationArgs,
  async run(ctx, args, call) {
    const source = args.source ?? 'default';
    const fn = parseTableName(args.function);
    requireTrackedFunction(ctx, source, fn, call);
    const configuration = args.configuration ?? {};
    const doc = updateFunction(ctx.state.doc, source, fn, (f) => ({ ...f, configuration }));
    await ctx.commitEdit({ doc, touched: [{ kind: 'function', source, function: fn }], path: argPath(call) });
    return { response: SUCCESS };
  },
});
