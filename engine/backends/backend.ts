/**
 * The backend interface: what the rest of the engine may ask of a database.
 * SQL text exists only under engine/backends/. See architecture.md, "Backend
 * abstraction", and Note [Backend seam] in registry.ts.
 */
import type * as ir from '../ir/index.ts';
import type { SourceKind } from '../catalog/types.ts';
import type { EngineError } from '../errors/engine-error.ts';
import type { EnumTableQuery, EnumTableRows, IntrospectedColumn, IntrospectedTable, SourceIntrospection } from './introspection.ts';
import type { MetadataTransaction } from './metadata-database.ts';
import type { CompiledSql, ParamType } from './sql/fragment.ts';
import type { Cancellation } from '../request-context.ts';
import type { JsonSchema } from '../model/schemas/validate.ts';

/** A statement with its parameter values bound, ready to run. */
export interface BoundStatement {
  readonly text: string;
  readonly values: readonly unknown[];
  /**
   * The type of each value (CompiledSql.paramTypes, shared by every binding
   * of the statement): what tedious and BigQuery need to send nulls and
   * arrays. PostgreSQL ignores it. Absent: untyped.
   */
  readonly types?: readonly (ParamType | null)[];
}

/** How one request's statements run: cancelled with the request, and under a role's time limit. */
export interface RunOptions {
  /** The request's cancellation: its running statement is cancelled in the database when it fires. */
  readonly cancel?: Cancellation;
  /** A statement timeout for this request (a role's `time_limit`), over the source's default. */
  readonly timeoutMs?: number | null;
}

/**
 * An open connection pool to one source. Callers hand it bound statements;
 * JSON comes back as text, built by the database and never parsed here.
 */
export interface SourceConnection {
  readonly kind: SourceKind;
  /** Runs a statement returning one row with one JSON/text column, and returns that text (null for no row). */
  queryJsonText(stmt: BoundStatement, opts?: RunOptions): Promise<string | null>;
  /**
   * queryJsonText's cell as a byte string: its UTF-8 bytes, one character each
   * (null for no row or a NULL cell), for an answer written with the `latin1`
   * encoding, byte for byte as the database sent it (Note [Answer bytes] in
   * postgres/answer-bytes.ts). Optional: without it the text is used.
   */
  queryJsonByteString?(stmt: BoundStatement, opts?: RunOptions): Promise<string | null>;
  /**
   * Runs statements in order in one transaction; returns the JSON text of
   * each. Any failure rolls back all and is thrown as a
   * {@link TransactionStatementError} naming the statement that failed.
   * Absent on a database without transactions (its backend offers no mutations).
   */
  transactionJsonText?(stmts: readonly BoundStatement[], opts?: RunOptions): Promise<(string | null)[]>;
  /** Closes the pool after in-flight queries finish. */
  close(): Promise<void>;
  /** Round trip to the database (readiness); rejects when it cannot be reached. */
  ping?(): Promise<void>;
  /** Connections of its pool now (metrics, read when scraped). */
  poolStats?(): PoolStats;
  /** The most connections its pool opens (live queries take a share: Note [Live query limits] in subscriptions/live-queries.ts). */
  readonly maxConnections?: number;
  /** The database it talks to, for the database spans (Note [Database spans] in observability/tracing.ts); absent: not traced as one. */
  readonly peer?: DatabasePeer;
}

/** A database as OpenTelemetry's semantic conventions name it (never with credentials). */
export interface DatabasePeer {
  /** `db.system.name`: `postgresql`, `microsoft.sql_server`, … */
  readonly system: string;
  /** `db.namespace`: the database's name. */
  readonly namespace?: string;
  /** `server.address` and `server.port`. */
  readonly address?: string;
  readonly port?: number;
}

/** Use of a connection pool. */
export interface PoolStats {
  readonly total: number;
  readonly idle: number;
  /** Callers queued for a connection. */
  readonly waiting: number;
}

/** The failure of one statement of a transaction (everything was rolled back). */
export class TransactionStatementError extends Error {
  /** Index of the failed statement in the list given. */
  readonly index: number;

  constructor(index: number, cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
    this.name = 'TransactionStatementError';
    this.index = index;
  }
}

