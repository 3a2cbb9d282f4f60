/**
 * The metadata document, version 3: the wire JSON of `export_metadata`, typed.
 * Keys keep the exact v2 snake_case (v2 compat: docs/compat.md,
 * "Metadata document"). Objects whose operations arrive in later issues are
 * typed by the keys the spec names and otherwise kept as they came, so that
 * export/replace round-trips them unchanged.
 *
 * Note [Normalized document]
 * Inside the engine a document is always normalized (see {@link normalizeDocument}):
 * table names are `{schema, name}` objects and every list of a table or
 * source exists (possibly empty). Operations edit this form; the wire form
 * (empty lists left out) is made only by {@link toWireDocument}.
 */

/** A table or view name with its schema. */
export interface QualifiedName {
  readonly schema: string;
  readonly name: string;
}

/** Backend kinds a source may have. */
export type SourceKind = 'postgres' | 'mssql' | 'bigquery';

/** A JSON value kept as it came (configuration the engine does not interpret yet). */
export type JsonValue = null | boolean | number | string | readonly JsonValue[] | { readonly [k: string]: JsonValue };

/** A JSON object kept as it came. */
export type JsonObject = { readonly [k: string]: JsonValue };

/** A table name on the wire: a bare name (in its source's default schema) or `{schema, name}`. */
export type TableNameInput = string | { readonly schema?: string; readonly dataset?: string; readonly name: string };

/** v2 compat: the default schema of a postgres source, where a bare table name is. */
export const V2_PG_DEFAULT_SCHEMA = 'public';

/**
 * v2 compat: the schema a bare table name means in a source of each kind
 * (MSSQL `dbo`; BigQuery names always give their dataset). Each backend says
 * so itself (`Backend.naming.defaultSchema`, kept equal by a test); this pure
 * copy is for what knows no backend: the wire document, the console and the
 * controller.
 */
export const DEFAULT_SCHEMA: Readonly<Record<SourceKind, string>> = { postgres: V2_PG_DEFAULT_SCHEMA, mssql: 'dbo', bigquery: '' };

/**
 * v2 compat: the key of a wire name that holds its schema, in a source of each
 * kind: BigQuery names are `{dataset, name}`, the others `{schema, name}`
 * (what replace_metadata took, export_metadata gives back). Each backend says
 * so itself (`Backend.naming.toWire`, kept equal by a test); this pure copy is
 * for the wire document.
 */
export const SCHEMA_KEY: Readonly<Record<SourceKind, 'schema' | 'dataset'>> = { postgres: 'schema', mssql: 'schema', bigquery: 'dataset' };

/** A value given inline or read from an environment variable at use. */
export type UrlFromEnv = string | { readonly from_env: string };

/**
 * The configuration of a source, kept as it came: its shape is its backend's
 * (v2's per-backend `configuration`: postgres' `connection_info`...), checked
 * and read only by that backend (`Backend.configuration`).
 */
export interface SourceConfiguration {
  readonly [k: string]: unknown;
}

/** A root field name, or `{name, comment}` (newer v2 form). */
export type CustomRootField = string | { readonly name?: string | null; readonly comment?: string | null };

/** v2 `custom_root_fields` of a table. */
export interface CustomRootFields {
  readonly select?: CustomRootField | null;
  readonly select_by_pk?: CustomRootField | null;
  readonly select_aggregate?: CustomRootField | null;
  readonly select_stream?: CustomRootField | null;
  readonly insert?: CustomRootField | null;
  readonly insert_one?: CustomRootField | null;
  readonly update?: CustomRootField | null;
  readonly update_by_pk?: CustomRootField | null;
  readonly update_many?: CustomRootField | null;
  readonly delete?: CustomRootField | null;
  readonly delete_by_pk?: CustomRootField | null;
}

/** The `configuration` of a tracked table. */
export interface TableConfiguration {
  readonly custom_name?: string | null;
  readonly identifier?: string | null;
  readonly custom_root_fields?: CustomRootFields;
  readonly custom_column_names?: Readonly<Record<string, string>>;
  readonly column_config?: Readonly<Record<string, { readonly custom_name?: string; readonly comment?: string }>>;
  readonly comment?: string | null;
}

/** `foreign_key_constraint_on` in its remote-table object form; `column` is the deprecated singular. */
export interface RemoteForeignKey {
  readonly table: TableNameInput;
  readonly columns?: string | readonly string[];
  readonly column?: string;
}

