/**
 * OpenTelemetry traces as a collector receives them: a real OTLP/HTTP
 * receiver on loopback (written here: it keeps every JSON export it is sent),
 * an engine exporting to it, a client sending W3C `traceparent`, and an auth
 * webhook that records the `traceparent` the engine sends it. Checks the
 * spans of each request step and their parent/child structure.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

interface OtlpAttribute {
  readonly key: string;
  readonly value: { readonly stringValue?: string; readonly intValue?: string | number; readonly boolValue?: boolean };
}
interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  readonly attributes: readonly OtlpAttribute[];
  readonly status?: { readonly code?: number; readonly message?: string };
}
interface Received {
  readonly service: string | undefined;
  readonly span: OtlpSpan;
}

const SPAN_KIND_INTERNAL = 1;
const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;
const STATUS_ERROR = 2;

let db: TestDatabase;
let engine: TestEngine;
let receiver: Server;
let webhook: Server;
const received: Received[] = [];
const contentTypes = new Set<string>();
const webhookTraceparents: string[] = [];

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function attr(span: OtlpSpan, key: string): string | number | boolean | undefined {
  const v = span.attributes.find((a) => a.key === key)?.value;
  if (v === undefined) return undefined;
  return v.stringValue ?? (v.intValue === undefined ? v.boolValue : Number(v.intValue));
}

/** Waits (bounded) until the receiver has the spans of `traceId` that `done` asks for. */
async function traceOf(traceId: string, done: (spans: readonly OtlpSpan[]) => boolean): Promise<OtlpSpan[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const spans = received.filter((r) => r.span.traceId === traceId).map((r) => r.span);
    if (done(spans)) return spans;
    if (Date.now() > deadline) throw new Error(`trace ${traceId} incomplete: ${JSON.stringify(spans.map((s) => s.name))}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const has =
  (...names: string[]) =>
  (spans: readonly OtlpSpan[]) =>
    names.every((n) => spans.some((s) => s.name === n));
const one = (spans: readonly OtlpSpan[], name: string): OtlpSpan => {
  const found = spans.filter((s) => s.name === name);
  expect(found, name).toHaveLength(1);
  return found[0] as OtlpSpan;
};
const childrenOf = (spans: readonly OtlpSpan[], parent: OtlpSpan): string[] =>
  spans
    .filter((s) => s.parentSpanId === parent.spanId)
    .sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1))
    .map((s) => s.name);

beforeAll(async () => {
  receiver = createServer((req, res) => {
    void bodyOf(req).then((text) => {
      contentTypes.add(String(req.headers['content-type']));
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const doc = JSON.parse(text) as { resourceSpans: Array<{ resource?: { attributes: OtlpAttribute[] }; scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
        for (const rs of doc.resourceSpans) {
          const service = rs.resource?.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
          for (const ss of rs.scopeSpans) for (const span of ss.spans) received.push({ service, span });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  webhook = createServer((req, res) => {
    webhookTraceparents.push(String(req.headers['traceparent']));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ 'X-Engine-Role': 'reader' }));
  });
  const otlp = await listen(receiver);
  const hook = await listen(webhook);
  db = await createTestDatabase('traces');
  await db.sql(`CREATE TABLE item (id int PRIMARY KEY); INSERT INTO item VALUES (1), (2);`);
  engine = await startTestEngine({ databaseUrl: db.url, adminSecret: 'adm', authHook: `${hook}/auth`, otlpTracesEndpoint: `${otlp}/v1/traces` });
  expect((await engine.metadata({ type: 'pg_track_table', args: { table: 'item' } })).status).toBe(200);
  expect(
    (await engine.metadata({ type: 'pg_create_select_permission', args: { table: 'item', role: 'reader', permission: { columns: ['id'], filter: {} } } }))
      .status,
  ).toBe(200);
});

afterAll(async () => {
  await engine?.close();
  await db?.drop();
  await new Promise((r) => receiver?.close(r));
  await new Promise((r) => webhook?.close(r));
});

/** A client's W3C trace context: a new trace id and the client's span id. */
function clientContext(): { traceId: string; parentId: string; traceparent: string } {
  const hex = (n: number): string => [...crypto.getRandomValues(new Uint8Array(n))].map((b) => b.toString(16).padStart(2, '0')).join('');
  const traceId = hex(16);
  const parentId = hex(8);
  return { traceId, parentId, traceparent: `00-${traceId}-${parentId}-01` };
}

async function query(q: string, traceparent?: string): Promise<{ body: unknown; requestId: string }> {
  const res = await fetch(`${engine.url}/v1/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(traceparent === undefined ? {} : { traceparent }) },
    body: JSON.stringify({ query: q }),
  });
  return { body: await res.json(), requestId: res.headers.get('x-request-id') as string };
}

