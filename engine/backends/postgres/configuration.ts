/**
 * The `configuration` of a postgres source (v2's `PostgresConnConfiguration`):
 * its JSON schema, and its resolution into the settings a pool is opened with
 * (`database_url` read from the environment, `pool_settings` in engine
 * units). The rest of the engine sees neither: it hands the configuration to
 * `backend.configuration` and the result to `backend.connect` (Note [Backend
 * seam] in ../registry.ts).
 */
import type { ConfigurationSupport, ResolveOptions, ResolvedConfiguration } from '../backend.ts';
import type { UrlFromEnv } from '../../model/document.ts';
import type { JsonSchema } from '../../model/schemas/validate.ts';
import { resolveUrlTemplate, urlTemplateVariables } from '../../transforms/index.ts';
import type { PostgresPoolSettings } from './connection.ts';
import { resolveTls, sslConfigurationSchema, tlsDigest, type PostgresTls, type SslConfiguration } from './ssl.ts';

/** v2 `pool_settings`. */
export interface PoolSettings {
  readonly max_connections?: number;
  readonly total_max_connections?: number;
  readonly idle_timeout?: number;
  readonly retries?: number;
  readonly pool_timeout?: number;
  readonly connection_lifetime?: number | null;
}

/** v2's `PGConnectionParams`: the parts of a connection URL, given one by one. */
export interface ConnectionParameters {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  readonly password?: string;
  readonly database: string;
}

/** A postgres `database_url`: a URL (with `{{ENV}}` templates), `{from_env}`, or `{connection_parameters}`. */
export type DatabaseUrl = UrlFromEnv | { readonly connection_parameters: ConnectionParameters };

/** `configuration.connection_info` of a postgres source. */
export interface ConnectionInfo {
  readonly database_url: DatabaseUrl;
  readonly pool_settings?: PoolSettings;
  readonly use_prepared_statements?: boolean;
  readonly isolation_level?: 'read-committed' | 'repeatable-read' | 'serializable';
  /** v2's PGCertSettings (Note [Source SSL] in ssl.ts). */
  readonly ssl_configuration?: SslConfiguration | null;
}

/** The configuration of a postgres source, as its schema admits it. */
export interface PostgresConfiguration {
  readonly connection_info: ConnectionInfo;
  readonly [k: string]: unknown;
}

const poolSettingsSchema: JsonSchema = {
  type: 'object',
  properties: {
    max_connections: { type: 'integer', minimum: 1 },
    total_max_connections: { type: 'integer', minimum: 1 },
    idle_timeout: { type: 'integer', minimum: 0 },
    retries: { type: 'integer', minimum: 0 },
    pool_timeout: { type: 'integer', minimum: 0 },
    connection_lifetime: { type: ['integer', 'null'], minimum: 0 },
  },
  additionalProperties: false,
};

