/**
 * JSON schemas shared by the document and the operation args: names, table
 * names, `{from_env}` values, table configuration, relationships and permissions.
 * Objects the engine interprets are closed (unknown keys refused, as v2
 * does); objects of later issues are open.
 */
import type { JsonSchema } from './validate.ts';

/** Any string. */
export const stringSchema: JsonSchema = { type: 'string' };

/** A non-empty name (source, relationship, role). */
export const nameSchema: JsonSchema = { type: 'string', minLength: 1 };

/** A JSON object of any content. */
export const objectSchema: JsonSchema = { type: 'object' };

/** A string or null. */
export const nullableString: JsonSchema = { type: ['string', 'null'] };

/** `TableName`: a string, or `{schema?, name}` (BigQuery: `{dataset, name}`). */
export const tableNameSchema: JsonSchema = {
  oneOf: [
    { type: 'string', minLength: 1 },
    {
      type: 'object',
      required: ['name'],
      // `dataset`: v2's BigQuery TableName (the backend's naming reads it as the schema).
      properties: { name: { type: 'string', minLength: 1 }, schema: { type: 'string', minLength: 1 }, dataset: { type: 'string', minLength: 1 } },
      additionalProperties: false,
    },
  ],
};

/** A string, or `{from_env: VAR}`. */
export const urlFromEnvSchema: JsonSchema = {
  oneOf: [{ type: 'string' }, { type: 'object', required: ['from_env'], properties: { from_env: { type: 'string' } }, additionalProperties: false }],
};

const rootFieldSchema: JsonSchema = {
  oneOf: [
    { type: ['string', 'null'] },
    {
      type: 'object',
      properties: { name: nullableString, comment: nullableString },
      additionalProperties: false,
    },
  ],
};

/** v2 `custom_root_fields` keys. */
export const ROOT_FIELD_KEYS = [
  'select',
  'select_by_pk',
  'select_aggregate',
  'select_stream',
  'insert',
  'insert_one',
  'update',
  'update_by_pk',
  'update_many',
  'delete',
  'delete_by_pk',
] as const;

/** A tracked table's `configuration`. */
export const tableConfigurationSchema: JsonSchema = {
  type: 'object',
  properties: {
    custom_name: nullableString,
    identifier: nullableString,
    custom_root_fields: {
      type: 'object',
      properties: Object.fromEntries(ROOT_FIELD_KEYS.map((k) => [k, rootFieldSchema])),
      additionalProperties: false,
    },
    custom_column_names: { type: 'object', additionalProperties: { type: 'string' } },
    column_config: {
      type: 'object',
      additionalProperties: {
        type: 'object',
        properties: { custom_name: stringSchema, comment: stringSchema },
        additionalProperties: false,
      },
    },
    comment: nullableString,
  },
  additionalProperties: false,
};

const columnsOneOrMany: JsonSchema = {
  oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }],
};

/** `foreign_key_constraint_on`: a column, a list, or `{table, columns|column}`. */
export const foreignKeyOnSchema: JsonSchema = {
  oneOf: [
    { type: 'string' },
    { type: 'array', items: { type: 'string' }, minItems: 1 },
    {
      type: 'object',
      required: ['table'],
      properties: { table: tableNameSchema, columns: columnsOneOrMany, column: { type: 'string' } },
      additionalProperties: false,
    },
  ],
};

/** `manual_configuration` of a relationship. */
export const manualConfigurationSchema: JsonSchema = {
  type: 'object',
  required: ['remote_table', 'column_mapping'],
  properties: {
    remote_table: tableNameSchema,
    column_mapping: { type: 'object', additionalProperties: { type: 'string' } },
    insertion_order: { enum: ['before_parent', 'after_parent', null] },
  },
  additionalProperties: false,
};

/** A relationship's `using`: exactly one of the two forms. */
export const relationshipUsingSchema: JsonSchema = {
  type: 'object',
  properties: { foreign_key_constraint_on: foreignKeyOnSchema, manual_configuration: manualConfigurationSchema },
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
};

/** A relationship as stored under its table. */
export const relationshipSchema: JsonSchema = {
  type: 'object',
  required: ['name', 'using'],
  properties: { name: nameSchema, using: relationshipUsingSchema, comment: nullableString },
  additionalProperties: false,
};

const permissionColumns: JsonSchema = {
  oneOf: [{ const: '*' }, { type: 'array', items: { type: 'string' } }],
};

/** A select permission body. */
export const selectPermissionSchema: JsonSchema = {
  type: 'object',
  required: ['columns'],
  properties: {
    columns: permissionColumns,
    filter: objectSchema,
    limit: { type: ['integer', 'null'], minimum: 0 },
    allow_aggregations: { type: 'boolean' },
    computed_fields: { type: 'array', items: { type: 'string' } },
    query_root_fields: { type: 'array', items: { type: 'string' } },
    subscription_root_fields: { type: 'array', items: { type: 'string' } },
  },
  additionalProperties: false,
};

/** An insert permission body. */
export const insertPermissionSchema: JsonSchema = {
  type: 'object',
  properties: {
    check: objectSchema,
    set: objectSchema,
    columns: permissionColumns,
    backend_only: { type: 'boolean' },
    validate_input: objectSchema,
  },
  additionalProperties: false,
};

/** An update permission body. */
export const updatePermissionSchema: JsonSchema = {
  type: 'object',
  required: ['columns'],
  properties: {
    columns: permissionColumns,
    filter: objectSchema,
    check: { type: ['object', 'null'] },
    set: objectSchema,
    backend_only: { type: 'boolean' },
    validate_input: objectSchema,
  },
  additionalProperties: false,
};

/** A delete permission body. */
export const deletePermissionSchema: JsonSchema = {
  type: 'object',
  properties: { filter: objectSchema, backend_only: { type: 'boolean' }, validate_input: objectSchema },
  additionalProperties: false,
};

/** `{role, permission, comment}` with the given permission body schema. */
export function permissionEntrySchema(permission: JsonSchema): JsonSchema {
  return {
    type: 'object',
    required: ['role', 'permission'],
    properties: { role: nameSchema, permission, comment: nullableString },
    additionalProperties: false,
  };
}
