/**
 * What each resource declares: one metadata object, identified by an object key, in the shape
 * the metadata document stores it, with the parts it lists (Note [Objects and parts] in
 * objects.ts). Specs are checked against the engine's own JSON schemas so
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
 *   function/<source>/<schema>.<function>, function_permission/<source>/<schema>.<function>/<role>
 *   inherited_role/<name>
 *   action/<name>, action_permission/<action>/<role>
 *   custom_type/<name> (one per type; `custom_types` is the engine's whole set, which it reports as one)
 *   query_collection/<name>, allowlist/<collection>, rest_endpoint/<name>
 * and for the parts of a table: table_configuration/…, table_is_enum/… (<source>/<schema>.<table>),
 * relationship/…, computed_field/…, remote_relationship/… (<source>/<schema>.<table>/<name>); an
 * action's permissions are parts of the action, a collection's allow-list entry is a part of the
 * collection, and a REST endpoint's container is the collection it reads (so it waits for it).
 * Keys are what the Engine's status.managedObjects lists, what conflicts are detected on, and
 * what inconsistencies are mapped back to. Parts are JSON-string-escaped when they contain `/`.
 */
import {
  DEFAULT_SCHEMA,
  parseTableName,
  V2_PG_DEFAULT_SCHEMA,
  type JsonObject,
  type MetadataDocument,
  type SourceKind,
  type JsonValue,
  type PermissionEntry,
  type TableNameInput,
} from '../../engine/model/document.ts';
import {
  deletePermissionSchema,
  insertPermissionSchema,
  selectPermissionSchema,
  tableNameSchema,
  updatePermissionSchema,
} from '../../engine/model/schemas/common.ts';
import { sourceEntrySchema, tableEntrySchema } from '../../engine/model/schemas/document.ts';
import { functionConfigurationSchema } from '../../engine/model/schemas/functions.ts';
import { assertValid, type JsonSchema } from '../../engine/model/schemas/validate.ts';
import type { CustomObject, DeletionPolicy, TargetFields } from '../api/v1alpha1/common.ts';
import type { CronTriggerSpec } from '../api/v1alpha1/cron-trigger.ts';
import type { EventTriggerSpec } from '../api/v1alpha1/event-trigger.ts';
import type { FunctionSpec } from '../api/v1alpha1/function.ts';
import type { InheritedRoleSpec } from '../api/v1alpha1/inherited-role.ts';
import type { PermissionOperation, PermissionSpec } from '../api/v1alpha1/permission.ts';
import type { RemoteSchemaSpec } from '../api/v1alpha1/remote-schema.ts';
import type { SourceSpec } from '../api/v1alpha1/source.ts';
import type { ActionSpec } from '../api/v1alpha1/action.ts';
import { CUSTOM_TYPE_SECTIONS, type CustomTypesSpec } from '../api/v1alpha1/custom-types.ts';
import type { QueryCollectionSpec } from '../api/v1alpha1/query-collection.ts';
import type { RestEndpointSpec } from '../api/v1alpha1/rest-endpoint.ts';
import {
  allowlistScopeSchema,
  collectionDefinitionSchema,
  endpointDefinitionSchema,
  endpointMethodsSchema,
} from '../../engine/model/schemas/query-collections.ts';
import { TRACKED_TABLE_KEYS, type TrackedTableSpec } from '../api/v1alpha1/tracked-table.ts';
import { keyOf, type MetaObject, type ObjectRef } from './objects.ts';

/** A `{schema, name}` table name (the engine's QualifiedName, taken from document.ts). */
export type QualifiedName = ReturnType<typeof parseTableName>;

/** The kinds whose resources declare metadata. */
export type TargetKindName =
  | 'Source'
  | 'TrackedTable'
  | 'Permission'
  | 'RemoteSchema'
  | 'EventTrigger'
  | 'CronTrigger'
  | 'Function'
  | 'InheritedRole'
  | 'Action'
  | 'CustomTypes'
  | 'QueryCollection'
  | 'RestEndpoint';

/** Any resource of a target kind (spec typed per kind by {@link declare}). */
export type TargetResource = CustomObject<TargetFields & Record<string, unknown>>;

/** What one resource declares: its main object first, then its parts. */
export interface Declared {
  /** Key of the main object (what conflicts are detected on). */
  readonly key: string;
  readonly main: ObjectRef;
  readonly objects: readonly MetaObject[];
}

/** A declaration, or why the spec cannot be one. */
export type Declaration = { readonly ok: true; readonly declared: Declared } | { readonly ok: false; readonly message: string };

