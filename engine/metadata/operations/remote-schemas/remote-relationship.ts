/**
 * `pg_create_remote_relationship`, `pg_update_remote_relationship`,
 * `pg_delete_remote_relationship` (legacy `create_remote_relationship`...
 * on /v1/query): a table's remote relationship, in the older args form
 * (`hasura_fields`, `remote_schema`, `remote_field`, stored as its
 * `definition`) or with a `definition` (`to_remote_schema` / `to_source`)
 * stored as given. The catalog's remote-relationships stage resolves it; a
 * relationship that does not fit is refused with its reason.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineSourceOperation, requireTrackedTable } from '../../define.ts';
import type { JsonObject, TableNameInput } from '../../../model/document.ts';
import { updateTable } from '../../edit.ts';
import { argPath, SUCCESS, type SourceOperation } from '../../operation.ts';
import { nameSchema, tableNameSchema } from '../../../model/schemas/common.ts';
import type { JsonSchema } from '../../../model/schemas/validate.ts';

interface RemoteRelationshipArgs {
  name: string;
  table: TableNameInput;
  source?: string;
  hasura_fields?: string[];
  remote_schema?: string;
  remote_field?: JsonObject;
  definition?: JsonObject;
}

const argsSchema: JsonSchema = {
  type: 'object',
  required: ['name', 'table'],
  properties: {
    name: nameSchema,
    table: tableNameSchema,
    source: nameSchema,
    hasura_fields: { type: 'array', items: nameSchema },
    remote_schema: nameSchema,
    remote_field: { type: 'object' },
    definition: {
      type: 'object',
      properties: {
        to_remote_schema: {
          type: 'object',
          required: ['remote_schema', 'lhs_fields', 'remote_field'],
          properties: { remote_schema: nameSchema, lhs_fields: { type: 'array', items: nameSchema }, remote_field: { type: 'object' } },
          additionalProperties: false,
        },
        to_source: {
          type: 'object',
          required: ['table', 'relationship_type', 'field_mapping'],
          properties: {
            source: nameSchema,
            table: tableNameSchema,
            relationship_type: { enum: ['object', 'array'] },
            field_mapping: { type: 'object', additionalProperties: nameSchema },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
      minProperties: 1,
      maxProperties: 1,
    },
  },
  additionalProperties: false,
  oneOf: [{ required: ['definition'] }, { required: ['hasura_fields', 'remote_schema', 'remote_field'] }],
};

function definitionOf(args: RemoteRelationshipArgs): JsonObject {
  if (args.definition !== undefined) return args.definition;
  return { hasura_fields: args.hasura_fields ?? [], remote_schema: args.remote_schema ?? '', remote_field: args.remote_field ?? {} };
}

function writeRemoteRelationship(mode: 'create' | 'update'): SourceOperation {
  return defineSourceOperation<RemoteRelationshipArgs>({
    mutates: true,
    schema: argsSchema,
    async run(ctx, args, call, on) {
      const source = args.source ?? 'default';
      const table = on.naming.parse(args.table);
      const entry = requireTrackedTable(ctx, source, table, call, on);
      const exists = entry.remote_relationships.some((r) => r['name'] === args.name);
      if (mode === 'create' && exists) {
        throw new EngineError(ErrorCode.AlreadyExists, `remote relationship "${args.name}" of table "${on.naming.format(table)}" already exists`, {
          path: argPath(call, 'name'),
        });
      }
      if (mode === 'update' && !exists) {
        throw new EngineError(ErrorCode.NotExists, `remote relationship "${args.name}" of table "${on.naming.format(table)}" does not exist`, {
          path: argPath(call, 'name'),
        });
      }
      const rel: JsonObject = { name: args.name, definition: definitionOf(args) };
      const doc = updateTable(ctx.state.doc, source, table, (t) => ({
        ...t,
        remote_relationships: mode === 'create' ? [...t.remote_relationships, rel] : t.remote_relationships.map((r) => (r['name'] === args.name ? rel : r)),
      }));
      await ctx.commitEdit({ doc, touched: [{ kind: 'remote_relationship', source, table, name: args.name }], path: argPath(call) });
      return { response: SUCCESS };
    },
  });
}

/** The create-remote-relationship operation. */
export const createRemoteRelationship = writeRemoteRelationship('create');
/** The update-remote-relationship operation. */
export const updateRemoteRelationship = writeRemoteRelationship('update');

/** The delete-remote-relationship operation. */
export const deleteRemoteRelationship = defineSourceOperation<{ name: string; table: TableNameInput; source?: string }>({
  mutates: true,
  schema: {
    type: 'object',
    required: ['name', 'table'],
    properties: { name: nameSchema, table: tableNameSchema, source: nameSchema },
    additionalProperties: false,
  },
  async run(ctx, args, call, on) {
    const source = args.source ?? 'default';
    const table = on.naming.parse(args.table);
    const entry = requireTrackedTable(ctx, source, table, call, on);
    if (!entry.remote_relationships.some((r) => r['name'] === args.name)) {
      throw new EngineError(ErrorCode.NotExists, `remote relationship "${args.name}" of table "${on.naming.format(table)}" does not exist`, {
        path: argPath(call, 'name'),
      });
    }
    const doc = updateTable(ctx.state.doc, source, table, (t) => ({
      ...t,
      remote_relationships: t.remote_relationships.filter((r) => r['name'] !== args.name),
    }));
    await ctx.commitEdit({ doc, touched: [], path: argPath(call) });
    return { response: SUCCESS };
  },
});
