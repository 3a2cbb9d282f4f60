/**
 * Flags and ENGINE_GRAPHQL_* environment (v2's HASURA_GRAPHQL_* names too:
 * Note [v2 setting names]) → one validated Settings object. v2 compat: names
 * from docs/compat.md ("Names"); flags win over the environment. This is the
 * only module that reads process.env.
 */
import { ErrorCode } from '../errors/codes.ts';
import { EngineError } from '../errors/engine-error.ts';
import type { LogLevel, LogType } from '../logger.ts';

/** v2's configurable log types (engine/logger.ts LOG_TYPES; named here so cli/ imports no logger code). */
const LOG_TYPES = ['startup', 'http-log', 'webhook-log', 'websocket-log', 'query-log', 'jwk-refresh-log'] as const satisfies readonly LogType[];
/** v2's default set: every type but query-log. */
const DEFAULT_LOG_TYPES: readonly LogType[] = ['startup', 'http-log', 'webhook-log', 'websocket-log', 'jwk-refresh-log'];

/** The engine's settings after parsing. */
export interface Settings {
  readonly databaseUrl: string | null;
  readonly metadataDatabaseUrl: string | null;
  readonly adminSecret: string | null;
  readonly jwtSecret: string | null;
  readonly authHook: string | null;
  readonly authHookMode: 'GET' | 'POST';
  /** Seconds to wait for the auth webhook before answering 500. */
  readonly authHookTimeout: number;
  readonly unauthorizedRole: string | null;
  readonly serverPort: number;
  readonly serverHost: string;
  readonly enableConsole: boolean;
  readonly corsDomain: string | null;
  readonly logLevel: LogLevel;
  /** v2's log types to write (ENGINE_GRAPHQL_ENABLED_LOG_TYPES, comma-separated); engine/logger.ts. */
  readonly enabledLogTypes: readonly LogType[];
  /** Bearer secret of GET /v1/metrics (Note [Metrics secret] in server/routes/metrics.ts). */
  readonly metricsSecret: string | null;
  /** prom-client's default Node metrics on /v1/metrics (Note [Cheap request metrics]). */
  readonly metricsNodeDefaults: boolean;
  /** OTLP/HTTP traces endpoint (full URL); unset: no tracing (engine/observability/tracing.ts). */
  readonly otlpTracesEndpoint: string | null;
  readonly inferFunctionPermissions: boolean;
  /** Roles see a remote schema only through a remote schema permission (v2 default: false, every role sees it whole). */
  readonly enableRemoteSchemaPermissions: boolean;
  /** Relay: a role that cannot select every primary key column gets no node id nor connections on the table (default false, as v2). */
  readonly relayHideUnselectableKeys: boolean;
  readonly stringifyNumericTypes: boolean;
  /** `/v1/graphql` answers authentication failures with HTTP 401 instead of v2's default 200 (v2's HASURA_GRAPHQL_PRESERVE_401_ERRORS). */
  readonly preserve401Errors: boolean;
  /** Estimated MiB the plan cache may keep (Note [Plan cache bytes] in execute/plan-cache.ts). */
  readonly planCacheSizeMb: number;
  /** Seconds a request's SQL statement may run (0: no limit); Note [Statement timeout]. */
  readonly statementTimeout: number;
  /** v2's `--retries`: the metadata database's retries after connection errors (Note [Retries after connection errors]). */
  readonly noOfRetries: number;
  /** Most fields one operation may select, fragments expanded (0: no bound); Note [Operation cost]. */
  readonly queryFieldLimit: number;
  /** ms between refetches of a live-query cohort at most (v2 default 1000); Note [Refetch on change] in subscriptions/. */
  readonly liveQueriesMultiplexedRefetchInterval: number;
  /** Subscribers' variable sets per multiplexed statement (v2 default 100). */
  readonly liveQueriesMultiplexedBatchSize: number;
  /** ms between polls of a streaming cohort (v2 default 1000). */
  readonly streamingQueriesMultiplexedRefetchInterval: number;
  /** Subscribers' cursors per multiplexed streaming statement (v2 default 100). */
  readonly streamingQueriesMultiplexedBatchSize: number;
  /** Seconds between keep-alive messages on a WebSocket (v2 default 5). */
  readonly websocketKeepalive: number;
  /** Seconds a WebSocket may take to send connection_init (v2 default 3). */
  readonly websocketConnectionInitTimeout: number;
  /** Refetch a live query only when a table it reads may have changed (default true); false: plain polling as v2. */
  readonly liveQueriesRefetchOnChange: boolean;
  /** Subscription statements one source runs at a time (0: half its pool); Note [Live query limits] in subscriptions/. */
  readonly liveQueriesMaxConnections: number;
  /** Whether this process delivers event trigger events (false on a replica that only serves). */
  readonly eventsDelivery: boolean;
  /** Concurrent webhook requests of event delivery (v2 HASURA_GRAPHQL_EVENTS_HTTP_POOL_SIZE). */
  readonly eventsHttpPoolSize: number;
  /** Milliseconds between polls of the event log when no notification came (v2 HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL). */
  readonly eventsFetchInterval: number;
  /** Events taken per fetch (v2 HASURA_GRAPHQL_EVENTS_FETCH_BATCH_SIZE). */
  readonly eventsFetchBatchSize: number;
  /** Seconds an engine holds an event it took before another may take it (renewed while it is sent); Note [Event log]. */
  readonly eventsLeaseSeconds: number;
  /** Only allow-listed queries run for non-admin roles (Note [Allow-list matching] in catalog/normalize-document.ts). */
  readonly enableAllowlist: boolean;
}

