/**
 * The engine's own cost per request, without HTTP: one process runs the
 * engine's request path (answerGraphql: body parse, authentication, plan
 * cache, bind, the database round trip) and, alternately, the same statement
 * through a bare `pg` pool (what the raw-SQL peer does), 16 requests in
 * flight over a pool of 8 each, and prints CPU µs per request of this process
 * and what V8's collector did during the run (young and full collections, their
 * pauses per request, and the old generation's growth per request: what
 * survived young collections, Note [Request statements in callbacks] in
 * engine/backends/postgres/connection.ts).
 * The difference is what the engine adds on the request path; HTTP and
 * PostgreSQL cost the same for both.
 *
 * Needs a database the engine has metadata in, e.g. the one `serve.ts` keeps
 * running (its URL is the raw peer's BENCH_DATABASE_URL):
 *   node test/bench/request-path.ts <database-url> [operation] [role] [requests] [rounds]
 * (defaults AlbumByPK, admin, 20000, 3).
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import { RestService } from '../../engine/rest/rest-service.ts';
import pg from 'pg';
import { Authenticator } from '../../engine/auth/resolve-session.ts';
import { defaultSettings } from '../../engine/cli/settings.ts';
import { GraphqlService } from '../../engine/execute/graphql-service.ts';
import { silentLogger } from '../../engine/logger.ts';
import { MetadataService } from '../../engine/metadata/service.ts';
import type { AppDeps } from '../../engine/server/deps.ts';
import { answerGraphql } from '../../engine/server/graphql-answer.ts';
import { RequestContext } from '../../engine/request-context.ts';
import { chinookWorkloadText } from './data/chinook.ts';
import { engineHeaders, type RoleName } from './lib/peers.ts';
import { loadWorkload } from './workload.ts';

const [url, opName = 'AlbumByPK', role = 'admin', requestsArg = '20000', roundsArg = '3'] = process.argv.slice(2);
if (url === undefined) throw new Error('usage: request-path.ts <database-url> [operation] [role] [requests] [rounds]');
const requests = Number(requestsArg);
const CONCURRENCY = 16;
const POOL = 8;

const workload = loadWorkload(await chinookWorkloadText());
const op = workload.ops.find((o) => o.name === opName);
const query = workload.engineQuery.get(opName);
if (op === undefined || query === undefined) throw new Error(`unknown operation ${opName}`);
const body = JSON.stringify({ query, operationName: opName, variables: op.variables });
const headers = { 'content-type': 'application/json', ...engineHeaders(role as RoleName) };

const settings = defaultSettings({ databaseUrl: url });
const auth = await Authenticator.create(settings, silentLogger);
const metadata = await MetadataService.start({ metadataDatabaseUrl: url, defaultDatabaseUrl: url, logger: silentLogger });
const graphql = new GraphqlService(metadata.catalogRef, { stringifyNumericTypes: false, inferFunctionPermissions: true, logger: silentLogger });
const deps: AppDeps = { settings, logger: silentLogger, auth, metadata, graphql, rest: new RestService(metadata.catalogRef, graphql) };

// The statement the engine runs for this request, as the raw peer gets it.
const user: Record<string, string> = { ...engineHeaders(role as RoleName) };
const explained = await graphql.explain({ query: JSON.parse(body) as unknown, user });
const first = ('json' in explained ? (explained.json as Array<{ sql: string; prepared_arguments: unknown[] }>) : [])[0];
if (first === undefined) throw new Error(`explain gave no statement: ${JSON.stringify(explained)}`);
const pool = new pg.Pool({ connectionString: url, max: POOL });
const textTypes: pg.CustomTypesConfig = { getTypeParser: () => (value: string) => value };

// Both sides must give the same bytes, or the comparison means nothing.
async function viaEngine(): Promise<string> {
  // As the fast path does: every request carries its context (client address, cancellation).
  return (await answerGraphql(deps, { method: 'POST', headers, payload: body }, new RequestContext('127.0.0.1'))).body;
}
async function viaPg(): Promise<string> {
  const r = await pool.query({ name: 'request_path', text: first?.sql ?? '', values: first?.prepared_arguments ?? [], rowMode: 'array', types: textTypes });
  return `{"data":${String((r.rows[0] as unknown[] | undefined)?.[0] ?? 'null')}}`;
}
// A lone read is answered as a byte string (Note [Answer bytes]): compared as the bytes it sends.
const sent = async (): Promise<string> => {
  const answer = await answerGraphql(deps, { method: 'POST', headers, payload: body }, new RequestContext('127.0.0.1'));
  return Buffer.from(answer.body, answer.encoding).toString('utf8');
};
const [a, b] = [await sent(), await viaPg()];
if (a !== b) throw new Error(`answers differ:\n${a.slice(0, 300)}\n${b.slice(0, 300)}`);

/** Collections seen so far: young (scavenges, minor mark-sweeps) and full, and their pauses (ms). */
const gc = { young: 0, full: 0, pauseMs: 0 };
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = (e as { detail?: { kind?: number } }).detail?.kind;
    // Minor, incremental marking steps and weak callbacks count as young.
    if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.full++;
    else gc.young++;
    gc.pauseMs += e.duration;
  }
}).observe({ entryTypes: ['gc'] });
const oldSpaceUsed = (): number => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')?.space_used_size ?? 0;

