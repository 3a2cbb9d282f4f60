/**
 * What the console must know per kind of source (`postgres`, `mssql`, …, the
 * `kind` of a source in the exported metadata): the prefix of its metadata
 * operations and its default schema.
 *
 * Note [Table names per source kind]: metadata may write a table (or a
 * function) as a bare name, meaning one in the kind's default schema, and
 * v2's GraphQL names leave that schema out (`authors`, but `shop_authors`).
 * The default is the kind's, not PostgreSQL's: `public` for postgres and its
 * relatives, `dbo` for mssql; BigQuery has none (a table always names its
 * dataset, and GraphQL names always carry it). The console cannot import the
 * engine's backends, so this table repeats their v2-compatible constants;
 * every page takes the source's kind from the metadata and asks here.
 */
import type { QualifiedTable } from './metadata-state.tsx';

interface KindInfo {
  /** v2 compat: `pg_track_table`, `mssql_track_table`, … */
  readonly prefix: string;
  /** v2 compat: the schema a bare table name is in; null: none (always explicit). */
  readonly defaultSchema: string | null;
}

const KINDS: Readonly<Record<string, KindInfo>> = {
  postgres: { prefix: 'pg', defaultSchema: 'public' },
  citus: { prefix: 'citus', defaultSchema: 'public' },
  cockroach: { prefix: 'cockroach', defaultSchema: 'public' },
  mssql: { prefix: 'mssql', defaultSchema: 'dbo' },
  bigquery: { prefix: 'bigquery', defaultSchema: null },
};

function info(kind: string): KindInfo {
  // A kind this console does not know: its own name as prefix, no default schema.
  return KINDS[kind] ?? { prefix: kind, defaultSchema: null };
}

/** The metadata operations' prefix of a source kind (`pg` for postgres). */
export function operationPrefix(kind: string): string {
  return info(kind).prefix;
}

/** The default schema of a source kind, or null when names are always qualified. */
export function defaultSchema(kind: string): string | null {
  return info(kind).defaultSchema;
}

/**
 * A table or function as metadata writes it (`name`, `{schema, name}`, or
 * BigQuery's `{dataset, name}`) as schema and name; a bare name without a
 * default schema has the schema ''. Null when it is not a name at all.
 */
export function qualifiedName(kind: string, t: unknown): QualifiedTable | null {
  const fallback = defaultSchema(kind) ?? '';
  if (typeof t === 'string') return { schema: fallback, name: t };
  if (typeof t !== 'object' || t === null) return null;
  const r = t as Record<string, unknown>;
  if (typeof r['name'] !== 'string') return null;
  const schema = typeof r['schema'] === 'string' ? r['schema'] : typeof r['dataset'] === 'string' ? r['dataset'] : fallback;
  return { schema, name: r['name'] };
}

/** `schema.name`, the key the console uses for a table (`tableKey`), from a name as metadata writes it. */
export function qualifiedText(kind: string, t: unknown): string | null {
  const q = qualifiedName(kind, t);
  return q === null ? null : `${q.schema}.${q.name}`;
}

/** A table as the kind's metadata operations take it: `{schema, name}`, or BigQuery's `{dataset, name}`. */
export function wireTable(kind: string, t: QualifiedTable): Record<string, string> {
  return kind === 'bigquery' ? { dataset: t.schema, name: t.name } : { schema: t.schema, name: t.name };
}

/** v2's GraphQL name of a table: the name alone in the kind's default schema, else `schema_name`. */
export function graphqlTableName(kind: string, t: QualifiedTable): string {
  return t.schema === '' || t.schema === defaultSchema(kind) ? t.name : `${t.schema}_${t.name}`;
}

/** A whole-number setting of a source's configuration, as the editor shows it. */
export interface NumberSetting {
  readonly key: string;
  readonly label: string;
}

/**
 * What a source's configuration editor shows for its kind: each kind's `configuration` is its
 * backend's (engine/backends/<kind>/configuration.ts), so this repeats their keys, as the
 * prefixes above; the engine checks the values.
 */
export interface ConfigurationFields {
  /** The key of `connection_info` that says how to connect; null: the kind has no `connection_info`. */
  readonly connectionKey: 'database_url' | 'connection_string' | null;
  /** `connection_info.pool_settings` keys. */
  readonly pool: readonly NumberSetting[];
  /** `connection_info.isolation_level` values (empty: no such setting). */
  readonly isolationLevels: readonly string[];
  /** `connection_info.use_prepared_statements`. */
  readonly preparedStatements: boolean;
  /** `read_replicas`: a list of `connection_info`s. */
  readonly readReplicas: boolean;
  /** `connection_info.ssl_configuration` (v2's PGCertSettings). */
  readonly ssl: boolean;
  /** Whole-number keys at the configuration's top level (BigQuery's limits). */
  readonly topLevel: readonly NumberSetting[];
}

const PG_POOL: readonly NumberSetting[] = [
  { key: 'max_connections', label: 'Max connections' },
  { key: 'total_max_connections', label: 'Total max connections' },
  { key: 'idle_timeout', label: 'Idle timeout (seconds)' },
  { key: 'retries', label: 'Connection retries' },
  { key: 'pool_timeout', label: 'Pool timeout (seconds)' },
  { key: 'connection_lifetime', label: 'Connection lifetime (seconds)' },
];

const PG_FIELDS: ConfigurationFields = {
  connectionKey: 'database_url',
  pool: PG_POOL,
  isolationLevels: ['read-committed', 'repeatable-read', 'serializable'],
  preparedStatements: true,
  readReplicas: true,
  ssl: true,
  topLevel: [],
};

const FIELDS: Readonly<Record<string, ConfigurationFields>> = {
  postgres: PG_FIELDS,
  citus: PG_FIELDS,
  cockroach: PG_FIELDS,
  mssql: {
    connectionKey: 'connection_string',
    pool: PG_POOL.slice(0, 3),
    isolationLevels: ['read-uncommitted', 'read-committed', 'repeatable-read', 'snapshot', 'serializable'],
    preparedStatements: false,
    readReplicas: true,
    ssl: false,
    topLevel: [],
  },
  bigquery: {
    connectionKey: null,
    pool: [],
    isolationLevels: [],
    preparedStatements: false,
    readReplicas: false,
    ssl: false,
    topLevel: [
      { key: 'global_select_limit', label: 'Global select limit' },
      { key: 'retry_base_delay', label: 'Retry base delay (microseconds)' },
      { key: 'retry_limit', label: 'Retry limit' },
    ],
  },
};

/** The configuration settings a source of this kind has (none for a kind this console does not know). */
export function configurationFields(kind: string): ConfigurationFields {
  return FIELDS[kind] ?? { connectionKey: null, pool: [], isolationLevels: [], preparedStatements: false, readReplicas: false, ssl: false, topLevel: [] };
}