/** What resolving a configuration may read: the environment (`{from_env}` values), and engine-wide settings. */
export interface ResolveOptions {
  /** The value of an environment variable, undefined when it is not set. */
  readonly env: (name: string) => string | undefined;
  /** Statement timeout of every connection, in ms (0: none); Note [Statement timeout] in postgres/connection.ts. */
  readonly statementTimeoutMs: number;
}

/**
 * A source's configuration as its backend resolved it: what its `connect`
 * takes. Opaque outside the backend that made it (each backend's own class).
 */
export interface ResolvedConfiguration {
  readonly kind: SourceKind;
  /** Equal keys mean the same database and pool: the preparer opens one pool per key. */
  readonly key: string;
}

/**
 * A backend's `configuration` of a source (v2's per-backend shape: postgres
 * `connection_info.database_url`, MSSQL `connection_string`, BigQuery
 * `service_account`...): its schema and its resolution. Nothing outside the
 * backend reads inside a configuration.
 */
export interface ConfigurationSupport {
  /** JSON schema of `configuration` (`<prefix>_add_source`, `replace_metadata`, the stored document). */
  readonly schema: JsonSchema;
  /**
   * Resolves a configuration its schema admitted; a reason (and the key the
   * unresolved configuration would have) when it cannot, e.g. an unset variable.
   */
  resolve(configuration: unknown, options: ResolveOptions): ResolvedConfiguration | { readonly key: string; readonly reason: string };
  /** True when the configuration names the database at `url` (the metadata database; Note [Effects] in metadata/effects.ts). */
  isDatabase(configuration: unknown, url: string, env: ResolveOptions['env']): boolean;
}

/**
 * Reads the database's catalog: on the pool, or inside an open transaction
 * (`run_sql` introspects what its own SQL just changed).
 */
export interface Introspector {
  /** Everything trackable in the database. */
  introspect(): Promise<SourceIntrospection>;
  /**
   * A cheap digest of the catalog that changes whenever something
   * `introspect` reports may have changed (Note [Introspection freshness] in source-preparer.ts).
   * Absent for a database without one: its sources are introspected again on every reload.
   */
  ddlStamp?(): Promise<string>;
  /**
   * Optional: lets a stored introspection stand in for `introspect` at start
   * (Note [Stored introspection] in source-preparer.ts). Absent (mssql,
   * bigquery): every start introspects.
   */
  readonly stored?: StoredIntrospectionSupport;
  /** Rows of enum tables, in the order asked; an Error for a table that cannot be read. */
  enumRows(queries: readonly EnumTableQuery[]): Promise<(EnumTableRows | Error)[]>;
}

/** What a stored introspection is checked against before it is used instead of introspecting. */
export interface StoredIntrospectionSupport {
  /** The version of what `introspect` returns: a stored introspection of another format is never used. */
  readonly format: string;
  /**
   * The database's identity (null when it cannot tell who it is: nothing is
   * then stored or used) and its DDL stamp, read in one statement.
   */
  current(): Promise<{ readonly identity: string | null; readonly ddlStamp: string }>;
}

/** A transaction kept open across the calls of one metadata request ({@link Backend.openSqlTransaction}). */
export interface SqlTransaction {
  /** Runs `sql` in the transaction; `readOnly` runs it so that it cannot write, and leaves the transaction writable. */
  runSql(sql: string, readOnly: boolean): Promise<RunSqlResult>;
  /** Introspection inside the transaction: it sees the transaction's own changes. */
  readonly introspector: Introspector;
  /** Checks now what COMMIT would (deferred constraints), so that COMMIT fails only if the connection does. */
  prepareCommit(): Promise<void>;
  /** COMMIT; throws when it fails (the transaction is then gone). */
  commit(): Promise<void>;
  /** ROLLBACK; never throws; a no-op after commit. */
  rollback(): Promise<void>;
  /**
   * This same transaction as the metadata database's storage takes it (the
   * metadata store writes in it when this database is also the metadata
   * database); absent from a backend whose database cannot be one.
   */
  readonly metadataTransaction?: MetadataTransaction;
}