describe('traces of GraphQL requests', () => {
  it("continue the client's trace: request span, authenticate and the operation, with one span per request step", async () => {
    const c = clientContext();
    const { body, requestId } = await query('query Items { item { id } }', c.traceparent);
    expect(body).toEqual({ data: { item: [{ id: 1 }, { id: 2 }] } });
    const spans = await traceOf(c.traceId, has('POST /v1/graphql', 'respond'));

    const request = one(spans, 'POST /v1/graphql');
    expect(request.parentSpanId).toBe(c.parentId);
    expect(request.kind).toBe(SPAN_KIND_SERVER);
    expect(attr(request, 'http.response.status_code')).toBe(200);
    expect(attr(request, 'http.route')).toBe('/v1/graphql');
    expect(attr(request, 'engine.request_id')).toBe(requestId);
    expect(childrenOf(spans, request)).toEqual(['authenticate', 'graphql']);

    const operation = one(spans, 'graphql');
    expect(operation.kind).toBe(SPAN_KIND_INTERNAL);
    expect(attr(operation, 'graphql.operation.type')).toBe('query');
    expect(attr(operation, 'graphql.operation.name')).toBe('Items');
    // A plan-cache miss: every step, in order.
    expect(childrenOf(spans, operation)).toEqual(['parse', 'validate', 'allow', 'toIr', 'plan', 'bind', 'run', 'respond']);
    // The run is a call to PostgreSQL, as service graphs expect of a database (Note [Database spans]).
    const run = one(spans, 'run');
    const pgUrl = new URL(db.url);
    expect(run.kind).toBe(SPAN_KIND_CLIENT);
    expect(attr(run, 'db.system.name')).toBe('postgresql');
    expect(attr(run, 'db.system')).toBe('postgresql');
    expect(attr(run, 'db.namespace')).toBe(db.name);
    expect(attr(run, 'server.address')).toBe(pgUrl.hostname);
    expect(attr(run, 'server.port')).toBe(Number(pgUrl.port || 5432));
    expect(attr(run, 'db.query.text')).toMatch(/SELECT/);
    expect(attr(run, 'engine.statements')).toBe(1);
    expect(attr(run, 'engine.sources')).toBe('default');
    for (const s of spans) {
      expect(BigInt(s.endTimeUnixNano)).toBeGreaterThanOrEqual(BigInt(s.startTimeUnixNano));
      expect(s.status?.code ?? 0).not.toBe(STATUS_ERROR);
    }
    expect(received.find((r) => r.span.spanId === request.spanId)?.service).toBe('engine');

    // The auth webhook was called within the authenticate span: its traceparent names that span.
    const auth = one(spans, 'authenticate');
    expect(webhookTraceparents).toContain(`00-${c.traceId}-${auth.spanId}-01`);
  });

  it('has only the steps a plan-cache hit runs when the same query comes again', async () => {
    await query('query Again { item { id } }');
    const c = clientContext();
    await query('query Again { item { id } }', c.traceparent);
    const spans = await traceOf(c.traceId, has('POST /v1/graphql', 'respond'));
    expect(childrenOf(spans, one(spans, 'graphql'))).toEqual(['allow', 'bind', 'run', 'respond']);
  });

  it('marks the failing step and the operation as failed', async () => {
    const c = clientContext();
    const { body } = await query('{ item { nope } }', c.traceparent);
    expect(body).toMatchObject({ errors: [{ extensions: { code: 'validation-failed' } }] });
    const spans = await traceOf(c.traceId, has('POST /v1/graphql', 'validate'));
    const operation = one(spans, 'graphql');
    expect(childrenOf(spans, operation)).toEqual(['parse', 'validate']);
    expect(operation.status?.code).toBe(STATUS_ERROR);
    expect(one(spans, 'validate').status).toMatchObject({ code: STATUS_ERROR, message: expect.stringContaining('nope') });
    expect(one(spans, 'parse').status?.code ?? 0).not.toBe(STATUS_ERROR);
  });

  it('starts a new trace for a client without traceparent', async () => {
    const before = new Set(received.map((r) => r.span.traceId));
    const { requestId } = await query('{ item { id } }');
    const deadline = Date.now() + 10_000;
    let request: OtlpSpan | undefined;
    while (request === undefined && Date.now() < deadline) {
      request = received.map((r) => r.span).find((s) => s.name === 'POST /v1/graphql' && attr(s, 'engine.request_id') === requestId);
      if (request === undefined) await new Promise((r) => setTimeout(r, 25));
    }
    expect(request).toBeDefined();
    expect(before.has((request as OtlpSpan).traceId)).toBe(false);
    expect((request as OtlpSpan).parentSpanId ?? '').toBe('');
    expect([...contentTypes]).toEqual(['application/json']);
  });
});

