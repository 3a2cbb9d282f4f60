/**
 * JSON schemas of tracked functions and computed fields, shared by their
 * operations' args and the whole document (`replace_metadata`).
 */
import { nullableString, tableNameSchema } from './common.ts';
import type { JsonSchema } from './validate.ts';

const rootField: JsonSchema = {
  oneOf: [{ type: ['string', 'null'] }, { type: 'object', properties: { name: nullableString, comment: nullableString }, additionalProperties: false }],
};

/** A tracked function's `configuration`. */
export const functionConfigurationSchema: JsonSchema = {
  type: 'object',
  properties: {
    custom_name: nullableString,
    custom_root_fields: {
      type: 'object',
      properties: { function: rootField, function_aggregate: rootField },
      additionalProperties: false,
    },
    session_argument: nullableString,
    exposed_as: { enum: ['query', 'mutation', null] },
  },
  additionalProperties: false,
};

/** The `definition` of a computed field. */
export const computedFieldDefinitionSchema: JsonSchema = {
  type: 'object',
  required: ['function'],
  properties: {
    function: tableNameSchema,
    table_argument: nullableString,
    session_argument: nullableString,
    // BigQuery's (v2): the catalog refuses them on sources whose computed fields take the row.
    argument_mapping: { type: 'object', additionalProperties: { type: 'string' } },
    return_table: { oneOf: [tableNameSchema, { type: 'null' }] },
  },
  additionalProperties: false,
};
