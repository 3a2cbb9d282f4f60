/**
 * The `configuration` of an mssql source (v2's `MSSQLConnConfiguration`):
 * `connection_info.connection_string` (a value or `{from_env}`), `pool_settings`
 * and `isolation_level`; its JSON schema and its resolution into what
 * {@link MssqlConnection} is opened with.
 *
 * v2 takes an ODBC connection string (`Driver={ODBC Driver 18 for SQL
 * Server};Server=tcp:db,1433;Database=app;Uid=sa;Pwd=...;Encrypt=yes`);
 * tedious speaks TDS itself, so the string is parsed here into its settings
 * (the ADO.NET spellings of each key too: `Data Source`, `Initial Catalog`,
 * `User ID`, `Password`). `Driver` names an ODBC driver and is ignored.
 */
import type { ConfigurationSupport, ResolveOptions, ResolvedConfiguration } from '../backend.ts';
import type { JsonSchema } from '../../model/schemas/validate.ts';

/** v2 `isolation_level` of MSSQL sources. */
export type IsolationLevel = 'read-uncommitted' | 'read-committed' | 'repeatable-read' | 'snapshot' | 'serializable';

/** v2 MSSQL `pool_settings`. */
export interface MssqlPoolSettings {
  readonly max_connections?: number;
  readonly total_max_connections?: number;
  /** Seconds an idle connection is kept. */
  readonly idle_timeout?: number;
}

/** `configuration.connection_info` of an mssql source. */
export interface MssqlConnectionInfo {
  readonly connection_string: string | { readonly from_env: string };
  readonly pool_settings?: MssqlPoolSettings;
  readonly isolation_level?: IsolationLevel;
}

/** What a connection string says, in tedious' terms. */
export interface ConnectionTarget {
  readonly server: string;
  readonly port?: number;
  readonly instanceName?: string;
  readonly database?: string;
  readonly user?: string;
  readonly password?: string;
  readonly encrypt: boolean;
  readonly trustServerCertificate: boolean;
  readonly connectTimeoutMs?: number;
}

export const mssqlConfigurationSchema: JsonSchema = {
  type: 'object',
  required: ['connection_info'],
  properties: {
    connection_info: {
      type: 'object',
      required: ['connection_string'],
      properties: {
        connection_string: {
          oneOf: [{ type: 'string' }, { type: 'object', required: ['from_env'], properties: { from_env: { type: 'string' } }, additionalProperties: false }],
        },
        pool_settings: {
          type: 'object',
          properties: {
            max_connections: { type: 'integer', minimum: 1 },
            total_max_connections: { type: 'integer', minimum: 1 },
            idle_timeout: { type: 'integer', minimum: 0 },
          },
          additionalProperties: false,
        },
        isolation_level: { enum: ['read-uncommitted', 'read-committed', 'repeatable-read', 'snapshot', 'serializable'] },
      },
      additionalProperties: false,
    },
    // v2 keys the engine does not run yet, kept as they came.
    read_replicas: { type: 'array' },
  },
  additionalProperties: false,
};

/** `key=value;...` pairs of an ODBC/ADO.NET connection string (keys lower case, `{...}` values unbraced). */
export function connectionStringPairs(text: string): Map<string, string> {
  const pairs = new Map<string, string>();
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    if (eq < 0) {
      if (text.slice(i).trim() !== '') throw new Error(`connection string: "${text.slice(i).trim()}" has no "="`);
      break;
    }
    const key = text.slice(i, eq).trim().toLowerCase();
    let j = eq + 1;
    while (text[j] === ' ') j++;
    let value: string;
    if (text[j] === '{') {
      // `{...}` may hold `;`; `}}` is a literal `}`.
      let v = '';
      let k = j + 1;
      for (;;) {
        if (k >= text.length) throw new Error(`connection string: the value of "${key}" has no closing "}"`);
        if (text[k] === '}') {
          if (text[k + 1] === '}') {
            v += '}';
            k += 2;
            continue;
          }
          break;
        }
        v += text[k];
        k++;
      }
      value = v;
      const semi = text.indexOf(';', k + 1);
      i = semi < 0 ? text.length : semi + 1;
    } else {
      const semi = text.indexOf(';', j);
      value = (semi < 0 ? text.slice(j) : text.slice(j, semi)).trim();
      i = semi < 0 ? text.length : semi + 1;
    }
    if (key !== '') pairs.set(key, value);
  }
  return pairs;
}

const yes = (v: string | undefined): boolean | undefined => {
  if (v === undefined) return undefined;
  const x = v.toLowerCase();
  if (['yes', 'true', 'mandatory', 'strict', '1'].includes(x)) return true;
  if (['no', 'false', 'optional', '0'].includes(x)) return false;
  throw new Error(`connection string: "${v}" is not yes or no`);
};

