/**
 * `pg_rename_relationship` (legacy `rename_relationship`); permissions using
 * the relationship follow the new name (see rename-in-permissions.ts).
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineSourceOperation, requireTrackedTable } from '../../define.ts';
import type { TableNameInput } from '../../../model/document.ts';
import { updateSource, updateTable } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { renameRelationshipArgs } from '../../../model/schemas/args.ts';
import { findRelationship, relationshipListKey, requireRelationship } from './find-relationship.ts';
import { renameInPermissions } from './rename-in-permissions.ts';

interface RenameRelationshipArgs {
  table: TableNameInput;
  name: string;
  new_name: string;
  source?: string;
}

/** The rename-relationship operation. */
export const renameRelationship = defineSourceOperation<RenameRelationshipArgs>({
  mutates: true,
  schema: renameRelationshipArgs,
  async run(ctx, args, call, on) {
    const source = args.source ?? 'default';
    const table = on.naming.parse(args.table);
    const entry = requireTrackedTable(ctx, source, table, call, on);
    const found = requireRelationship(entry, args.name, call, 'name', on);
    if (args.new_name !== args.name && findRelationship(entry, args.new_name) !== undefined) {
      throw new EngineError(ErrorCode.AlreadyExists, `relationship "${args.new_name}" of table "${on.naming.format(table)}" already exists`, {
        path: argPath(call, 'new_name'),
      });
    }
    const key = relationshipListKey(found.kind);
    const rename = { source, table, from: args.name, to: args.new_name, naming: on.naming };
    let doc = updateTable(ctx.state.doc, source, table, (t) => ({
      ...t,
      [key]: t[key].map((r) => (r.name === args.name ? { ...r, name: args.new_name } : r)),
    }));
    doc = updateSource(doc, source, (s) => ({
      ...s,
      tables: s.tables.map((t) => renameInPermissions(t, rename, ctx.state.catalog)),
    }));
    await ctx.commitEdit({
      doc,
      touched: [{ kind: `${found.kind}_relation`, source, table, name: args.new_name }],
      path: argPath(call),
    });
    return { response: SUCCESS };
  },
});