export interface SettingSpec {
  readonly key: keyof Settings;
  readonly flag: string;
  readonly env: string;
  readonly kind: 'string' | 'int' | 'bool' | 'enum' | 'list';
  readonly values?: readonly string[];
  /** A standard variable read when `env` is unset (OpenTelemetry's own names). */
  readonly fallbackEnv?: string;
  /** v2's older names of the setting, read after its HASURA_GRAPHQL_* name (Note [v2 setting names]). */
  readonly legacyEnv?: readonly string[];
  readonly describe: string;
}

/** Every setting with its flag and environment variable (the README lists these). */
export const SETTING_SPECS: readonly SettingSpec[] = [
  { key: 'databaseUrl', flag: '--database-url', env: 'ENGINE_GRAPHQL_DATABASE_URL', kind: 'string', describe: 'PostgreSQL URL of the `default` source' },
  {
    key: 'metadataDatabaseUrl',
    flag: '--metadata-database-url',
    env: 'ENGINE_GRAPHQL_METADATA_DATABASE_URL',
    kind: 'string',
    describe: 'PostgreSQL URL where metadata is stored (schema `engine_metadata`); defaults to the database URL',
  },
  {
    key: 'adminSecret',
    flag: '--admin-secret',
    env: 'ENGINE_GRAPHQL_ADMIN_SECRET',
    legacyEnv: ['HASURA_GRAPHQL_ACCESS_KEY'],
    kind: 'string',
    describe: 'admin secret; when set, every request must authenticate',
  },
  { key: 'jwtSecret', flag: '--jwt-secret', env: 'ENGINE_GRAPHQL_JWT_SECRET', kind: 'string', describe: 'JWT configuration (JSON)' },
  { key: 'authHook', flag: '--auth-hook', env: 'ENGINE_GRAPHQL_AUTH_HOOK', kind: 'string', describe: 'authentication webhook URL' },
  {
    key: 'authHookMode',
    flag: '--auth-hook-mode',
    env: 'ENGINE_GRAPHQL_AUTH_HOOK_MODE',
    kind: 'enum',
    values: ['GET', 'POST'],
    describe: 'authentication webhook method (GET or POST, default GET)',
  },
  {
    key: 'authHookTimeout',
    flag: '--auth-hook-timeout',
    env: 'ENGINE_GRAPHQL_AUTH_HOOK_TIMEOUT',
    kind: 'int',
    describe: 'seconds to wait for the authentication webhook (default 10)',
  },
  {
    key: 'unauthorizedRole',
    flag: '--unauthorized-role',
    env: 'ENGINE_GRAPHQL_UNAUTHORIZED_ROLE',
    kind: 'string',
    describe: 'role for requests without credentials',
  },
  { key: 'serverPort', flag: '--server-port', env: 'ENGINE_GRAPHQL_SERVER_PORT', kind: 'int', describe: 'HTTP port (default 8080)' },
  { key: 'serverHost', flag: '--server-host', env: 'ENGINE_GRAPHQL_SERVER_HOST', kind: 'string', describe: 'HTTP host to bind (default 0.0.0.0)' },
  {
    key: 'enableConsole',
    flag: '--enable-console',
    env: 'ENGINE_GRAPHQL_ENABLE_CONSOLE',
    kind: 'bool',
    describe: 'serve the web console at /console (default false; `npm start` turns it on)',
  },
  {
    key: 'corsDomain',
    flag: '--cors-domain',
    env: 'ENGINE_GRAPHQL_CORS_DOMAIN',
    kind: 'string',
    describe: 'allowed CORS origins, comma-separated, wildcards allowed',
  },
  {
    key: 'logLevel',
    flag: '--log-level',
    env: 'ENGINE_GRAPHQL_LOG_LEVEL',
    kind: 'enum',
    values: ['debug', 'info', 'warn', 'error'],
    describe: 'log level (default info)',
  },
  {
    key: 'enabledLogTypes',
    flag: '--enabled-log-types',
    env: 'ENGINE_GRAPHQL_ENABLED_LOG_TYPES',
    kind: 'list',
    values: LOG_TYPES,
    describe: `log types to write, comma-separated, of ${LOG_TYPES.join(', ')} (default ${DEFAULT_LOG_TYPES.join(',')})`,
  },
  {
    key: 'metricsSecret',
    flag: '--metrics-secret',
    env: 'ENGINE_GRAPHQL_METRICS_SECRET',
    kind: 'string',
    describe: 'secret of GET /v1/metrics, sent as `Authorization: Bearer <secret>`; unset: the admin secret guards it',
  },
  {
    key: 'metricsNodeDefaults',
    flag: '--metrics-node-defaults',
    env: 'ENGINE_GRAPHQL_METRICS_NODE_DEFAULTS',
    kind: 'bool',
    describe: "prom-client's default Node process metrics on /v1/metrics too (default false)",
  },
  {
    key: 'otlpTracesEndpoint',
    flag: '--otlp-traces-endpoint',
    env: 'ENGINE_GRAPHQL_OTLP_TRACES_ENDPOINT',
    fallbackEnv: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    kind: 'string',
    describe: 'OTLP/HTTP endpoint traces are exported to (e.g. http://collector:4318/v1/traces; else OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); unset: no tracing',
  },
  {
    key: 'inferFunctionPermissions',
    flag: '--infer-function-permissions',
    env: 'ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS',
    kind: 'bool',
    describe: "roles that may select a function's table may call it (default true)",
  },
  {
    key: 'enableRemoteSchemaPermissions',
    flag: '--enable-remote-schema-permissions',
    env: 'ENGINE_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS',
    kind: 'bool',
    describe: 'roles see a remote schema only through its permissions (default false: every role sees it whole)',
  },
  {
    key: 'relayHideUnselectableKeys',
    flag: '--relay-hide-unselectable-keys',
    env: 'ENGINE_GRAPHQL_RELAY_HIDE_UNSELECTABLE_KEYS',
    kind: 'bool',
    describe: 'Relay: no Node id nor connections on a table for a role that cannot select its whole primary key (default false, as v2)',
  },
  {
    key: 'stringifyNumericTypes',
    flag: '--stringify-numeric-types',
    env: 'ENGINE_GRAPHQL_STRINGIFY_NUMERIC_TYPES',
    kind: 'bool',
    describe: 'return bigint, numeric and float values as JSON strings (default false)',
  },
  {
    key: 'preserve401Errors',
    flag: '--preserve-401-errors',
    env: 'ENGINE_GRAPHQL_PRESERVE_401_ERRORS',
    kind: 'bool',
    describe: '/v1/graphql answers authentication failures with HTTP 401 (default false: HTTP 200, as v2)',
  },
  {
    key: 'planCacheSizeMb',
    flag: '--plan-cache-size-mb',
    env: 'ENGINE_GRAPHQL_PLAN_CACHE_SIZE_MB',
    kind: 'int',
    describe: 'estimated MiB of memory the plan cache may keep (default 128)',
  },
  {
    key: 'statementTimeout',
    flag: '--statement-timeout',
    env: 'ENGINE_GRAPHQL_STATEMENT_TIMEOUT',
    kind: 'int',
    describe: "seconds a GraphQL request's SQL statement may run, 0 for no limit (default 60)",
  },
  {
    key: 'noOfRetries',
    flag: '--retries',
    env: 'ENGINE_GRAPHQL_NO_OF_RETRIES',
    kind: 'int',
    describe: 'times a metadata database statement is tried again after a connection error (default 1)',
  },
  {
    key: 'liveQueriesMultiplexedRefetchInterval',
    flag: '--live-queries-multiplexed-refetch-interval',
    env: 'ENGINE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL',
    kind: 'int',
    describe: 'ms between refetches of a live query at most (default 1000)',
  },
  {
    key: 'liveQueriesMultiplexedBatchSize',
    flag: '--live-queries-multiplexed-batch-size',
    env: 'ENGINE_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_BATCH_SIZE',
    kind: 'int',
    describe: 'subscribers per multiplexed live-query statement (default 100)',
  },
  {
    key: 'streamingQueriesMultiplexedRefetchInterval',
    flag: '--streaming-queries-multiplexed-refetch-interval',
    env: 'ENGINE_GRAPHQL_STREAMING_QUERIES_MULTIPLEXED_REFETCH_INTERVAL',
    kind: 'int',
    describe: 'ms between polls of a streaming subscription (default 1000)',
  },
  {
    key: 'streamingQueriesMultiplexedBatchSize',
    flag: '--streaming-queries-multiplexed-batch-size',
    env: 'ENGINE_GRAPHQL_STREAMING_QUERIES_MULTIPLEXED_BATCH_SIZE',
    kind: 'int',
    describe: 'subscribers per multiplexed streaming statement (default 100)',
  },
  {
    key: 'websocketKeepalive',
    flag: '--websocket-keepalive',
    env: 'ENGINE_GRAPHQL_WEBSOCKET_KEEPALIVE',
    kind: 'int',
    describe: 'seconds between WebSocket keep-alive messages (default 5)',
  },
  {
    key: 'websocketConnectionInitTimeout',
    flag: '--websocket-connection-init-timeout',
    env: 'ENGINE_GRAPHQL_WEBSOCKET_CONNECTION_INIT_TIMEOUT',
    kind: 'int',
    describe: 'seconds a WebSocket may take to send connection_init (default 3)',
  },
  {
    key: 'liveQueriesRefetchOnChange',
    flag: '--live-queries-refetch-on-change',
    env: 'ENGINE_GRAPHQL_LIVE_QUERIES_REFETCH_ON_CHANGE',
    kind: 'bool',
    describe: 'refetch a live query only when a table it reads may have changed (default true; false polls every interval)',
  },
  {
    key: 'liveQueriesMaxConnections',
    flag: '--live-queries-max-connections',
    env: 'ENGINE_GRAPHQL_LIVE_QUERIES_MAX_CONNECTIONS',
    kind: 'int',
    describe: "pooled connections a source's subscriptions may hold at once (default 0: half of its pool)",
  },
  {
    key: 'eventsDelivery',
    flag: '--events-delivery',
    env: 'ENGINE_GRAPHQL_EVENTS_DELIVERY',
    kind: 'bool',
    describe: 'deliver event trigger events from this process (default true; false on a replica that only serves)',
  },
  {
    key: 'eventsHttpPoolSize',
    flag: '--events-http-pool-size',
    env: 'ENGINE_GRAPHQL_EVENTS_HTTP_POOL_SIZE',
    kind: 'int',
    describe: 'concurrent webhook requests of event delivery (default 100)',
  },
  {
    key: 'eventsFetchInterval',
    flag: '--events-fetch-interval',
    env: 'ENGINE_GRAPHQL_EVENTS_FETCH_INTERVAL',
    kind: 'int',
    describe: 'milliseconds between event log polls when no notification arrives (default 1000)',
  },
  {
    key: 'eventsFetchBatchSize',
    flag: '--events-fetch-batch-size',
    env: 'ENGINE_GRAPHQL_EVENTS_FETCH_BATCH_SIZE',
    kind: 'int',
    describe: 'events taken per fetch (default 100)',
  },
  {
    key: 'eventsLeaseSeconds',
    flag: '--events-lease-seconds',
    env: 'ENGINE_GRAPHQL_EVENTS_LEASE_SECONDS',
    kind: 'int',
    describe: 'seconds before an event taken by a process that died is taken by another (default 30)',
  },
  {
    key: 'queryFieldLimit',
    flag: '--query-field-limit',
    env: 'ENGINE_GRAPHQL_QUERY_FIELD_LIMIT',
    kind: 'int',
    describe: 'most fields one GraphQL operation may select, fragments expanded, 0 for no bound (default 5000)',
  },
  {
    key: 'enableAllowlist',
    flag: '--enable-allowlist',
    env: 'ENGINE_GRAPHQL_ENABLE_ALLOWLIST',
    kind: 'bool',
    describe: 'only queries of allow-listed query collections run for non-admin roles (default false)',
  },
];

