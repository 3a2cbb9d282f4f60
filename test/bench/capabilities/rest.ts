/**
 * Bench cell "rest" (issue 20): a REST endpoint for AlbumByPK against the
 * same query on /v1/graphql (goal: within 5% of its RPS), and the same
 * workload as the customer role with the allow-list on and off (goal: no
 * measurable difference). Both comparisons alternate their two sides over
 * several rounds on the same database (sf1), so drift on the shared machine
 * falls on both sides alike; the figures are medians, and medians of the
 * ratio of each round's two runs.
 */
import { metadataCall } from '../lib/engine-metadata.ts';
import { startEngine, type BenchEngine } from '../lib/engine.ts';
import { loadDataset } from '../lib/datasets.ts';
import { runLoad, type LoadResult, type LoadTarget } from '../lib/load.ts';
import { engineHeaders } from '../lib/peers.ts';
import type { CapabilityBench, CapabilityTable } from './types.ts';
import { Authenticator } from '../../../engine/auth/resolve-session.ts';
import { defaultSettings } from '../../../engine/cli/settings.ts';
import { GraphqlService } from '../../../engine/execute/graphql-service.ts';
import { silentLogger } from '../../../engine/logger.ts';
import { MetadataService } from '../../../engine/metadata/service.ts';
import { RequestContext } from '../../../engine/request-context.ts';
import { RestService } from '../../../engine/rest/rest-service.ts';
import type { AppDeps } from '../../../engine/server/deps.ts';
import { answerGraphql } from '../../../engine/server/graphql-answer.ts';
import { answerRest } from '../../../engine/server/rest-answer.ts';

const QUERY = 'query AlbumByPK($id: Int!) { albums_by_pk(id: $id) { id title } }';

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[m] ?? 0) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
}

async function answer(target: LoadTarget): Promise<string> {
  const res = await fetch(target.url, { method: 'POST', headers: { 'content-type': 'application/json', ...target.headers }, body: target.body });
  return await res.text();
}