/** Key of a source. See Note [Object keys]. */
export function sourceKey(source: string): string {
  return keyOf({ kind: 'source', source });
}

/** Key of a tracked table. */
export function tableKey(source: string, table: QualifiedName): string {
  return keyOf({ kind: 'table', source, table });
}

/** Key of a permission. */
export function permissionKey(source: string, table: QualifiedName, role: string, op: string): string {
  return keyOf({ kind: 'permission', source, table, role, operation: op as PermissionOperation });
}

/** Key of an event trigger. */
export function eventTriggerKey(source: string, table: QualifiedName, name: string): string {
  return keyOf({ kind: 'event_trigger', source, table, name });
}

/** Key of a remote schema. */
export function remoteSchemaKey(name: string): string {
  return keyOf({ kind: 'remote_schema', name });
}

/** Key of a cron trigger. */
export function cronTriggerKey(name: string): string {
  return keyOf({ kind: 'cron_trigger', name });
}

function obj(ref: ObjectRef, value: unknown): MetaObject {
  return { ref, key: keyOf(ref), value: value as JsonValue };
}

function declared(objects: MetaObject[]): Declared {
  const [main] = objects;
  if (main === undefined) throw new SpecError('declares nothing');
  return { key: main.key, main: main.ref, objects };
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

/**
 * The part of an MSSQL configuration without which the engine refuses the whole document (the
 * engine checks the rest: the controller does not load the backends' schemas, and CEL cannot see
 * a free-form field).
 */
function checkMssqlConnection(configuration: JsonObject): void {
  const field = (v: unknown, k: string): unknown => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject)[k] : undefined);
  const cs = field(configuration['connection_info'], 'connection_string');
  if (typeof cs === 'string' || (typeof field(cs, 'from_env') === 'string' && Object.keys(cs as JsonObject).length === 1)) return;
  throw new SpecError('$.spec.configuration.connection_info.connection_string: an mssql source needs a connection string or {from_env: VARIABLE}');
}

function declareSource(spec: SourceSpec, name: string): Declared {
  const sourceName = spec.name ?? name;
  const entry = withoutUndefined({ name: sourceName, kind: spec.kind ?? 'postgres', configuration: spec.configuration, customization: spec.customization });
  check(sourceEntrySchema, entry, '$.spec');
  if (spec.kind === 'mssql') checkMssqlConnection(spec.configuration as unknown as JsonObject);
  return declared([obj({ kind: 'source', source: sourceName }, entry)]);
}

/** The kind of each source (by name) that a resource's bare table or function name is read in. */
export type DeclarationSourceKinds = ReadonlyMap<string, SourceKind>;

/*
 * Note [Bare names in the source's default schema]
 * v2 compat: a bare table or function name is in its source kind's default
 * schema (`DEFAULT_SCHEMA`: public on postgres, dbo on MSSQL). A resource names
 * its source but is declared on its own, so the kinds come from outside: the
 * Source resources of the namespace (one whose spec names the source), then
 * the engine's current document (a source added around the operator), else
 * postgres (v2: a source without a kind). The fold passes both; the other
 * callers (unbound resources, orphaning) pass the Source resources, which is
 * where an operator-managed MSSQL source's kind is declared.
 */
export function declarationSourceKinds(resources: readonly TargetResource[], current?: MetadataDocument): DeclarationSourceKinds {
  const kinds = new Map<string, SourceKind>();
  for (const s of current?.sources ?? []) kinds.set(s.name, s.kind);
  for (const r of resources) {
    // A Source being deleted still says its kind: a TrackedTable deleted with it keeps its key.
    if (r.kind !== 'Source') continue;
    const spec = r.spec as unknown as SourceSpec;
    const kind = spec.kind === undefined || spec.kind === 'pg' ? 'postgres' : spec.kind;
    kinds.set(spec.name ?? r.metadata.name, kind);
  }
  return kinds;
}

function bareNameSchema(kinds: DeclarationSourceKinds, source: string): string {
  const kind = kinds.get(source);
  return kind === undefined ? V2_PG_DEFAULT_SCHEMA : DEFAULT_SCHEMA[kind];
}

