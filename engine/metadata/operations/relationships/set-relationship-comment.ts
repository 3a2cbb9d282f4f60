/**
 * `pg_set_relationship_comment` (legacy `set_relationship_comment`); a null or
 * missing comment removes it.
 */
import { defineSourceOperation, requireTrackedTable } from '../../define.ts';
import type { TableNameInput } from '../../../model/document.ts';
import { updateTable } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { setRelationshipCommentArgs } from '../../../model/schemas/args.ts';
import { relationshipListKey, requireRelationship } from './find-relationship.ts';

interface SetRelationshipCommentArgs {
  table: TableNameInput;
  relationship: string;
  comment?: string | null;
  source?: string;
}

/** The set-relationship-comment operation. */
export const setRelationshipComment = defineSourceOperation<SetRelationshipCommentArgs>({
  mutates: true,
  schema: setRelationshipCommentArgs,
  async run(ctx, args, call, on) {
    const source = args.source ?? 'default';
    const table = on.naming.parse(args.table);
    const entry = requireTrackedTable(ctx, source, table, call, on);
    const found = requireRelationship(entry, args.relationship, call, 'relationship', on);
    const key = relationshipListKey(found.kind);
    const doc = updateTable(ctx.state.doc, source, table, (t) => ({
      ...t,
      [key]: t[key].map((r) => {
        if (r.name !== args.relationship) return r;
        const { comment: _old, ...rest } = r;
        return args.comment == null ? rest : { ...rest, comment: args.comment };
      }),
    }));
    await ctx.commitEdit({
      doc,
      touched: [{ kind: `${found.kind}_relation`, source, table, name: args.relationship }],
      path: argPath(call),
    });
    return { response: SUCCESS };
  },
});