const bench: CapabilityBench = async (ctx) => {
  const rounds = ctx.quick ? 1 : 6;
  const seconds = ctx.quick ? 1 : ctx.seconds;
  ctx.log('loading sf1');
  const data = await loadDataset(ctx.postgres, 'sf1', 16);
  let allowlisted: BenchEngine | null = null;
  let plain: BenchEngine | null = null;
  try {
    const url = data.engine.url;
    const bulk = await metadataCall(url, {
      type: 'bulk',
      args: [
        { type: 'create_query_collection', args: { name: 'bench', definition: { queries: [{ name: 'album', query: QUERY }] } } },
        { type: 'add_collection_to_allowlist', args: { collection: 'bench' } },
        {
          type: 'create_rest_endpoint',
          args: { name: 'album', url: 'albums/:id', methods: ['GET', 'POST'], definition: { query: { collection_name: 'bench', query_name: 'album' } } },
        },
      ],
    });
    ctx.log(`metadata: ${JSON.stringify(bulk).slice(0, 120)}`);
    // The second engine shares the metadata database and reads the same document at start.
    // Two fresh processes alike but for the setting, so neither side is warmer than the other.
    allowlisted = await startEngine(data.databaseUrl, [], { ENGINE_GRAPHQL_ENABLE_ALLOWLIST: 'true' });
    plain = await startEngine(data.databaseUrl, [], { ENGINE_GRAPHQL_ENABLE_ALLOWLIST: 'false' });

    const graphqlBody = JSON.stringify({ query: QUERY, operationName: 'AlbumByPK', variables: { id: 1 } });
    const sides = {
      graphql: { url: `${url}/v1/graphql`, body: graphqlBody, headers: engineHeaders('admin') },
      rest: { url: `${url}/api/rest/albums/1`, body: '{}', headers: engineHeaders('admin') },
    } satisfies Record<string, LoadTarget>;
    const customer = engineHeaders('customer');
    const allow = {
      off: { url: `${plain.url}/v1/graphql`, body: graphqlBody, headers: customer },
      on: { url: `${allowlisted.url}/v1/graphql`, body: graphqlBody, headers: customer },
    } satisfies Record<string, LoadTarget>;
    const pids = { off: plain.child.pid, on: allowlisted.child.pid };

    // Same answer on every side, or the comparison means nothing.
    const expected = `{"data":${await answer(sides.rest)}}`;
    for (const t of [sides.graphql, allow.off, allow.on]) {
      const got = await answer(t);
      if (got !== expected) throw new Error(`${t.url} answered ${got.slice(0, 200)}, expected ${expected.slice(0, 200)}`);
    }
    const refused = await answer({ ...allow.on, body: JSON.stringify({ query: '{ albums(limit: 1) { id } }' }) });
    if (!refused.includes('query is not allowed')) throw new Error(`the allow-list did not refuse: ${refused.slice(0, 200)}`);

    const results: Record<string, LoadResult[]> = { graphql: [], rest: [], off: [], on: [] };
    const run = async (name: string, t: LoadTarget, pid: number | undefined): Promise<void> => {
      await runLoad(t, { connections: ctx.connections, seconds: ctx.quick ? 1 : 2 }, pid, ctx.postgres.postmasterPid);
      const r = await runLoad(t, { connections: ctx.connections, seconds }, pid, ctx.postgres.postmasterPid);
      if (r.errors > 0 || r.non2xx > 0) throw new Error(`${name}: ${r.errors} errors, ${r.non2xx} non-2xx`);
      results[name]?.push(r);
      ctx.log(`${name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms`);
    };
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 === 0 ? (['graphql', 'rest'] as const) : (['rest', 'graphql'] as const);
      for (const n of order) await run(n, sides[n], data.engine.child.pid);
      const order2 = i % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      for (const n of order2) await run(n, allow[n], pids[n]);
    }
    const row = (label: string, name: string, base: string): Record<string, string | number | null> => {
      const rs = results[name] ?? [];
      const rps = median(rs.map((r) => r.rps));
      const baseRps = median((results[base] ?? []).map((r) => r.rps));
      return {
        side: label,
        'req/s (median)': Math.round(rps),
        'vs first row': baseRps === 0 ? null : `${((rps / baseRps) * 100).toFixed(1)}%`,
        // Each round's two runs are adjacent in time: their ratio is less exposed to the machine's drift.
        'paired ratio (median)': `${(median(rs.map((r, i) => r.rps / ((results[base] ?? [])[i]?.rps ?? r.rps))) * 100).toFixed(1)}%`,
        'p50 ms': median(rs.map((r) => r.p50)),
        'p99 ms': median(rs.map((r) => r.p99)),
        'engine CPU ms/req': rs[0]?.serverCpuMsPerReq === null ? null : Number(median(rs.map((r) => r.serverCpuMsPerReq ?? 0)).toFixed(3)),
        runs: rs.map((r) => Math.round(r.rps)).join(' / '),
      };
    };
    ctx.log('in process');
    const inProcess = await measureInProcess(data.databaseUrl, graphqlBody, ctx.quick ? 2000 : 20000, rounds);
    const tables: CapabilityTable[] = [
      {
        title: 'AlbumByPK as admin: /v1/graphql vs REST endpoint (sf1)',
        rows: [row('POST /v1/graphql (variables {id: 1})', 'graphql', 'graphql'), row('POST /api/rest/albums/1', 'rest', 'graphql')],
      },
      {
        title: 'AlbumByPK as customer: allow-list off vs on (sf1)',
        rows: [row('allow-list off', 'off', 'off'), row('allow-list on (query allow-listed)', 'on', 'off')],
      },
      { title: 'The same in one process, without HTTP: CPU µs of the process per request (median of rounds)', rows: inProcess },
    ];
    return {
      tables,
      notes: [
        `${rounds} alternating round(s) of ${seconds} s per side, each after a ${ctx.quick ? 1 : 2} s warm-up, ${ctx.connections} connections (autocannon); the medians are shown, every run under "runs".`,
        'Both queries are the same text: `query AlbumByPK($id: Int!) { albums_by_pk(id: $id) { id title } }`; the REST side gets `id` from the path (`albums/:id`) and an empty JSON body.',
        'Both paths are served by the node:http fast path (Note [GraphQL fast path]), then the same request steps and plan cache.',
        '"paired ratio" is the median over rounds of the ratio of the two runs of one round (run back to back); on a shared machine it is steadier than the ratio of the medians.',
        'In process: answerGraphql and answerRest (what the HTTP fast path calls: body parse, authentication, plan cache, bind, the database round trip) run alternately in this process, 16 requests in flight, CPU time of the process per request (user + system); HTTP is left out, PostgreSQL costs the same for every row. The allow-list rows are two GraphqlServices over one catalog, one with the allow-list enabled.',
        'Allow-list: two fresh engine processes on one database and metadata, ENGINE_GRAPHQL_ENABLE_ALLOWLIST=false and =true; the check runs on a plan-cache miss only, so a warm run measures the hit path.',
      ],
    };
  } finally {
    await allowlisted?.stop();
    await plain?.stop();
    await data.engine.stop();
  }
};

