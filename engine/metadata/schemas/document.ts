/**
 * JSON schema of the whole metadata document (version 3), used by
 * `replace_metadata`. Objects of later issues are checked for the keys the
 * spec names and otherwise kept open.
 */
import {
  deletePermissionSchema,
  insertPermissionSchema,
  nameSchema,
  objectSchema,
  permissionEntrySchema,
  relationshipSchema,
  selectPermissionSchema,
  sourceConfigurationSchema,
  tableConfigurationSchema,
  tableNameSchema,
  updatePermissionSchema,
} from './common.ts';
import { functionConfigurationSchema } from './functions.ts';
import type { JsonSchema } from './validate.ts';

const listOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });

const named = (required: readonly string[]): JsonSchema => ({ type: 'object', required: [...required] });

/** One tracked function entry. */
const functionEntrySchema: JsonSchema = {
  type: 'object',
  required: ['function'],
  properties: {
    function: tableNameSchema,
    configuration: functionConfigurationSchema,
    permissions: listOf({ type: 'object', required: ['role'], properties: { role: nameSchema } }),
    comment: { type: ['string', 'null'] },
  },
};

/** One tracked table entry. */
export const tableEntrySchema: JsonSchema = {
  type: 'object',
  required: ['table'],
  properties: {
    table: tableNameSchema,
    configuration: tableConfigurationSchema,
    is_enum: { type: 'boolean' },
    object_relationships: listOf(relationshipSchema),
    array_relationships: listOf(relationshipSchema),
    computed_fields: listOf(named(['name', 'definition'])),
    remote_relationships: listOf(named(['name', 'definition'])),
    insert_permissions: listOf(permissionEntrySchema(insertPermissionSchema)),
    select_permissions: listOf(permissionEntrySchema(selectPermissionSchema)),
    update_permissions: listOf(permissionEntrySchema(updatePermissionSchema)),
    delete_permissions: listOf(permissionEntrySchema(deletePermissionSchema)),
    event_triggers: listOf(named(['name', 'definition'])),
  },
};

/** One source entry. */
export const sourceEntrySchema: JsonSchema = {
  type: 'object',
  required: ['name', 'configuration'],
  properties: {
    name: nameSchema,
    kind: { enum: ['postgres', 'pg', 'mssql', 'bigquery'] },
    tables: listOf(tableEntrySchema),
    functions: listOf(functionEntrySchema),
    configuration: objectSchema,
    customization: objectSchema,
  },
  additionalProperties: false,
  if: { properties: { kind: { enum: ['postgres', 'pg'] } } },
  then: { properties: { configuration: sourceConfigurationSchema } },
};

/** The version 3 document. */
export const documentSchema: JsonSchema = {
  type: 'object',
  required: ['version'],
  properties: {
    version: { const: 3 },
    sources: listOf(sourceEntrySchema),
    remote_schemas: listOf(named(['name', 'definition'])),
    query_collections: listOf(named(['name', 'definition'])),
    allowlist: listOf(named(['collection'])),
    actions: listOf(named(['name', 'definition'])),
    custom_types: objectSchema,
    cron_triggers: listOf(named(['name', 'webhook', 'schedule'])),
    rest_endpoints: listOf(named(['name', 'url', 'methods', 'definition'])),
    inherited_roles: listOf({
      type: 'object',
      required: ['role_name', 'role_set'],
      properties: { role_name: nameSchema, role_set: listOf(nameSchema) },
    }),
  },
};
