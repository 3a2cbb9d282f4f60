/**
 * The catalog ("schema cache"): metadata resolved against the databases it
 * names. Built when metadata changes (catalog/build.ts), immutable afterwards,
 * and the only thing the GraphQL side reads. camelCase here; the wire
 * snake_case stays in model/document.ts.
 *
 * Note [Catalog contract]
 * The catalog holds only consistent objects: a table whose database object is
 * gone, a relationship whose target is untracked, a permission on a missing
 * column are left out of it and listed in `inconsistencies` instead. GraphQL
 * schema building can therefore trust every reference it finds here.
 */
import type { ActionsCatalog } from '../actions/types.ts';
import type { CronTrigger } from '../events/scheduled/definitions.ts';
import type { Backend, CompileTarget, SourceConnection } from '../backends/backend.ts';
import type { ApiLimits, QualifiedName, SourceKind } from '../model/document.ts';
import type { CompiledRequestTransform, CompiledResponseTransform } from '../transforms/index.ts';
import type { DocumentNode, OperationDefinitionNode } from 'graphql';
import type { UrlSegment } from './url-template.ts';
import type { RemoteSchemaInfo } from '../remote/types.ts';
import type { ErrorCode } from '../errors/codes.ts';
import type { RemoteRelationshipInfo } from '../remote/relationship.ts';

// The names the wire document and the catalog share live in the document model, the bottom layer.
export type { QualifiedName, SourceKind } from '../model/document.ts';

/** One immutable catalog snapshot. */
export interface Catalog {
  /** Grows by one with every rebuild of this process; keys plan and schema caches. */
  readonly version: number;
  /** The stored metadata's resource_version this snapshot was built from. */
  readonly resourceVersion: number;
  readonly sources: ReadonlyMap<string, SourceInfo>;
  /** Every role named anywhere in metadata (permissions, inherited roles), `admin` excluded. */
  readonly roles: readonly string[];
  readonly inconsistencies: readonly InconsistentObject[];
  /** Consistent remote schemas by name (catalog/stages/remote-schemas.ts); absent when there are none. */
  readonly remoteSchemas?: ReadonlyMap<string, RemoteSchemaInfo>;
  /** The document's `api_limits` (execute/api-limits.ts applies them); absent when none are set. */
  readonly apiLimits?: ApiLimits;
  /** Roles whose GraphQL introspection is refused (Note [Introspection disabled for roles]); absent when none. */
  readonly introspectionDisabled?: ReadonlySet<string>;
  /** The allow-list and REST endpoints (stages/query-collections.ts); absent when there are no collections. */
  readonly queryCollections?: QueryCollectionsInfo;
  /** Custom types and consistent actions (actions/resolve.ts); absent when there are none. */
  readonly actions?: ActionsCatalog;
  /** The consistent cron triggers by name (events/scheduled/ schedules them); absent in catalogs built by hand for tests. */
  readonly cronTriggers?: ReadonlyMap<string, CronTrigger>;
}

/** Who may run an allow-listed query: everyone, or these roles (Note [Allow-list matching] in normalize-document.ts). */
export interface AllowGrant {
  readonly global: boolean;
  readonly roles: ReadonlySet<string>;
}

/** A REST endpoint that resolved: its query is consistent and its template clashes with no other. */
export interface RestEndpointInfo {
  readonly name: string;
  readonly url: string;
  readonly segments: readonly UrlSegment[];
  readonly methods: readonly string[];
  readonly collection: string;
  readonly queryName: string;
  /** The stored query text (what the request steps run and the plan cache keys on). */
  readonly query: string;
  readonly document: DocumentNode;
  /** The document's one operation. */
  readonly operation: OperationDefinitionNode;
  readonly comment: string | null;
}

/** Query collections resolved: the allow-list by normalized document, and the REST endpoints. */
export interface QueryCollectionsInfo {
  /** Allow-listed documents by their key (normalize-document.ts `allowlistKey`) → who may run them. */
  readonly allowlist: ReadonlyMap<string, AllowGrant>;
  readonly endpoints: readonly RestEndpointInfo[];
}

/**
 * Validates a stored query against the admin GraphQL schema of a catalog:
 * null when it validates, else the reason. Given to buildCatalog by the
 * composition root (engine/rest/query-check.ts), since catalog/ builds no
 * GraphQL schema.
 */
export type QueryChecker = (catalog: Catalog) => (document: DocumentNode) => string | null;

