/**
 * JSON schemas of operation args (the current `/v1/metadata` shapes; legacy
 * shapes are rewritten into these before validation).
 */
import {
  foreignKeyOnSchema,
  manualConfigurationSchema,
  nameSchema,
  nullableString,
  objectSchema,
  sourceConfigurationSchema,
  tableConfigurationSchema,
  tableNameSchema,
} from './common.ts';
import type { JsonSchema } from './validate.ts';

const source = nameSchema;
const bool: JsonSchema = { type: 'boolean' };

function args(required: readonly string[], properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', required: [...required], properties, additionalProperties: false };
}

/** `pg_add_source`. */
export const addSourceArgs = args(['name', 'configuration'], {
  name: nameSchema,
  configuration: sourceConfigurationSchema,
  replace_configuration: bool,
  customization: objectSchema,
  kind: { type: 'string' },
});

/** `pg_drop_source`. */
export const dropSourceArgs = args(['name'], { name: nameSchema, cascade: bool });

/** `pg_track_table`. */
export const trackTableArgs = args(['table'], {
  table: tableNameSchema,
  source,
  configuration: tableConfigurationSchema,
  is_enum: bool,
  apollo_federation_config: objectSchema,
});

/** `pg_untrack_table`. */
export const untrackTableArgs = args(['table'], { table: tableNameSchema, source, cascade: bool });

/** `pg_set_table_customization`. */
export const setTableCustomizationArgs = args(['table'], {
  table: tableNameSchema,
  source,
  configuration: tableConfigurationSchema,
});

/** `pg_set_table_is_enum`. */
export const setTableIsEnumArgs = args(['table', 'is_enum'], { table: tableNameSchema, source, is_enum: bool });

const objectUsing: JsonSchema = {
  type: 'object',
  properties: { foreign_key_constraint_on: foreignKeyOnSchema, manual_configuration: manualConfigurationSchema },
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
};

const arrayUsing: JsonSchema = {
  type: 'object',
  properties: {
    foreign_key_constraint_on: {
      type: 'object',
      required: ['table'],
      properties: {
        table: tableNameSchema,
        columns: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }] },
        column: { type: 'string' },
      },
      additionalProperties: false,
    },
    manual_configuration: manualConfigurationSchema,
  },
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
};

/** `pg_create_object_relationship`. */
export const createObjectRelationshipArgs = args(['table', 'name', 'using'], {
  table: tableNameSchema,
  name: nameSchema,
  using: objectUsing,
  comment: nullableString,
  source,
});

/** `pg_create_array_relationship`. */
export const createArrayRelationshipArgs = args(['table', 'name', 'using'], {
  table: tableNameSchema,
  name: nameSchema,
  using: arrayUsing,
  comment: nullableString,
  source,
});

/** `pg_drop_relationship`. */
export const dropRelationshipArgs = args(['table', 'relationship'], {
  table: tableNameSchema,
  relationship: nameSchema,
  cascade: bool,
  source,
});

/** `pg_rename_relationship`. */
export const renameRelationshipArgs = args(['table', 'name', 'new_name'], {
  table: tableNameSchema,
  name: nameSchema,
  new_name: nameSchema,
  source,
});

/** `pg_set_relationship_comment`. */
export const setRelationshipCommentArgs = args(['table', 'relationship'], {
  table: tableNameSchema,
  relationship: nameSchema,
  comment: nullableString,
  source,
});

/** Operations whose args are an empty object (extra keys tolerated, as v2 does). */
export const emptyArgs: JsonSchema = { type: 'object' };

/** `replace_metadata` version 2. */
export const replaceMetadataV2Args = args(['metadata'], {
  allow_inconsistent_metadata: bool,
  allow_warnings: bool,
  metadata: objectSchema,
});

const namesOrBool: JsonSchema = { oneOf: [bool, { type: 'array', items: { type: 'string' } }] };

/** `reload_metadata`. */
export const reloadMetadataArgs = args([], {
  reload_remote_schemas: namesOrBool,
  reload_sources: namesOrBool,
  recreate_event_triggers: namesOrBool,
});

/** `run_sql`. */
export const runSqlArgs = args(['sql'], {
  sql: { type: 'string' },
  source,
  cascade: bool,
  check_metadata_consistency: bool,
  read_only: bool,
});

/** One call inside a `bulk`. */
export const callSchema: JsonSchema = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' }, args: {}, version: { type: 'integer' }, resource_version: { type: 'integer' } },
};
