/**
 * Operation names → operations. The one place metadata operation names are
 * spelled. `/v1/metadata` takes backend-prefixed names (`pg_track_table`) and
 * the backend-neutral ones (`export_metadata`); the legacy `/v1/query` takes
 * unprefixed names with their legacy arg shapes; `/v2/query` takes `run_sql`
 * and `bulk`. Which prefixes and operation families are served comes from the
 * backends registry; v2 backends that do not exist here (`mssql_`,
 * `bigquery_`, ...) answer `not-supported`.
 */
import type { Backend, OperationFamily } from '../backends/backend.ts';
import { backendFor, backendWithPrefix } from '../backends/registry.ts';
import { sourceNaming } from '../catalog/source-naming.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import { didYouMean } from '../errors/suggest.ts';
import type { ApiFamily } from '../api/contract.ts';
import { argPath, type MetadataCall, type OnSource, type Operation, type RunContext, type SourceOperation } from './operation.ts';
import type { SourceMetadata } from '../model/document.ts';
import { findSource } from './edit.ts';
import { removeApiLimits, setApiLimits } from './operations/api-limits/set-api-limits.ts';
import { setIntrospectionOptions } from './operations/introspection/set-introspection-options.ts';
import { addHostToTlsAllowlist, dropHostFromTlsAllowlist } from './operations/network/tls-allowlist.ts';
import { cleanupEventTriggerLogs, pauseEventTriggerCleanups, resumeEventTriggerCleanups } from './operations/event-triggers/cleanup-operations.ts';
import { bulk, bulkAtomic, bulkKeepGoing } from './operations/manage/bulk.ts';
import { clearMetadata } from './operations/manage/clear-metadata.ts';
import { dropInconsistentMetadata } from './operations/manage/drop-inconsistent-metadata.ts';
import { exportMetadata } from './operations/manage/export-metadata.ts';
import { getInconsistentMetadata } from './operations/manage/get-inconsistent-metadata.ts';
import { getResourceVersion } from './operations/manage/get-resource-version.ts';
import { getCatalogState, setCatalogState } from './operations/manage/catalog-state.ts';
import { reloadMetadata } from './operations/manage/reload-metadata.ts';
import { replaceMetadata } from './operations/manage/replace-metadata.ts';
import { createArrayRelationship, createObjectRelationship } from './operations/relationships/create-relationship.ts';
import { dropRelationship } from './operations/relationships/drop-relationship.ts';
import { renameRelationship } from './operations/relationships/rename-relationship.ts';
import { setRelationshipComment } from './operations/relationships/set-relationship-comment.ts';
import { createPermissionOps } from './operations/permissions/create-permission.ts';
import { dropPermissionOps } from './operations/permissions/drop-permission.ts';
import { setPermissionComment } from './operations/permissions/set-permission-comment.ts';
import { addInheritedRole } from './operations/roles/add-inherited-role.ts';
import { dropInheritedRole } from './operations/roles/drop-inherited-role.ts';
import { addComputedField } from './operations/computed-fields/add-computed-field.ts';
import { dropComputedField } from './operations/computed-fields/drop-computed-field.ts';
import { createFunctionPermission, dropFunctionPermission } from './operations/functions/function-permission.ts';
import { setFunctionCustomization } from './operations/functions/set-function-customization.ts';
import { trackFunction } from './operations/functions/track-function.ts';
import { untrackFunction } from './operations/functions/untrack-function.ts';
import { createAction, createActionPermission, dropAction, dropActionPermission, updateAction } from './operations/actions/action-operations.ts';
import { setCustomTypes } from './operations/actions/set-custom-types.ts';
import { testWebhookTransformOp } from './operations/actions/test-webhook-transform.ts';
import { addSourceFor } from './operations/sources/add-source.ts';
import { dropSource } from './operations/sources/drop-source.ts';
import { renameSource } from './operations/sources/rename-source.ts';
import { listSourceKinds } from './operations/sources/list-source-kinds.ts';
import { updateSourceFor } from './operations/sources/update-source.ts';
import { createCronTrigger } from './operations/scheduled/create-cron-trigger.ts';
import { createScheduledEvent } from './operations/scheduled/create-scheduled-event.ts';
import { deleteCronTrigger } from './operations/scheduled/delete-cron-trigger.ts';
import { deleteScheduledEvent } from './operations/scheduled/delete-scheduled-event.ts';
import { getCronTriggers } from './operations/scheduled/get-cron-triggers.ts';
import { getScheduledEventInvocations, getScheduledEvents } from './operations/scheduled/get-scheduled-events.ts';
import { runSql, runSqlAtOnceFor, runSqlFor } from './operations/sql/run-sql.ts';
import { addCollectionToAllowlist, dropCollectionFromAllowlist, updateScopeOfCollectionInAllowlist } from './operations/query-collections/allowlist.ts';
import {
  addQueryToCollection,
  createQueryCollection,
  dropQueryCollection,
  dropQueryFromCollection,
  renameQueryCollection,
} from './operations/query-collections/collections.ts';
import { createRestEndpoint, dropRestEndpoint } from './operations/query-collections/rest-endpoints.ts';
import { setTableCustomFields, setTableCustomization } from './operations/tables/set-table-customization.ts';
import { setTableIsEnum } from './operations/tables/set-table-is-enum.ts';
import { trackTable } from './operations/tables/track-table.ts';
import { trackTablesFor, untrackTablesFor } from './operations/tables/track-tables.ts';
import { untrackTable } from './operations/tables/untrack-table.ts';
import { getSourceTablesFor, getSourceTrackablesFor, getTableInfoFor } from './operations/tables/get-source-tables.ts';
import { suggestRelationships } from './operations/relationships/suggest-relationships.ts';
import { createEventTrigger } from './operations/event-triggers/create-event-trigger.ts';
import { deleteEventTrigger } from './operations/event-triggers/delete-event-trigger.ts';
import { getEventById, getEventInvocationLogs, getEventLogs, invokeEventTrigger, redeliverEvent } from './operations/event-triggers/event-log-operations.ts';
import { addRemoteSchema, updateRemoteSchemaOp } from './operations/remote-schemas/add-remote-schema.ts';
import { introspectRemoteSchema, reloadRemoteSchema, removeRemoteSchema } from './operations/remote-schemas/remove-remote-schema.ts';
import { addRemoteSchemaPermissions, dropRemoteSchemaPermissions } from './operations/remote-schemas/remote-schema-permission.ts';
import { createRemoteRelationship, deleteRemoteRelationship, updateRemoteRelationship } from './operations/remote-schemas/remote-relationship.ts';
import {
  createRemoteSchemaRemoteRelationship,
  deleteRemoteSchemaRemoteRelationship,
  updateRemoteSchemaRemoteRelationship,
} from './operations/remote-schemas/remote-schema-relationship.ts';

