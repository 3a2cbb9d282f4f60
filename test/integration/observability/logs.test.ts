/**
 * One log shape (v2's `{type, timestamp, level, detail}`) for the engine and
 * fastify, request ids (honoured, generated, echoed, on the request's lines),
 * v2's log types selected by ENGINE_GRAPHQL_ENABLED_LOG_TYPES, the level by
 * ENGINE_GRAPHQL_LOG_LEVEL, and errors logged with their cause: real engines
 * over HTTP, lines collected from the engine's own logger, and one
 * `engine serve` process whose stdout is read.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEngine, type BuiltEngine } from '../../../engine/boot.ts';
import { defaultSettings, parseSettings, type Settings } from '../../../engine/cli/settings.ts';
import { createLogger, type LogLevel } from '../../../engine/logger.ts';
import { spawnEngine, type EngineProcess } from '../../support/engine-process.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

type Detail = Record<string, unknown> & { request_id?: string; message?: string };
type Line = { level: string; timestamp: string; type: string; detail: Detail } & Record<string, unknown>;

interface LoggedEngine {
  readonly url: string;
  readonly lines: Line[];
}

let db: TestDatabase;
const engines: BuiltEngine[] = [];
const processes: EngineProcess[] = [];

async function start(settings: Partial<Settings>, level: LogLevel = 'info'): Promise<LoggedEngine> {
  const lines: Line[] = [];
  const s = defaultSettings({ databaseUrl: db.url, logLevel: level, ...settings });
  const logger = createLogger({ level: s.logLevel, enabledLogTypes: s.enabledLogTypes, write: (l) => lines.push(JSON.parse(l) as Line) });
  const engine = await buildEngine(s, logger);
  engines.push(engine);
  const url = await engine.app.listen({ port: 0, host: '127.0.0.1' });
  return { url, lines };
}

/** Waits (bounded) until `pred` holds for some line. */
async function lineWhere(lines: readonly Line[], pred: (l: Line) => boolean): Promise<Line> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const hit = lines.find(pred);
    if (hit !== undefined) return hit;
    if (Date.now() > deadline) throw new Error(`no such log line in:\n${lines.map((l) => JSON.stringify(l)).join('\n')}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const query = JSON.stringify({ query: '{ item { id } }' });
const JSON_TYPE = { 'content-type': 'application/json' };
const httpLogOf = (id: string) => (l: Line) => l.type === 'http-log' && l.detail.request_id === id;

beforeAll(async () => {
  db = await createTestDatabase('logs');
  await db.sql(`CREATE TABLE item (id int PRIMARY KEY); INSERT INTO item VALUES (1);`);
  // Metadata lives in the database: tracked once, every engine below sees it.
  const first = await start({});
  const r = await fetch(`${first.url}/v1/metadata`, {
    method: 'POST',
    headers: JSON_TYPE,
    body: JSON.stringify({ type: 'pg_track_table', args: { source: 'default', table: 'item' } }),
  });
  expect(r.status).toBe(200);
});

afterAll(async () => {
  await Promise.all(processes.map((p) => p.stop('SIGKILL')));
  for (const e of engines) await e.close();
  await db?.drop();
});

describe('request ids', () => {
  it('honours X-Request-Id, echoes it and logs it in the http-log line, on the fast path and on fastify', async () => {
    const e = await start({});
    const cases = [
      { path: '/v1/graphql', method: 'POST' }, // the fast path
      { path: '/v1/graphql?via=fastify', method: 'POST' }, // a query string: fastify's route
      { path: '/v1/version', method: 'GET' },
    ];
    for (const [i, c] of cases.entries()) {
      const id = `client-id-${i}`;
      const res = await fetch(e.url + c.path, {
        method: c.method,
        headers: { 'x-request-id': id, ...JSON_TYPE },
        ...(c.method === 'POST' ? { body: query } : {}),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-request-id')).toBe(id);
      const line = await lineWhere(e.lines, httpLogOf(id));
      expect(line).toMatchObject({
        level: 'info',
        detail: {
          request_id: id,
          operation: { request_id: id, error: null },
          http_info: { status: 200, method: c.method, url: c.path, http_version: '1.1', ip: '127.0.0.1' },
        },
      });
      expect(Object.keys(line).sort()).toEqual(['detail', 'level', 'timestamp', 'type']);
      expect(Date.parse(line.timestamp)).not.toBeNaN();
      expect((line.detail['operation'] as Record<string, unknown>)['query_execution_time']).toEqual(expect.any(Number));
    }
    // The GraphQL request's session is its user_vars.
    const gql = await lineWhere(e.lines, httpLogOf('client-id-0'));
    expect(gql.detail['operation']).toMatchObject({ user_vars: { 'x-engine-role': 'admin' } });
  });

  it('logs the response size and content coding of fast-path answers (raw headers, Note [Fast path headers])', async () => {
    const e = await start({});
    for (const [id, path] of [
      ['size-fast', '/v1/graphql'],
      ['size-fastify', '/v1/graphql?via=fastify'],
    ] as const) {
      const res = await fetch(e.url + path, { method: 'POST', headers: { 'x-request-id': id, 'accept-encoding': 'identity', ...JSON_TYPE }, body: query });
      const body = await res.text();
      const line = await lineWhere(e.lines, httpLogOf(id));
      expect(line.detail['operation']).toMatchObject({ response_size: Buffer.byteLength(body) });
      expect(line.detail['http_info']).toMatchObject({ content_encoding: null });
    }
    // A large answer is compressed: the logged size is the compressed body's.
    const big = JSON.stringify({ query: `{ ${Array.from({ length: 200 }, (_, i) => `a${i}: item { id }`).join(' ')} }` });
    const res = await fetch(`${e.url}/v1/graphql`, {
      method: 'POST',
      headers: { 'x-request-id': 'size-gzip', 'accept-encoding': 'gzip', ...JSON_TYPE },
      body: big,
    });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const text = await res.text();
    const line = await lineWhere(e.lines, httpLogOf('size-gzip'));
    expect(line.detail['http_info']).toMatchObject({ content_encoding: 'gzip' });
    const size = (line.detail['operation'] as { response_size: unknown }).response_size;
    expect(size).toEqual(expect.any(Number));
    expect(size as number).toBeGreaterThan(0);
    expect(size as number).toBeLessThan(Buffer.byteLength(text));
  });

  it('generates one when none (or an unusable one) is sent', async () => {
    const e = await start({});
    const a = await fetch(`${e.url}/v1/graphql`, { method: 'POST', body: query, headers: JSON_TYPE });
    const b = await fetch(`${e.url}/v1/graphql`, { method: 'POST', body: query, headers: { ...JSON_TYPE, 'x-request-id': 'x'.repeat(500) } });
    const c = await fetch(`${e.url}/healthz`, { headers: { 'x-request-id': 'two words' } });
    const ids = [a, b, c].map((r) => r.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(3);
    await lineWhere(e.lines, httpLogOf(ids[1] as string));
  });

  it('logs a failed request at level error with its error, under its id', async () => {
    const e = await start({});
    const res = await fetch(`${e.url}/v1/metadata`, {
      method: 'POST',
      body: JSON.stringify({ type: 'pg_track_table', args: { table: 'nope' } }),
      headers: { ...JSON_TYPE, 'x-request-id': 'bad-track' },
    });
    expect(res.status).toBe(400);
    const line = await lineWhere(e.lines, httpLogOf('bad-track'));
    expect(line).toMatchObject({
      level: 'error',
      detail: { operation: { error: { code: 'invalid-configuration', path: '$.args' } }, http_info: { status: 400, url: '/v1/metadata' } },
    });
    const gql = await fetch(`${e.url}/v1/graphql`, {
      method: 'POST',
      body: JSON.stringify({ query: '{ nope { id } }' }),
      headers: { ...JSON_TYPE, 'x-request-id': 'bad-field' },
    });
    expect(gql.status).toBe(200);
    const gqlLine = await lineWhere(e.lines, httpLogOf('bad-field'));
    expect(gqlLine).toMatchObject({ level: 'error', detail: { operation: { error: { code: 'validation-failed' } }, http_info: { status: 200 } } });
  });
});

describe('log types and level', () => {
  it('writes only the enabled types', async () => {
    const e = await start({ enabledLogTypes: ['query-log'] });
    const res = await fetch(`${e.url}/v1/graphql`, { method: 'POST', body: query, headers: { ...JSON_TYPE, 'x-request-id': 'only-query-log' } });
    expect(res.status).toBe(200);
    await lineWhere(e.lines, (l) => l.type === 'query-log' && l.detail.request_id === 'only-query-log');
    // The http-log line is written on 'finish', before the client has read the body: it would be there by now.
    expect(e.lines.filter((l) => l.type === 'http-log')).toEqual([]);
  });

  it('query-log carries the query, its variables, operation name and the SQL with its arguments', async () => {
    const e = await start({ enabledLogTypes: ['query-log', 'http-log'] });
    const body = JSON.stringify({ query: 'query Q($n: Int) { item(limit: $n) { id } }', variables: { n: 1 }, operationName: 'Q' });
    const res = await fetch(`${e.url}/v1/graphql`, { method: 'POST', body, headers: { ...JSON_TYPE, 'x-request-id': 'ql' } });
    expect(await res.json()).toEqual({ data: { item: [{ id: 1 }] } });
    const line = await lineWhere(e.lines, (l) => l.type === 'query-log' && l.detail.request_id === 'ql');
    expect(line).toMatchObject({
      level: 'info',
      detail: { kind: 'database', request_id: 'ql', query: { query: expect.stringContaining('item(limit: $n)'), operationName: 'Q', variables: { n: 1 } } },
    });
    const sql = line.detail['generated_sql'] as Array<{ source: string; query: string; prepared_arguments: unknown[] }>;
    expect(sql).toHaveLength(1);
    expect(sql[0]).toMatchObject({ source: 'default', query: expect.stringMatching(/SELECT/i) });
    expect(sql[0]?.prepared_arguments).toContain(1);
  });

  it('leaves query-log out by default, and info lines out at level warn', async () => {
    const e = await start({});
    await fetch(`${e.url}/v1/graphql`, { method: 'POST', body: query, headers: { ...JSON_TYPE, 'x-request-id': 'default-types' } });
    await lineWhere(e.lines, httpLogOf('default-types'));
    expect(e.lines.filter((l) => l.type === 'query-log')).toEqual([]);

    const quiet = await start({}, 'warn');
    await fetch(`${quiet.url}/v1/graphql`, { method: 'POST', body: query, headers: { ...JSON_TYPE, 'x-request-id': 'ok-at-warn' } });
    await fetch(`${quiet.url}/v1/metadata`, { method: 'POST', body: '{"type":"nope","args":{}}', headers: { ...JSON_TYPE, 'x-request-id': 'bad-at-warn' } });
    await lineWhere(quiet.lines, httpLogOf('bad-at-warn'));
    expect(quiet.lines.filter(httpLogOf('ok-at-warn'))).toEqual([]);
  });

  it('parses ENGINE_GRAPHQL_ENABLED_LOG_TYPES and refuses unknown types', () => {
    expect(parseSettings([], { ENGINE_GRAPHQL_ENABLED_LOG_TYPES: 'startup, query-log' }).enabledLogTypes).toEqual(['startup', 'query-log']);
    expect(parseSettings(['--enabled-log-types', 'http-log'], { ENGINE_GRAPHQL_ENABLED_LOG_TYPES: 'startup' }).enabledLogTypes).toEqual(['http-log']);
    expect(defaultSettings().enabledLogTypes).toEqual(['startup', 'http-log', 'webhook-log', 'websocket-log', 'jwk-refresh-log']);
    expect(() => parseSettings([], { ENGINE_GRAPHQL_ENABLED_LOG_TYPES: 'http-log,querylog' })).toThrow(/unknown value "querylog"/);
  });
});

describe('errors in logs', () => {
  let port = 0;
  beforeAll(async () => {
    // A port that refuses connections: a server that listened once and closed.
    const closed: Server = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
  });

  it('logs an unreachable auth webhook as webhook-log with its cause chain, and the failed request under its id', async () => {
    const e = await start({ adminSecret: 's', authHook: `http://127.0.0.1:${port}/hook` });
    const res = await fetch(`${e.url}/v1/graphql`, { method: 'POST', body: query, headers: { ...JSON_TYPE, 'x-request-id': 'hook-down' } });
    // HTTP 200 with the error, as v2's /v1/graphql answers every error (issue 34); still logged as a failure.
    expect(res.status).toBe(200);
    const hook = await lineWhere(e.lines, (l) => l.type === 'webhook-log');
    expect(hook).toMatchObject({
      level: 'error',
      detail: { url: `http://127.0.0.1:${port}/hook`, method: 'GET', http_error: { message: `connect ECONNREFUSED 127.0.0.1:${port}` } },
    });
    const failed = await lineWhere(e.lines, (l) => l.detail.message === 'graphql request failed' && l.detail.request_id === 'hook-down');
    expect(failed).toMatchObject({
      type: 'unstructured',
      level: 'error',
      detail: {
        error: { code: 'unexpected', message: 'authentication webhook did not answer', cause: { message: `connect ECONNREFUSED 127.0.0.1:${port}` } },
      },
    });
    expect(JSON.stringify(e.lines)).not.toContain('[object Object]');
  });
});

