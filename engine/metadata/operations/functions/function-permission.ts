/**
 * `pg_create_function_permission` / `pg_drop_function_permission`: which
 * roles may call a function when ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS is
 * false. The role must already have a select permission on the function's
 * return table.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { tableKey } from '../../../catalog/types.ts';
import { defineSourceOperation } from '../../define.ts';
import type { TableNameInput } from '../../../model/document.ts';
import { updateFunction } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { functionPermissionArgs, requireTrackedFunction } from './function-args.ts';

interface FunctionPermissionArgs {
  function: TableNameInput;
  role: string;
  source?: string;
}

/** The create-function-permission operation. */
export const createFunctionPermission = defineSourceOperation<FunctionPermissionArgs>({
  mutates: true,
  schema: functionPermissionArgs,
  async run(ctx, args, call, on) {
    const source = args.source ?? 'default';
    const fn = on.naming.parse(args.function);
    const entry = requireTrackedFunction(ctx, source, fn, call, on);
    const name = on.naming.format(fn);
    if ((entry.permissions ?? []).some((p) => p.role === args.role)) {
      throw new EngineError(ErrorCode.AlreadyExists, `permission of role "${args.role}" already exists for function "${name}"`, {
        path: argPath(call, 'role'),
      });
    }
    await ctx.flush();
    const info = ctx.state.catalog.sources.get(source)?.functions?.get(tableKey(fn));
    if (info === undefined) {
      throw new EngineError(ErrorCode.NotExists, `function "${name}" is inconsistent`, { path: argPath(call, 'function') });
    }
    const table = ctx.state.catalog.sources.get(source)?.tables.get(tableKey(info.returnTable));
    if (table?.permissions.get(args.role)?.select == null) {
      throw new EngineError(
        ErrorCode.NotExists,
        `function "${name}" has no select permission on its return table "${on.naming.format(info.returnTable)}" for role "${args.role}"`,
        { path: argPath(call, 'role') },
      );
    }
    const doc = updateFunction(ctx.state.doc, source, fn, (f) => ({ ...f, permissions: [...(f.permissions ?? []), { role: args.role }] }));
    await ctx.commitEdit({
      doc,
      touched: [{ kind: 'function_permission', source, function: fn, role: args.role }],
      path: argPath(call),
    });
    return { response: SUCCESS };
  },
});

/** The drop-function-permission operation. */
export const dropFunctionPermission = defineSourceOperation<FunctionPermissionArgs>({
  mutates: true,
  schema: functionPermissionArgs,
  async run(ctx, args, call, on) {
    const source = args.source ?? 'default';
    const fn = on.naming.parse(args.function);
    const entry = requireTrackedFunction(ctx, source, fn, call, on);
    if (!(entry.permissions ?? []).some((p) => p.role === args.role)) {
      throw new EngineError(ErrorCode.NotExists, `permission of role "${args.role}" does not exist for function "${on.naming.format(fn)}"`, {
        path: argPath(call, 'role'),
      });
    }
    const doc = updateFunction(ctx.state.doc, source, fn, (f) => ({
      ...f,
      permissions: (f.permissions ?? []).filter((p) => p.role !== args.role),
    }));
    await ctx.commitEdit({ doc, touched: [], path: argPath(call) });
    return { response: SUCCESS };
  },
});