/** A resolved database source with its tracked, consistent tables. */
export interface SourceInfo {
  readonly name: string;
  readonly kind: SourceKind;
  /**
   * The backend that owns this source, when it is not the registry's one of
   * `kind` (tests: a backend with capabilities off); read it through
   * `backendOf` (backends/registry.ts).
   */
  readonly backend?: Backend;
  readonly connection: SourceConnection;
  /** What compilers may know of the database (server version, table details); absent = unknown. */
  readonly target?: CompileTarget;
  /** Tracked tables, keyed by `schema.name` (see {@link tableKey}). */
  readonly tables: ReadonlyMap<string, TableInfo>;
  /** Tracked, consistent functions, keyed by `schema.name`; absent when there are none. */
  readonly functions?: ReadonlyMap<string, FunctionInfo>;
  /** Remote relationships of its tables by `schema.name` (catalog/stages/remote-relationships.ts); absent when none. */
  readonly remoteRelationships?: ReadonlyMap<string, readonly RemoteRelationshipInfo[]>;
  /** `to_source` remote relationships of its tables (to a table of another source) by `schema.name`; absent when none. */
  readonly sourceRelationships?: ReadonlyMap<string, readonly SourceRelationshipInfo[]>;
  /** Source customization (root field namespace, prefixes, naming convention); absent when none. */
  readonly customization?: SourceCustomizationInfo;
  /** Consistent event triggers by name; absent when there are none (stages/event-triggers.ts). */
  readonly eventTriggers?: ReadonlyMap<string, EventTriggerInfo>;
}

/** Which changes of one operation an event trigger captures (`*`: every column). */
export interface CapturedOperationInfo {
  readonly columns: '*' | readonly string[];
  readonly payload: '*' | readonly string[];
}

/** A consistent event trigger: its webhook resolved, what it captures, how it retries. */
export interface EventTriggerInfo {
  readonly name: string;
  readonly source: string;
  readonly table: QualifiedName;
  /** The URL (`webhook_from_env` already read). */
  readonly webhook: string;
  /** Headers sent, `value_from_env` already read. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly retry: { readonly numRetries: number; readonly intervalSec: number; readonly timeoutSec: number };
  readonly operations: {
    readonly insert?: CapturedOperationInfo;
    readonly update?: CapturedOperationInfo;
    readonly delete?: CapturedOperationInfo;
  };
  readonly enableManual: boolean;
  /** v2 `request_transform` / `response_transform`, compiled by engine/transforms/. */
  readonly requestTransform?: CompiledRequestTransform;
  readonly responseTransform?: CompiledResponseTransform;
  /** v2 `cleanup_config`, as stored. */
  readonly cleanup?: {
    readonly schedule: string;
    readonly batchSize: number;
    readonly clearOlderThanHours: number;
    readonly cleanInvocationLogs: boolean;
    readonly paused: boolean;
  };
}

/** An input argument of a function, as GraphQL exposes it. */
export interface FunctionArgInfo {
  /** The database argument name (also its GraphQL name). */
  readonly name: string;
  readonly dbType: string;
  readonly elementType: string | null;
  readonly typeCategory: ColumnInfo['typeCategory'];
  /** An argument with a default may be left out. */
  readonly hasDefault: boolean;
  /**
   * Passed by position, not by name: an unnamed argument (v2 compat: named `arg_<n>`, its position)
   * or a named one before an unnamed one. See Note [Unnamed function arguments].
   */
  readonly positional?: boolean;
}

/** A tracked function returning rows of a tracked table. */
export interface FunctionInfo {
  readonly source: string;
  readonly name: QualifiedName;
  /** `custom_name`, else the name, prefixed `<schema>_` outside `public`. */
  readonly gqlName: string;
  readonly rootFields: { readonly function: string; readonly functionAggregate: string };
  /** The metadata `comment`, else the database comment; null gives the generated description. */
  readonly description: string | null;
  readonly returnTable: QualifiedName;
  /** Whether the function returns SETOF rows (else one row, still exposed as a list as v2 does). */
  readonly returnsSet: boolean;
  readonly exposedAs: 'query' | 'mutation';
  /** Input arguments the GraphQL `args` object offers (the session argument left out). */
  readonly args: readonly FunctionArgInfo[];
  /** The argument that receives the session variables as JSON, if any. */
  readonly sessionArgument: string | null;
  /** Roles with an explicit function permission. */
  readonly permissions: readonly string[];
}

/** What a computed field returns: a scalar, or rows of a tracked table. */
export type ComputedFieldReturn =
  | {
      readonly kind: 'scalar';
      readonly dbType: string;
      readonly elementType: string | null;
      readonly typeCategory: ColumnInfo['typeCategory'];
    }
  | { readonly kind: 'table'; readonly table: QualifiedName; readonly returnsSet: boolean };