function declareTable(spec: TrackedTableSpec, kinds: DeclarationSourceKinds): Declared {
  const source = spec.source ?? 'default';
  const raw: Record<string, unknown> = { table: spec.table };
  for (const k of TRACKED_TABLE_KEYS) raw[k] = spec[k];
  check(tableEntrySchema, withoutUndefined(raw), '$.spec');
  const table = parseTableName(spec.table, bareNameSchema(kinds, source));
  const objects = [obj({ kind: 'table', source, table }, { table })];
  if (spec.configuration !== undefined) objects.push(obj({ kind: 'table_configuration', source, table }, spec.configuration));
  if (spec.is_enum !== undefined) objects.push(obj({ kind: 'table_is_enum', source, table }, spec.is_enum));
  const names = new Set<string>();
  const part = (kind: 'relationship' | 'computed_field' | 'remote_relationship', name: string, value: unknown): void => {
    const k = `${kind}/${name}`;
    if (names.has(k)) throw new SpecError(`${kind.replace('_', ' ')} ${name} is declared twice`);
    names.add(k);
    objects.push(obj({ kind, source, table, name }, value));
  };
  for (const r of spec.object_relationships ?? []) part('relationship', r.name, { type: 'object', ...r });
  for (const r of spec.array_relationships ?? []) part('relationship', r.name, { type: 'array', ...r });
  for (const c of spec.computed_fields ?? []) part('computed_field', String(c['name']), c);
  for (const r of spec.remote_relationships ?? []) part('remote_relationship', String(r['name']), r);
  return declared(objects);
}

function declarePermission(spec: PermissionSpec, kinds: DeclarationSourceKinds): Declared {
  const source = spec.source ?? 'default';
  check(tableNameSchema, spec.table, '$.spec.table');
  const table = parseTableName(spec.table, bareNameSchema(kinds, source));
  const permission = check<JsonObject>(PERMISSION_BODY[spec.operation], spec.permission, '$.spec.permission');
  const entry: PermissionEntry<JsonObject> =
    spec.comment === undefined ? { role: spec.role, permission } : { role: spec.role, permission, comment: spec.comment };
  return declared([obj({ kind: 'permission', source, table, role: spec.role, operation: spec.operation }, entry)]);
}

/** Default retry_conf of an event trigger (v2 compat: docs/compat.md, webhook payloads). */
const EVENT_RETRY_DEFAULT: JsonObject = { num_retries: 0, interval_sec: 10, timeout_sec: 60 };

function declareEventTrigger(spec: EventTriggerSpec, name: string, kinds: DeclarationSourceKinds): Declared {
  const source = spec.source ?? 'default';
  check(tableNameSchema, spec.table, '$.spec.table');
  const table = parseTableName(spec.table as TableNameInput, bareNameSchema(kinds, source));
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
  return declared([obj({ kind: 'event_trigger', source, table, name: triggerName }, entry)]);
}

function declareRemoteSchema(spec: RemoteSchemaSpec, name: string): Declared {
  const schemaName = spec.name ?? name;
  const entry = withoutUndefined({ name: schemaName, definition: spec.definition, comment: spec.comment });
  return declared([obj({ kind: 'remote_schema', name: schemaName }, entry)]);
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
  return declared([obj({ kind: 'cron_trigger', name: triggerName }, entry)]);
}

function declareFunction(spec: FunctionSpec, kinds: DeclarationSourceKinds): Declared {
  const source = spec.source ?? 'default';
  check(tableNameSchema, spec.function, '$.spec.function');
  if (spec.configuration !== undefined) check(functionConfigurationSchema, spec.configuration, '$.spec.configuration');
  const fn = parseTableName(spec.function, bareNameSchema(kinds, source));
  const entry = withoutUndefined({ function: fn, configuration: spec.configuration, comment: spec.comment });
  const objects = [obj({ kind: 'function', source, fn }, entry)];
  const roles = new Set<string>();
  for (const p of spec.permissions ?? []) {
    if (roles.has(p.role)) throw new SpecError(`role ${p.role} is listed twice in permissions`);
    roles.add(p.role);
    objects.push(obj({ kind: 'function_permission', source, fn, role: p.role }, { role: p.role }));
  }
  return declared(objects);
}

function declareInheritedRole(spec: InheritedRoleSpec, name: string): Declared {
  const roleName = spec.role_name ?? name;
  if (roleName === 'admin') throw new SpecError('the admin role cannot be an inherited role');
  if (new Set(spec.role_set).size !== spec.role_set.length) throw new SpecError('role_set lists a role twice');
  return declared([obj({ kind: 'inherited_role', name: roleName }, { role_name: roleName, role_set: [...spec.role_set] })]);
}