describe('engine serve', () => {
  it('writes v2 log lines to stdout with the types of ENGINE_GRAPHQL_ENABLED_LOG_TYPES', async () => {
    const p = await spawnEngine(['--database-url', db.url], { ENGINE_GRAPHQL_ENABLED_LOG_TYPES: 'startup,query-log', ENGINE_GRAPHQL_LOG_LEVEL: 'info' });
    processes.push(p);
    const res = await fetch(`${p.url}/v1/graphql`, { method: 'POST', body: query, headers: { ...JSON_TYPE, 'x-request-id': 'from-process' } });
    expect(res.headers.get('x-request-id')).toBe('from-process');
    const deadline = Date.now() + 5_000;
    let lines: Line[] = [];
    while (Date.now() < deadline) {
      lines = p
        .stdout()
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => JSON.parse(l) as Line);
      if (lines.some((l) => l.type === 'query-log')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(lines.find((l) => l.type === 'startup' && l.detail['kind'] === 'server_configuration')).toMatchObject({
      level: 'info',
      detail: { kind: 'server_configuration', info: { enabled_log_types: ['startup', 'query-log'] } },
    });
    expect(lines.find((l) => l.type === 'query-log')).toMatchObject({ detail: { request_id: 'from-process' } });
    expect(lines.filter((l) => l.type === 'http-log')).toEqual([]);
    // The names the settings came from, before the configuration (Note [v2 setting names]).
    expect(lines.find((l) => l.type === 'startup')?.detail).toMatchObject({
      kind: 'env_names',
      info: { read: ['ENGINE_GRAPHQL_LOG_LEVEL', 'ENGINE_GRAPHQL_ENABLED_LOG_TYPES'], ignored: [] },
    });
    for (const l of lines) expect(Object.keys(l).sort()).toEqual(['detail', 'level', 'timestamp', 'type']);
  });
});
