/**
 * RSS of engine variants on the metadata-at-scale database (lib/scale.ts),
 * alternated: for each round and each variant, a fresh copy of the database
 * (CREATE DATABASE ... TEMPLATE), replace_metadata with N tables × R roles,
 * every role queried, then the engine's RSS at once (with smaps_rollup's
 * anonymous and file-backed parts) and again after `--settle` ms; then a
 * restart on that metadata, the same. Engine CPU from the call (or the
 * spawn) to the last answer beside each. Used for Note [Engine V8 settings]
 * (engine/cli/v8-flags.ts) and Note [Only a metadata change's burst]
 * (engine/idle-gc.ts).
 *
 * Run: node test/bench/rss-variants.ts [--tables 2000] [--roles 10] [--rounds 2] [--settle 20000]
 *        [--no-restart] [--smaps] [--heap] name=<checkout>[:<node flag>,<node flag>][@<ENV>=<value>,...] ...
 * e.g. `before=/tmp/before after=. balancer=.:--memory-balancer arenas=.@MALLOC_ARENA_MAX=2`
 * (a checkout: a `git worktree` with a node_modules symlink). Engine logs go to
 * `--out` (default /tmp/rss-variants), with `--smaps` a copy of /proc/<pid>/smaps
 * at the answer. With `--heap`, the engines run with prom-client's Node metrics
 * (`ENGINE_GRAPHQL_METRICS_NODE_DEFAULTS`) and the V8 heap's spaces (used /
 * committed MiB) and external memory are printed at each answer, read from
 * /v1/metrics: what RSS at the answer holds.
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { metadataCall } from './lib/engine-metadata.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { cpuMs, rssMiB } from './lib/process.ts';
import { allRolesAnswer, createScaleTables, tableEntry, tableName } from './lib/scale.ts';
import { freePort } from '../support/engine-process.ts';

const argv = process.argv.slice(2);
const opt = (n: string, d: string): string => {
  const i = argv.indexOf(n);
  return i >= 0 ? argv[i + 1]! : d;
};
const TABLES = Number(opt('--tables', '2000'));
const ROLES = Number(opt('--roles', '10'));
const ROUNDS = Number(opt('--rounds', '2'));
const SETTLE = Number(opt('--settle', '20000'));
const RESTART = !argv.includes('--no-restart');
const OUT = opt('--out', '/tmp/rss-variants');
const HEAP = argv.includes('--heap');

/** The heap's spaces at this moment, used/committed MiB, from the engine's /v1/metrics (with --heap). */
async function heapSpaces(url: string): Promise<string> {
  if (!HEAP) return '';
  const text = await (await fetch(`${url}/v1/metrics`)).text();
  const get = (metric: string, space: string): number => Number(new RegExp(`^${metric}\\{space="${space}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) / 1048576;
  const spaces = ['new', 'old', 'code', 'large_object', 'new_large_object', 'trusted', 'trusted_large_object'].filter((sp) => text.includes(`space="${sp}"`));
  const parts = spaces.map(
    (sp) => `${sp} ${get('engine_nodejs_heap_space_size_used_bytes', sp).toFixed(0)}/${get('engine_nodejs_heap_space_size_total_bytes', sp).toFixed(0)}`,
  );
  const external = Number(/^engine_nodejs_external_memory_bytes (\S+)$/m.exec(text)?.[1] ?? NaN) / 1048576;
  return ` [heap ${parts.join(', ')}; external ${external.toFixed(0)}]`;
}
const variants = argv
  .filter((a) => a.includes('=') && !a.startsWith('--'))
  .map((s) => {
    const [main, envPart] = s.split('@') as [string, string | undefined];
    const eq = main.indexOf('=');
    const name = main.slice(0, eq),
      rest = main.slice(eq + 1);
    const [root, args] = rest.split(':') as [string, string | undefined];
    const env = Object.fromEntries(
      (envPart ?? '')
        .split(',')
        .filter(Boolean)
        .map((kv) => kv.split('=') as [string, string]),
    );
    return { name, root, args: args ? args.split(',') : [], env };
  });

const allRoles = (url: string): Promise<void> => allRolesAnswer(url, tableName(TABLES), ROLES);
async function smaps(pid: number): Promise<string> {
  try {
    const t = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8');
    const g = (k: string) => Math.round(Number(new RegExp(`${k}:\\s+(\\d+)`).exec(t)?.[1] ?? 0) / 1024);
    return `anon ${g('Anonymous')} file ${g('Rss') - g('Anonymous')}`;
  } catch {
    return '?';
  }
}
async function start(root: string, args: string[], db: string, log: string, env: Record<string, string> = {}) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...args, 'engine/main.ts', 'serve', '--server-host', '127.0.0.1', '--server-port', String(port), '--database-url', db, '--log-level', 'warn'],
    {
      cwd: path.resolve(root),
      env: { PATH: process.env['PATH'] ?? '', ...(HEAP ? { ENGINE_GRAPHQL_METRICS_NODE_DEFAULTS: 'true' } : {}), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(out);
    try {
      if ((await fetch(`${url}/healthz`)).status === 200) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    url,
    pid: child.pid!,
    async stop() {
      const e = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await e;
      await writeFile(log, out);
    },
  };
}

if (variants.length === 0) throw new Error('name a variant: name=<checkout>[:<node flag>,...][@<ENV>=<value>,...]');
await mkdir(OUT, { recursive: true });
const pg = await startBenchPostgres();
try {
  await pg.createDatabase('tmpl');
  await createScaleTables(pg, 'tmpl', TABLES);
  const rows: string[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const v of variants) {
      const db = `d_${v.name.replace(/\W/g, '_')}_${round}`;
      await pg.sql('postgres', `CREATE DATABASE ${db} TEMPLATE tmpl`);
      let e = await start(v.root, v.args, pg.url(db), path.join(OUT, `${v.name}-${round}-a.log`), v.env);
      const exported = await metadataCall(e.url, { type: 'export_metadata', args: {} });
      const source = (exported['sources'] as Array<Record<string, unknown>>).find((s) => s['name'] === 'default')!;
      source['tables'] = Array.from({ length: TABLES }, (_, k) => tableEntry(k + 1, TABLES, ROLES));
      const body = JSON.stringify({ type: 'replace_metadata', args: exported });
      const c0 = (await cpuMs(e.pid))!;
      let t = performance.now();
      await metadataCall(e.url, body);
      await allRoles(e.url);
      const ready = performance.now() - t;
      const cpu = (await cpuMs(e.pid))! - c0;
      const rss = await rssMiB(e.pid);
      const sm = await smaps(e.pid);
      const heap = await heapSpaces(e.url);
      if (argv.includes('--smaps')) await writeFile(path.join(OUT, `${v.name}-${round}.smaps`), await readFile(`/proc/${e.pid}/smaps`, 'utf8'));
      await new Promise((r) => setTimeout(r, SETTLE));
      const rss20 = await rssMiB(e.pid);
      await e.stop();
      let line = `${v.name} r${round}: replace→all ${ready.toFixed(0)} ms cpu ${cpu.toFixed(0)} | RSS ${rss?.toFixed(0)} (${sm})${heap} → ${SETTLE / 1000} s later ${rss20?.toFixed(0)}`;
      if (RESTART) {
        t = performance.now();
        e = await start(v.root, v.args, pg.url(db), path.join(OUT, `${v.name}-${round}-b.log`), v.env);
        await allRoles(e.url);
        const rr = performance.now() - t;
        const rcpu = (await cpuMs(e.pid))!;
        const rrss = await rssMiB(e.pid);
        const rsm = await smaps(e.pid);
        const rheap = await heapSpaces(e.url);
        await new Promise((r) => setTimeout(r, SETTLE));
        const rrss20 = await rssMiB(e.pid);
        await e.stop();
        line += ` || restart→all ${rr.toFixed(0)} ms cpu ${rcpu.toFixed(0)} | RSS ${rrss?.toFixed(0)} (${rsm})${rheap} → ${SETTLE / 1000} s later ${rrss20?.toFixed(0)}`;
      }
      await pg.sql('postgres', `DROP DATABASE ${db}`);
      const load = (await readFile('/proc/loadavg', 'utf8')).split(' ')[0];
      console.log(`${line}  [load ${load}]`);
      rows.push(line);
    }
  }
} finally {
  await pg.stop();
}
