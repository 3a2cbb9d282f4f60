/**
 * `create_remote_schema_remote_relationship`,
 * `update_remote_schema_remote_relationship`,
 * `delete_remote_schema_remote_relationship` (v2 compat): a relationship of
 * a remote schema's type to a table (`to_source`) or to another remote
 * schema's field (`to_remote_schema`), stored in the remote schema entry as
 * v2 exports it (`remote_relationships: [{type_name, relationships}]`). The
 * catalog's remote-schema-relationships stage resolves it; one that does not
 * fit is refused (400) with its reason and nothing is stored.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation } from '../../define.ts';
import type { JsonObject } from '../../../model/document.ts';
import { updateRemoteSchema, withoutTypeRelationship } from '../../edit.ts';
import { argPath, SUCCESS, type Operation } from '../../operation.ts';
import { nameSchema, tableNameSchema } from '../../../model/schemas/common.ts';
import type { JsonSchema } from '../../../model/schemas/validate.ts';
import { storedTypeRelationships } from '../../../remote/definition.ts';
import { requireRemoteSchema } from './remote-schema-args.ts';

interface Args {
  remote_schema: string;
  type_name: string;
  name: string;
  definition: JsonObject;
}

const definitionSchema: JsonSchema = {
  type: 'object',
  properties: {
    to_source: {
      type: 'object',
      required: ['source', 'table', 'relationship_type', 'field_mapping'],
      properties: {
        source: nameSchema,
        table: tableNameSchema,
        relationship_type: { enum: ['object', 'array'] },
        field_mapping: { type: 'object', additionalProperties: { type: 'string' } },
      },
      additionalProperties: false,
    },
    to_remote_schema: {
      type: 'object',
      required: ['remote_schema', 'lhs_fields', 'remote_field'],
      properties: { remote_schema: nameSchema, lhs_fields: { type: 'array', items: nameSchema }, remote_field: { type: 'object' } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
};

const argsSchema: JsonSchema = {
  type: 'object',
  required: ['remote_schema', 'type_name', 'name', 'definition'],
  properties: { remote_schema: nameSchema, type_name: nameSchema, name: nameSchema, definition: definitionSchema },
  additionalProperties: false,
};

function exists(entry: { readonly remote_relationships?: readonly JsonObject[] }, typeName: string, name: string): boolean {
  return storedTypeRelationships(entry).some((t) => t.type_name === typeName && (t.relationships ?? []).some((r) => r.name === name));
}

function notExists(args: { remote_schema: string; type_name: string; name: string }, path: string): EngineError {
  return new EngineError(
    ErrorCode.NotExists,
    `remote relationship "${args.name}" of type "${args.type_name}" in remote schema "${args.remote_schema}" does not exist`,
    { path },
  );
}

/** `entry` with `rel` put on type `typeName` (replacing one of the same name). */
function withTypeRelationship(entry: JsonObject, typeName: string, rel: JsonObject): JsonObject {
  const types = (entry['remote_relationships'] ?? []) as JsonObject[];
  const has = types.some((t) => t['type_name'] === typeName);
  const next = has
    ? types.map((t) => {
        if (t['type_name'] !== typeName) return t;
        const list = (t['relationships'] ?? []) as JsonObject[];
        const replaced = list.some((r) => r['name'] === rel['name']);
        return { ...t, relationships: replaced ? list.map((r) => (r['name'] === rel['name'] ? rel : r)) : [...list, rel] };
      })
    : [...types, { type_name: typeName, relationships: [rel] }];
  return { ...entry, remote_relationships: next };
}

function write(mode: 'create' | 'update'): Operation {
  return defineOperation<Args>({
    mutates: true,
    schema: argsSchema,
    async run(ctx, args, call) {
      const entry = requireRemoteSchema(ctx.state.doc, args.remote_schema, call, 'remote_schema');
      const present = exists(entry, args.type_name, args.name);
      if (mode === 'create' && present) {
        throw new EngineError(
          ErrorCode.AlreadyExists,
          `remote relationship "${args.name}" of type "${args.type_name}" in remote schema "${args.remote_schema}" already exists`,
          { path: argPath(call, 'name') },
        );
      }
      if (mode === 'update' && !present) throw notExists(args, argPath(call, 'name'));
      const rel: JsonObject = { name: args.name, definition: args.definition };
      const doc = updateRemoteSchema(ctx.state.doc, args.remote_schema, (r) => withTypeRelationship(r, args.type_name, rel));
      await ctx.commitEdit({
        doc,
        touched: [{ kind: 'remote_schema_remote_relationship', remoteSchema: args.remote_schema, typeName: args.type_name, name: args.name }],
        path: argPath(call),
      });
      return { response: SUCCESS };
    },
  });
}

/** The create-remote-schema-remote-relationship operation. */
export const createRemoteSchemaRemoteRelationship = write('create');
/** The update-remote-schema-remote-relationship operation. */
export const updateRemoteSchemaRemoteRelationship = write('update');

/** The delete-remote-schema-remote-relationship operation. */
export const deleteRemoteSchemaRemoteRelationship = defineOperation<{ remote_schema: string; type_name: string; name: string }>({
  mutates: true,
  schema: {
    type: 'object',
    required: ['remote_schema', 'type_name', 'name'],
    properties: { remote_schema: nameSchema, type_name: nameSchema, name: nameSchema },
    additionalProperties: false,
  },
  async run(ctx, args, call) {
    const entry = requireRemoteSchema(ctx.state.doc, args.remote_schema, call, 'remote_schema');
    if (!exists(entry, args.type_name, args.name)) throw notExists(args, argPath(call, 'name'));
    const doc = updateRemoteSchema(ctx.state.doc, args.remote_schema, (r) => withoutTypeRelationship(r, args.type_name, args.name));
    await ctx.commitEdit({ doc, touched: [], path: argPath(call) });
    return { response: SUCCESS };
  },
});