/** The server, credentials and options of a connection string; throws a readable Error when it cannot be read. */
export function parseConnectionString(text: string): ConnectionTarget {
  const p = connectionStringPairs(text);
  const pick = (...keys: string[]): string | undefined => keys.map((k) => p.get(k)).find((v) => v !== undefined && v !== '');
  const serverText = pick('server', 'data source', 'address', 'addr', 'network address');
  if (serverText === undefined) throw new Error('connection string: no Server');
  // `tcp:host,port`, `host\instance`, `(local)`.
  let host = serverText.replace(/^tcp:/i, '');
  let port: number | undefined;
  let instanceName: string | undefined;
  const comma = host.lastIndexOf(',');
  if (comma >= 0) {
    const n = Number(host.slice(comma + 1).trim());
    if (!Number.isInteger(n) || n < 1 || n > 65535) throw new Error(`connection string: "${host.slice(comma + 1)}" is not a port`);
    port = n;
    host = host.slice(0, comma).trim();
  }
  const slash = host.indexOf('\\');
  if (slash >= 0) {
    instanceName = host.slice(slash + 1);
    host = host.slice(0, slash);
  }
  if (host === '(local)' || host === '.') host = 'localhost';
  const timeout = pick('connection timeout', 'connect timeout', 'login timeout', 'timeout');
  const timeoutSeconds = timeout === undefined ? undefined : Number(timeout);
  if (timeoutSeconds !== undefined && !(Number.isFinite(timeoutSeconds) && timeoutSeconds >= 0))
    throw new Error(`connection string: "${timeout}" is not a timeout`);
  const database = pick('database', 'initial catalog');
  const user = pick('uid', 'user id', 'user', 'username');
  const password = p.get('pwd') ?? p.get('password');
  return {
    server: host,
    ...(port === undefined ? {} : { port }),
    ...(instanceName === undefined ? {} : { instanceName }),
    ...(database === undefined ? {} : { database }),
    ...(user === undefined ? {} : { user }),
    ...(password === undefined ? {} : { password }),
    // ODBC Driver 18 encrypts by default; so does tedious.
    encrypt: yes(p.get('encrypt')) ?? true,
    trustServerCertificate: yes(p.get('trustservercertificate') ?? p.get('trust server certificate')) ?? false,
    ...(timeoutSeconds === undefined || timeoutSeconds === 0 ? {} : { connectTimeoutMs: timeoutSeconds * 1000 }),
  };
}

/** A resolved mssql configuration: what the pool is opened with. */
export class MssqlSettings implements ResolvedConfiguration {
  readonly kind = 'mssql';
  readonly key: string;
  readonly target: ConnectionTarget;
  readonly maxConnections: number;
  readonly idleTimeoutMs: number;
  readonly isolationLevel: IsolationLevel;
  readonly statementTimeoutMs: number;

  constructor(key: string, target: ConnectionTarget, info: MssqlConnectionInfo, statementTimeoutMs: number) {
    this.key = key;
    this.target = target;
    // v2's MSSQL defaults: 50 connections, 5 s idle.
    this.maxConnections = info.pool_settings?.max_connections ?? 50;
    this.idleTimeoutMs = (info.pool_settings?.idle_timeout ?? 5) * 1000;
    this.isolationLevel = info.isolation_level ?? 'read-committed';
    this.statementTimeoutMs = statementTimeoutMs;
  }
}

function infoOf(configuration: unknown): MssqlConnectionInfo {
  return (configuration as { connection_info: MssqlConnectionInfo }).connection_info;
}

function connectionString(info: MssqlConnectionInfo, env: ResolveOptions['env']): { text: string } | { reason: string } {
  const cs = info.connection_string;
  if (typeof cs === 'string') return { text: cs };
  const v = env(cs.from_env);
  return v === undefined || v === '' ? { reason: `environment variable "${cs.from_env}" is not set` } : { text: v };
}

/** The configuration of mssql sources. */
export const mssqlConfiguration: ConfigurationSupport = {
  schema: mssqlConfigurationSchema,
  resolve(configuration, options) {
    const info = infoOf(configuration);
    const cs = connectionString(info, options.env);
    const key = JSON.stringify({ connection_string: 'text' in cs ? cs.text : null, pool: info.pool_settings ?? null, isolation: info.isolation_level ?? null });
    if (!('text' in cs)) return { key, reason: cs.reason };
    try {
      return new MssqlSettings(key, parseConnectionString(cs.text), info, options.statementTimeoutMs);
    } catch (e) {
      return { key, reason: (e as Error).message };
    }
  },
  // The metadata database is always PostgreSQL.
  isDatabase: () => false,
};
