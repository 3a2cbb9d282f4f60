/**
 * `pg_create_object_relationship` and `pg_create_array_relationship` (legacy
 * names without `pg_`). The name must not collide with a column or another
 * relationship of the table; every `using` form is resolved by the catalog's
 * relationships stage, whose verdict refuses a relationship that does not fit.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineSourceOperation, requireDatabaseTable, requireTrackedTable } from '../../define.ts';
import type { RelationshipUsing, TableNameInput } from '../../../model/document.ts';
import { updateTable } from '../../edit.ts';
import { argPath, SUCCESS, type SourceOperation } from '../../operation.ts';
import { createArrayRelationshipArgs, createObjectRelationshipArgs } from '../../../model/schemas/args.ts';
import { findRelationship, relationshipListKey } from './find-relationship.ts';

interface CreateRelationshipArgs {
  table: TableNameInput;
  name: string;
  using: RelationshipUsing;
  comment?: string | null;
  source?: string;
}

function createRelationship(kind: 'object' | 'array'): SourceOperation {
  return defineSourceOperation<CreateRelationshipArgs>({
    mutates: true,
    schema: kind === 'object' ? createObjectRelationshipArgs : createArrayRelationshipArgs,
    async run(ctx, args, call, on) {
      const source = args.source ?? 'default';
      const table = on.naming.parse(args.table);
      const entry = requireTrackedTable(ctx, source, table, call, on);
      if (findRelationship(entry, args.name) !== undefined) {
        throw new EngineError(ErrorCode.AlreadyExists, `relationship "${args.name}" of table "${on.naming.format(table)}" already exists`, {
          path: argPath(call, 'name'),
        });
      }
      const dbTable = requireDatabaseTable(ctx, source, table, call, on);
      if (dbTable.columns.some((c) => c.name === args.name)) {
        throw new EngineError(ErrorCode.AlreadyExists, `column/relationship "${args.name}" of table "${on.naming.format(table)}" already exists`, {
          path: argPath(call, 'name'),
        });
      }
      const rel = { name: args.name, using: args.using, ...(args.comment == null ? {} : { comment: args.comment }) };
      const key = relationshipListKey(kind);
      const doc = updateTable(ctx.state.doc, source, table, (t) => ({ ...t, [key]: [...t[key], rel] }));
      await ctx.commitEdit({
        doc,
        touched: [{ kind: `${kind}_relation`, source, table, name: args.name }],
        path: argPath(call),
      });
      return { response: SUCCESS };
    },
  });
}

/** The create-object-relationship operation. */
export const createObjectRelationship = createRelationship('object');

/** The create-array-relationship operation. */
export const createArrayRelationship = createRelationship('array');