/** A computed field of a table: a function taking the table's row. */
export interface ComputedFieldInfo {
  readonly name: string;
  readonly function: QualifiedName;
  readonly description: string | null;
  /** The row argument: its name, or null when it is the first argument and unnamed (passed by position). */
  readonly tableArgument: string | null;
  readonly sessionArgument: string | null;
  /** Other input arguments, offered as `args` on the field. */
  readonly args: readonly FunctionArgInfo[];
  readonly returns: ComputedFieldReturn;
  /** Argument → column: the row's inputs by name instead of the row itself (BigQuery; `tableArgument` unused). */
  readonly argumentMapping?: Readonly<Record<string, string>>;
}

/** v2 source `customization`, resolved. */
export interface SourceCustomizationInfo {
  /** Root fields of the source live under this field of each root type. */
  readonly namespace: string | null;
  readonly rootPrefix: string;
  readonly rootSuffix: string;
  readonly typePrefix: string;
  readonly typeSuffix: string;
  /** `graphql-default`: camelCase field names, PascalCase type names. */
  readonly namingConvention: 'hasura-default' | 'graphql-default';
}

/** Key of a table in {@link SourceInfo.tables}. */
export function tableKey(t: QualifiedName): string {
  return `${t.schema}.${t.name}`;
}

/** A tracked table or view, resolved against the database. */
export interface TableInfo {
  readonly source: string;
  readonly name: QualifiedName;
  /**
   * The GraphQL base name: `custom_name`, else `identifier`, else the table
   * name, prefixed `<schema>_` outside `public` (v2 compat).
   */
  readonly gqlName: string;
  /** Root field names after `custom_root_fields`. */
  readonly rootFields: TableRootFields;
  readonly kind: 'table' | 'view' | 'materialized_view' | 'foreign_table' | 'partitioned_table';
  /** The table comment, or the metadata `comment`, used as GraphQL description. */
  readonly description: string | null;
  /** Columns in database (ordinal) order. */
  readonly columns: readonly ColumnInfo[];
  /** Primary key column names, in key order; empty when the table has none. */
  readonly primaryKey: readonly string[];
  /** The primary key constraint's name (`<t>_constraint` enum value); when absent, Postgres's default `<table>_pkey` is assumed. */
  readonly primaryKeyName?: string;
  readonly uniqueConstraints: readonly ConstraintInfo[];
  readonly foreignKeys: readonly ForeignKeyInfo[];
  readonly relationships: readonly RelationshipInfo[];
  /** Set for tables tracked with `is_enum`: the enum values, in primary key order. */
  readonly enumValues: readonly EnumValueInfo[] | null;
  /** Whether the database lets rows be inserted/updated/deleted (false for most views). */
  readonly mutability: { readonly insertable: boolean; readonly updatable: boolean; readonly deletable: boolean };
  /** Permissions by role. Absent role = no access. */
  readonly permissions: ReadonlyMap<string, TablePermissions>;
  /**
   * The permissions of roles with a `backend_only` insert, update or delete
   * permission on this table, as backend requests (admin secret plus
   * `X-Engine-Use-Backend-Only-Permissions: true`, see auth/session.ts) get
   * them: `permissions` with the backend-only ones added. Other requests
   * never see those. Absent when no role has any; roles absent here get
   * `permissions` for backend requests too.
   */
  readonly backendOnlyPermissions?: ReadonlyMap<string, TablePermissions>;
  /** Consistent computed fields; absent when there are none. */
  readonly computedFields?: readonly ComputedFieldInfo[];
}

/** Root field names of a table (v2 `custom_root_fields` keys in camelCase). */
export interface TableRootFields {
  readonly select: string;
  readonly selectByPk: string;
  readonly selectAggregate: string;
  readonly insert: string;
  readonly insertOne: string;
  readonly update: string;
  readonly updateByPk: string;
  readonly updateMany: string;
  readonly delete: string;
  readonly deleteByPk: string;
}

/** A column of a tracked table. */
export interface ColumnInfo {
  readonly name: string;
  /** GraphQL field name after `custom_column_names`. */
  readonly gqlName: string;
  /** The database type name as the catalog knows it (`int4`, `text`, `_int4`, `numeric`, `my_enum`). */
  readonly dbType: string;
  /** For arrays, the element type name (`int4` for `_int4`); else null. */
  readonly elementType: string | null;
  /** `pg_type.typtype` class: base, enum, composite, domain, range... */
  readonly typeCategory: 'base' | 'enum' | 'composite' | 'domain' | 'range' | 'pseudo' | 'multirange';
  /** For Postgres enum types, the labels. */
  readonly enumLabels: readonly string[] | null;
  readonly nullable: boolean;
  readonly hasDefault: boolean;
  /** Generated or identity-always columns cannot be written. */
  readonly isGenerated: boolean;
  readonly description: string | null;
  /** When the column references a table tracked with `is_enum`, that table. */
  readonly enumTable: QualifiedName | null;
}

