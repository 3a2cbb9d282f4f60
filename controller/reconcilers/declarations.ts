/**
 * What each resource declares: one metadata object, identified by an object key, in the shape
 * the metadata document stores it. Specs are checked against the engine's own JSON schemas so
 * that a malformed resource is reported on itself instead of failing the whole engine's apply.
 *
 * Note [Object keys]
 * Every metadata object a resource can declare has a string key that names it within one engine:
 *   source/<source>
 *   table/<source>/<schema>.<table>
 *   permission/<source>/<schema>.<table>/<role>/<operation>
 *   event_trigger/<source>/<schema>.<table>/<trigger>
 *   remote_schema/<name>
 *   cron_trigger/<name>
 * Keys are what the Engine's status.managedObjects lists, what conflicts are detected on, and
 * what inconsistencies are mapped back to. Parts are JSON-string-escaped when they contain `/`.
 */
import {
  parseTableName,
  type JsonObject,
  type JsonValue,
  type PermissionEntry,
  type TableMetadata,
  type TableNameInput,
} from '../../engine/metadata/document.ts';
import {
  deletePermissionSchema,
  insertPermissionSchema,
  selectPermissionSchema,
  updatePermissionSchema,
} from '../../engine/metadata/schemas/common.ts';
import { sourceEntrySchema, tableEntrySchema } from '../../engine/metadata/schemas/document.ts';
import { assertValid, type JsonSchema } from '../../engine/metadata/schemas/validate.ts';
import type { CustomObject, DeletionPolicy, TargetFields } from '../api/v1alpha1/common.ts';
import type { CronTriggerSpec } from '../api/v1alpha1/cron-trigger.ts';
import type { EventTriggerSpec } from '../api/v1alpha1/event-trigger.ts';
import type { PermissionOperation, PermissionSpec } from '../api/v1alpha1/permission.ts';
import type { RemoteSchemaSpec } from '../api/v1alpha1/remote-schema.ts';
import type { SourceSpec } from '../api/v1alpha1/source.ts';
import { TRACKED_TABLE_KEYS, type TrackedTableSpec } from '../api/v1alpha1/tracked-table.ts';

/** A `{schema, name}` table name (the engine's QualifiedName, taken from document.ts). */
export type QualifiedName = ReturnType<typeof parseTableName>;

/** The kinds whose resources declare metadata. */
export type TargetKindName = 'Source' | 'TrackedTable' | 'Permission' | 'RemoteSchema' | 'EventTrigger' | 'CronTrigger';

/** Any resource of a target kind (spec typed per kind by {@link declare}). */
export type TargetResource = CustomObject<TargetFields & Record<string, unknown>>;

/** One declared metadata object. */
export type Declared =
  | { readonly type: 'source'; readonly key: string; readonly source: string; readonly entry: JsonObject }
  | { readonly type: 'table'; readonly key: string; readonly source: string; readonly table: QualifiedName; readonly fields: Partial<TableMetadata> }
  | {
      readonly type: 'permission';
      readonly key: string;
      readonly source: string;
      readonly table: QualifiedName;
      readonly operation: PermissionOperation;
      readonly entry: PermissionEntry<JsonObject>;
    }
  | { readonly type: 'event_trigger'; readonly key: string; readonly source: string; readonly table: QualifiedName; readonly entry: JsonObject }
  | { readonly type: 'remote_schema'; readonly key: string; readonly entry: JsonObject }
  | { readonly type: 'cron_trigger'; readonly key: string; readonly entry: JsonObject };

/** A declaration, or why the spec cannot be one. */
export type Declaration = { readonly ok: true; readonly declared: Declared } | { readonly ok: false; readonly message: string };

function part(s: string): string {
  return s.includes('/') ? JSON.stringify(s) : s;
}

function tablePart(t: QualifiedName): string {
  return `${part(t.schema)}.${part(t.name)}`;
}

/** Key of a source. See Note [Object keys]. */
export function sourceKey(source: string): string {
  return `source/${part(source)}`;
}

/** Key of a tracked table. */
export function tableKey(source: string, table: QualifiedName): string {
  return `table/${part(source)}/${tablePart(table)}`;
}

/** Key of a permission. */
export function permissionKey(source: string, table: QualifiedName, role: string, op: string): string {
  return `permission/${part(source)}/${tablePart(table)}/${part(role)}/${op}`;
}

/** Key of an event trigger. */
export function eventTriggerKey(source: string, table: QualifiedName, name: string): string {
  return `event_trigger/${part(source)}/${tablePart(table)}/${part(name)}`;
}

/** Key of a remote schema. */
export function remoteSchemaKey(name: string): string {
  return `remote_schema/${part(name)}`;
}

/** Key of a cron trigger. */
export function cronTriggerKey(name: string): string {
  return `cron_trigger/${part(name)}`;
}

/** `Kind/namespace/name`: how the controller names a resource internally. */
export function resourceKey(r: { readonly kind: string; readonly metadata: { readonly namespace: string; readonly name: string } }): string {
  return `${r.kind}/${r.metadata.namespace}/${r.metadata.name}`;
}

/** The deletion policy of a resource (default Delete). */
export function deletionPolicyOf(r: TargetResource): DeletionPolicy {
  return r.spec.deletionPolicy ?? 'Delete';
}

