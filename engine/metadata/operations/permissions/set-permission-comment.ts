/**
 * `pg_set_permission_comment` (legacy `set_permission_comment`): `type` names
 * the permission kind; a null or missing comment removes it.
 */
import type { PermissionKind } from '../../../catalog/object-id.ts';
import { defineSourceOperation, requireTrackedTable } from '../../define.ts';
import type { TableNameInput } from '../../../model/document.ts';
import { permissionListKey, updateTable } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { requirePermission, setPermissionCommentArgs } from './permission-args.ts';

interface SetPermissionCommentArgs {
  table: TableNameInput;
  role: string;
  type: PermissionKind;
  comment?: string | null;
  source?: string;
}

/** The set-permission-comment operation. */
export const setPermissionComment = defineSourceOperation<SetPermissionCommentArgs>({
  mutates: true,
  schema: setPermissionCommentArgs,
  async run(ctx, args, call, on) {
    const source = args.source ?? 'default';
    const table = on.naming.parse(args.table);
    const entry = requireTrackedTable(ctx, source, table, call, on);
    requirePermission(entry, args.type, args.role, call, on);
    const key = permissionListKey(args.type);
    const doc = updateTable(ctx.state.doc, source, table, (t) => ({
      ...t,
      [key]: (t[key] as ReadonlyArray<{ role: string; comment?: string | null }>).map((p) => {
        if (p.role !== args.role) return p;
        const { comment: _old, ...rest } = p;
        return args.comment == null ? rest : { ...rest, comment: args.comment };
      }),
    }));
    await ctx.commitEdit({
      doc,
      touched: [{ kind: 'permission', source, table, role: args.role, permission: args.type }],
      path: argPath(call),
    });
    return { response: SUCCESS };
  },
});