/** `manual_configuration` of a relationship. */
export interface ManualRelationship {
  readonly remote_table: TableNameInput;
  readonly column_mapping: Readonly<Record<string, string>>;
  readonly insertion_order?: 'before_parent' | 'after_parent' | null;
}

/** The `using` of a relationship: exactly one of the two keys. */
export interface RelationshipUsing {
  readonly foreign_key_constraint_on?: string | readonly string[] | RemoteForeignKey;
  readonly manual_configuration?: ManualRelationship;
}

/** An object or array relationship as stored under its table. */
export interface RelationshipMetadata {
  readonly name: string;
  readonly using: RelationshipUsing;
  readonly comment?: string | null;
}

/**
 * v2's `remote_field` of a remote relationship: one field per level, its
 * arguments (a `$column` string takes the row's column), and the next level.
 */
export interface RemoteFieldLevel {
  readonly [field: string]: { readonly arguments?: JsonObject; readonly field?: RemoteFieldLevel };
}

/** A table → remote schema relationship's target (`to_remote_schema`). */
export interface ToRemoteSchema {
  readonly remote_schema: string;
  readonly lhs_fields: readonly string[];
  readonly remote_field: RemoteFieldLevel;
}

/** A table → table relationship across sources (`to_source`): target columns by this table's columns. */
export interface ToSource {
  readonly source?: string;
  readonly table: TableNameInput;
  readonly relationship_type: 'object' | 'array';
  readonly field_mapping: Readonly<Record<string, string>>;
}

/**
 * A remote relationship as stored under its table: a `definition` with one
 * of the two targets, or v2's older form (`hasura_fields`, `remote_schema`,
 * `remote_field` beside the name). The table lists hold them as `JsonObject`s
 * (kept as they came); this is their shape for readers.
 */
export interface RemoteRelationshipMetadata {
  readonly name: string;
  readonly definition?: { readonly to_remote_schema?: ToRemoteSchema; readonly to_source?: ToSource } & {
    readonly hasura_fields?: readonly string[];
    readonly remote_schema?: string;
    readonly remote_field?: RemoteFieldLevel;
  };
}

/** A permission as stored under its table: `{role, permission, comment}`. */
export interface PermissionEntry<P> {
  readonly role: string;
  readonly permission: P;
  readonly comment?: string | null;
}

/** Columns of a permission: `*` or a list. */
export type PermissionColumns = '*' | readonly string[];

/** A select permission. */
export interface SelectPermission {
  readonly columns: PermissionColumns;
  readonly filter?: JsonObject;
  readonly limit?: number | null;
  readonly allow_aggregations?: boolean;
  readonly computed_fields?: readonly string[];
  readonly query_root_fields?: readonly string[];
  readonly subscription_root_fields?: readonly string[];
}

/** An insert permission. */
export interface InsertPermission {
  readonly check?: JsonObject;
  readonly set?: JsonObject;
  readonly columns?: PermissionColumns;
  readonly backend_only?: boolean;
}

/** An update permission. */
export interface UpdatePermission {
  readonly columns: PermissionColumns;
  readonly filter?: JsonObject;
  readonly check?: JsonObject | null;
  readonly set?: JsonObject;
  readonly backend_only?: boolean;
}

/** A delete permission. */
export interface DeletePermission {
  readonly filter?: JsonObject;
  readonly backend_only?: boolean;
}

/** A header sent to a webhook (events, cron triggers, actions, remote schemas): a value, or an environment variable naming it. */
export type WebhookHeader = { readonly name: string; readonly value: string } | { readonly name: string; readonly value_from_env: string };

/** `columns` or `payload` of an event trigger's operation spec: every column, or a list. */
export type ColumnSelection = '*' | readonly string[];

/** v2 `SubscribeOpSpec`: the columns that fire an update, and the columns sent. */
export interface OperationSpec {
  readonly columns: ColumnSelection;
  readonly payload?: ColumnSelection | null;
}

/** v2 `RetryConf` of event triggers. */
export interface EventRetryConf {
  readonly num_retries: number;
  readonly interval_sec: number;
  readonly timeout_sec: number;
}