/** CPU µs per request of this process for each way in (see the notes). */
async function measureInProcess(
  databaseUrl: string,
  graphqlBody: string,
  requests: number,
  rounds: number,
): Promise<Array<Record<string, string | number | null>>> {
  const settings = defaultSettings({ databaseUrl });
  const auth = await Authenticator.create(settings, silentLogger);
  const metadata = await MetadataService.start({ metadataDatabaseUrl: databaseUrl, defaultDatabaseUrl: databaseUrl, logger: silentLogger });
  try {
    const make = (enableAllowlist: boolean): AppDeps => {
      const graphql = new GraphqlService(metadata.catalogRef, {
        stringifyNumericTypes: false,
        inferFunctionPermissions: true,
        logger: silentLogger,
        enableAllowlist,
      });
      return { settings, logger: silentLogger, auth, metadata, graphql, rest: new RestService(metadata.catalogRef, graphql) };
    };
    const off = make(false);
    const on = make(true);
    const admin = { 'content-type': 'application/json', ...engineHeaders('admin') };
    const customer = { 'content-type': 'application/json', ...engineHeaders('customer') };
    const ctx = (): RequestContext => new RequestContext('127.0.0.1');
    // A lone read's GraphQL answer is a byte string (Note [Answer bytes]): compared as the text it sends.
    type Answered = { readonly body: string; readonly encoding?: 'utf8' | 'latin1' };
    const textOf = (a: Answered): string => (a.encoding === 'latin1' ? Buffer.from(a.body, 'latin1').toString('utf8') : a.body);
    const ways: ReadonlyArray<readonly [string, () => Promise<Answered>]> = [
      ['answerGraphql as admin', async () => await answerGraphql(off, { method: 'POST', headers: admin, payload: graphqlBody }, ctx())],
      ['answerRest as admin', async () => await answerRest(off, 'POST', '/api/rest/albums/1', admin, '{}', ctx())],
      ['answerGraphql as customer, allow-list off', async () => await answerGraphql(off, { method: 'POST', headers: customer, payload: graphqlBody }, ctx())],
      ['answerGraphql as customer, allow-list on', async () => await answerGraphql(on, { method: 'POST', headers: customer, payload: graphqlBody }, ctx())],
    ];
    const expected = textOf(await ways[0]![1]());
    for (const [name, f] of ways) {
      // REST answers the data object without its wrapper.
      const got = name.startsWith('answerRest') ? `{"data":${textOf(await f())}}` : textOf(await f());
      if (got !== expected) throw new Error(`${name} answered ${got.slice(0, 200)}`);
    }
    const cpu: Record<string, number[]> = {};
    for (let round = 0; round < rounds; round++) {
      for (const [name, f] of round % 2 === 0 ? ways : [...ways].reverse()) {
        let left = requests;
        const c0 = process.cpuUsage();
        await Promise.all(
          Array.from({ length: 16 }, async () => {
            while (left-- > 0) await f();
          }),
        );
        const c = process.cpuUsage(c0);
        (cpu[name] ??= []).push((c.user + c.system) / requests);
      }
    }
    const base = (name: string): number => median(cpu[name] ?? []);
    return ways.map(([name]) => {
      const us = base(name);
      const ref = name.includes('allow-list on')
        ? base('answerGraphql as customer, allow-list off')
        : name.startsWith('answerRest')
          ? base('answerGraphql as admin')
          : us;
      return {
        way: name,
        'CPU µs/request': Number(us.toFixed(1)),
        'vs its reference': `${((us / ref) * 100).toFixed(1)}%`,
        runs: (cpu[name] ?? []).map((x) => x.toFixed(1)).join(' / '),
      };
    });
  } finally {
    await metadata.close();
  }
}

export default bench;