/** Remote schema operations: the same names on `/v1/metadata` and `/v1/query`. */
const REMOTE_SCHEMA_OPERATIONS: ReadonlyArray<readonly [string, Operation]> = [
  ['add_remote_schema', addRemoteSchema],
  ['update_remote_schema', updateRemoteSchemaOp],
  ['remove_remote_schema', removeRemoteSchema],
  ['reload_remote_schema', reloadRemoteSchema],
  ['introspect_remote_schema', introspectRemoteSchema],
  ['add_remote_schema_permissions', addRemoteSchemaPermissions],
  ['drop_remote_schema_permissions', dropRemoteSchemaPermissions],
  ['create_remote_schema_remote_relationship', createRemoteSchemaRemoteRelationship],
  ['update_remote_schema_remote_relationship', updateRemoteSchemaRemoteRelationship],
  ['delete_remote_schema_remote_relationship', deleteRemoteSchemaRemoteRelationship],
];

/** `create_<kind>_permission`, `drop_<kind>_permission`, `set_permission_comment` (same names with and without `pg_`). */
const PERMISSION_OPERATIONS: ReadonlyArray<readonly [string, SourceOperation]> = [
  ...(['insert', 'select', 'update', 'delete'] as const).flatMap((k) => [
    [`create_${k}_permission`, createPermissionOps[k]] as const,
    [`drop_${k}_permission`, dropPermissionOps[k]] as const,
  ]),
  ['set_permission_comment', setPermissionComment],
];