/** v2 `AutoTriggerLogCleanupConfig`: when delivered events are removed. */
export interface CleanupConfig {
  /** A cron expression (five fields, UTC). */
  readonly schedule: string;
  readonly batch_size?: number;
  /** Hours after which a processed event is removed. */
  readonly clear_older_than: number;
  readonly timeout?: number;
  readonly clean_invocation_logs?: boolean;
  readonly paused?: boolean;
}

/** An event trigger as stored under its table's `event_triggers` (`pg_create_event_trigger`). */
export interface EventTriggerMetadata {
  readonly name: string;
  readonly definition: {
    readonly enable_manual?: boolean;
    readonly insert?: OperationSpec | null;
    readonly update?: OperationSpec | null;
    readonly delete?: OperationSpec | null;
  };
  readonly retry_conf?: Partial<EventRetryConf>;
  readonly webhook?: string;
  readonly webhook_from_env?: string;
  readonly headers?: readonly WebhookHeader[];
  readonly request_transform?: { readonly [k: string]: unknown };
  readonly response_transform?: { readonly [k: string]: unknown };
  readonly cleanup_config?: CleanupConfig;
}

/** An argument of an action (`definition.arguments[]`); `type` is a GraphQL type reference (`String!`). */
export interface ActionArgument {
  readonly name: string;
  readonly type: string;
  readonly description?: string | null;
}

/** An action's `definition` (`create_action`); keys the engine does not read (transforms...) are kept as they came. */
export interface ActionDefinition {
  readonly kind?: 'synchronous' | 'asynchronous';
  readonly type?: 'query' | 'mutation';
  readonly arguments?: readonly ActionArgument[] | null;
  readonly output_type: string;
  readonly handler: string;
  readonly headers?: readonly WebhookHeader[] | null;
  readonly forward_client_headers?: boolean;
  readonly timeout?: number | null;
  readonly request_transform?: { readonly [k: string]: unknown } | null;
  readonly response_transform?: { readonly [k: string]: unknown } | null;
  readonly [k: string]: unknown;
}

/** An action permission as stored under its action (`create_action_permission`). */
export interface ActionPermission {
  readonly role: string;
  readonly comment?: string | null;
}

/** An action (`actions[]`). */
export interface ActionMetadata {
  readonly name: string;
  readonly definition: ActionDefinition;
  readonly comment?: string;
  readonly permissions?: readonly ActionPermission[];
}

/** A field of a custom input or output object type. */
export interface CustomTypeField {
  readonly name: string;
  readonly type: string;
  readonly description?: string | null;
}

/** A relationship of a custom output object type to a table of a source. */
export interface CustomTypeRelationship {
  readonly name: string;
  readonly type: 'object' | 'array';
  readonly source?: string;
  readonly remote_table: TableNameInput;
  readonly field_mapping: Readonly<Record<string, string>>;
}

/** `custom_types` (`set_custom_types`): each list optional. */
export interface CustomTypesMetadata {
  readonly scalars?: ReadonlyArray<{ readonly name: string; readonly description?: string | null }>;
  readonly enums?: ReadonlyArray<{
    readonly name: string;
    readonly description?: string | null;
    readonly values: ReadonlyArray<{ readonly value: string; readonly description?: string | null; readonly is_deprecated?: boolean | null }>;
  }>;
  readonly input_objects?: ReadonlyArray<{ readonly name: string; readonly description?: string | null; readonly fields: readonly CustomTypeField[] }>;
  readonly objects?: ReadonlyArray<{
    readonly name: string;
    readonly description?: string | null;
    readonly fields: readonly CustomTypeField[];
    readonly relationships?: readonly CustomTypeRelationship[];
  }>;
}

/** v2 `STRetryConf` of cron triggers and scheduled events. */
export interface ScheduledRetryConf {
  readonly num_retries?: number;
  readonly retry_interval_seconds?: number;
  readonly timeout_seconds?: number;
  readonly tolerance_seconds?: number;
}

/** A cron trigger (`cron_triggers[]`, `create_cron_trigger`). */
export interface CronTriggerMetadata {
  readonly name: string;
  readonly webhook: string;
  readonly schedule: string;
  readonly payload?: JsonValue;
  readonly headers?: readonly WebhookHeader[];
  readonly retry_conf?: ScheduledRetryConf;
  readonly include_in_metadata?: boolean;
  readonly comment?: string | null;
  readonly request_transform?: { readonly [k: string]: unknown };
  readonly response_transform?: { readonly [k: string]: unknown };
}

