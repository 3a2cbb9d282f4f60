/**
 * Structured JSON logs, one object per line on stdout. fastify's pino logger
 * writes the request logs; this is the same shape for everything else.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** A minimal structured logger. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** A logger writing JSON lines at or above `level` to `out` (stdout by default). */
export function createLogger(level: LogLevel, out: (line: string) => void = (l) => process.stdout.write(l)): Logger {
  const min = order[level];
  const write = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>): void => {
    if (order[lvl] < min) return;
    out(JSON.stringify({ level: lvl, time: new Date().toISOString(), msg, ...fields }) + '\n');
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}

/** A logger that drops everything (tests). */
export const silentLogger: Logger = createLogger('error', () => {});