/** Function and computed-field operations (same names with and without `pg_`). */
const FUNCTION_OPERATIONS: ReadonlyArray<readonly [string, SourceOperation]> = [
  ['track_function', trackFunction],
  ['untrack_function', untrackFunction],
  ['set_function_customization', setFunctionCustomization],
  ['create_function_permission', createFunctionPermission],
  ['drop_function_permission', dropFunctionPermission],
  ['add_computed_field', addComputedField],
  ['drop_computed_field', dropComputedField],
];

/** Event trigger operations with a legacy name (same names with and without `pg_`). */
const EVENT_TRIGGER_OPERATIONS: ReadonlyArray<readonly [string, SourceOperation]> = [
  ['create_event_trigger', createEventTrigger],
  ['delete_event_trigger', deleteEventTrigger],
  ['redeliver_event', redeliverEvent],
  ['invoke_event_trigger', invokeEventTrigger],
];

/** Table, relationship, permission and function operations: backend-prefixed on `/v1/metadata`, bare on `/v1/query`. */
const TABLE_OPERATIONS: ReadonlyArray<readonly [string, SourceOperation]> = [
  ['track_table', trackTable],
  ['untrack_table', untrackTable],
  ['set_table_customization', setTableCustomization],
  ['set_table_is_enum', setTableIsEnum],
  ['create_object_relationship', createObjectRelationship],
  ['create_array_relationship', createArrayRelationship],
  ['drop_relationship', dropRelationship],
  ['rename_relationship', renameRelationship],
  ['set_relationship_comment', setRelationshipComment],
  ['create_remote_relationship', createRemoteRelationship],
  ['update_remote_relationship', updateRemoteRelationship],
  ['delete_remote_relationship', deleteRemoteRelationship],
  ...PERMISSION_OPERATIONS,
  ...FUNCTION_OPERATIONS,
  ...EVENT_TRIGGER_OPERATIONS,
];

/** Actions and custom types: the same names on `/v1/metadata` and the legacy `/v1/query`. */
const ACTION_OPERATIONS: ReadonlyArray<readonly [string, Operation]> = [
  ['set_custom_types', setCustomTypes],
  ['create_action', createAction],
  ['update_action', updateAction],
  ['drop_action', dropAction],
  ['create_action_permission', createActionPermission],
  ['drop_action_permission', dropActionPermission],
];

/** Whole-metadata operations, the same on `/v1/metadata` and `/v1/query`. */
const MANAGE_OPERATIONS: ReadonlyArray<readonly [string, Operation]> = [
  ['export_metadata', exportMetadata],
  ['replace_metadata', replaceMetadata],
  ['reload_metadata', reloadMetadata],
  ['clear_metadata', clearMetadata],
  ['get_inconsistent_metadata', getInconsistentMetadata],
  ['get_resource_version', getResourceVersion],
  ['get_catalog_state', getCatalogState],
  ['set_catalog_state', setCatalogState],
  ['drop_inconsistent_metadata', dropInconsistentMetadata],
  ['bulk', bulk],
  ...REMOTE_SCHEMA_OPERATIONS,
];

/** Query collections, the allow-list and REST endpoints: the same names on `/v1/metadata` and `/v1/query`. */
const COLLECTION_OPERATIONS: ReadonlyArray<readonly [string, Operation]> = [
  ['create_query_collection', createQueryCollection],
  ['rename_query_collection', renameQueryCollection],
  ['drop_query_collection', dropQueryCollection],
  ['add_query_to_collection', addQueryToCollection],
  ['drop_query_from_collection', dropQueryFromCollection],
  ['add_collection_to_allowlist', addCollectionToAllowlist],
  ['update_scope_of_collection_in_allowlist', updateScopeOfCollectionInAllowlist],
  ['drop_collection_from_allowlist', dropCollectionFromAllowlist],
  ['create_rest_endpoint', createRestEndpoint],
  ['drop_rest_endpoint', dropRestEndpoint],
];

/** Cron triggers and one-off scheduled events (the same on `/v1/metadata` and `/v1/query`). */
const SCHEDULED_OPERATIONS: ReadonlyArray<readonly [string, Operation]> = [
  ['create_cron_trigger', createCronTrigger],
  ['delete_cron_trigger', deleteCronTrigger],
  ['get_cron_triggers', getCronTriggers],
  ['create_scheduled_event', createScheduledEvent],
  ['delete_scheduled_event', deleteScheduledEvent],
  ['get_scheduled_events', getScheduledEvents],
  ['get_scheduled_event_invocations', getScheduledEventInvocations],
];