/** v2's `UrlConf`: one of a string, `{from_env}` and `{connection_parameters}` (no other keys). */
const databaseUrlSchema: JsonSchema = {
  oneOf: [
    { type: 'string' },
    { type: 'object', required: ['from_env'], properties: { from_env: { type: 'string' } }, additionalProperties: false },
    {
      type: 'object',
      required: ['connection_parameters'],
      properties: {
        connection_parameters: {
          type: 'object',
          required: ['host', 'username', 'port', 'database'],
          properties: {
            host: { type: 'string' },
            username: { type: 'string' },
            password: { type: 'string' },
            port: { type: 'integer', minimum: 1, maximum: 65535 },
            database: { type: 'string' },
          },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    },
  ],
};

/** The schema of a postgres source's `configuration` (closed: unknown keys are refused, as v2 does). */
export const postgresConfigurationSchema: JsonSchema = {
  type: 'object',
  required: ['connection_info'],
  properties: {
    connection_info: {
      type: 'object',
      required: ['database_url'],
      properties: {
        database_url: databaseUrlSchema,
        pool_settings: poolSettingsSchema,
        use_prepared_statements: { type: 'boolean' },
        isolation_level: { enum: ['read-committed', 'repeatable-read', 'serializable'] },
        ssl_configuration: { oneOf: [{ type: 'null' }, sslConfigurationSchema] },
      },
      additionalProperties: false,
    },
    // v2 keys the engine does not run yet, kept as they came.
    read_replicas: { type: 'array' },
    extensions_schema: { type: ['string', 'null'] },
    connection_template: { type: 'object' },
    connection_set: { type: 'array' },
  },
  additionalProperties: false,
};

/** A resolved postgres configuration: what {@link PostgresConnection} is opened with. */
export class PostgresSettings implements ResolvedConfiguration {
  readonly kind = 'postgres';
  readonly key: string;
  readonly url: string;
  readonly pool: PostgresPoolSettings;
  /** The TLS setting; null: the URL is used as it is (Note [Source SSL] in ssl.ts). */
  readonly tls: PostgresTls | null;

  constructor(key: string, url: string, pool: PostgresPoolSettings, tls: PostgresTls | null = null) {
    this.key = key;
    this.url = url;
    this.pool = pool;
    this.tls = tls;
  }
}

/** v2's getPGConnectionStringFromParams: each part percent-encoded, no password part when there is none. */
function urlOfParameters(p: ConnectionParameters): string {
  const user = encodeURIComponent(p.username) + (p.password === undefined ? '' : `:${encodeURIComponent(p.password)}`);
  const host = p.host.includes(':') && !p.host.startsWith('[') ? `[${p.host}]` : encodeURIComponent(p.host);
  return `postgresql://${user}@${host}:${p.port}/${encodeURIComponent(p.database)}`;
}

/** Resolves a `database_url` (inline with `{{ENV}}` templates, `{from_env}` or `{connection_parameters}`), or says why it cannot. */
function resolveUrl(url: DatabaseUrl, env: ResolveOptions['env']): { url: string } | { reason: string } {
  if (typeof url === 'string') {
    // v2 compat: an inline URL is a template (UrlValue InputWebhook, resolveWebhook).
    const unset = urlTemplateVariables(url).filter((name) => env(name) === undefined);
    if (unset.length > 0) return { reason: `environment variable ${unset.map((n) => `"${n}"`).join(', ')} not set` };
    return { url: resolveUrlTemplate(url, env, '$') };
  }
  if ('connection_parameters' in url) return { url: urlOfParameters(url.connection_parameters) };
  const v = env(url.from_env);
  return v === undefined || v === '' ? { reason: `environment variable "${url.from_env}" is not set` } : { url: v };
}

/** The connection info of a configuration the schema admitted. */
function infoOf(configuration: unknown): ConnectionInfo {
  return (configuration as PostgresConfiguration).connection_info;
}

/** The configuration of postgres sources. */
export const postgresConfiguration: ConfigurationSupport = {
  schema: postgresConfigurationSchema,
  resolve(configuration, options) {
    const info = infoOf(configuration);
    const resolved = resolveUrl(info.database_url, options.env);
    const tls = 'url' in resolved ? resolveTls(resolved.url, info.ssl_configuration, options.env) : null;
    // Same URL text, pool and TLS settings: one pool (Note [Introspection freshness] in ../source-preparer.ts).
    const key = JSON.stringify({
      url: 'url' in resolved ? resolved.url : null,
      pool: info.pool_settings ?? null,
      ...(tls !== null && 'tls' in tls && tls.tls !== null ? { tls: tlsDigest(tls.tls) } : {}),
      ...(info.ssl_configuration == null ? {} : { ssl: info.ssl_configuration }),
    });
    if (!('url' in resolved)) return { key, reason: resolved.reason };
    if (tls !== null && 'reason' in tls) return { key, reason: tls.reason };
    const p = info.pool_settings ?? {};
    const pool: PostgresPoolSettings = {
      ...(p.max_connections === undefined ? {} : { maxConnections: p.max_connections }),
      ...(p.idle_timeout === undefined ? {} : { idleTimeoutSeconds: p.idle_timeout }),
      ...(p.connection_lifetime === undefined || p.connection_lifetime === null ? {} : { connectionLifetimeSeconds: p.connection_lifetime }),
      ...(p.pool_timeout === undefined ? {} : { connectTimeoutSeconds: p.pool_timeout }),
      // v2's default (defaultPostgresPoolSettings): Note [Retries after connection errors] in connection.ts.
      retries: p.retries ?? 1,
      statementTimeoutMs: options.statementTimeoutMs,
    };
    return new PostgresSettings(key, resolved.url, pool, tls?.tls ?? null);
  },
  isDatabase(configuration, url, env) {
    const resolved = resolveUrl(infoOf(configuration).database_url, env);
    // Same URL text means same database; another spelling of it is handled as another database (Note [Effects]).
    return 'url' in resolved && resolved.url === url;
  },
};
