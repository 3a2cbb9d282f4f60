/**
 * What authentication by webhook costs the engine per request: the same
 * one-row query sent with role headers (no secret: no authentication call)
 * and with an `authorization` header the webhook (a bare node:http server
 * answering a role at once, no cache headers, so every request calls it)
 * turns into a session. Engine CPU ms per request from /proc, requests/s and
 * p99, alternated for `rounds` rounds. `--engine-root <checkout>` runs another
 * checkout's engine (before/after).
 *
 * Run: node test/bench/auth-webhook-cost.ts [rounds=3] [seconds=5] [--engine-root <checkout>]
 */
import { createServer } from 'node:http';
import { startEngine, setEngineRoot } from './lib/engine.ts';
import { runLoad } from './lib/load.ts';
import { startBenchPostgres } from './lib/postgres.ts';

const args = process.argv.slice(2);
const rootAt = args.indexOf('--engine-root');
if (rootAt >= 0 && args[rootAt + 1] !== undefined) setEngineRoot(args[rootAt + 1] as string);
const positional = args.filter((a, i) => !a.startsWith('--') && (rootAt < 0 || i !== rootAt + 1));
const ROUNDS = Number(positional[0] ?? 3);
const SECONDS = Number(positional[1] ?? 5);
const SECRET = 'bench-secret';

const hook = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ 'x-engine-role': 'reader' }));
  });
});
await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
const hookUrl = `http://127.0.0.1:${(hook.address() as { port: number }).port}/auth`;

const pg = await startBenchPostgres();
try {
  const url = await pg.createDatabase('auth_webhook_cost');
  await pg.sql('auth_webhook_cost', 'CREATE TABLE item (id int PRIMARY KEY, name text NOT NULL); INSERT INTO item VALUES (1, $$one$$)');
  const engine = await startEngine(url, [], { ENGINE_GRAPHQL_ADMIN_SECRET: SECRET, ENGINE_GRAPHQL_AUTH_HOOK: hookUrl, ENGINE_GRAPHQL_AUTH_HOOK_MODE: 'POST' });
  try {
    const admin = { 'content-type': 'application/json', 'x-engine-admin-secret': SECRET };
    const setup = await fetch(`${engine.url}/v1/metadata`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        type: 'bulk',
        args: [
          { type: 'pg_track_table', args: { table: 'item' } },
          { type: 'pg_create_select_permission', args: { table: 'item', role: 'reader', permission: { columns: ['id', 'name'], filter: {} } } },
        ],
      }),
    });
    if (setup.status !== 200) throw new Error(`setup failed: ${await setup.text()}`);
    const body = JSON.stringify({ query: '{ item_by_pk(id: 1) { id name } }' });
    const cells = [
      ['admin secret, role header (no webhook call)', { 'x-engine-admin-secret': SECRET, 'x-engine-role': 'reader' }],
      ['auth webhook on every request', { authorization: 'Bearer x' }],
    ] as const;
    const target = (headers: Record<string, string>) => ({ url: `${engine.url}/v1/graphql`, body, headers });
    for (const [, headers] of cells) await runLoad(target(headers), { connections: 16, seconds: 2 }, engine.child.pid, pg.postmasterPid);
    const rows = new Map<string, string[]>();
    for (let r = 0; r < ROUNDS; r++) {
      for (const [name, headers] of r % 2 === 0 ? cells : [...cells].reverse()) {
        const res = await runLoad(target(headers), { connections: 16, seconds: SECONDS }, engine.child.pid, pg.postmasterPid);
        if (res.errors + res.non2xx > 0) throw new Error(`${name}: ${res.errors} errors, ${res.non2xx} non-2xx`);
        const cell = `${(res.serverCpuMsPerReq ?? NaN).toFixed(3)} ms, ${res.rps.toFixed(0)} rps, p99 ${res.p99} ms`;
        rows.set(name, [...(rows.get(name) ?? []), cell]);
      }
    }
    console.log(`engine CPU per request, requests/s, p99 (16 connections, ${SECONDS} s, ${ROUNDS} rounds alternated)`);
    for (const [name, row] of rows) console.log(`${name}: ${row.join(' | ')}`);
  } finally {
    await engine.stop();
  }
} finally {
  await pg.stop();
  hook.close();
}