/**
 * What the literal values of a database type look like, for the checks made
 * without the database (Note [Permission literals] in catalog/permission-literals.ts).
 */
export type LiteralClass =
  /** Integers within `[min, max]`. */
  | { readonly kind: 'integer'; readonly min: bigint; readonly max: bigint }
  /** Any decimal number (with NaN and the infinities). */
  | { readonly kind: 'decimal' }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'uuid' }
  /** Dates and times: checked loosely (a string holding a digit, or a special word). */
  | { readonly kind: 'datetime' }
  | { readonly kind: 'interval' }
  /** A JSON document: any JSON value. */
  | { readonly kind: 'json' }
  /** Not checked (text, domains, ranges…). */
  | { readonly kind: 'other' };

/** How a database type appears in GraphQL and travels as a parameter. */
export interface ScalarInfo {
  /** GraphQL scalar name: a built-in (`Int`, `String`, `Boolean`, `Float`) or the backend's own (`bigint`, `timestamptz`). */
  readonly graphqlName: string;
  /** True when `graphqlName` is one of GraphQL's built-in scalars (the type is that scalar). */
  readonly builtin: boolean;
  /** `json`: values are sent JSON-encoded and literals keep JSON numbers; `plain`: as given. */
  readonly encoding: 'json' | 'plain';
  /** Operator family beyond equality (`_like`… for text, `_contains`… for JSON documents). */
  readonly operators: 'equality' | 'text' | 'json';
  /** sum/avg/stddev/variance apply. */
  readonly numeric: boolean;
  /** max/min apply (enum-typed columns also have them). */
  readonly ordered: boolean;
  /** Numbers that may not fit a double: JSON strings under stringify-numeric-types. */
  readonly bigNumeric: boolean;
  /** What its literals look like (permission checks). */
  readonly literal: LiteralClass;
  /** A character string type (enum table keys must be one). */
  readonly textual: boolean;
  /** A JSON document type (json and jsonb on PostgreSQL): any JSON value, no equality needed. */
  readonly json: boolean;
  /** Rows may be sorted by it (`order_by`, `distinct_on`); PostgreSQL's `json` has no ordering. */
  readonly sortable: boolean;
}

/**
 * The comparison operators a backend's text types have, and how its
 * comparison types are named (Note [Comparison operators per backend] in
 * graphql/operators/for-type.ts).
 */
export interface ComparisonSupport {
  /** The pattern operators of the `text` family it has (`_like`, `_nlike` on MSSQL); the others are not offered. */
  readonly text: readonly string[];
  /**
   * v2 compat: put before `_comparison_exp` in its types' names (`String_MSSQL_comparison_exp`),
   * so that one scalar's comparison types of two backends, whose operators differ, never share a name.
   */
  readonly typeInfix: string;
}

/** Where rows with NULL go when an `order_by` value names no nulls order. */
export interface NullsDefaults {
  /** `asc`: PostgreSQL `last`, SQL Server `first`. */
  readonly asc: ir.Nulls;
  /** `desc`: PostgreSQL `first`, SQL Server `last`. */
  readonly desc: ir.Nulls;
}

/**
 * Database types a backend wants the IR to carry where the engine, not a
 * column, decides the type (counts, boolean aggregates, casts to text).
 */
export interface TypeNames {
  /** Of a row count (`count` in an aggregate's order_by/bool_exp). */
  readonly count: string;
  /** Of a boolean value (`bool_and`/`bool_or` predicates). */
  readonly boolean: string;
  /** Of text: `_cast: {String: …}` comparisons, keys of unknown type. */
  readonly text: string;
  /** Of the `count` field of an aggregate object (GraphQL `Int!`). */
  readonly aggregateCount: string;
  /** The types an action's custom types may name without defining them (v2 compat), besides the tracked columns' own. */
  readonly actionScalars: readonly string[];
}

/**
 * What a backend supports; the schema builder and metadata operations read
 * these, never the kind: every field or argument the schema offers for a
 * source's table is behind one of them (live queries: the presence of
 * {@link Backend.liveQueries}).
 */