/** `customization.field_names[]` of a remote schema: renames of the fields of one type (original names). */
export interface FieldNamesCustomization {
  readonly parent_type: string;
  readonly prefix?: string;
  readonly suffix?: string;
  readonly mapping?: Readonly<Record<string, string>>;
}

/** A remote schema's `customization`. */
export interface RemoteCustomization {
  readonly root_fields_namespace?: string;
  readonly type_names?: { readonly prefix?: string; readonly suffix?: string; readonly mapping?: Readonly<Record<string, string>> };
  readonly field_names?: readonly FieldNamesCustomization[];
}

/** A header of a remote schema definition: `value` or `value_from_env` (the engine checks that one is there when it prepares the schema). */
export interface RemoteHeader {
  readonly name: string;
  readonly value?: string;
  readonly value_from_env?: string;
}

/** A remote schema's `definition` (`add_remote_schema`): `url` or `url_from_env`. */
export interface RemoteSchemaDefinition {
  readonly url?: string;
  readonly url_from_env?: string;
  readonly headers?: readonly RemoteHeader[];
  readonly forward_client_headers?: boolean;
  readonly timeout_seconds?: number;
  readonly customization?: RemoteCustomization;
}

/** A remote schema permission as stored under its remote schema. */
export interface RemoteSchemaPermission {
  readonly role: string;
  readonly definition: { readonly schema: string };
  readonly comment?: string;
}

/** A remote schema (`remote_schemas[]`). */
export interface RemoteSchemaMetadata {
  readonly name: string;
  readonly definition: RemoteSchemaDefinition;
  readonly comment?: string;
  readonly permissions?: readonly RemoteSchemaPermission[];
  readonly remote_relationships?: readonly JsonObject[];
}

/** A tracked table (normalized: see Note [Normalized document]). */
export interface TableMetadata {
  readonly table: QualifiedName;
  readonly configuration?: TableConfiguration;
  readonly is_enum?: boolean;
  readonly object_relationships: readonly RelationshipMetadata[];
  readonly array_relationships: readonly RelationshipMetadata[];
  readonly computed_fields: readonly ComputedFieldMetadata[];
  readonly remote_relationships: readonly JsonObject[];
  readonly insert_permissions: readonly PermissionEntry<InsertPermission>[];
  readonly select_permissions: readonly PermissionEntry<SelectPermission>[];
  readonly update_permissions: readonly PermissionEntry<UpdatePermission>[];
  readonly delete_permissions: readonly PermissionEntry<DeletePermission>[];
  readonly event_triggers: readonly JsonObject[];
}

/** v2 `custom_root_fields` of a function. */
export interface FunctionCustomRootFields {
  readonly function?: CustomRootField | null;
  readonly function_aggregate?: CustomRootField | null;
}

/** The `configuration` of a tracked function. */
export interface FunctionConfiguration {
  readonly custom_name?: string | null;
  readonly custom_root_fields?: FunctionCustomRootFields;
  /** The argument that receives the session variables as JSON. */
  readonly session_argument?: string | null;
  /** `mutation`, or `query`; when absent, VOLATILE functions go to the mutation root. */
  readonly exposed_as?: 'query' | 'mutation' | null;
}

/** A function permission: the role may call the function. */
export interface FunctionPermissionEntry {
  readonly role: string;
}

/** A tracked function (normalized: `function` is `{schema, name}`). */
export interface FunctionMetadata {
  readonly function: QualifiedName;
  readonly configuration?: FunctionConfiguration;
  readonly permissions?: readonly FunctionPermissionEntry[];
  readonly comment?: string | null;
}

/** The `definition` of a computed field. */
export interface ComputedFieldDefinition {
  readonly function: TableNameInput;
  /** The argument that receives the table row; the first argument when absent. */
  readonly table_argument?: string | null;
  /** The argument that receives the session variables as JSON. */
  readonly session_argument?: string | null;
  /** BigQuery (v2): function argument → column of the row it takes. */
  readonly argument_mapping?: Readonly<Record<string, string>>;
  /** BigQuery (v2): the tracked table whose rows a function without `RETURNS TABLE` returns. */
  readonly return_table?: TableNameInput | null;
}

