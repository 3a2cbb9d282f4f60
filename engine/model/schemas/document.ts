/**
 * JSON schema of the whole metadata document (version 3), used by
 * `replace_metadata` and when loading the stored document.
 *
 * Note [Closed document]
 * Every object of the document is closed: a key the document does not define
 * is refused with `parse-failed` and the path of that key
 * (`$.args.sources[0].tables[1].colums`), so a typo can neither be stored and
 * exported nor silently drop what it meant (issue 12.4: `{"sourcez": []}`
 * answered success and untracked every table). The key sets are those of
 * v2's version 3 document, so every export of v2 is accepted; objects the
 * engine does not run yet (remote schemas, actions, cron triggers, REST
 * endpoints, event triggers...) are closed at the level whose keys v2 fixes,
 * and their inner `definition`s, whose shapes belong to the issues that will
 * run them, are kept as they came. v2 itself refuses unknown keys only in
 * table entries ("unexpected keys when parsing TableMetadata"); being stricter
 * elsewhere refuses only documents v2 would have stored without the key.
 * A document already stored is read with the same schema opened
 * ({@link DocumentSchemas.stored}): a key an earlier engine accepted must not
 * stop the engine from starting. Query collections, allow-list entries and
 * REST endpoints are typed in full when strict (schemas/query-collections.ts);
 * a stored entry of another shape is reported inconsistent by the catalog.
 */
import {
  deletePermissionSchema,
  insertPermissionSchema,
  nameSchema,
  objectSchema,
  permissionEntrySchema,
  relationshipSchema,
  selectPermissionSchema,
  tableConfigurationSchema,
  tableNameSchema,
  updatePermissionSchema,
} from './common.ts';
import { apiLimitsSchema } from './api-limits.ts';
import { introspectionOptionsSchema } from './introspection.ts';
import { networkSchema } from './network.ts';
import { allowlistEntryTypes, collectionEntryTypes, endpointEntryTypes } from './query-collections.ts';
import { computedFieldDefinitionSchema, functionConfigurationSchema } from './functions.ts';
import { SOURCE_KEPT_KEYS } from '../document.ts';
import type { SourceKind } from '../document.ts';
import type { JsonSchema } from './validate.ts';

const listOf = (items: JsonSchema): JsonSchema => ({ type: 'array', items });

/** v2 compat: how each source kind may be written in a document (`pg` is postgres' short name; no kind is postgres). */
export const KIND_NAMES: Readonly<Record<SourceKind, readonly string[]>> = { postgres: ['postgres', 'pg'], mssql: ['mssql'], bigquery: ['bigquery'] };

/** The schema of each kind's source `configuration`: its backend's (`Backend.configuration.schema`). */
export type ConfigurationSchemas = ReadonlyMap<SourceKind, JsonSchema>;

/**
 * Each kind's configuration schema applied to the sources of that kind; a
 * source without `kind` is postgres. Kinds absent from `configurations`
 * (no backend, or a caller that knows none: the controller) take any object.
 */
function configurationByKind(configurations: ConfigurationSchemas): JsonSchema {
  // An empty allOf is not a valid schema.
  if (configurations.size === 0) return {};
  return {
    allOf: [...configurations].map(([kind, configuration]) => ({
      if: { ...(kind === 'postgres' ? {} : { required: ['kind'] }), properties: { kind: { enum: KIND_NAMES[kind] } } },
      then: { properties: { configuration } },
    })),
  };
}