export interface Capabilities {
  /** insert/update/delete root fields (they run in {@link SourceConnection.transactionJsonText}). */
  readonly mutations: boolean;
  readonly returning: boolean;
  /**
   * How inserts upsert (v2 compat: each backend its own argument): `on_conflict`
   * (`<t>_on_conflict {constraint, update_columns, where}`, PostgreSQL),
   * `if_matched` (`<t>_if_matched {match_columns, update_columns, where}`,
   * v2's MSSQL), or null: no upsert.
   */
  readonly upsert: 'on_conflict' | 'if_matched' | null;
  /** The `distinct_on` argument of list fields. */
  readonly distinctOn: boolean;
  /** `<t>_aggregate` fields and aggregate predicates/orderings. */
  readonly aggregates: boolean;
  /** `<t>_stream` fields on subscription_root (they also need live queries). */
  readonly streaming: boolean;
  /** The tables in the Relay schema (`<t>_connection`, `node`). */
  readonly relay: boolean;
  /** Inserts through relationships (`data` inputs of `<t>_arr_rel_insert_input`). */
  readonly nestedInserts: boolean;
}

/** v2 compat: the answer of `run_sql`. */
export interface RunSqlResult {
  readonly result_type: 'TuplesOk' | 'CommandOk';
  /** The header, then the rows: text cells (PostgreSQL, MSSQL), JSON values (v2's BigQuery). */
  readonly result: ReadonlyArray<ReadonlyArray<unknown>> | null;
}

/** One statement of a mutation field; `output` marks the statement whose JSON text answers (part of) the field. */
export interface MutationStatement {
  readonly sql: CompiledSql;
  readonly output: boolean;
}

/** The statements of one mutation field, run in order in the operation's transaction. */
export interface CompiledMutation {
  readonly statements: readonly MutationStatement[];
  /** True when the field's value is the JSON array of its outputs (`update_<t>_many`), else the one output. */
  readonly list: boolean;
}

/** Groups of metadata operations a backend may accept (`pg_track_table` is in `tables`). */
export type OperationFamily = 'sources' | 'tables' | 'relationships' | 'permissions' | 'functions' | 'computed-fields' | 'event-triggers';

/**
 * What a compiler may know of the database a plan runs on, from the source's
 * introspection (the plan is compiled per catalog version, so reading it costs
 * nothing per request).
 */
export interface CompileTarget {
  /** The server's version number (PostgreSQL: server_version_num); null when unknown (then the newest is assumed). */
  readonly serverVersion: number | null;
  /** The introspected table, for what the IR does not carry (column defaults, keys). */
  table(name: { readonly schema: string; readonly name: string }): IntrospectedTable | undefined;
}

/** The target of a source whose introspection is at hand. */
export function compileTargetOf(i: SourceIntrospection): CompileTarget {
  return { serverVersion: i.serverVersion ?? null, table: (n) => i.tables.get(`${n.schema}.${n.name}`) };
}

/** A target that knows nothing: the newest server, no table details. */
export const UNKNOWN_TARGET: CompileTarget = { serverVersion: null, table: () => undefined };

/** The compilers of a backend: pure functions from IR to statements. */
export interface Compilers {
  /**
   * The statement whose single text value is the JSON object of `fields`, in
   * order. `target`: the source's (SourceInfo.target), for what the IR does
   * not carry, e.g. column types BigQuery answers as strings; absent: unknown.
   */
  query(fields: readonly ir.QueryRootField[], target?: CompileTarget): CompiledSql;
  /** The statement whose single text value is one read root field's JSON (run inside a mutation's transaction). */
  readField(field: ir.DbRootField, target?: CompileTarget): CompiledSql;
  /** The statements of one mutation root field. */
  mutation(m: ir.Mutation, target: CompileTarget): CompiledMutation;
  /** The statement whose one value is the database's plan of `stmt` as JSON text. */
  explain(stmt: CompiledSql): CompiledSql;
}

/** Which changes of one operation (insert, update, delete) an event trigger captures. */
export interface CaptureOperation {
  /** Update only: the columns whose change fires it (`*`: any column). Ignored for insert and delete. */
  readonly columns: '*' | readonly string[];
  /** The columns sent in `old`/`new` (`*`: all). */
  readonly payload: '*' | readonly string[];
}

