/**
 * `pg_drop_{insert,select,update,delete}_permission` (legacy names without
 * `pg_`). Nothing depends on a permission, so the drop never cascades.
 */
import type { PermissionKind } from '../../../catalog/object-id.ts';
import { defineSourceOperation, requireTrackedTable } from '../../define.ts';
import type { TableNameInput } from '../../../model/document.ts';
import { removeObject } from '../../edit.ts';
import { argPath, SUCCESS, type SourceOperation } from '../../operation.ts';
import { dropPermissionArgs, requirePermission } from './permission-args.ts';

interface DropPermissionArgs {
  table: TableNameInput;
  role: string;
  source?: string;
}

function dropPermission(kind: PermissionKind): SourceOperation {
  return defineSourceOperation<DropPermissionArgs>({
    mutates: true,
    schema: dropPermissionArgs,
    async run(ctx, args, call, on) {
      const source = args.source ?? 'default';
      const table = on.naming.parse(args.table);
      const entry = requireTrackedTable(ctx, source, table, call, on);
      requirePermission(entry, kind, args.role, call, on);
      const doc = removeObject(ctx.state.doc, { kind: 'permission', source, table, role: args.role, permission: kind });
      await ctx.commitEdit({ doc, touched: [], drop: { cascade: false }, path: argPath(call) });
      return { response: SUCCESS };
    },
  });
}

/** The drop operation of each permission kind. */
export const dropPermissionOps: Readonly<Record<PermissionKind, SourceOperation>> = {
  insert: dropPermission('insert'),
  select: dropPermission('select'),
  update: dropPermission('update'),
  delete: dropPermission('delete'),
};