/** A computed field as stored under its table. */
export interface ComputedFieldMetadata {
  readonly name: string;
  readonly definition: ComputedFieldDefinition;
  readonly comment?: string | null;
}

/** A database source. */
export interface SourceMetadata {
  readonly name: string;
  readonly kind: SourceKind;
  readonly tables: readonly TableMetadata[];
  readonly functions: readonly FunctionMetadata[];
  readonly configuration: SourceConfiguration;
  readonly customization?: JsonObject;
}

/** An inherited role. */
export interface InheritedRole {
  readonly role_name: string;
  readonly role_set: readonly string[];
}

/** An API limit: a `global` value and per-role overrides (v2 `APILimitOption`). */
export interface ApiLimitOption<T> {
  readonly global: T;
  readonly per_role?: Readonly<Record<string, T>>;
}

/** v2 `RateLimitOption`: requests per minute, counted per role and optionally per `IP` or session variables. */
export interface RateLimitConfig {
  readonly max_reqs_per_min: number;
  readonly unique_params?: string | readonly string[] | null;
}

/** v2 `api_limits` (set_api_limits); see execute/api-limits.ts. */
export interface ApiLimits {
  readonly disabled?: boolean;
  readonly depth_limit?: ApiLimitOption<number>;
  readonly node_limit?: ApiLimitOption<number>;
  readonly time_limit?: ApiLimitOption<number>;
  readonly batch_limit?: ApiLimitOption<number>;
  readonly rate_limit?: ApiLimitOption<RateLimitConfig>;
}

/** One query of a query collection: a name unique in its collection and GraphQL text. */
export interface CollectionQuery {
  readonly name: string;
  readonly query: string;
}

/** A query collection (`create_query_collection`); see engine/rest/. */
export interface QueryCollection {
  readonly name: string;
  readonly definition: { readonly queries: readonly CollectionQuery[] };
  readonly comment?: string | null;
}

/** Who an allow-list entry admits: everyone (`global`), or the listed roles. */
export interface AllowlistScope {
  readonly global: boolean;
  readonly roles?: readonly string[];
}

/** An allow-list entry (`add_collection_to_allowlist`); no scope means `{global: true}`. */
export interface AllowlistEntry {
  readonly collection: string;
  readonly scope?: AllowlistScope;
}

/** A REST endpoint (`create_rest_endpoint`): a URL template served from a query of a collection. */
export interface RestEndpoint {
  readonly name: string;
  readonly url: string;
  readonly methods: readonly string[];
  readonly definition: { readonly query: { readonly collection_name: string; readonly query_name: string } };
  readonly comment?: string | null;
}

/**
 * The whole metadata document (normalized).
 *
 * Note [Typed entries kept as JSON]: event triggers, actions, custom types, cron triggers
 * and remote schemas have their stored shapes above (EventTriggerMetadata...), which the
 * engine's readers (events/definition.ts, remote/definition.ts) and the console use; the
 * document still holds them as JSON objects, because typing these fields here touches about
 * twenty operation, catalog and operator files that build and compare the entries as JSON.
 */
export interface MetadataDocument {
  readonly version: 3;
  readonly sources: readonly SourceMetadata[];
  readonly remote_schemas: readonly JsonObject[];
  readonly query_collections: readonly QueryCollection[];
  readonly allowlist: readonly AllowlistEntry[];
  readonly actions: readonly JsonObject[];
  readonly custom_types: JsonObject | null;
  readonly cron_triggers: readonly JsonObject[];
  readonly rest_endpoints: readonly RestEndpoint[];
  readonly inherited_roles: readonly InheritedRole[];
  /** Absent when none are set (remove_api_limits). */
  readonly api_limits?: ApiLimits;
  /** Other top-level keys of v2's document (network, metrics_config...) kept as they came. */
  readonly extra: JsonObject;
}

/** v2's document key of the GraphQL introspection options (kept in `extra`). */
export const INTROSPECTION_KEY = 'graphql_schema_introspection';

/**
 * The roles whose GraphQL introspection is disabled (`graphql_schema_introspection.disabled_for_roles`).
 * A stored document is read with open objects, so anything other than a list of names reads as none.
 */
