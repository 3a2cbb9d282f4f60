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
  tableConfigurationSchema,
  tableNameSchema,
} from './common.ts';
import type { JsonSchema } from './validate.ts';

const source = nameSchema;
const bool: JsonSchema = { type: 'boolean' };

function args(required: readonly string[], properties: Record<string, JsonSchema>): JsonSchema {
  return { type: 'object', required: [...required], properties, additionalProperties: false };
}

/** `<prefix>_add_source`, with the `configuration` schema of the prefix's backend. */
export function addSourceArgs(configurationSchema: JsonSchema): JsonSchema {
  return args(['name', 'configuration'], {
    name: nameSchema,
    configuration: configurationSchema,
    replace_configuration: bool,
    customization: objectSchema,
    kind: { type: 'string' },
  });
}

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

/** `<prefix>_get_source_tables`, `<prefix>_get_source_trackables` (v2 compat: `source` is required). */
export const getSourceTablesArgs = args(['source'], { source });

/** `<prefix>_suggest_relationships` (v2: every key optional; `tables` null is all tracked tables). */
export const suggestRelationshipsArgs = args([], { source, tables: { type: ['array', 'null'], items: tableNameSchema }, omit_tracked: bool });

/** `<prefix>_get_table_info`. */
export const getTableInfoArgs = args(['source', 'table'], { source, table: tableNameSchema });

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

/** `bigquery_run_sql` (v2 compat: `source` is required; `check_metadata_consistency: false` skips the introspection after it). */
export const runSqlAtOnceArgs = args(['sql', 'source'], { sql: { type: 'string' }, source, check_metadata_consistency: bool });

/** One call inside a `bulk`. */
export const callSchema: JsonSchema = {
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' }, args: {}, version: { type: 'integer' }, resource_version: { type: 'integer' } },
};

/** An event trigger's `columns` or `payload`: `*` or a list of column names. */
const columnSelection: JsonSchema = { oneOf: [{ const: '*' }, { type: 'array', items: { type: 'string' } }] };

/** v2 `SubscribeOpSpec`. */
const operationSpec: JsonSchema = {
  type: ['object', 'null'],
  required: ['columns'],
  properties: { columns: columnSelection, payload: { oneOf: [columnSelection, { type: 'null' }] } },
  additionalProperties: false,
};

/** A webhook header: `{name, value}` or `{name, value_from_env}`. */
export const webhookHeaderSchema: JsonSchema = {
  oneOf: [
    { type: 'object', required: ['name', 'value'], properties: { name: nameSchema, value: { type: 'string' } }, additionalProperties: false },
    { type: 'object', required: ['name', 'value_from_env'], properties: { name: nameSchema, value_from_env: nameSchema }, additionalProperties: false },
  ],
};

const nonNegative: JsonSchema = { type: 'integer', minimum: 0 };

/** `pg_create_event_trigger` (legacy `create_event_trigger` without `source` and the transforms). */
export const createEventTriggerArgs = args(['name', 'table'], {
  name: { type: 'string', minLength: 1, maxLength: 42, pattern: '^[A-Za-z][A-Za-z0-9_-]*$' },
  table: tableNameSchema,
  source,
  webhook: { type: 'string', minLength: 1 },
  webhook_from_env: nameSchema,
  insert: operationSpec,
  update: operationSpec,
  delete: operationSpec,
  headers: { type: ['array', 'null'], items: webhookHeaderSchema },
  retry_conf: {
    type: ['object', 'null'],
    properties: { num_retries: nonNegative, interval_sec: nonNegative, timeout_sec: { type: 'integer', minimum: 1 } },
    additionalProperties: false,
  },
  replace: bool,
  enable_manual: bool,
  request_transform: objectSchema,
  response_transform: objectSchema,
  cleanup_config: {
    type: 'object',
    required: ['schedule', 'clear_older_than'],
    properties: {
      schedule: { type: 'string', minLength: 1 },
      batch_size: { type: 'integer', minimum: 1 },
      clear_older_than: { type: 'integer', minimum: 0 },
      timeout: { type: 'integer', minimum: 1 },
      clean_invocation_logs: bool,
      paused: bool,
    },
    additionalProperties: false,
  },
  trigger_on_replication: bool,
});

/** `pg_delete_event_trigger`. */
export const deleteEventTriggerArgs = args(['name'], { name: nameSchema, source });

const eventId: JsonSchema = { type: 'string', pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' };

/** `pg_redeliver_event`. */
export const redeliverEventArgs = args(['event_id'], { event_id: eventId, source });

/** `pg_invoke_event_trigger`. */
export const invokeEventTriggerArgs = args(['name', 'payload'], { name: nameSchema, payload: {}, source });

const limit: JsonSchema = { type: 'integer', minimum: 0 };

/** `pg_get_event_logs`. */
export const getEventLogsArgs = args(['name'], {
  name: nameSchema,
  source,
  status: { enum: ['pending', 'processed', 'all'] },
  limit,
  offset: nonNegative,
});

/** `pg_get_event_invocation_logs`. */
export const getEventInvocationLogsArgs = args(['name'], { name: nameSchema, source, limit, offset: nonNegative });

/** `pg_get_event_by_id`. */
export const getEventByIdArgs = args(['event_id'], { event_id: eventId, source, invocation_log_limit: limit, invocation_log_offset: nonNegative });

/** `cleanup_event_trigger_logs` (v2: backend-neutral, the source in the args; the defaults of `cleanup_config`). */
export const cleanupEventTriggerLogsArgs = args(['event_trigger_name', 'clear_older_than'], {
  event_trigger_name: nameSchema,
  source,
  batch_size: { type: 'integer', minimum: 1 },
  clear_older_than: nonNegative,
  timeout: { type: 'integer', minimum: 1 },
  clean_invocation_logs: bool,
});

/** `pause_event_trigger_cleanups`, `resume_event_trigger_cleanups`: every trigger of some sources (`"*"`: all), or named triggers per source. */
export const toggleEventTriggerCleanupsArgs = args(['event_triggers'], {
  event_triggers: {
    anyOf: [
      {
        type: 'object',
        required: ['sources'],
        properties: { sources: { anyOf: [{ const: '*' }, { type: 'array', minItems: 1, items: nameSchema }] } },
        additionalProperties: false,
      },
      {
        type: 'array',
        minItems: 1,
        items: args(['event_triggers'], { source_name: nameSchema, event_triggers: { type: 'array', minItems: 1, items: nameSchema } }),
      },
    ],
  },
});

/** `<prefix>_track_tables` (v2.24+): `tables` are `<prefix>_track_table` args; `allow_warnings` defaults to true. */
export const trackTablesArgs = args(['tables'], { tables: { type: 'array', items: { type: 'object' } }, allow_warnings: bool });

/** `<prefix>_untrack_tables`: `tables` are `<prefix>_untrack_table` args. */
export const untrackTablesArgs = trackTablesArgs;