const DEFAULTS: Settings = {
  databaseUrl: null,
  metadataDatabaseUrl: null,
  adminSecret: null,
  jwtSecret: null,
  authHook: null,
  authHookMode: 'GET',
  authHookTimeout: 10,
  unauthorizedRole: null,
  serverPort: 8080,
  serverHost: '0.0.0.0',
  enableConsole: false,
  corsDomain: null,
  logLevel: 'info',
  enabledLogTypes: DEFAULT_LOG_TYPES,
  metricsSecret: null,
  metricsNodeDefaults: false,
  otlpTracesEndpoint: null,
  inferFunctionPermissions: true,
  relayHideUnselectableKeys: false,
  enableRemoteSchemaPermissions: false,
  stringifyNumericTypes: false,
  preserve401Errors: false,
  planCacheSizeMb: 128,
  statementTimeout: 60,
  noOfRetries: 1,
  queryFieldLimit: 5000,
  liveQueriesMultiplexedRefetchInterval: 1000,
  liveQueriesMultiplexedBatchSize: 100,
  streamingQueriesMultiplexedRefetchInterval: 1000,
  streamingQueriesMultiplexedBatchSize: 100,
  websocketKeepalive: 5,
  websocketConnectionInitTimeout: 3,
  liveQueriesRefetchOnChange: true,
  liveQueriesMaxConnections: 0,
  eventsDelivery: true,
  eventsHttpPoolSize: 100,
  eventsFetchInterval: 1000,
  eventsFetchBatchSize: 100,
  eventsLeaseSeconds: 30,
  enableAllowlist: false,
};