export function introspectionDisabledRoles(doc: MetadataDocument): readonly string[] {
  const options = doc.extra[INTROSPECTION_KEY];
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return [];
  const roles = (options as JsonObject)['disabled_for_roles'];
  return Array.isArray(roles) ? roles.filter((r): r is string => typeof r === 'string' && r !== '') : [];
}

/** One entry of v2's `network.tls_allowlist` (Note [TLS allow-list] in tls-allowlist.ts). */
export interface TlsAllowEntry {
  readonly host: string;
  /** The port, when only that port of the host is meant. */
  readonly suffix?: string;
  /** v2 knows one: `self-signed`. */
  readonly permissions?: readonly string[];
}

/** v2's document key of the network options (kept in `extra`). */
export const NETWORK_KEY = 'network';

/** The document's `network.tls_allowlist`; entries that are not `{host, suffix?, permissions?}` (a stored document is read with open objects) are left out. */
export function tlsAllowlistOf(doc: MetadataDocument): readonly TlsAllowEntry[] {
  const network = doc.extra[NETWORK_KEY];
  if (typeof network !== 'object' || network === null || Array.isArray(network)) return [];
  const list = (network as JsonObject)['tls_allowlist'];
  if (!Array.isArray(list)) return [];
  const out: TlsAllowEntry[] = [];
  for (const e of list) {
    if (typeof e !== 'object' || e === null || Array.isArray(e)) continue;
    const entry = e as JsonObject;
    const host = entry['host'];
    const suffix = entry['suffix'];
    if (typeof host !== 'string' || host === '' || (suffix !== undefined && suffix !== null && typeof suffix !== 'string')) continue;
    const permissions = entry['permissions'];
    out.push({
      host,
      ...(typeof suffix === 'string' ? { suffix } : {}),
      ...(Array.isArray(permissions) ? { permissions: permissions.filter((p): p is string => typeof p === 'string') } : {}),
    });
  }
  return out;
}

/** The empty document. */
export const EMPTY_DOCUMENT: MetadataDocument = {
  version: 3,
  sources: [],
  remote_schemas: [],
  query_collections: [],
  allowlist: [],
  actions: [],
  custom_types: null,
  cron_triggers: [],
  rest_endpoints: [],
  inherited_roles: [],
  extra: {},
};

/**
 * v2 compat: a bare table name is in the default schema of its source
 * (`defaultSchema`). Only what knows no backend calls this (the wire document
 * by kind, `DEFAULT_SCHEMA`); code that has the source uses its backend's
 * `naming` (Note [Source naming] in catalog/prepared.ts).
 */
export function parseTableName(t: TableNameInput, defaultSchema: string): QualifiedName {
  if (typeof t === 'string') return { schema: defaultSchema, name: t };
  return { schema: t.schema ?? t.dataset ?? defaultSchema, name: t.name };
}

/** True when two qualified names are the same. */
export function sameTable(a: QualifiedName, b: QualifiedName): boolean {
  return a.schema === b.schema && a.name === b.name;
}

/** v2 compat: tables print as `name` in the default schema, else `schema.name` (for what knows no backend; see {@link parseTableName}). */
export function formatTableName(t: QualifiedName, defaultSchema: string): string {
  return t.schema === defaultSchema ? t.name : `${t.schema}.${t.name}`;
}

/** A table entry with every list empty. */
export function emptyTable(table: QualifiedName): TableMetadata {
  return {
    table,
    object_relationships: [],
    array_relationships: [],
    computed_fields: [],
    remote_relationships: [],
    insert_permissions: [],
    select_permissions: [],
    update_permissions: [],
    delete_permissions: [],
    event_triggers: [],
  };
}

/** Source keys of v2 the engine does not run yet, kept and exported as they came. */
export const SOURCE_KEPT_KEYS = ['native_queries', 'logical_models', 'stored_procedures', 'query_tags', 'health_check'] as const;

const TOP_LEVEL_LISTS = ['remote_schemas', 'query_collections', 'allowlist', 'actions', 'cron_triggers', 'rest_endpoints', 'inherited_roles'] as const;

const TABLE_LISTS = [
  'object_relationships',
  'array_relationships',
  'computed_fields',
  'remote_relationships',
  'insert_permissions',
  'select_permissions',
  'update_permissions',
  'delete_permissions',
  'event_triggers',
] as const;

type Loose = Record<string, unknown>;

function list<T>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

