/**
 * `pg_drop_relationship` (legacy `drop_relationship`). Permissions that go
 * through the relationship are its dependents: reported as a
 * `dependency-error`, or dropped too with `cascade`.
 */
import { defineOperation, requireTrackedTable } from '../../define.ts';
import { parseTableName, type TableNameInput } from '../../document.ts';
import { removeObject } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { dropRelationshipArgs } from '../../schemas/args.ts';
import { requireRelationship } from './find-relationship.ts';

interface DropRelationshipArgs {
  table: TableNameInput;
  relationship: string;
  cascade?: boolean;
  source?: string;
}

/** The drop-relationship operation. */
export const dropRelationship = defineOperation<DropRelationshipArgs>({
  mutates: true,
  schema: dropRelationshipArgs,
  async run(ctx, args, call) {
    const source = args.source ?? 'default';
    const table = parseTableName(args.table);
    const entry = requireTrackedTable(ctx, source, table, call);
    const found = requireRelationship(entry, args.relationship, call, 'relationship');
    const doc = removeObject(ctx.state.doc, { kind: `${found.kind}_relation`, source, table, name: args.relationship });
    await ctx.commitEdit({ doc, touched: [], drop: { cascade: args.cascade === true }, path: argPath(call) });
    return { response: SUCCESS };
  },
});