/** An operation of a database backend: the same for every backend, or made for the backend of the prefix used. */
type BackendOperation = SourceOperation | ((backend: Backend) => SourceOperation);

/** Operations of a database backend, by name without the backend prefix. */
const SOURCE_OPERATIONS: ReadonlyMap<string, BackendOperation> = new Map<string, BackendOperation>([
  ['add_source', addSourceFor],
  ['update_source', updateSourceFor],
  ['drop_source', dropSource],
  ...TABLE_OPERATIONS,
  ['track_tables', trackTablesFor],
  ['untrack_tables', untrackTablesFor],
  // Read-only: what the source's database holds, tracked or not (the console's tables and columns).
  ['get_source_tables', getSourceTablesFor],
  ['get_table_info', getTableInfoFor],
  ['get_source_trackables', getSourceTrackablesFor],
  ['suggest_relationships', suggestRelationships],
  ['get_event_logs', getEventLogs],
  ['get_event_invocation_logs', getEventInvocationLogs],
  ['get_event_by_id', getEventById],
]);

/** v2 compat: the legacy `/v1/query` names of backend operations, and the kind they act on (postgres' by definition: v2's runQueryM). */
const LEGACY_SOURCE_OPERATIONS: ReadonlyMap<string, SourceOperation> = new Map([
  ...TABLE_OPERATIONS,
  ['add_existing_table_or_view', trackTable],
  ['set_table_custom_fields', setTableCustomFields],
]);
const LEGACY_KIND = 'postgres';

/** Backend-neutral operations of `/v1/metadata`. */
const METADATA_OPERATIONS: ReadonlyMap<string, Operation> = new Map([
  ...MANAGE_OPERATIONS,
  ['rename_source', renameSource],
  ['list_source_kinds', listSourceKinds],
  ['add_inherited_role', addInheritedRole],
  ['drop_inherited_role', dropInheritedRole],
  ['set_api_limits', setApiLimits],
  ['remove_api_limits', removeApiLimits],
  ['set_graphql_schema_introspection_options', setIntrospectionOptions],
  ['bulk_atomic', bulkAtomic],
  ['bulk_keep_going', bulkKeepGoing],
  ['add_host_to_tls_allowlist', addHostToTlsAllowlist],
  ['drop_host_from_tls_allowlist', dropHostFromTlsAllowlist],
  ['cleanup_event_trigger_logs', cleanupEventTriggerLogs],
  ['pause_event_trigger_cleanups', pauseEventTriggerCleanups],
  ['resume_event_trigger_cleanups', resumeEventTriggerCleanups],
  ['test_webhook_transform', testWebhookTransformOp],
  ...COLLECTION_OPERATIONS,
  ...ACTION_OPERATIONS,
  ...SCHEDULED_OPERATIONS,
]);

/** v2 compat: the legacy `/v1/query` operations other than {@link LEGACY_SOURCE_OPERATIONS}. */
const QUERY_V1_OPERATIONS: ReadonlyMap<string, Operation> = new Map([
  ...MANAGE_OPERATIONS,
  ...COLLECTION_OPERATIONS,
  ...ACTION_OPERATIONS,
  ...SCHEDULED_OPERATIONS,
  ['run_sql', runSql],
]);

/** `/v2/query` operations. */
const QUERY_V2_OPERATIONS: ReadonlyMap<string, Operation> = new Map([
  ['run_sql', runSql],
  ['mssql_run_sql', runSqlFor('mssql')],
  ['bigquery_run_sql', runSqlAtOnceFor('bigquery')],
  ['bulk', bulk],
]);

/** v2 compat: backend prefixes of operation names, with the kind (v2's backend type) each stands for; the backends registry says which have a backend. */
const PREFIX_KINDS: ReadonlyMap<string, string> = new Map([
  ['pg_', 'postgres'],
  ['mssql_', 'mssql'],
  ['bigquery_', 'bigquery'],
  ['citus_', 'citus'],
  ['cockroach_', 'cockroach'],
]);
const BACKEND_PREFIXES = [...PREFIX_KINDS.keys()];