function check<T>(schema: JsonSchema, value: unknown, base: string): T {
  try {
    return assertValid<T>(schema, value, base);
  } catch (e) {
    const path = (e as { path?: unknown }).path;
    const msg = (e as Error).message;
    throw new SpecError(typeof path === 'string' && !msg.includes(path) ? `${msg} (at ${path})` : msg);
  }
}

class SpecError extends Error {}

function withoutUndefined(o: Record<string, unknown>): JsonObject {
  const out: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v as JsonValue;
  return out;
}

const PERMISSION_BODY: Readonly<Record<PermissionOperation, JsonSchema>> = {
  select: selectPermissionSchema,
  insert: insertPermissionSchema,
  update: updatePermissionSchema,
  delete: deletePermissionSchema,
};

function declareSource(spec: SourceSpec, name: string): Declared {
  const sourceName = spec.name ?? name;
  const entry = withoutUndefined({ name: sourceName, kind: spec.kind ?? 'postgres', configuration: spec.configuration, customization: spec.customization });
  check(sourceEntrySchema, entry, '$.spec');
  return { type: 'source', key: sourceKey(sourceName), source: sourceName, entry };
}

function declareTable(spec: TrackedTableSpec): Declared {
  const source = spec.source ?? 'default';
  const raw: Record<string, unknown> = { table: spec.table };
  for (const k of TRACKED_TABLE_KEYS) raw[k] = spec[k];
  check(tableEntrySchema, withoutUndefined(raw), '$.spec');
  const table = parseTableName(spec.table);
  const fields: Record<string, unknown> = {};
  for (const k of TRACKED_TABLE_KEYS) if (spec[k] !== undefined) fields[k] = spec[k];
  return { type: 'table', key: tableKey(source, table), source, table, fields: fields as Partial<TableMetadata> };
}

function declarePermission(spec: PermissionSpec): Declared {
  const source = spec.source ?? 'default';
  const table = parseTableName(spec.table);
  const permission = check<JsonObject>(PERMISSION_BODY[spec.operation], spec.permission, '$.spec.permission');
  const entry: PermissionEntry<JsonObject> = spec.comment === undefined ? { role: spec.role, permission } : { role: spec.role, permission, comment: spec.comment };
  return { type: 'permission', key: permissionKey(source, table, spec.role, spec.operation), source, table, operation: spec.operation, entry };
}

/** Default retry_conf of an event trigger (v2 compat: shared/design/compat.md, webhook payloads). */
const EVENT_RETRY_DEFAULT: JsonObject = { num_retries: 0, interval_sec: 10, timeout_sec: 60 };

function declareEventTrigger(spec: EventTriggerSpec, name: string): Declared {
  const source = spec.source ?? 'default';
  const table = parseTableName(spec.table as TableNameInput);
  const triggerName = spec.name ?? name;
  const definition = withoutUndefined({
    enable_manual: spec.enable_manual ?? false,
    insert: spec.insert,
    update: spec.update,
    delete: spec.delete,
  });
  const entry = withoutUndefined({
    name: triggerName,
    definition,
    retry_conf: spec.retry_conf ?? EVENT_RETRY_DEFAULT,
    webhook: spec.webhook,
    webhook_from_env: spec.webhook_from_env,
    headers: spec.headers,
    request_transform: spec.request_transform,
    response_transform: spec.response_transform,
  });
  return { type: 'event_trigger', key: eventTriggerKey(source, table, triggerName), source, table, entry };
}

function declareRemoteSchema(spec: RemoteSchemaSpec, name: string): Declared {
  const schemaName = spec.name ?? name;
  const entry = withoutUndefined({ name: schemaName, definition: spec.definition, comment: spec.comment });
  return { type: 'remote_schema', key: remoteSchemaKey(schemaName), entry };
}

function declareCronTrigger(spec: CronTriggerSpec, name: string): Declared {
  const triggerName = spec.name ?? name;
  const entry = withoutUndefined({
    name: triggerName,
    webhook: spec.webhook,
    schedule: spec.schedule,
    payload: spec.payload,
    headers: spec.headers,
    retry_conf: spec.retry_conf,
    include_in_metadata: spec.include_in_metadata ?? true,
    comment: spec.comment,
    request_transform: spec.request_transform,
    response_transform: spec.response_transform,
  });
  return { type: 'cron_trigger', key: cronTriggerKey(triggerName), entry };
}

/** What a resource declares, or why its spec is not valid metadata. */
export function declare(r: TargetResource): Declaration {
  const spec = r.spec as unknown;
  const name = r.metadata.name;
  try {
    switch (r.kind as TargetKindName) {
      case 'Source':
        return { ok: true, declared: declareSource(spec as SourceSpec, name) };
      case 'TrackedTable':
        return { ok: true, declared: declareTable(spec as TrackedTableSpec) };
      case 'Permission':
        return { ok: true, declared: declarePermission(spec as PermissionSpec) };
      case 'EventTrigger':
        return { ok: true, declared: declareEventTrigger(spec as EventTriggerSpec, name) };
      case 'RemoteSchema':
        return { ok: true, declared: declareRemoteSchema(spec as RemoteSchemaSpec, name) };
      case 'CronTrigger':
        return { ok: true, declared: declareCronTrigger(spec as CronTriggerSpec, name) };
      default:
        return { ok: false, message: `unknown kind ${r.kind}` };
    }
  } catch (e) {
    if (e instanceof SpecError) return { ok: false, message: e.message };
    return { ok: false, message: `invalid spec: ${(e as Error).message}` };
  }
}