function declareAction(spec: ActionSpec, name: string): Declared {
  const actionName = spec.name ?? name;
  if (!/^[_A-Za-z][_0-9A-Za-z]*$/.test(actionName)) throw new SpecError(`the action name "${actionName}" is not a GraphQL name; set spec.name`);
  const objects = [obj({ kind: 'action', name: actionName }, withoutUndefined({ name: actionName, definition: spec.definition, comment: spec.comment }))];
  const roles = new Set<string>();
  for (const p of spec.permissions ?? []) {
    if (roles.has(p.role)) throw new SpecError(`role ${p.role} is listed twice in permissions`);
    roles.add(p.role);
    objects.push(obj({ kind: 'action_permission', action: actionName, role: p.role }, withoutUndefined({ role: p.role, comment: p.comment })));
  }
  return declared(objects);
}

function declareCustomTypes(spec: CustomTypesSpec): Declared {
  const objects: MetaObject[] = [];
  const names = new Set<string>();
  for (const section of CUSTOM_TYPE_SECTIONS) {
    for (const t of spec[section] ?? []) {
      const typeName = String(t['name']);
      if (names.has(typeName)) throw new SpecError(`the type ${typeName} is declared twice`);
      names.add(typeName);
      objects.push(obj({ kind: 'custom_type', name: typeName }, { section, type: t }));
    }
  }
  // The main object (what a conflict is first reported on) is the first type by name.
  return declared(objects.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));
}

function declareQueryCollection(spec: QueryCollectionSpec, name: string): Declared {
  const collection = spec.name ?? name;
  const definition = check<JsonObject>(collectionDefinitionSchema, { queries: spec.queries }, '$.spec');
  const objects = [obj({ kind: 'query_collection', name: collection }, withoutUndefined({ name: collection, definition, comment: spec.comment }))];
  if (spec.allowlist !== undefined) {
    const scope = spec.allowlist.scope === undefined ? undefined : check<JsonObject>(allowlistScopeSchema, spec.allowlist.scope, '$.spec.allowlist.scope');
    objects.push(obj({ kind: 'allowlist', collection }, withoutUndefined({ collection, scope })));
  }
  return declared(objects);
}

function declareRestEndpoint(spec: RestEndpointSpec, name: string): Declared {
  const endpoint = spec.name ?? name;
  check(endpointMethodsSchema, spec.methods, '$.spec.methods');
  check(endpointDefinitionSchema, spec.definition, '$.spec.definition');
  const entry = withoutUndefined({ name: endpoint, url: spec.url, methods: [...spec.methods], definition: spec.definition, comment: spec.comment });
  return declared([obj({ kind: 'rest_endpoint', name: endpoint, collection: spec.definition.query.collection_name }, entry)]);
}

/**
 * What a resource declares, or why its spec is not valid metadata. `kinds`: the kind of each
 * source (Note [Bare names in the source's default schema]); a source it lacks is postgres'.
 */
export function declare(r: TargetResource, kinds: DeclarationSourceKinds = new Map()): Declaration {
  const spec = r.spec as unknown;
  const name = r.metadata.name;
  try {
    switch (r.kind as TargetKindName) {
      case 'Source':
        return { ok: true, declared: declareSource(spec as SourceSpec, name) };
      case 'TrackedTable':
        return { ok: true, declared: declareTable(spec as TrackedTableSpec, kinds) };
      case 'Permission':
        return { ok: true, declared: declarePermission(spec as PermissionSpec, kinds) };
      case 'EventTrigger':
        return { ok: true, declared: declareEventTrigger(spec as EventTriggerSpec, name, kinds) };
      case 'RemoteSchema':
        return { ok: true, declared: declareRemoteSchema(spec as RemoteSchemaSpec, name) };
      case 'CronTrigger':
        return { ok: true, declared: declareCronTrigger(spec as CronTriggerSpec, name) };
      case 'Function':
        return { ok: true, declared: declareFunction(spec as FunctionSpec, kinds) };
      case 'InheritedRole':
        return { ok: true, declared: declareInheritedRole(spec as InheritedRoleSpec, name) };
      case 'Action':
        return { ok: true, declared: declareAction(spec as ActionSpec, name) };
      case 'CustomTypes':
        return { ok: true, declared: declareCustomTypes(spec as CustomTypesSpec) };
      case 'QueryCollection':
        return { ok: true, declared: declareQueryCollection(spec as QueryCollectionSpec, name) };
      case 'RestEndpoint':
        return { ok: true, declared: declareRestEndpoint(spec as RestEndpointSpec, name) };
      default:
        return { ok: false, message: `unknown kind ${r.kind}` };
    }
  } catch (e) {
    if (e instanceof SpecError) return { ok: false, message: e.message };
    return { ok: false, message: `invalid spec: ${(e as Error).message}` };
  }
}