/** The family of a backend operation (by its name without prefix); a backend accepts whole families. */
function familyOf(name: string): OperationFamily {
  if (name === 'add_source' || name === 'update_source' || name === 'drop_source') return 'sources';
  if (name.endsWith('_computed_field')) return 'computed-fields';
  if (name.includes('event')) return 'event-triggers';
  // Function permissions belong with the functions, as in v2.
  if (name.includes('function')) return 'functions';
  if (name.includes('permission')) return 'permissions';
  if (name.includes('relationship')) return 'relationships';
  return 'tables';
}

/** Finds the operation for `call` on `api`; `parse-failed` for unknown names, `not-supported` for absent backends. */
export function resolveOperation(api: ApiFamily, call: MetadataCall): Operation {
  const path = call.path === '$' ? '$.type' : `${call.path}.type`;
  const type = call.type;
  if (api === 'query-v1' || api === 'query-v2') {
    // v2 compat: the legacy names of backend operations are pg_'s (runQueryM runs them as postgres).
    const legacy = api === 'query-v1' ? LEGACY_SOURCE_OPERATIONS.get(type) : undefined;
    if (legacy !== undefined) return onSourceOf(backendFor(LEGACY_KIND), familyOf(type), legacy);
    const op = (api === 'query-v1' ? QUERY_V1_OPERATIONS : QUERY_V2_OPERATIONS).get(type);
    if (op !== undefined) return op;
    throw new EngineError(ErrorCode.ParseFailed, `unknown query type "${type}"${unknownHint(api, type)}`, { path });
  }
  const neutral = METADATA_OPERATIONS.get(type);
  if (neutral !== undefined) return neutral;
  for (const prefix of BACKEND_PREFIXES) {
    if (!type.startsWith(prefix)) continue;
    const name = type.slice(prefix.length);
    const op = SOURCE_OPERATIONS.get(name);
    if (op === undefined) break;
    const backend = backendWithPrefix(prefix);
    const family = familyOf(name);
    const kind = backend?.kind ?? PREFIX_KINDS.get(prefix) ?? prefix;
    if (backend === undefined) return refusedOn(kind, family, `the ${prefix.slice(0, -1)} backend is not supported yet`, path);
    if (!backend.operationFamilies.includes(family)) return refusedOn(kind, family, `the ${prefix.slice(0, -1)} backend does not support "${type}"`, path);
    return onSourceOf(backend, family, typeof op === 'function' ? op(backend) : op);
  }
  throw new EngineError(ErrorCode.ParseFailed, `unknown metadata operation "${type}"${unknownHint(api, type)}`, { path });
}

/** An operation on a source of `kind` that answers `not-supported` (after the kind check: Note [Operation prefix and source kind]). */
function refusedOn(kind: string, family: OperationFamily, message: string, path: string): Operation {
  return {
    mutates: false,
    run(ctx, call) {
      checkedSource(kind, family, ctx, call);
      return Promise.reject(new EngineError(ErrorCode.NotSupported, message, { path }));
    },
  };
}

/**
 * The name of the source a backend operation acts on: `args.source`
 * (`default` when absent); undefined when there is none to check
 * (`*_add_source` and `*_drop_source` name a source to make or remove, and
 * malformed args are the args schema's to report).
 */
function sourceNamed(family: OperationFamily, args: unknown): string | undefined {
  if (family === 'sources' || typeof args !== 'object' || args === null || Array.isArray(args)) return undefined;
  const source = (args as Record<string, unknown>)['source'];
  return source === undefined ? 'default' : typeof source === 'string' ? source : undefined;
}

/**
 * Note [Operation prefix and source kind]
 * The prefix of a backend operation picks the backend (`pg_` postgres,
 * `mssql_` MSSQL...), and the source it names must be of that backend's kind:
 * v2 answers `mssql_track_table` on a postgres source with `not-exists`
 * ("source with name "default" has backend type "postgres" which does not
 * match the expected type mssql", askSourceInfo). The check is made here,
 * once for every prefixed operation, before the operation runs and before
 * `not-supported` for a prefix without a backend: v2 has every backend, so a
 * source of another kind is the answer it gives. A source that does not exist
 * is left to the operation (`requireSource`), as are `*_add_source` (which
 * makes a source of the prefix's kind) and `*_drop_source` (any kind, as v2's
 * backend-neutral DropSource). The legacy unprefixed `/v1/query` names
 * (`track_table`) are postgres' operations, checked the same way.
 *
 * The same lookup gives the operation its source's naming ({@link OnSource}:
 * Note [Source naming] in catalog/source-naming.ts), so no operation names a
 * table by a default schema of its own.
 */