/** Settings with defaults for everything not given (tests and embedding). */
export function defaultSettings(overrides: Partial<Settings> = {}): Settings {
  return { ...DEFAULTS, ...overrides };
}

function convert(spec: SettingSpec, raw: string, origin: string): unknown {
  switch (spec.kind) {
    case 'string':
      return raw;
    case 'int': {
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 0 || n > 65535) {
        throw new EngineError(ErrorCode.InvalidConfiguration, `${origin}: expected a whole number, got "${raw}"`);
      }
      return n;
    }
    case 'bool': {
      const v = raw.toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(v)) return true;
      if (['false', '0', 'no', 'off'].includes(v)) return false;
      throw new EngineError(ErrorCode.InvalidConfiguration, `${origin}: expected true or false, got "${raw}"`);
    }
    case 'enum': {
      const values = spec.values ?? [];
      const hit = values.find((v) => v.toLowerCase() === raw.toLowerCase());
      if (hit === undefined) {
        throw new EngineError(ErrorCode.InvalidConfiguration, `${origin}: expected one of ${values.join(', ')}, got "${raw}"`);
      }
      return hit;
    }
    case 'list': {
      const values = spec.values ?? [];
      const items = raw
        .split(',')
        .map((x) => x.trim())
        .filter((x) => x !== '');
      for (const item of items) {
        if (!values.includes(item))
          throw new EngineError(ErrorCode.InvalidConfiguration, `${origin}: unknown value "${item}"; expected some of ${values.join(', ')}`);
      }
      return [...new Set(items)];
    }
  }
}

