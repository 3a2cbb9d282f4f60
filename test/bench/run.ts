/**
 * `npm run bench [-- options]`: the Chinook workload on Engine, PostGraphile
 * v5 and raw SQL side by side, then metadata at scale. Everything runs on one
 * embedded PostgreSQL; each peer is its own process; autocannon runs in its
 * own process. Results go to test/bench/results/ (git-ignored) as JSON,
 * Markdown and SVG. Never part of `npm test`.
 *
 * Options:
 *   --quick                 smoke check (< 2 min): one data set, short runs, 1 repeat, small scale test
 *   --datasets a,b          chinook and/or sf<N> (default chinook,sf10,sf100; quick: chinook or sf1)
 *   --seconds N             measured seconds per run (default 6; quick 2)
 *   --warmup N              warm-up seconds per (cell, peer) (default 2; quick 1)
 *   --repeats N             runs per (cell, peer), peers alternated (default 2; quick 1)
 *   --connections N         autocannon connections (default 16)
 *   --pool N                database pool size of every peer (default 8)
 *   --ops a,b               only these operations
 *   --peers a,b             only these peers (engine, postgraphile, raw)
 *   --roles a,b             only these roles (admin, customer)
 *   --scale-tables N        tables in the metadata-at-scale test (default 2000; quick 100)
 *   --scale-roles N         roles in it (default 10)
 *   --skip-scale / --only-scale
 *   --scale-curve [a,b,..]  only the scale curve: tracking one more table at 100,1000,2000,5000 tables (or these sizes)
 *   --capabilities a,b|all  only these capability cells (test/bench/capabilities/), no workload or scale test
 *   --skip-capabilities     leave the capability cells out (a full run has them; --quick does not)
 *   --cpu-prof              run Engine under `node --cpu-prof` (profiles in results/profiles/)
 *   --label text            added to the result file names
 *   --engine-root dir       run Engine from another checkout (e.g. `git worktree add /tmp/before <commit>`
 *                           plus a node_modules symlink), for before/after comparisons
 *   --soak                  only the memory soak of soak.ts (its options: --soak-minutes, --soak-rate, --heap-snapshots, …)
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { chinookPresent, chinookWorkloadText } from './data/chinook.ts';
import { datasetAvailable, loadDataset, parseDatasets } from './lib/datasets.ts';
import { setEngineRoot } from './lib/engine.ts';
import { runLoad, warmInTurns, type LoadShape } from './lib/load.ts';
import { PEERS, ROLES, prepareCells, startOtherPeers, type PeerName, type RoleName } from './lib/peers.ts';
import { startBenchPostgres, type BenchPostgres } from './lib/postgres.ts';
import { ROOT, rssMiB } from './lib/process.ts';
import {
  renderMarkdown,
  renderSvg,
  summarize,
  type BenchReport,
  type RunRecord,
  type ScaleCurvePoint,
  type ScaleResult,
  type SummaryRow,
} from './lib/report.ts';
import { runScaleBench, runScaleCurve } from './lib/scale.ts';
import { runCapabilities, type CapabilityOutcome } from './capabilities/load.ts';
import { renderCapabilities } from './capabilities/render.ts';
import { loadWorkload } from './workload.ts';

const argv = process.argv.slice(2);
const flag = (name: string): boolean => argv.includes(name);
function option(name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}
const num = (name: string, dflt: number): number => {
  const v = option(name);
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} needs a positive number, got ${v}`);
  return n;
};
const list = (name: string): string[] | null =>
  option(name)
    ?.split(',')
    .map((s) => s.trim()) ?? null;

const quick = flag('--quick');
const settings = {
  quick,
  seconds: num('--seconds', quick ? 2 : 6),
  warmup: num('--warmup', quick ? 1 : 2),
  repeats: num('--repeats', quick ? 1 : 2),
  connections: num('--connections', 16),
  pool: num('--pool', 8),
  scaleTables: num('--scale-tables', quick ? 100 : 2000),
  scaleRoles: num('--scale-roles', 10),
  cpuProf: flag('--cpu-prof'),
};
const log = (s: string): void => void process.stdout.write(`${s}\n`);

function machine(pgVersion: string): Record<string, string | number> {
  const cpus = os.cpus();
  let commit = 'unknown';
  const engineDir = path.resolve(option('--engine-root') ?? ROOT);
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: engineDir }).toString().trim();
    if (engineDir !== ROOT) commit += ` (Engine run from ${engineDir})`;
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'engine'], { cwd: engineDir }).toString().trim();
    if (dirty !== '') commit += ' (engine/ has uncommitted changes)';
  } catch {
    // not a git checkout
  }
  return {
    cpu: `${cpus.length} × ${cpus[0]?.model ?? 'unknown'}`,
    memory: `${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB`,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    postgres: pgVersion,
    commit,
  };
}

async function postgresVersion(bench: BenchPostgres): Promise<string> {
  const c = new pg.Client({ connectionString: bench.url('postgres') });
  await c.connect();
  try {
    const r = await c.query<{ server_version: string }>('SHOW server_version');
    return r.rows[0]?.server_version ?? 'unknown';
  } finally {
    await c.end();
  }
}

/** Runs the workload on one data set; appends to `runs` and `summary`. */
async function benchDataset(bench: BenchPostgres, name: string, runs: RunRecord[], summary: SummaryRow[], idle: Record<string, number | null>): Promise<void> {
  const nodeArgs = settings.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${path.join(ROOT, 'test', 'bench', 'results', 'profiles')}`] : [];
  log(`\n== data set ${name}: loading`);
  const ds = await loadDataset(bench, name, settings.pool, nodeArgs);
  log(`   loaded in ${(ds.loadMs / 1000).toFixed(1)} s (${ds.tracks} tracks)`);
  const peers = await startOtherPeers(ds.engine, ds.databaseUrl, settings.pool);
  try {
    const workload = loadWorkload(await chinookWorkloadText());
    const cells = await prepareCells(peers, workload);
    log(`   answers agree on ${cells.filter((c) => c.targets !== null).length} cells (workload: ${workload.origin})`);
    idle[name] = await rssMiB(peers.pid('engine'));
    const onlyOps = list('--ops');
    const onlyPeers = (list('--peers') ?? [...PEERS]) as PeerName[];
    const onlyRoles = (list('--roles') ?? [...ROLES]) as RoleName[];
    const measured: LoadShape = { connections: settings.connections, seconds: settings.seconds };
    // Quick mode warms up by a request count (fast operations need less than a second).
    const warm: LoadShape =
      quick && option('--warmup') === undefined
        ? { connections: settings.connections, requests: 150 }
        : { connections: settings.connections, seconds: settings.warmup };
    // Every peer process is first brought to its steady state on the first measured cell, the
    // peers in turns (Notes [Steady-state warm-up] and [Warm-ups in turns] in lib/load.ts), then
    // each cell gets its own short warm-up.
    const first = cells.find((c) => c.targets !== null && (onlyOps === null || onlyOps.includes(c.op.name)) && onlyRoles.includes(c.role));
    const warming = PEERS.flatMap((p) => {
      const target = first?.targets?.[p];
      return onlyPeers.includes(p) && target !== undefined ? [{ peer: p, target, serverPid: peers.pid(p) }] : [];
    });
    const warmed = await warmInTurns(warming, settings.connections, bench.postmasterPid);
    for (const [i, w] of warmed.entries()) {
      log(
        `   warm-up ${(warming[i]?.peer ?? '').padEnd(12)} on ${first?.op.name ?? ''} ${first?.role ?? ''}: ${w.windows.map((x) => x.toFixed(0)).join(' → ')} req/s${w.steady ? '' : ' (not steady)'}`,
      );
    }
    for (const [ci, cell] of cells.entries()) {
      if (onlyOps !== null && !onlyOps.includes(cell.op.name)) continue;
      if (!onlyRoles.includes(cell.role)) continue;
      let responseBytes: number | null = null;
      const cellRuns: RunRecord[] = [];
      if (cell.targets !== null) {
        const t = cell.targets.engine;
        if (t !== undefined) {
          const res = await fetch(t.url, { method: 'POST', headers: { 'content-type': 'application/json', ...t.headers }, body: t.body });
          responseBytes = (await res.arrayBuffer()).byteLength;
        }
        const active = PEERS.filter((p) => onlyPeers.includes(p) && cell.targets?.[p] !== undefined);
        for (const p of active) {
          const target = cell.targets[p];
          if (target !== undefined) await runLoad(target, warm, peers.pid(p), bench.postmasterPid);
        }
        for (let rep = 0; rep < settings.repeats; rep++) {
          // Alternate: each repeat (and each cell) starts with a different peer.
          const order = active.map((_, i) => active[(i + rep + ci) % active.length] as PeerName);
          for (const p of order) {
            const target = cell.targets[p];
            if (target === undefined) continue;
            const r = await runLoad(target, measured, peers.pid(p), bench.postmasterPid);
            if (r.errors > 0 || r.non2xx > 0) throw new Error(`${name} ${cell.op.name} ${cell.role} ${p}: ${r.errors} errors, ${r.non2xx} non-2xx under load`);
            cellRuns.push({ dataset: name, op: cell.op.name, role: cell.role, peer: p, rep, ...r });
          }
        }
      }
      runs.push(...cellRuns);
      const row: SummaryRow = {
        dataset: name,
        op: cell.op.name,
        role: cell.role,
        notApplicable: cell.notApplicable,
        caveat: cell.op.caveat,
        responseBytes,
        peers: summarize(cellRuns),
      };
      summary.push(row);
      const e = row.peers.engine;
      const p = row.peers.postgraphile;
      const w = row.peers.raw;
      const show = (label: string, x: typeof e): string =>
        x === undefined ? '' : `${label} ${x.rps.toFixed(0).padStart(6)} (${(x.serverCpuUs ?? 0).toFixed(0)}+${x.postgresCpuUs.toFixed(0)} µs)  `;
      log(
        `   ${cell.op.name.padEnd(24)} ${cell.role.padEnd(8)} ` +
          (cell.notApplicable !== null
            ? 'n/a'
            : show('engine', e) +
              show('postgraphile', p) +
              show('raw', w) +
              (e !== undefined && p !== undefined ? `  E/PG ${(e.rps / p.rps).toFixed(2)}` : '') +
              (e !== undefined && w !== undefined ? `  E/raw ${(e.rps / w.rps).toFixed(2)}` : '')),
      );
    }
  } finally {
    await peers.stop();
  }
}

async function main(): Promise<void> {
  const started = new Date();
  const engineRoot = option('--engine-root');
  if (engineRoot !== undefined) setEngineRoot(path.resolve(engineRoot));
  const curveOnly = flag('--scale-curve');
  const onlyScale = flag('--only-scale') || curveOnly;
  const capabilityList = option('--capabilities');
  const onlyCapabilities = capabilityList !== undefined;
  const runCells = onlyCapabilities || (!quick && !onlyScale && !flag('--skip-capabilities'));
  let datasets = parseDatasets(option('--datasets') ?? (quick ? (chinookPresent() ? 'chinook' : 'sf1') : 'chinook,sf10,sf100'));
  const unavailable = datasets.filter((d) => !datasetAvailable(d));
  for (const d of unavailable) log(`skipping data set ${d}: ../shared/data/chinook is absent`);
  datasets = datasets.filter(datasetAvailable);
  if (onlyScale || onlyCapabilities) datasets = [];

  const bench = await startBenchPostgres();
  const runs: RunRecord[] = [];
  const summary: SummaryRow[] = [];
  const idle: Record<string, number | null> = {};
  let scale: ScaleResult | null = null;
  let scaleCurve: ScaleCurvePoint[] = [];
  let capabilities: CapabilityOutcome[] = [];
  let pgVersion = 'unknown';
  try {
    pgVersion = await postgresVersion(bench);
    for (const name of datasets) await benchDataset(bench, name, runs, summary, idle);
    if (curveOnly) {
      const given = option('--scale-curve');
      const sizes = (given === undefined || given.startsWith('--') ? '100,1000,2000,5000' : given).split(',').map(Number);
      log(`\n== scale curve: tracking one more table at ${sizes.join(', ')} tables × ${settings.scaleRoles} roles`);
      scaleCurve = await runScaleCurve(bench, sizes, settings.scaleRoles, (s) => log(`   ${s}`));
    } else if (!flag('--skip-scale') && !onlyCapabilities) {
      log(`\n== metadata at scale: ${settings.scaleTables} tables × ${settings.scaleRoles} roles`);
      scale = await runScaleBench(bench, settings.scaleTables, settings.scaleRoles, (s) => log(`   ${s}`));
    }
    if (runCells) {
      const names = capabilityList === undefined || capabilityList === 'all' ? null : (list('--capabilities') ?? []);
      const ctx = { postgres: bench, quick, seconds: settings.seconds, connections: settings.connections };
      capabilities = await runCapabilities(names, ctx, log);
    }
  } finally {
    await bench.stop();
  }

  const report: BenchReport = {
    command: `npm run bench --${argv.length > 0 ? ` ${argv.join(' ')}` : ''}`,
    startedAt: started.toISOString(),
    machine: machine(pgVersion),
    settings: { ...settings, datasets: datasets.join(',') },
    notes: [
      'Everything shares the machine: PostgreSQL, the peer under load, the other (idle) peers and autocannon. Numbers are relative, not absolute; other work on the machine adds noise, which is why runs alternate between peers and repeat (median shown).',
      `Each peer is its own Node process with a database pool of ${settings.pool}; autocannon uses ${settings.connections} connections, a warm-up of every peer, in turns, until three successive 1 s windows of each agree within 10% (3-10 windows each, on the first cell), ${quick && option('--warmup') === undefined ? '150 requests' : `${settings.warmup} s`} warm-up per peer and cell, then ${settings.repeats} × ${settings.seconds} s.`,
      'Engine runs without an admin secret; the customer role comes from x-engine-role / x-engine-user-id headers. PostGraphile runs the same role as database role bench_customer with RLS policies on customers and invoices (its idiomatic permission model, one transaction with set_config per request).',
      "raw SQL = Engine's own statement from /v1/graphql/explain (with prepared_arguments), run as a named prepared statement by a bare pg pool behind node:http, answering the same bytes.",
      'PostGraphile v5.1.5: amber preset, connection filter plugin (for like), @graphile/pg-aggregates (for sum), plain lists enabled (+list), index-only filtering off (PgIndexBehaviorsPlugin disabled) so unindexed albums.title can be filtered as in Engine.',
    ],
    summary,
    runs,
    idleEngineRssMiB: idle,
    scale,
    scaleCurve,
    capabilities,
  };
  const outDir = path.join(ROOT, 'test', 'bench', 'results');
  await mkdir(outDir, { recursive: true });
  const label = option('--label');
  const stem = `bench-${started.toISOString().replace(/[:.]/g, '-')}${label === undefined ? '' : `-${label}`}`;
  const md = `${renderMarkdown(report)}\n${renderCapabilities(capabilities)}`;
  await writeFile(path.join(outDir, `${stem}.json`), JSON.stringify(report, null, 2));
  await writeFile(path.join(outDir, `${stem}.md`), md);
  if (summary.length > 0) await writeFile(path.join(outDir, `${stem}.svg`), renderSvg(report));
  log(`\n${md}`);
  log(`results: test/bench/results/${stem}.{json,md${summary.length > 0 ? ',svg' : ''}} (${((Date.now() - started.getTime()) / 1000).toFixed(0)} s)`);
}

if (flag('--soak')) await (await import('./soak.ts')).runSoak();
else await main();