function onSourceOf(backend: Backend, family: OperationFamily, op: SourceOperation): Operation {
  return {
    mutates: op.mutates,
    async run(ctx: RunContext, call: MetadataCall) {
      const source = checkedSource(backend.kind, family, ctx, call);
      const on: OnSource = {
        naming: source === undefined ? backend.naming : sourceNaming(source, ctx.state.prepared),
        ...(backend.computedFieldInputs === undefined ? {} : { computedFieldInputs: backend.computedFieldInputs }),
      };
      return await op.run(ctx, call, on);
    },
  };
}

const MANY_TABLES = /_(un)?track_tables$/;

/** The source a backend operation of `kind` names, if it exists; `not-exists` when it is of another kind. */
function checkedSource(kind: string, family: OperationFamily, ctx: RunContext, call: MetadataCall): SourceMetadata | undefined {
  // `*_track_tables` / `*_untrack_tables` name a source per table: each table's own call checks it.
  const name = MANY_TABLES.test(call.type) ? undefined : sourceNamed(family, call.args);
  const source = name === undefined ? undefined : findSource(ctx.state.doc, name);
  if (source !== undefined && source.kind !== kind) {
    throw new EngineError(
      ErrorCode.NotExists,
      `source with name "${source.name}" has backend type "${source.kind}" which does not match the expected type ${kind}`,
      { path: argPath(call) },
    );
  }
  return source;
}

/** Every name `/v1/metadata` takes (prefixed with `pg_`, the one backend). */
function metadataNames(): string[] {
  return [...METADATA_OPERATIONS.keys(), ...[...SOURCE_OPERATIONS.keys()].map((n) => `pg_${n}`)];
}

/** The backend prefix of `type`, if any, and the name without it. */
function unprefixed(type: string): string {
  const prefix = BACKEND_PREFIXES.find((p) => type.startsWith(p));
  return prefix === undefined ? type : type.slice(prefix.length);
}

/**
 * What to say after an unknown name: the same operation under the other
 * endpoint's name (legacy unprefixed on `/v1/query`, `pg_`-prefixed on
 * `/v1/metadata`, `run_sql` on `/v2/query`), else the closest name here.
 */
function unknownHint(api: ApiFamily, type: string): string {
  if (api === 'metadata') {
    if (type === 'run_sql') return '; run_sql is served on /v2/query (and /v1/query)';
    if (SOURCE_OPERATIONS.has(type)) return `; on /v1/metadata it is "pg_${type}" ("${type}" is its legacy name on /v1/query)`;
    if (QUERY_V1_OPERATIONS.has(type) || LEGACY_SOURCE_OPERATIONS.has(type)) return `; "${type}" is a legacy /v1/query operation`;
    return didYouMean(type, metadataNames());
  }
  const here: ReadonlySet<string> = new Set(
    api === 'query-v1' ? [...QUERY_V1_OPERATIONS.keys(), ...LEGACY_SOURCE_OPERATIONS.keys()] : QUERY_V2_OPERATIONS.keys(),
  );
  const bare = unprefixed(type);
  if (bare !== type && here.has(bare)) return `; on ${api === 'query-v1' ? '/v1/query' : '/v2/query'} it is "${bare}" ("${type}" is the /v1/metadata name)`;
  if (METADATA_OPERATIONS.has(type) || (bare !== type && SOURCE_OPERATIONS.has(bare))) return `; "${type}" is a /v1/metadata operation`;
  if (api === 'query-v2' && (QUERY_V1_OPERATIONS.has(type) || LEGACY_SOURCE_OPERATIONS.has(type)))
    return `; "${type}" is served on /v1/query, or as "pg_${type}" on /v1/metadata`;
  return didYouMean(type, here.keys());
}
