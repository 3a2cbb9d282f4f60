/**
 * engine/logger.ts: every line in v2's shape, whoever writes it (the
 * engine's calls and fastify's calls on the pino instance), log types and
 * levels filtered, errors written with their cause chain.
 */
import { describe, expect, it } from 'vitest';
import { createLogger, type LogLevel, type LogType } from '../../../engine/logger.ts';
import { EngineError } from '../../../engine/errors/engine-error.ts';
import { ErrorCode } from '../../../engine/errors/codes.ts';

function collect(level: LogLevel, types?: readonly LogType[]): { lines: Array<Record<string, unknown>>; logger: ReturnType<typeof createLogger> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level,
    ...(types === undefined ? {} : { enabledLogTypes: types }),
    write: (l) => lines.push(JSON.parse(l) as Record<string, unknown>),
  });
  return { lines, logger };
}

describe('the logger', () => {
  it("writes {level, timestamp, type, detail} for the engine's lines", () => {
    const { lines, logger } = collect('debug');
    logger.info('hello', { a: 1 });
    logger.log('http-log', 'error', { request_id: 'r1' });
    expect(lines).toEqual([
      { level: 'info', timestamp: expect.any(String), type: 'unstructured', detail: { message: 'hello', a: 1 } },
      { level: 'error', timestamp: expect.any(String), type: 'http-log', detail: { request_id: 'r1' } },
    ]);
    expect(new Date(lines[0]?.['timestamp'] as string).toISOString()).toBe(lines[0]?.['timestamp']);
  });

  it("reshapes fastify's calls on the pino instance, keeping only what identifies its request", () => {
    const { lines, logger } = collect('info');
    logger.pino.info({ req: { id: 'abc', method: 'GET', url: '/x', headers: { secret: 's' } }, res: { statusCode: 200 } }, 'incoming request');
    logger.pino.error(new Error('kaput'));
    logger.pino.child({ reqId: 'abc' }).warn('from a child');
    expect(lines[0]).toEqual({
      level: 'info',
      timestamp: expect.any(String),
      type: 'unstructured',
      detail: { message: 'incoming request', request_id: 'abc', method: 'GET', url: '/x' },
    });
    expect(lines[1]).toMatchObject({
      level: 'error',
      type: 'unstructured',
      detail: { error: { name: 'Error', message: 'kaput', stack: expect.stringContaining('kaput') } },
    });
    expect(lines[2]).toEqual({ level: 'warn', timestamp: expect.any(String), type: 'unstructured', detail: { message: 'from a child', request_id: 'abc' } });
  });

  it('filters configurable types by the enabled set and every line by level', () => {
    const { lines, logger } = collect('warn', ['http-log']);
    logger.log('query-log', 'error', { q: 1 }); // not enabled
    logger.log('http-log', 'info', { q: 2 }); // below the level
    logger.log('http-log', 'error', { q: 3 });
    logger.log('metadata', 'warn', { q: 4 }); // internal: always
    logger.info('below');
    expect(lines.map((l) => (l['detail'] as { q?: number }).q)).toEqual([3, 4]);
    expect(logger.enabled('http-log', 'error')).toBe(true);
    expect(logger.enabled('http-log', 'info')).toBe(false);
    expect(logger.enabled('query-log', 'error')).toBe(false);
  });

  it('writes an error with its code, internal details and cause chain, never [object Object]', () => {
    const { lines, logger } = collect('info');
    const db = Object.assign(new Error('relation "x" does not exist'), { code: '42P01', detail: 'd', hint: 'h' });
    const err = new EngineError(ErrorCode.Unexpected, 'database query error', { internal: { statement: 'SELECT 1' }, cause: db });
    logger.error('failed', { error: err });
    expect(lines[0]?.['detail']).toEqual({
      message: 'failed',
      error: {
        message: 'database query error',
        code: 'unexpected',
        path: '$',
        internal: { statement: 'SELECT 1' },
        cause: { name: 'Error', message: 'relation "x" does not exist', code: '42P01', detail: 'd', hint: 'h', stack: expect.any(String) },
      },
    });
    expect(JSON.stringify(lines)).not.toContain('[object Object]');
  });
});
