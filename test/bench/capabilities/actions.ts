/**
 * Bench cell of actions: a synchronous action whose handler answers at once,
 * against calling that handler directly with the same concurrency (the
 * engine's overhead), and asynchronous submissions accepted per second.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startEngine } from '../lib/engine.ts';
import { runLoad, type LoadResult } from '../lib/load.ts';
import type { CapabilityBench } from './types.ts';

async function post(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return (await res.json()) as unknown;
}

const OUTPUT = JSON.stringify({ token: 'tok', user_id: 1 });

const bench: CapabilityBench = async (ctx) => {
  const dbUrl = await ctx.postgres.createDatabase('actions_bench');
  const handler = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(OUTPUT);
    });
  });
  handler.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => handler.listen(0, '127.0.0.1', r));
  const handlerUrl = `http://127.0.0.1:${(handler.address() as AddressInfo).port}/login`;
  const engine = await startEngine(dbUrl);
  try {
    const md = async (type: string, args: unknown): Promise<void> => {
      const r = await post(`${engine.url}/v1/metadata`, { type, args });
      if (JSON.stringify(r) !== '{"message":"success"}') throw new Error(`${type}: ${JSON.stringify(r)}`);
    };
    await md('set_custom_types', {
      input_objects: [{ name: 'Creds', fields: [{ name: 'username', type: 'String!' }] }],
      objects: [
        {
          name: 'LoginOutput',
          fields: [
            { name: 'token', type: 'String!' },
            { name: 'user_id', type: 'Int!' },
          ],
        },
      ],
    });
    const args = [{ name: 'c', type: 'Creds!' }];
    await md('create_action', { name: 'login', definition: { arguments: args, output_type: 'LoginOutput', handler: handlerUrl } });
    await md('create_action', { name: 'work', definition: { kind: 'asynchronous', arguments: args, output_type: 'LoginOutput', handler: handlerUrl } });

    const seconds = ctx.quick ? 2 : ctx.seconds;
    const connections = ctx.connections;
    const gql = (query: string): string => JSON.stringify({ query });
    const syncBody = gql('mutation { login(c: {username: "ann"}) { token user_id } }');
    const directBody = JSON.stringify({
      action: { name: 'login' },
      input: { c: { username: 'ann' } },
      session_variables: { 'x-engine-role': 'admin' },
      request_query: 'mutation { login(c: {username: "ann"}) { token user_id } }',
    });
    const pid = engine.child.pid;
    // Warm both paths (plan cache, connections) before measuring.
    await runLoad({ url: `${engine.url}/v1/graphql`, body: syncBody, headers: {} }, { connections, requests: 500 }, pid, ctx.postgres.postmasterPid);
    ctx.log('sync action through the engine');
    const viaEngine = await runLoad(
      { url: `${engine.url}/v1/graphql`, body: syncBody, headers: {} },
      { connections, seconds },
      pid,
      ctx.postgres.postmasterPid,
    );
    ctx.log('static query through the engine (its floor)');
    const floor = await runLoad(
      { url: `${engine.url}/v1/graphql`, body: gql('{ __typename }'), headers: {} },
      { connections, seconds },
      pid,
      ctx.postgres.postmasterPid,
    );
    ctx.log('handler called directly');
    const direct = await runLoad({ url: handlerUrl, body: directBody, headers: {} }, { connections, seconds }, undefined, ctx.postgres.postmasterPid);
    ctx.log('async submissions');
    const asyncRun = await runLoad(
      { url: `${engine.url}/v1/graphql`, body: gql('mutation { work(c: {username: "ann"}) }'), headers: {} },
      { connections, seconds },
      pid,
      ctx.postgres.postmasterPid,
    );

    const row = (name: string, r: LoadResult): Record<string, string | number | null> => ({
      path: name,
      rps: Math.round(r.rps),
      p50_ms: r.p50,
      p99_ms: r.p99,
      errors: r.errors + r.non2xx,
      engine_cpu_ms_per_req: r.serverCpuMsPerReq === null ? null : Number(r.serverCpuMsPerReq.toFixed(3)),
    });
    const overhead = direct.rps > 0 ? Number((100 * (1 - viaEngine.rps / direct.rps)).toFixed(1)) : null;
    return {
      tables: [
        {
          title: 'synchronous action vs its handler called directly',
          rows: [row('engine → handler', viaEngine), row('handler directly', direct), row('engine, static { __typename }', floor)],
        },
        { title: 'engine overhead', rows: [{ rps_lost_percent: overhead, p99_added_ms: viaEngine.p99 - direct.p99 }] },
        { title: 'asynchronous submissions', rows: [row('async mutation (accepted)', asyncRun)] },
      ],
      notes: [
        `${connections} connections, ${seconds} s per run; the handler is a Node http server in the bench process answering a fixed JSON body at once.`,
        'The direct run POSTs the payload the engine would send; the engine run adds parsing, the plan-cache hit, the handler call over a keep-alive connection, output checks and the response.',
        'The static row is the engine answering without a handler: the difference in engine CPU per request is what a handler call costs it (Note [Sync action overhead]).',
        'Async: each accepted submission is one INSERT into engine_metadata.action_log before the answer; the worker drains them alongside.',
      ],
    };
  } finally {
    await engine.stop();
    handler.closeAllConnections();
    await new Promise<void>((r) => handler.close(() => r()));
  }
};

export default bench;
