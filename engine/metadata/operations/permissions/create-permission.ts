/**
 * `pg_create_{insert,select,update,delete}_permission` (legacy names without
 * `pg_`). The catalog's permissions stage is the judge of the body: a column,
 * relationship, operator or `_exists` table that does not resolve makes the
 * new permission inconsistent, and the pipeline refuses the call with that
 * reason, storing nothing.
 */
import type { PermissionKind } from '../../../catalog/object-id.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineSourceOperation, requireTrackedTable } from '../../define.ts';
import type { TableNameInput } from '../../../model/document.ts';
import { permissionListKey, updateTable } from '../../edit.ts';
import { argPath, SUCCESS, type SourceOperation } from '../../operation.ts';
import { createPermissionArgs, hasPermission } from './permission-args.ts';

interface CreatePermissionArgs {
  table: TableNameInput;
  role: string;
  permission: Record<string, unknown>;
  comment?: string | null;
  source?: string;
}

function createPermission(kind: PermissionKind): SourceOperation {
  return defineSourceOperation<CreatePermissionArgs>({
    mutates: true,
    schema: createPermissionArgs(kind),
    async run(ctx, args, call, on) {
      const source = args.source ?? 'default';
      const table = on.naming.parse(args.table);
      const entry = requireTrackedTable(ctx, source, table, call, on);
      if (args.role === 'admin') {
        throw new EngineError(ErrorCode.InvalidConfiguration, 'cannot define permission for admin role', {
          path: argPath(call, 'role'),
        });
      }
      if (hasPermission(entry, kind, args.role)) {
        throw new EngineError(ErrorCode.AlreadyExists, `${kind} permission already defined on table "${on.naming.format(table)}" with role "${args.role}"`, {
          path: argPath(call),
        });
      }
      const perm = { role: args.role, permission: args.permission, ...(args.comment == null ? {} : { comment: args.comment }) };
      const key = permissionListKey(kind);
      const doc = updateTable(ctx.state.doc, source, table, (t) => ({ ...t, [key]: [...t[key], perm] }));
      await ctx.commitEdit({
        doc,
        touched: [{ kind: 'permission', source, table, role: args.role, permission: kind }],
        path: argPath(call),
      });
      return { response: SUCCESS };
    },
  });
}

/** The create operation of each permission kind. */
export const createPermissionOps: Readonly<Record<PermissionKind, SourceOperation>> = {
  insert: createPermission('insert'),
  select: createPermission('select'),
  update: createPermission('update'),
  delete: createPermission('delete'),
};
