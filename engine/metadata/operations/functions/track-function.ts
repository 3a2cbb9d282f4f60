/**
 * `pg_track_function` (legacy `track_function`, version 1 `{schema, name}` or
 * version 2 `{function, configuration}`): exposes a function returning rows
 * of a tracked table as root fields. Whether it fits (return type, arguments,
 * session argument, names) is the catalog's check: a misfit is refused with
 * the function's inconsistency reason.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineSourceOperation, requireSource } from '../../define.ts';
import type { FunctionConfiguration, FunctionMetadata, TableNameInput } from '../../../model/document.ts';
import { findFunction, findTable, updateSource } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { legacyFunctionArgs, trackFunctionArgs } from './function-args.ts';

interface TrackFunctionArgs {
  function: TableNameInput;
  source?: string;
  configuration?: FunctionConfiguration;
  comment?: string | null;
}

/** The track-function operation. */
export const trackFunction = defineSourceOperation<TrackFunctionArgs>({
  mutates: true,
  schema: trackFunctionArgs,
  legacyArgs: legacyFunctionArgs,
  async run(ctx, args, call, on) {
    const source = args.source ?? 'default';
    const fn = on.naming.parse(args.function);
    requireSource(ctx, source, call);
    if (findFunction(ctx.state.doc, source, fn) !== undefined) {
      throw new EngineError(ErrorCode.AlreadyTracked, `function already tracked : "${on.naming.format(fn)}"`, {
        path: argPath(call, 'function'),
      });
    }
    if (findTable(ctx.state.doc, source, fn) !== undefined) {
      // v2 compat: a tracked table and a function of the same name would share root fields.
      throw new EngineError(ErrorCode.NotSupported, `table with name "${on.naming.format(fn)}" already exists`, { path: argPath(call) });
    }
    const p = ctx.state.prepared.get(source);
    if (p?.ok === true && p.introspection.functions?.has(`${fn.schema}.${fn.name}`) !== true) {
      throw new EngineError(ErrorCode.NotExists, `no such function exists in postgres : "${on.naming.format(fn)}"`, {
        path: argPath(call, 'function'),
      });
    }
    const entry: FunctionMetadata = {
      function: fn,
      ...(args.configuration === undefined ? {} : { configuration: args.configuration }),
      ...(args.comment === undefined || args.comment === null ? {} : { comment: args.comment }),
    };
    const doc = updateSource(ctx.state.doc, source, (s) => ({ ...s, functions: [...s.functions, entry] }));
    await ctx.commitEdit({ doc, touched: [{ kind: 'function', source, function: fn }], path: argPath(call) });
    return { response: SUCCESS };
  },
});