/**
 * Note [v2 setting names]
 * A v2 deployment names its settings HASURA_GRAPHQL_* (manifests, .env
 * files, Helm values). Ignoring those names started an engine without the
 * admin secret they set, serving every table and the metadata to anyone. So
 * every ENGINE_GRAPHQL_X also reads HASURA_GRAPHQL_X, then v2's older names
 * (`legacyEnv`: HASURA_GRAPHQL_ACCESS_KEY for the admin secret), then a
 * standard fallback (`fallbackEnv`); the first name with a value wins, so
 * the ENGINE_ name wins when both are set. As before, an empty variable
 * counts as unset, except for the admin secret: any of its names (or the
 * flag) given but empty or blank refuses the start, because whoever set it
 * meant the engine to have a secret, and starting open is the one outcome
 * that must never follow from a mistake. The start-up log names the
 * variables read (never their values): runCli in main.ts.
 */

/** An ENGINE_GRAPHQL_* name and its v2 alias HASURA_GRAPHQL_*, in the order they are tried (Note [v2 setting names]). */
export function aliasNames(name: string): readonly string[] {
  return [name, name.replace(/^ENGINE_/, 'HASURA_')];
}

/** The environment variable names of `spec`, in the order they are tried (Note [v2 setting names]). */
export function envNamesOf(spec: SettingSpec): readonly string[] {
  return [...aliasNames(spec.env), ...(spec.legacyEnv ?? []), ...(spec.fallbackEnv !== undefined ? [spec.fallbackEnv] : [])];
}