/** Builds the document schema; `strict` closes every object (see Note [Closed document]). */
function makeDocumentSchema(
  strict: boolean,
  configurations: ConfigurationSchemas,
): {
  readonly document: JsonSchema;
  readonly source: JsonSchema;
  readonly table: JsonSchema;
} {
  /** An object with exactly the keys `required` ∪ `optional` (values not checked beyond `typed`). */
  const closed = (required: readonly string[], optional: readonly string[], typed: Record<string, JsonSchema> = {}): JsonSchema => ({
    type: 'object',
    required: [...required],
    properties: Object.fromEntries([...required, ...optional].map((k) => [k, typed[k] ?? {}])),
    additionalProperties: !strict,
  });

  /** Keys only (for objects whose values the catalog checks and reports as inconsistencies). */
  const keysOnly = (keys: readonly string[], typed: Record<string, JsonSchema> = {}): JsonSchema => ({
    properties: Object.fromEntries(keys.map((k) => [k, typed[k] ?? {}])),
    additionalProperties: !strict,
  });

  /** One tracked function entry. */
  const functionEntrySchema: JsonSchema = {
    type: 'object',
    required: ['function'],
    properties: {
      function: tableNameSchema,
      configuration: functionConfigurationSchema,
      permissions: listOf(closed(['role'], [], { role: nameSchema })),
      comment: { type: ['string', 'null'] },
    },
    additionalProperties: !strict,
  };

  /** v2 event trigger keys. */
  const eventTriggerSchema = closed(
    ['name', 'definition'],
    ['retry_conf', 'webhook', 'webhook_from_env', 'headers', 'request_transform', 'response_transform', 'cleanup_config'],
  );

  /** One tracked table entry. */
  const tableEntrySchema: JsonSchema = {
    type: 'object',
    required: ['table'],
    properties: {
      table: tableNameSchema,
      configuration: tableConfigurationSchema,
      is_enum: { type: 'boolean' },
      object_relationships: listOf(relationshipSchema),
      array_relationships: listOf(relationshipSchema),
      computed_fields: listOf(
        closed(['name', 'definition'], ['comment'], { definition: computedFieldDefinitionSchema, comment: { type: ['string', 'null'] } }),
      ),
      remote_relationships: listOf(closed(['name', 'definition'], [])),
      insert_permissions: listOf(permissionEntrySchema(insertPermissionSchema)),
      select_permissions: listOf(permissionEntrySchema(selectPermissionSchema)),
      update_permissions: listOf(permissionEntrySchema(updatePermissionSchema)),
      delete_permissions: listOf(permissionEntrySchema(deletePermissionSchema)),
      event_triggers: listOf(eventTriggerSchema),
      apollo_federation_config: objectSchema,
      logical_model: {},
    },
    additionalProperties: !strict,
  };

  /** Source `customization`: the catalog checks the values; here only the keys. */
  const sourceCustomizationSchema: JsonSchema = {
    type: 'object',
    ...keysOnly(['root_fields', 'type_names', 'naming_convention'], {
      root_fields: keysOnly(['namespace', 'prefix', 'suffix']),
      type_names: keysOnly(['prefix', 'suffix', 'mapping']),
    }),
  };

  /** One source entry. */
  const sourceEntrySchema: JsonSchema = {
    type: 'object',
    required: ['name', 'configuration'],
    properties: {
      name: nameSchema,
      kind: { enum: Object.values(KIND_NAMES).flat() },
      tables: listOf(tableEntrySchema),
      functions: listOf(functionEntrySchema),
      configuration: objectSchema,
      customization: sourceCustomizationSchema,
      ...Object.fromEntries(SOURCE_KEPT_KEYS.map((k) => [k, {}])),
    },
    additionalProperties: false,
    ...configurationByKind(configurations),
  };

  /** The version 3 document. */
  const documentSchema: JsonSchema = closed(['version'], DOCUMENT_KEYS, {
    version: { const: 3 },
    sources: listOf(sourceEntrySchema),
    remote_schemas: listOf(closed(['name', 'definition'], ['comment', 'permissions', 'remote_relationships'])),
    query_collections: listOf(closed(['name', 'definition'], ['comment'], strict ? collectionEntryTypes : {})),
    allowlist: listOf(closed(['collection'], ['scope'], strict ? allowlistEntryTypes : {})),
    actions: listOf(closed(['name', 'definition'], ['comment', 'permissions'])),
    custom_types: closed([], ['input_objects', 'objects', 'scalars', 'enums']),
    cron_triggers: listOf(
      closed(
        ['name', 'webhook', 'schedule'],
        ['payload', 'retry_conf', 'headers', 'include_in_metadata', 'comment', 'request_transform', 'response_transform'],
      ),
    ),
    rest_endpoints: listOf(closed(['name', 'url', 'methods', 'definition'], ['comment'], strict ? endpointEntryTypes : {})),
    api_limits: apiLimitsSchema,
    metrics_config: closed([], ['analyze_query_variables', 'analyze_response_body']),
    inherited_roles: listOf(closed(['role_name', 'role_set'], [], { role_name: nameSchema, role_set: listOf(nameSchema) })),
    graphql_schema_introspection: strict ? introspectionOptionsSchema : closed([], ['disabled_for_roles']),
    network: strict ? networkSchema : objectSchema,
    backend_configs: objectSchema,
    opentelemetry: objectSchema,
  });
  return { document: documentSchema, source: sourceEntrySchema, table: tableEntrySchema };
}

/** Top-level keys of v2's version 3 document. */
export const DOCUMENT_KEYS = [
  'version',
  'sources',
  'remote_schemas',
  'query_collections',
  'allowlist',
  'actions',
  'custom_types',
  'cron_triggers',
  'rest_endpoints',
  'api_limits',
  'metrics_config',
  'inherited_roles',
  'graphql_schema_introspection',
  'network',
  'backend_configs',
  'opentelemetry',
] as const;

/** The schemas of a document whose sources' configurations are checked with `configurations`. */
export interface DocumentSchemas {
  /** The version 3 document as `replace_metadata` takes it: every object closed. */
  readonly document: JsonSchema;
  /** One source entry (closed). */
  readonly source: JsonSchema;
  /** One table entry (closed). */
  readonly table: JsonSchema;
  /** The document as read back from the store: the same checks, objects left open. */
  readonly stored: JsonSchema;
}

/** The document schemas with each kind's configuration schema (the engine passes its backends'). */
export function documentSchemas(configurations: ConfigurationSchemas): DocumentSchemas {
  const strict = makeDocumentSchema(true, configurations);
  return { document: strict.document, source: strict.source, table: strict.table, stored: makeDocumentSchema(false, configurations).document };
}

/**
 * The schemas for a reader that knows no backend (the controller): a source's
 * `configuration` is any object; the engine checks it when the document arrives.
 */
const wireSchemas = documentSchemas(new Map());

/** One source entry (closed), its configuration unchecked (the engine's document schemas: metadata/document-schemas.ts). */
export const sourceEntrySchema: JsonSchema = wireSchemas.source;

/** One table entry (closed). */
export const tableEntrySchema: JsonSchema = wireSchemas.table;

/** Document versions `replace_metadata` reads: 1 and 2 keep tables at the top level (upgraded to 3). */
export const DOCUMENT_VERSIONS: readonly number[] = [1, 2, 3];
