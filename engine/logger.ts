/**
 * The engine's one logger: JSON lines through pino, shared with fastify, in
 * v2's shape:
 *
 *   {"level":"info","timestamp":"2026-…Z","type":"http-log","detail":{…}}
 *
 * `type` is v2's log type. The configurable ones (`startup`, `http-log`,
 * `webhook-log`, `websocket-log`, `query-log`, `jwk-refresh-log`) are written
 * only when enabled (ENGINE_GRAPHQL_ENABLED_LOG_TYPES; v2's default set
 * leaves `query-log` out); the internal ones (`unstructured`, `metadata`,
 * `pg-client`, `schema-sync`) always, as v2's are. Every line is also subject
 * to the level (ENGINE_GRAPHQL_LOG_LEVEL). A line about one request carries
 * its `request_id` in `detail` (server/request-envelope.ts).
 *
 * Note [One logger]
 * Issue 14 found three line shapes (the engine's, fastify's pino, the
 * controller's) and a database error logged as `[object Object]`. Now
 * fastify logs through this pino instance (its lines get the same shape:
 * `hooks.logMethod` moves whatever a caller passes under `detail`), and a
 * field holding an Error is written by errorDetails (errors/engine-error.ts),
 * down its cause chain. Lines go to stdout through pino's asynchronous
 * destination (sonic-boom), which batches writes instead of one write(2) per
 * line; `flush()` writes what is pending before the process exits.
 */
import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';
import { errorDetails } from './errors/engine-error.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/** v2's configurable log types (ENGINE_GRAPHQL_ENABLED_LOG_TYPES). */
export const LOG_TYPES = ['startup', 'http-log', 'webhook-log', 'websocket-log', 'query-log', 'jwk-refresh-log'] as const;
export type LogType = (typeof LOG_TYPES)[number];

/** v2's default set: everything but query-log. */
export const DEFAULT_LOG_TYPES: readonly LogType[] = ['startup', 'http-log', 'webhook-log', 'websocket-log', 'jwk-refresh-log'];

/** Log types that are always written (v2's internal types). */
export type InternalLogType = 'unstructured' | 'metadata' | 'pg-client' | 'schema-sync';

/** The engine's logger. */
export interface Logger {
  /** A line of type `unstructured`: `{message, ...fields}` under detail. */
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** Whether a line of `type` at `level` would be written: check before building a costly detail. */
  enabled(type: LogType | InternalLogType, level?: LogLevel): boolean;
  /** Writes `detail` as a line of `type` at `level`, if that type and level are enabled. */
  log(type: LogType | InternalLogType, level: LogLevel, detail: Record<string, unknown>): void;
  /** Writes pending lines (before the process exits). */
  flush(): void;
  /** The pino instance underneath (fastify logs through it). */
  readonly pino: PinoLogger;
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  readonly level: LogLevel | 'silent';
  readonly enabledLogTypes?: readonly LogType[];
  /** Where lines go, one call per line (default: stdout, asynchronously); tests collect them. */
  readonly write?: (line: string) => void;
}

const ORDER: Record<LogLevel, number> = { debug: 20, info: 30, warn: 40, error: 50 };
/** pino's level names → v2's (pino's trace and fatal are not used by the engine; fastify may). */
const LABEL: Record<string, LogLevel> = { trace: 'debug', debug: 'debug', info: 'info', warn: 'warn', error: 'error', fatal: 'error' };
const CONFIGURABLE = new Set<string>(LOG_TYPES);
/** The request id a fastify child logger was bound to (see onChild below). */
const CHILD_REQUEST_ID = Symbol('engine.childRequestId');
const REQ_ID = /"reqId":"([^"]*)"/;

/** `fields` with every Error-valued field written by errorDetails (Note [One logger]). */
function withErrors(fields: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const k in fields) {
    const v = fields[k];
    if (v instanceof Error) {
      out ??= { ...fields };
      out[k] = errorDetails(v);
    }
  }
  return out ?? fields;
}

/**
 * Any call on the pino instance (fastify's included) → `{type, detail}`:
 * the engine's own calls pass `{type, detail}` already; another caller's
 * object and message become the detail of an `unstructured` line.
 */
function toV2Shape(args: unknown[], childRequestId: string | undefined): unknown[] {
  const [first, second] = args;
  if (typeof first === 'object' && first !== null && 'type' in first && 'detail' in first) return [first];
  const message = typeof first === 'string' ? first : typeof second === 'string' ? second : undefined;
  const given = typeof first === 'object' && first !== null ? (first instanceof Error ? { error: first } : (first as Record<string, unknown>)) : {};
  const { req, res: _res, ...fields } = given as Record<string, unknown> & { req?: { method?: unknown; url?: unknown; id?: unknown } };
  // fastify passes its request and reply objects: only what identifies the request is kept.
  if (req !== undefined && req !== null) Object.assign(fields, { request_id: req.id, method: req.method, url: req.url });
  else if (childRequestId !== undefined) fields['request_id'] = childRequestId;
  const detail = withErrors(message === undefined ? fields : { message, ...fields });
  return [{ type: 'unstructured', detail }];
}

/** A logger writing JSON lines at or above `level`. */
export function createLogger(opts: LoggerOptions): Logger {
  const types = new Set<string>(opts.enabledLogTypes ?? DEFAULT_LOG_TYPES);
  const destination: DestinationStream & { flushSync?: () => void } =
    opts.write === undefined ? pino.destination({ dest: 1, sync: false }) : { write: opts.write };
  const p = pino(
    {
      level: opts.level,
      base: null,
      timestamp: () => `,"timestamp":"${new Date().toISOString()}"`,
      formatters: {
        level: (label) => ({ level: LABEL[label] ?? label }),
        bindings: () => ({}),
      },
      // fastify's child loggers bind `reqId`, which pino would write at the top level of each of
      // their lines; the request id belongs in `detail` (Note [One logger]), so children bind nothing.
      // Its request id is kept aside and put in the detail of the child's lines (toV2Shape).
      onChild: (child) => {
        const c = child as unknown as Record<symbol, string | undefined>;
        const id = REQ_ID.exec(c[pino.symbols.chindingsSym] ?? '');
        if (id !== null) c[CHILD_REQUEST_ID] = id[1];
        c[pino.symbols.chindingsSym] = '';
      },
      hooks: {
        logMethod(args, method) {
          method.apply(this, toV2Shape(args, (this as unknown as Record<symbol, string | undefined>)[CHILD_REQUEST_ID]) as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
  const min = opts.level === 'silent' ? Infinity : ORDER[opts.level];
  const on = (type: string, level: LogLevel): boolean => ORDER[level] >= min && (!CONFIGURABLE.has(type) || types.has(type));
  const write = (level: LogLevel, message: string, fields?: Record<string, unknown>): void => {
    if (ORDER[level] < min) return;
    p[level]({ type: 'unstructured', detail: fields === undefined ? { message } : withErrors({ message, ...fields }) });
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    enabled: (type, level = 'info') => on(type, level),
    log(type, level, detail) {
      if (on(type, level)) p[level]({ type, detail: withErrors(detail) });
    },
    flush() {
      try {
        destination.flushSync?.();
      } catch {
        // Nothing more can be done about a stdout that is gone.
      }
    },
    pino: p,
  };
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = createLogger({ level: 'silent', write: () => {} });