/** Normalizes one table entry of a schema-validated document (of a source whose default schema is `defaultSchema`). */
export function normalizeTable(raw: Loose, defaultSchema: string): TableMetadata {
  const t: Loose = { ...raw, table: parseTableName(raw['table'] as TableNameInput, defaultSchema) };
  for (const k of TABLE_LISTS) t[k] = list(raw[k]);
  return t as unknown as TableMetadata;
}

/**
 * Turns a schema-validated wire document (version 3) into the normalized form.
 * See Note [Normalized document].
 */
export function normalizeDocument(raw: Loose): MetadataDocument {
  const known = new Set<string>(['version', 'sources', 'custom_types', 'api_limits', ...TOP_LEVEL_LISTS]);
  const extra: Record<string, JsonValue> = {};
  for (const [k, v] of Object.entries(raw)) if (!known.has(k)) extra[k] = v as JsonValue;
  const sources = list<Loose>(raw['sources']).map((s): SourceMetadata => {
    const kind: SourceKind = s['kind'] === undefined || s['kind'] === 'pg' ? 'postgres' : (s['kind'] as SourceKind);
    const schema = DEFAULT_SCHEMA[kind];
    const out: Loose = {
      ...s,
      kind,
      tables: list<Loose>(s['tables']).map((t) => normalizeTable(t, schema)),
      functions: list<Loose>(s['functions']).map(
        (f): FunctionMetadata => ({ ...f, function: parseTableName(f['function'] as TableNameInput, schema) }) as unknown as FunctionMetadata,
      ),
    };
    return out as unknown as SourceMetadata;
  });
  const doc: Loose = { version: 3, sources, custom_types: (raw['custom_types'] as JsonObject | undefined) ?? null, extra };
  for (const k of TOP_LEVEL_LISTS) doc[k] = list(raw[k]);
  if (raw['api_limits'] !== undefined) doc['api_limits'] = raw['api_limits'];
  return doc as unknown as MetadataDocument;
}

function isEmptyObject(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;
}

/** The wire form of a document: v3 key order, empty lists and empty objects left out. */
export function toWireDocument(doc: MetadataDocument): Loose {
  const out: Loose = { version: 3 };
  out['sources'] = doc.sources.map((s) => {
    const key = SCHEMA_KEY[s.kind];
    const src: Loose = { name: s.name, kind: s.kind, tables: s.tables.map((t) => toWireTable(t, key)) };
    if (s.functions.length > 0) src['functions'] = s.functions.map((f) => toWireFunction(f, key));
    src['configuration'] = s.configuration;
    if (s.customization !== undefined) src['customization'] = s.customization;
    const kept = s as unknown as Loose;
    for (const k of SOURCE_KEPT_KEYS) if (kept[k] !== undefined) src[k] = kept[k];
    return src;
  });
  for (const k of TOP_LEVEL_LISTS) if (doc[k].length > 0) out[k] = doc[k];
  if (doc.custom_types !== null && !Object.values(doc.custom_types).every((v) => Array.isArray(v) && v.length === 0)) {
    out['custom_types'] = doc.custom_types;
  }
  if (doc.api_limits !== undefined) out['api_limits'] = doc.api_limits;
  for (const [k, v] of Object.entries(doc.extra)) out[k] = v;
  return out;
}

function toWireFunction(f: FunctionMetadata, key: 'schema' | 'dataset'): Loose {
  const out: Loose = { ...f, function: { name: f.function.name, [key]: f.function.schema } };
  if (f.configuration !== undefined && isEmptyObject(f.configuration)) delete out['configuration'];
  if (f.permissions !== undefined && f.permissions.length === 0) delete out['permissions'];
  return out;
}

function toWireTable(t: TableMetadata, key: 'schema' | 'dataset'): Loose {
  const out: Loose = { table: { name: t.table.name, [key]: t.table.schema } };
  if (t.configuration !== undefined && !isEmptyObject(t.configuration)) out['configuration'] = t.configuration;
  if (t.is_enum === true) out['is_enum'] = true;
  for (const k of TABLE_LISTS) if (t[k].length > 0) out[k] = t[k];
  for (const [k, v] of Object.entries(t)) if (!TABLE_KEYS.has(k)) out[k] = v;
  return out;
}

const TABLE_KEYS = new Set<string>(['table', 'configuration', 'is_enum', ...TABLE_LISTS]);
