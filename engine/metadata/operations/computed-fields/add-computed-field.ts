/**
 * `pg_add_computed_field` (legacy `add_computed_field`): a field of a table
 * computed by a function taking the table's row; `bigquery_add_computed_field`:
 * by a table-valued function taking columns by `argument_mapping` (Note
 * [Computed fields by argument mapping]). Each refuses the other's keys as
 * unexpected, as their schemas in v2 do. Whether the function fits
 * is the catalog's check; a misfit is refused with the field's inconsistency
 * reason.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineSourceOperation, requireTrackedTable } from '../../define.ts';
import type { ComputedFieldDefinition, ComputedFieldMetadata, TableNameInput } from '../../../model/document.ts';
import { updateTable } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { nameSchema, nullableString, tableNameSchema } from '../../../model/schemas/common.ts';
import { computedFieldDefinitionSchema } from '../../../model/schemas/functions.ts';
import { unexpectedKeyMessage, type JsonSchema } from '../../../model/schemas/validate.ts';

/** The definition keys of the other computed field style (Backend.computedFieldInputs), refused as unexpected. */
const FOREIGN_KEYS: Readonly<Record<'row' | 'argument-mapping', readonly string[]>> = {
  row: ['argument_mapping', 'return_table'],
  'argument-mapping': ['table_argument', 'session_argument'],
};

interface AddComputedFieldArgs {
  table: TableNameInput;
  name: string;
  definition: ComputedFieldDefinition;
  comment?: string | null;
  source?: string;
}

const schema: JsonSchema = {
  type: 'object',
  required: ['table', 'name', 'definition'],
  properties: { table: tableNameSchema, name: nameSchema, definition: computedFieldDefinitionSchema, comment: nullableString, source: nameSchema },
  additionalProperties: false,
};

/** The add-computed-field operation. */
export const addComputedField = defineSourceOperation<AddComputedFieldArgs>({
  mutates: true,
  schema,
  async run(ctx, args, call, on) {
    const source = args.source ?? 'default';
    const style = on.computedFieldInputs ?? 'row';
    const foreign = FOREIGN_KEYS[style].find((k) => k in args.definition);
    if (foreign !== undefined) {
      const properties = Object.fromEntries(
        Object.keys((computedFieldDefinitionSchema['properties'] as object | undefined) ?? {})
          .filter((k) => !FOREIGN_KEYS[style].includes(k))
          .map((k) => [k, {}]),
      );
      throw new EngineError(ErrorCode.ParseFailed, unexpectedKeyMessage(foreign, { properties }), { path: argPath(call, 'definition', foreign) });
    }
    const table = on.naming.parse(args.table);
    const entry = requireTrackedTable(ctx, source, table, call, on);
    if (entry.computed_fields.some((c) => c.name === args.name)) {
      throw new EngineError(ErrorCode.AlreadyExists, `computed field "${args.name}" already exists in table "${on.naming.format(table)}"`, {
        path: argPath(call, 'name'),
      });
    }
    const field: ComputedFieldMetadata = {
      name: args.name,
      definition: args.definition,
      ...(args.comment === undefined || args.comment === null ? {} : { comment: args.comment }),
    };
    const doc = updateTable(ctx.state.doc, source, table, (t) => ({ ...t, computed_fields: [...t.computed_fields, field] }));
    await ctx.commitEdit({ doc, touched: [{ kind: 'computed_field', source, table, name: args.name }], path: argPath(call) });
    return { response: SUCCESS };
  },
});