/** One event trigger's capture as the database makes it: a trigger on `table` writing to the event log. */
export interface CaptureSpec {
  readonly name: string;
  readonly table: { readonly schema: string; readonly name: string };
  /** The columns naming a row (its primary key), which keep events of one row in order; empty: no order kept. */
  readonly rowKey: readonly string[];
  readonly insert?: CaptureOperation;
  readonly update?: CaptureOperation;
  readonly delete?: CaptureOperation;
}

/** A change of the captures of one source: removals first, then (re)installs. */
export interface CaptureChange {
  readonly remove: readonly string[];
  readonly install: readonly CaptureSpec[];
}

/** An event as the event log holds it, taken for delivery. */
export interface LoggedEvent {
  readonly id: string;
  readonly triggerName: string;
  readonly table: { readonly schema: string; readonly name: string };
  /** `{op, data: {old, new}, session_variables}` as captured. */
  readonly payload: { readonly op: string; readonly data: unknown; readonly session_variables: unknown };
  /** Attempts made so far. */
  readonly tries: number;
  /** v2 compat: UTC, ISO 8601 without zone (`2026-11-24T13:44:21.123456`). */
  readonly createdAt: string;
}

/** The outcome of one delivery attempt, to record. */
export interface AttemptRecord {
  readonly eventId: string;
  readonly triggerName: string;
  /** `delivered`; `retry` after `retryInMs`; `error` (no retry left). */
  readonly outcome: 'delivered' | 'retry' | 'error';
  readonly retryInMs: number;
  readonly status: number | null;
  /** The invocation log's `request`, as JSON text (the payload is spliced in, not serialized twice). */
  readonly requestJson: string;
  /** The invocation log's `response`, as JSON text. */
  readonly responseJson: string;
  readonly durationMs: number;
}

/** What the log answers to `pg_get_event_logs` and friends: rows as JSON, in v2's shapes. */
export interface EventLogQuery {
  readonly triggerName: string;
  readonly status: 'pending' | 'processed' | 'all';
  readonly limit: number;
  readonly offset: number;
}

/**
 * The event log of one source: the queue delivery takes from, and what the
 * metadata API reads and changes in it. See Note [Event log] in
 * postgres/event-log.ts.
 */
export interface EventLog {
  /** Leases up to `limit` due events of `triggers` to `owner` for `leaseMs`, oldest first. */
  take(triggers: readonly string[], limit: number, leaseMs: number, owner: string): Promise<LoggedEvent[]>;
  /** Extends the leases `owner` holds on `ids`. */
  renew(ids: readonly string[], leaseMs: number, owner: string): Promise<void>;
  /** Records attempts (invocation logs, retry schedule, delivered/error) and releases the leases. */
  record(attempts: readonly AttemptRecord[], owner: string): Promise<void>;
  /** Calls `wake` on every new event (LISTEN); resolves with the function that stops listening. */
  listen(wake: () => void, onError: (e: unknown) => void): Promise<() => Promise<void>>;
  /** A manual event (`pg_invoke_event_trigger`); returns its id. */
  insertManual(
    triggerName: string,
    table: { readonly schema: string; readonly name: string },
    payload: unknown,
    session: Readonly<Record<string, string>>,
  ): Promise<string>;
  /** Makes an event due again with its tries reset; false when no such event exists. */
  redeliver(eventId: string): Promise<boolean>;
  /** Rows of `event_log` of one trigger. */
  events(q: EventLogQuery): Promise<unknown[]>;
  /** Rows of `event_invocation_logs` of one trigger. */
  invocations(triggerName: string, limit: number, offset: number): Promise<unknown[]>;
  /** One event with its invocations; null when there is none. */
  eventById(eventId: string, limit: number, offset: number): Promise<{ event: unknown; invocations: unknown[] } | null>;
  /** Deletes up to `batch` delivered or errored events of `trigger` older than `hours` (and their invocations when asked); returns how many. */
  cleanup(triggerName: string, hours: number, batch: number, invocations: boolean): Promise<number>;
}

