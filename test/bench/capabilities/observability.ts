/**
 * Bench cell `observability`: what tracing costs when it is on, against the
 * same engine with it off (the default), on a plan-cache-hit query by primary
 * key, the two engines loaded in alternation; and what one Prometheus scrape
 * of /v1/metrics costs after the load. The traces go to an OTLP/HTTP sink
 * written here (it counts the spans it receives and answers 200), as a
 * collector would receive them.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { metadataCall } from '../lib/engine-metadata.ts';
import { startEngine, type BenchEngine } from '../lib/engine.ts';
import { runLoad, type LoadResult } from '../lib/load.ts';
import type { CapabilityBench, CapabilityTable } from './types.ts';

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const bench: CapabilityBench = async (ctx) => {
  const url = await ctx.postgres.createDatabase('bench_observability');
  await ctx.postgres.sql(
    'bench_observability',
    `CREATE TABLE item (id int PRIMARY KEY, name text NOT NULL); INSERT INTO item SELECT g, 'item ' || g FROM generate_series(1, 1000) g;`,
  );

  let spans = 0;
  const sink = createServer((req, res) => {
    void bodyOf(req).then((text) => {
      spans += (text.match(/"spanId"/g) ?? []).length;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/v1/traces`;

  const engines: Array<{ label: string; engine: BenchEngine }> = [];
  try {
    const off = await startEngine(url);
    engines.push({ label: 'tracing off (default)', engine: off });
    await metadataCall(off.url, { type: 'pg_track_table', args: { table: 'item' } });
    const on = await startEngine(url, [], { ENGINE_GRAPHQL_OTLP_TRACES_ENDPOINT: sinkUrl });
    engines.push({ label: 'tracing on (OTLP/HTTP)', engine: on });

    const body = JSON.stringify({ query: 'query ItemByPK($id: Int!) { item_by_pk(id: $id) { id name } }', variables: { id: 7 } });
    const repeats = ctx.quick ? 1 : 3;
    const seconds = ctx.quick ? 1 : ctx.seconds;
    const results = new Map<string, LoadResult[]>();
    for (let r = 0; r < repeats; r++) {
      for (const { label, engine } of engines) {
        const res = await runLoad(
          { url: `${engine.url}/v1/graphql`, body, headers: { 'content-type': 'application/json' } },
          { connections: ctx.connections, seconds },
          engine.child.pid,
          ctx.postgres.postmasterPid,
        );
        if (label.startsWith('tracing on') && r === 0) ctx.log(`${label}: ${spans} spans received so far`);
        results.set(label, [...(results.get(label) ?? []), res]);
      }
    }
    const requestsTraced = (results.get('tracing on (OTLP/HTTP)') ?? []).reduce((n, x) => n + x.requests, 0);
    // Spans of the last requests are exported within the batch delay (0.5 s); wait for them, bounded.
    const deadline = Date.now() + 5_000;
    let last = -1;
    while (Date.now() < deadline && spans !== last) {
      last = spans;
      await new Promise((r) => setTimeout(r, 700));
    }
    const rows = engines.map(({ label }) => {
      const rs = results.get(label) ?? [];
      return {
        engine: label,
        'req/s (median)': Math.round(median(rs.map((x) => x.rps))),
        'p99 ms': median(rs.map((x) => x.p99)),
        'engine CPU µs/req': Math.round(median(rs.map((x) => (x.serverCpuMsPerReq ?? NaN) * 1000))),
        'PostgreSQL CPU µs/req': Math.round(median(rs.map((x) => x.postgresCpuMsPerReq * 1000))),
        errors: rs.reduce((n, x) => n + x.errors + x.non2xx, 0),
      };
    });

    const scrapes: number[] = [];
    let bytes = 0;
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      const text = await (await fetch(`${off.url}/v1/metrics`)).text();
      scrapes.push(performance.now() - t);
      bytes = text.length;
    }
    const tables: CapabilityTable[] = [
      { title: 'Tracing off and on, item_by_pk (plan-cache hit)', rows },
      {
        title: 'Spans and scrapes',
        rows: [
          { what: 'spans received per traced request', value: requestsTraced === 0 ? null : Number((spans / requestsTraced).toFixed(2)) },
          { what: 'GET /v1/metrics, ms (median of 5, after the load)', value: Number(median(scrapes).toFixed(2)) },
          { what: 'GET /v1/metrics, bytes', value: bytes },
        ],
      },
    ];
    return {
      tables,
      notes: [
        `${repeats} × ${seconds} s per engine, alternated, ${ctx.connections} connections; both engines at --log-level warn (the bench default: no http-log line per request).`,
        'Tracing on: the request span, authenticate, the graphql operation and its steps (allow, bind, run, respond on a plan-cache hit) are exported by the BatchSpanProcessor to a local OTLP/HTTP sink.',
        'Per-request costs in process, without HTTP: node test/bench/observability-cost.ts.',
      ],
    };
  } finally {
    for (const { engine } of engines) await engine.stop();
    await new Promise((r) => sink.close(r));
  }
};

export default bench;