/** The variable that gives `spec` its value and the value, or null; the admin secret's blank names are refused. */
function envValueOf(spec: SettingSpec, env: Readonly<Record<string, string | undefined>>): { name: string; raw: string } | null {
  let found: { name: string; raw: string } | null = null;
  for (const name of envNamesOf(spec)) {
    const raw = env[name];
    if (raw === undefined) continue;
    if (spec.key === 'adminSecret' && raw.trim() === '') throw blankAdminSecret(name);
    if (raw !== '' && found === null) found = { name, raw };
  }
  return found;
}

function blankAdminSecret(origin: string): EngineError {
  return new EngineError(
    ErrorCode.InvalidConfiguration,
    `${origin} is set but empty: give the admin secret a value, or unset it to run without one (the engine does not start open when a secret was meant)`,
  );
}

/** The environment value of setting `key` and the name it came from (aliases included), or null when unset. */
export function envSetting(key: keyof Settings, env: Readonly<Record<string, string | undefined>>): { name: string; raw: string } | null {
  const spec = SETTING_SPECS.find((s) => s.key === key);
  return spec === undefined ? null : envValueOf(spec, env);
}

/**
 * The environment variables the settings were read from (names only), and
 * the set ones left unread because an earlier name of the same setting won.
 */
export function envNamesRead(env: Readonly<Record<string, string | undefined>>): { read: string[]; shadowed: string[] } {
  const read: string[] = [];
  const shadowed: string[] = [];
  for (const spec of SETTING_SPECS) {
    const hit = envValueOf(spec, env);
    if (hit === null) continue;
    read.push(hit.name);
    for (const name of envNamesOf(spec)) if (name !== hit.name && env[name] !== undefined && env[name] !== '') shadowed.push(name);
  }
  return { read, shadowed };
}

/**
 * Parses `argv` (flags after the command, `--flag value` or `--flag=value`;
 * a bare boolean flag means true) over `env`. Unknown flags are errors.
 */
export function parseSettings(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): Settings {
  const out: Record<string, unknown> = { ...DEFAULTS };
  for (const spec of SETTING_SPECS) {
    const hit = envValueOf(spec, env);
    if (hit !== null) out[spec.key] = convert(spec, hit.raw, hit.name);
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const eq = arg.indexOf('=');
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const spec = SETTING_SPECS.find((s) => s.flag === flag);
    if (spec === undefined) {
      throw new EngineError(ErrorCode.InvalidConfiguration, `unknown flag "${flag}"`);
    }
    let raw: string | undefined = eq >= 0 ? arg.slice(eq + 1) : undefined;
    if (raw === undefined) {
      const next = argv[i + 1];
      if (spec.kind === 'bool' && (next === undefined || next.startsWith('--'))) raw = 'true';
      else if (next === undefined) throw new EngineError(ErrorCode.InvalidConfiguration, `flag ${flag} needs a value`);
      else {
        raw = next;
        i++;
      }
    }
    if (spec.key === 'adminSecret' && raw.trim() === '') throw blankAdminSecret(flag);
    out[spec.key] = convert(spec, raw, flag);
  }
  return out as unknown as Settings;
}

/** Reads the process environment (the one place that does). */
export function processEnv(): Readonly<Record<string, string | undefined>> {
  return process.env;
}