/** Event triggers: capture DDL in the source and its event log. Optional: a backend without it has no event triggers. */
export interface EventTriggerSupport {
  /** Applies `change` inside `tx` (a transaction of this backend), creating the event log first when installing. */
  applyCapture(tx: SqlTransaction, change: CaptureChange): Promise<void>;
  /** The event log of the source behind `conn`. */
  eventLog(conn: SourceConnection): EventLog;
}

/** A table as the database names it. */
export interface TableName {
  readonly schema: string;
  readonly name: string;
}

/** A table or function name as the metadata writes it: a bare name, `{schema, name}`, or (BigQuery) `{dataset, name}`. */
export type WireTableName = string | { readonly schema?: string; readonly dataset?: string; readonly name: string };

/**
 * How a backend names tables and functions (v2: each backend's `TableName`):
 * the schema a bare name is in, how a name prints in messages, and the
 * GraphQL base name of a table before customization.
 */
export interface TableNaming {
  /** The schema of a bare name: `public` on PostgreSQL (`dbo` on MSSQL). */
  readonly defaultSchema: string;
  /** A wire name as `{schema, name}` (BigQuery's `dataset` is its schema). */
  parse(t: WireTableName): TableName;
  /** v2 compat: `name` in the default schema, else `schema.name`. */
  format(t: TableName): string;
  /** v2 compat: `name` in the default schema, else `schema_name` (BigQuery would always prefix the dataset). */
  graphqlName(t: TableName): string;
  /**
   * v2 compat: a name as JSON prints it (the exported document, inconsistency definitions,
   * `<prefix>_get_source_tables`): `{schema, name}`, BigQuery's `{dataset, name}`.
   */
  toWire(t: TableName): Exclude<WireTableName, string>;
}

/**
 * One read statement made to answer many subscribers at once (Note
 * [Multiplexed live queries] in postgres/live-query.ts).
 */
export interface MultiplexedStatement {
  /** The statement's text (tests, logs). */
  readonly text: string;
  /** The tables it reads; null when the database cannot tell (a function call): then only polling sees changes. */
  readonly tables: readonly TableName[] | null;
  /**
   * Runs it for a batch: each entry is one subscriber's bound parameter values
   * (as for the single statement); answers each one's JSON text, in order
   * (null: no row). `opts`: cancelled when the batch's last subscriber
   * leaves, under the role's time limit (as a request's statement).
   */
  run(batch: readonly (readonly unknown[])[], opts?: RunOptions): Promise<(string | null)[]>;
}

/** A listener for table changes ({@link LiveQuerySupport.listen}). */
export interface ChangeFeed {
  close(): Promise<void>;
}

/** A table to watch, and the columns whose values its change reports should carry (Note [Row-level refetch] in subscriptions/live-queries.ts). */
export interface WatchedTable {
  readonly table: TableName;
  readonly columns: readonly string[];
}

/** The rows a write changed (old and new), as far as a change report tells. */
export interface ChangedRows {
  /** The reported columns, in the order of each row's values (may lack some asked for: then any value matches). */
  readonly columns: readonly string[];
  /** Each row's values of `columns` as the backend's {@link LiveQuerySupport.keyText} forms (null: SQL null). */
  readonly rows: readonly (readonly (string | null)[])[];
}

/** Multiplexed live queries and change notification (subscriptions/). Optional: without it a source serves no live queries. */
export interface LiveQuerySupport {
  /** The multiplexed form of one compiled read statement on `conn` (asks the database once for what it needs). */
  multiplex(conn: SourceConnection, stmt: CompiledSql): Promise<MultiplexedStatement>;
  /**
   * Makes every committed write to `tables` reported to {@link listen}ers, with the changed rows' values of
   * their `columns` where it can; throws when it may not (privileges, foreign tables).
   * `watchTables` and `listen` are absent on a database without a change feed: its live queries only poll.
   */
  watchTables?(conn: SourceConnection, tables: readonly WatchedTable[]): Promise<void>;
  /**
   * Reports changes to watched tables of `conn`'s database (`rows` null: any row may have changed); `lost`
   * when notifications may have been missed (the listener reconnects).
   */
  listen?(conn: SourceConnection, changed: (table: TableName, rows: ChangedRows | null) => void, lost: () => void): Promise<ChangeFeed>;
  /**
   * The text a change report gives for a `dbType` column equal to `value` bound as a parameter, or null when
   * that is not certain (then every reported row may match).
   */
  keyText?(dbType: string, value: unknown): string | null;
}