/** Bytes allocated on V8's heap while `f` runs: its used size's growth between collections, summed (v8.GCProfiler). */
async function allocatedDuring(f: () => Promise<void>): Promise<number> {
  const profiler = new v8.GCProfiler();
  const start = v8.getHeapStatistics().used_heap_size;
  profiler.start();
  await f();
  const end = v8.getHeapStatistics().used_heap_size;
  let allocated = 0;
  let after = start;
  for (const s of profiler.stop()?.statistics ?? []) {
    allocated += s.beforeGC.heapStatistics.usedHeapSize - after;
    after = s.afterGC.heapStatistics.usedHeapSize;
  }
  return allocated + end - after;
}

interface Measured {
  perSecond: number;
  userUs: number;
  systemUs: number;
  young: number;
  full: number;
  gcUs: number;
  oldGrowthBytes: number;
  allocatedBytes: number;
}

async function measure(f: () => Promise<string>): Promise<Measured> {
  let left = requests;
  const gc0 = { ...gc };
  const old0 = oldSpaceUsed();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const allocated = await allocatedDuring(async () => {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (left-- > 0) await f();
      }),
    );
  });
  const cpu = process.cpuUsage(cpu0);
  // The observer hears of the last collections on a later turn.
  await new Promise((r) => setImmediate(r));
  return {
    perSecond: requests / ((performance.now() - t0) / 1000),
    userUs: cpu.user / requests,
    systemUs: cpu.system / requests,
    young: gc.young - gc0.young,
    full: gc.full - gc0.full,
    gcUs: ((gc.pauseMs - gc0.pauseMs) * 1000) / requests,
    // Less a full collection's frees: read it with `full` (0 full collections: what was promoted).
    oldGrowthBytes: (oldSpaceUsed() - old0) / requests,
    allocatedBytes: allocated / requests,
  };
}

console.log(`${opName} as ${role}: ${requests} requests per run, ${CONCURRENCY} in flight, pool ${POOL}; CPU of this process per request`);
for (let round = 0; round < Number(roundsArg); round++) {
  for (const [label, f] of [
    ['engine', viaEngine],
    ['bare pg', viaPg],
  ] as const) {
    const m = await measure(f);
    console.log(
      `${label.padEnd(8)} ${m.perSecond.toFixed(0).padStart(6)}/s  user ${m.userUs.toFixed(1).padStart(5)} µs  system ${m.systemUs.toFixed(1).padStart(5)} µs` +
        `  GC ${m.gcUs.toFixed(1).padStart(5)} µs (${m.young} young, ${m.full} full)  old heap ${m.oldGrowthBytes.toFixed(0).padStart(6)} B/request` +
        `  allocated ${m.allocatedBytes.toFixed(0).padStart(6)} B/request`,
    );
  }
}
await pool.end();
await metadata.close();
