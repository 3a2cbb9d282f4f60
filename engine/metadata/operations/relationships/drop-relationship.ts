/**
 * `pg_drop_relationship` (legacy `drop_relationship`). Permissions that go
 * through the relationship are its dependents: reported as a
 * `dependency-error`, or dropped too with `cascade`.
 */
import { defineSourceOperation, requireTrackedTable } from '../../define.ts';
import type { TableNameInput } from '../../../model/document.ts';
import { removeObject } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { dropRelationshipArgs } from '../../../model/schemas/args.ts';
import { requireRelationship } from './find-relationship.ts';

interface DropRelationshipArgs {
  table: TableNameInput;
  relationship: string;
  cascade?: boolean;
  source?: string;
}

/** The drop-relationship operation. */
export const dropRelationship = defineSourceOperation<DropRelationshipArgs>({
  mutates: true,
  schema: dropRelationshipArgs,
  async run(ctx, args, call, on) {
    const source = args.source ?? 'default';
    const table = on.naming.parse(args.table);
    const entry = requireTrackedTable(ctx, source, table, call, on);
    const found = requireRelationship(entry, args.relationship, call, 'relationship', on);
    const doc = removeObject(ctx.state.doc, { kind: `${found.kind}_relation`, source, table, name: args.relationship });
    await ctx.commitEdit({ doc, touched: [], drop: { cascade: args.cascade === true }, path: argPath(call) });
    return { response: SUCCESS };
  },
});
