/** `pg_set_function_customization`: replaces a tracked function's configuration. */
import { defineSourceOperation } from '../../define.ts';
import type { FunctionConfiguration, TableNameInput } from '../../../model/document.ts';
import { updateFunction } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { requireTrackedFunction, setFunctionCustomizationArgs } from './function-args.ts';

interface SetFunctionCustomizationArgs {
  function: TableNameInput;
  source?: string;
  configuration?: FunctionConfiguration;
}

/** The set-function-customization operation. */
export const setFunctionCustomization = defineSourceOperation<SetFunctionCustomizationArgs>({
  mutates: true,
  schema: setFunctionCustomizationArgs,
  async run(ctx, args, call, on) {
    const source = args.source ?? 'default';
    const fn = on.naming.parse(args.function);
    requireTrackedFunction(ctx, source, fn, call, on);
    const configuration = args.configuration ?? {};
    const doc = updateFunction(ctx.state.doc, source, fn, (f) => ({ ...f, configuration }));
    await ctx.commitEdit({ doc, touched: [{ kind: 'function', source, function: fn }], path: argPath(call) });
    return { response: SUCCESS };
  },
});
