/**
 * `pg_drop_computed_field` (legacy `drop_computed_field`). Permissions that
 * name the field are its dependents: reported as a `dependency-error`, or
 * dropped too with `cascade`.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineSourceOperation, requireTrackedTable } from '../../define.ts';
import type { TableNameInput } from '../../../model/document.ts';
import { removeObject } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { nameSchema, tableNameSchema } from '../../../model/schemas/common.ts';
import type { JsonSchema } from '../../../model/schemas/validate.ts';

interface DropComputedFieldArgs {
  table: TableNameInput;
  name: string;
  cascade?: boolean;
  source?: string;
}

const schema: JsonSchema = {
  type: 'object',
  required: ['table', 'name'],
  properties: { table: tableNameSchema, name: nameSchema, cascade: { type: 'boolean' }, source: nameSchema },
  additionalProperties: false,
};

/** The drop-computed-field operation. */
export const dropComputedField = defineSourceOperation<DropComputedFieldArgs>({
  mutates: true,
  schema,
  async run(ctx, args, call, on) {
    const source = args.source ?? 'default';
    const table = on.naming.parse(args.table);
    const entry = requireTrackedTable(ctx, source, table, call, on);
    if (!entry.computed_fields.some((c) => c.name === args.name)) {
      throw new EngineError(ErrorCode.NotExists, `computed field "${args.name}" does not exist in table "${on.naming.format(table)}"`, {
        path: argPath(call, 'name'),
      });
    }
    const doc = removeObject(ctx.state.doc, { kind: 'computed_field', source, table, name: args.name });
    await ctx.commitEdit({ doc, touched: [], drop: { cascade: args.cascade === true }, path: argPath(call) });
    return { response: SUCCESS };
  },
});