/** A unique or primary key constraint. */
export interface ConstraintInfo {
  readonly name: string;
  readonly columns: readonly string[];
}

/** A foreign key constraint of a table. */
export interface ForeignKeyInfo {
  readonly name: string;
  readonly target: QualifiedName;
  /** Pairs of [local column, target column]. */
  readonly columnMapping: ReadonlyArray<readonly [string, string]>;
}

/** A resolved relationship: local columns matched to target columns. */
export interface RelationshipInfo {
  readonly name: string;
  readonly kind: 'object' | 'array';
  readonly target: QualifiedName;
  /** Pairs of [local column, target column]. */
  readonly columnMapping: ReadonlyArray<readonly [string, string]>;
  readonly comment: string | null;
  /**
   * For object relationships: true when the foreign key is on this table
   * (the related row must exist when the local columns are non-null), which lets
   * nested inserts order parent-first.
   */
  readonly viaLocalForeignKey: boolean;
}

/**
 * A table's remote relationship to a table of another source (`to_source`,
 * v2's remote source relationship), resolved by
 * catalog/stages/remote-relationships.ts; joined after the statement ran
 * (Note [Remote joins] in execute/remote-join.ts).
 */
export interface SourceRelationshipInfo {
  readonly name: string;
  readonly kind: 'object' | 'array';
  /** The source and the table it leaves from. */
  readonly source: string;
  readonly table: QualifiedName;
  /** The target source and its table (the catalog's TableInfo: role views are keyed by it). */
  readonly targetSource: string;
  readonly target: TableInfo;
  /** Pairs of [column of this table, column of the target]. */
  readonly columnMapping: ReadonlyArray<readonly [string, string]>;
}

/** One value of an enum table. */
export interface EnumValueInfo {
  readonly value: string;
  readonly comment: string | null;
}

/**
 * A permission boolean expression as stored in metadata (v2 JSON). It is
 * validated against the table by the catalog; the GraphQL side turns it into IR.
 */
export type PermissionBoolExp = { readonly [key: string]: unknown };

/** The permissions of one role on one table. */
export interface TablePermissions {
  readonly select: SelectPermissionInfo | null;
  readonly insert: InsertPermissionInfo | null;
  readonly update: UpdatePermissionInfo | null;
  readonly delete: DeletePermissionInfo | null;
}

/** A resolved select permission. */
export interface SelectPermissionInfo {
  readonly columns: readonly string[];
  /** Computed fields the role may select (select permission `computed_fields`); absent = none. */
  readonly computedFields?: readonly string[];
  readonly filter: PermissionBoolExp;
  readonly limit: number | null;
  readonly allowAggregations: boolean;
  /**
   * Inherited roles only: per column, the rows whose cell is visible (the
   * others read as null); a column absent here is visible in every readable
   * row. See Note [Inherited select permissions] in catalog/stages/inherited-roles.ts.
   */
  readonly columnFilters?: ReadonlyMap<string, PermissionBoolExp>;
}

/** A resolved insert permission. */
export interface InsertPermissionInfo {
  readonly columns: readonly string[];
  readonly check: PermissionBoolExp;
  /** Column → static value or session variable name (a string starting `x-engine-`). */
  readonly set: Readonly<Record<string, unknown>>;
}

/** A resolved update permission. */
export interface UpdatePermissionInfo {
  readonly columns: readonly string[];
  readonly filter: PermissionBoolExp;
  readonly check: PermissionBoolExp | null;
  readonly set: Readonly<Record<string, unknown>>;
}

/** A resolved delete permission. */
export interface DeletePermissionInfo {
  readonly filter: PermissionBoolExp;
}

/**
 * v2 compat: an entry of `get_inconsistent_metadata`'s `inconsistent_objects`:
 * `{type, definition, reason, name?}`.
 */
export interface InconsistentObject {
  readonly type: string;
  readonly name?: string;
  readonly definition: unknown;
  readonly reason: string;
  /**
   * The error code a call that makes this object inconsistent answers with, when it is not
   * `invalid-configuration` (v2: a remote schema that is not valid is `remote-schema-error`).
   */
  readonly code?: ErrorCode;
  /**
   * The message of a call refused for it, when not `reason` (v2: add_remote_schema answers
   * fetchRemoteSchema's own error, without "Inconsistent object: ").
   */
  readonly callMessage?: string;
  /** Stable identity of the metadata object, used to diff old and new inconsistencies. */
  readonly id: string;
}