describe('traces of other requests', () => {
  async function post(path: string, body: unknown, traceparent: string): Promise<number> {
    const res = await fetch(`${engine.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-engine-admin-secret': 'adm', traceparent },
      body: JSON.stringify(body),
    });
    await res.arrayBuffer();
    return res.status;
  }

  it('names a metadata request by its operation type, and its route', async () => {
    const c = clientContext();
    expect(await post('/v1/metadata', { type: 'pg_track_table', args: { table: 'item' } }, c.traceparent)).toBe(400);
    const [request] = await traceOf(c.traceId, (spans) => spans.length > 0);
    expect(request?.name).toBe('POST /v1/metadata pg_track_table');
    expect(request?.kind).toBe(SPAN_KIND_SERVER);
    expect(attr(request as OtlpSpan, 'http.route')).toBe('/v1/metadata');
    expect(attr(request as OtlpSpan, 'engine.metadata.operation')).toBe('pg_track_table');

    const q = clientContext();
    expect(await post('/v2/query', { type: 'run_sql', args: { sql: 'SELECT 1' } }, q.traceparent)).toBe(200);
    const [query] = await traceOf(q.traceId, (spans) => spans.length > 0);
    expect(query?.name).toBe('POST /v2/query run_sql');
    expect(attr(query as OtlpSpan, 'http.route')).toBe('/v2/query');
  });

  it('does not name a request by an operation type the API does not have', async () => {
    const c = clientContext();
    expect(await post('/v1/metadata', { type: 'no_such_operation_xyz', args: {} }, c.traceparent)).toBe(400);
    const [request] = await traceOf(c.traceId, (spans) => spans.length > 0);
    expect(request?.name).toBe('POST /v1/metadata');
    expect(attr(request as OtlpSpan, 'engine.metadata.operation')).toBeUndefined();
  });

  it('names a request no route matched by its method alone, without http.route', async () => {
    const c = clientContext();
    const res = await fetch(`${engine.url}/no/such/path/12345`, { headers: { traceparent: c.traceparent } });
    expect(res.status).toBe(404);
    await res.arrayBuffer();
    const [request] = await traceOf(c.traceId, (spans) => spans.length > 0);
    expect(request?.name).toBe('GET');
    expect(attr(request as OtlpSpan, 'http.route')).toBeUndefined();
    expect(attr(request as OtlpSpan, 'url.path')).toBe('/no/such/path/12345');
  });
});