/**
 * One kind of source database. The registry (registry.ts) holds one object
 * per kind; everything outside backends/ reaches a database through it.
 */
export interface Backend {
  readonly kind: SourceKind;
  /** Prefix of its metadata operation names (`pg_track_table`). */
  readonly operationPrefix: string;
  /** The metadata operation groups it accepts under that prefix; others answer `not-supported`. */
  readonly operationFamilies: readonly OperationFamily[];
  /**
   * How its computed fields feed their function (Note [Computed fields by argument mapping] in
   * catalog/stages/computed-fields.ts): absent, the row as one argument (`table_argument`, v2's
   * postgres); `argument-mapping`, columns mapped to arguments by name (v2's BigQuery).
   */
  readonly computedFieldInputs?: 'argument-mapping';
  readonly capabilities: Capabilities;
  /** A source's configuration: its schema and resolution. */
  readonly configuration: ConfigurationSupport;
  /** How its tables and functions are named. */
  readonly naming: TableNaming;
  /** Opens a pool for a configuration {@link ConfigurationSupport.resolve} of this backend made. */
  connect(resolved: ResolvedConfiguration): SourceConnection;
  /** Introspection on a connection's pool. */
  introspector(conn: SourceConnection): Introspector;
  /** The GraphQL face of a database type (memoized: equal types give the same object). */
  scalar(dbType: string): ScalarInfo;
  /** A column's type as v2's metadata API prints it (`<prefix>_get_table_info`); absent: its `dbType`. */
  typeText?(column: Pick<IntrospectedColumn, 'dbType' | 'elementType'>): string;
  /** The database types the IR carries where no column gives one. */
  readonly types: TypeNames;
  /** v2 compat: the nulls order of `asc` and `desc` (absent: PostgreSQL's, asc nulls last and desc nulls first). */
  readonly nullsDefaults?: NullsDefaults;
  /** Its text operators and comparison type names (absent: PostgreSQL's, every text operator, `<Scalar>_comparison_exp`). */
  readonly comparisons?: ComparisonSupport;
  readonly compile: Compilers;
  /** A failure of `stmt` as the EngineError users see (v2's codes and wording; details in `internal`). */
  toEngineError(e: unknown, stmt: BoundStatement): EngineError;
  /**
   * `run_sql`: runs `sql` in one transaction (read-only when asked) and, before
   * it commits, calls `inside` with the result and an introspector on the same
   * transaction; an error from `inside` rolls everything back.
   */
  runSql?<T>(conn: SourceConnection, sql: string, readOnly: boolean, inside: (result: RunSqlResult, tx: Introspector) => Promise<T>): Promise<T>;
  /**
   * `run_sql` of a request: a transaction on `conn` kept open until the
   * metadata is stored (Note [Effects] in metadata/effects.ts).
   */
  openSqlTransaction?(conn: SourceConnection): Promise<SqlTransaction>;
  /**
   * `<prefix>_run_sql` of a database without transactions (BigQuery): runs
   * `sql` now and answers its rows. No effect of the request: nothing can roll
   * it back when the request fails later (Note [SQL without a transaction] in
   * metadata/operations/sql/run-sql.ts). A backend has this or the two above.
   */
  runSqlAtOnce?(conn: SourceConnection, sql: string, opts?: RunOptions): Promise<RunSqlResult>;
  readonly eventTriggers?: EventTriggerSupport;
  readonly liveQueries?: LiveQuerySupport;
  /**
   * `/v1alpha1/pg_dump`: the database's dump as SQL text, by the database's own dump program
   * with `opts` (checked against an allow-list), cleaned as v2's `clean_output` when `clean`.
   * Absent: the kind has no dump (v2 answers such a source as not found). `env` finds the program.
   */
  dump?(conn: SourceConnection, opts: readonly string[], clean: boolean, env: (name: string) => string | undefined): Promise<string>;
}
