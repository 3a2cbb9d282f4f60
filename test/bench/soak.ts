/**
 * Memory under a steady load (issue 35): four mixed reads (two operations of
 * the workload, each as admin and as the customer role) at a fixed overall
 * rate for N minutes, with a metadata change every 30 s (a table tracked,
 * then untracked: a new catalog version, so every role's schema is built
 * again), sampling the engine's RSS (/proc) and V8 heap (prom-client's Node
 * metrics on /v1/metrics) every few seconds. Prints a table and the slope of
 * the last half of the run (MiB per minute), and writes them to
 * test/bench/results/soak-<time>.{json,md}.
 *
 * Run: node test/bench/run.ts --soak [--soak-minutes N] [--soak-rate RPS] [--heap-snapshots]
 *      (or node test/bench/soak.ts with the same options)
 *   --soak-minutes N   how long the load runs (default 30)
 *   --soak-rate N      overall requests per second of the four reads together (default 1500)
 *   --sample-seconds N seconds between samples (default 5)
 *   --change-seconds N seconds between metadata changes (default 30)
 *   --heap-snapshots   a V8 heap snapshot of the engine at a quarter of the run and at its end
 *                      (results/heap/, compare them with `node test/bench/heap-summary.ts <end> <quarter>`)
 *   --engine-root dir  run Engine from another checkout (before/after)
 * Meant to run beside other work at low priority: `nice -n 19 node test/bench/run.ts --soak`.
 */
import { spawn } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { chinookPresent, chinookWorkloadText } from './data/chinook.ts';
import { loadDataset } from './lib/datasets.ts';
import { metadataCall } from './lib/engine-metadata.ts';
import { setEngineRoot, startEngine, type BenchEngine } from './lib/engine.ts';
import { engineHeaders, type RoleName } from './lib/peers.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { ROOT, rssMiB } from './lib/process.ts';
import { loadWorkload } from './workload.ts';

const argv = process.argv.slice(2);
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
const log = (s: string): void => void process.stdout.write(`${s}\n`);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One sample of the engine's memory. */
interface Sample {
  readonly minute: number;
  readonly rssMiB: number | null;
  readonly heapUsedMiB: number | null;
  readonly heapTotalMiB: number | null;
  readonly externalMiB: number | null;
  readonly changes: number;
}

/** A gauge of prom-client's default Node metrics (prefix `engine_`), in MiB; null when absent. */
function gauge(text: string, name: string): number | null {
  let sum: number | null = null;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== ' ' && rest[0] !== '{') continue;
    const v = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(v)) sum = (sum ?? 0) + v;
  }
  return sum === null ? null : sum / 1024 / 1024;
}

async function sample(engine: BenchEngine, startedAt: number, changes: number): Promise<Sample> {
  let text = '';
  try {
    const res = await fetch(`${engine.url}/v1/metrics`);
    text = await res.text();
  } catch {
    // no sample of the heap this time
  }
  return {
    minute: (performance.now() - startedAt) / 60_000,
    rssMiB: await rssMiB(engine.child.pid),
    heapUsedMiB: gauge(text, 'engine_nodejs_heap_size_used_bytes'),
    heapTotalMiB: gauge(text, 'engine_nodejs_heap_size_total_bytes'),
    externalMiB: gauge(text, 'engine_nodejs_external_memory_bytes'),
    changes,
  };
}

/** Least-squares slope of `y` over `x` (per unit of x), or null with fewer than two points. */
export function slope(points: readonly (readonly [number, number])[]): number | null {
  if (points.length < 2) return null;
  const n = points.length;
  const mx = points.reduce((s, p) => s + p[0], 0) / n;
  const my = points.reduce((s, p) => s + p[1], 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? null : num / den;
}

interface AutocannonJson {
  requests: { total: number };
  latency: { p50: number; p99: number };
  errors: number;
  timeouts: number;
  non2xx: number;
}

/** One autocannon process at a fixed rate for `seconds`. */
function fixedRate(url: string, body: string, headers: Record<string, string>, rate: number, seconds: number): Promise<AutocannonJson> {
  const cli = path.join(ROOT, 'node_modules', 'autocannon', 'autocannon.js');
  const args = [
    cli,
    '-j',
    '-c',
    '4',
    '-R',
    String(Math.max(1, Math.round(rate))),
    '-d',
    String(seconds),
    '-m',
    'POST',
    '-H',
    'content-type=application/json',
    '-b',
    body,
  ];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (text += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(text) as AutocannonJson) : reject(new Error(`autocannon exited ${code}: ${err}`))));
  });
}

const f1 = (n: number | null): string => (n === null ? 'n/a' : n.toFixed(1));

export async function runSoak(): Promise<void> {
  const minutes = num('--soak-minutes', 30);
  const rate = num('--soak-rate', 1500);
  const sampleSeconds = num('--sample-seconds', 5);
  const changeSeconds = num('--change-seconds', 30);
  const snapshots = argv.includes('--heap-snapshots');
  const engineRoot = option('--engine-root');
  if (engineRoot !== undefined) setEngineRoot(path.resolve(engineRoot));
  const started = new Date();
  const outDir = path.join(ROOT, 'test', 'bench', 'results');
  const heapDir = path.join(outDir, 'heap', `soak-${started.toISOString().replace(/[:.]/g, '-')}`);
  if (snapshots) await mkdir(heapDir, { recursive: true });

  const bench = await startBenchPostgres();
  let engine: BenchEngine | null = null;
  try {
    const dataset = chinookPresent() ? 'chinook' : 'sf1';
    log(`soak: loading ${dataset}`);
    const ds = await loadDataset(bench, dataset, 8);
    // The metadata lives in the database: an engine of our own settings (Node metrics, snapshots) takes it over.
    await ds.engine.stop();
    const dbName = ds.databaseUrl.slice(ds.databaseUrl.lastIndexOf('/') + 1);
    await bench.sql(dbName, 'CREATE TABLE soak_extra (id int PRIMARY KEY, note text)');
    const nodeArgs = snapshots ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${heapDir}`] : [];
    engine = await startEngine(ds.databaseUrl, nodeArgs, { ENGINE_GRAPHQL_METRICS_NODE_DEFAULTS: 'true' });
    const running = engine;

    const workload = loadWorkload(await chinookWorkloadText());
    const ops = workload.ops.filter((o) => o.customerNotApplicable === null).slice(0, 2);
    const reads: { name: string; role: RoleName; body: string }[] = [];
    for (const op of ops)
      for (const role of ['admin', 'customer'] as const)
        reads.push({ name: op.name, role, body: JSON.stringify({ query: workload.engineQuery.get(op.name), variables: op.variables }) });
    for (const r of reads) {
      const res = await fetch(`${running.url}/v1/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...engineHeaders(r.role) },
        body: r.body,
      });
      const text = await res.text();
      if (res.status !== 200 || text.includes('"errors"')) throw new Error(`${r.name} as ${r.role}: ${text.slice(0, 300)}`);
    }
    log(`soak: ${minutes} min at ${rate} requests/s over ${reads.map((r) => `${r.name}/${r.role}`).join(', ')}; a metadata change every ${changeSeconds} s`);

    const seconds = Math.round(minutes * 60);
    const t0 = performance.now();
    const loads = Promise.all(reads.map((r) => fixedRate(`${running.url}/v1/graphql`, r.body, engineHeaders(r.role), rate / reads.length, seconds)));
    let done = false;
    void loads.finally(() => (done = true)).catch(() => {});
    const samples: Sample[] = [];
    let changes = 0;
    let changeFailures = 0;
    let nextChange = t0 + changeSeconds * 1000;
    let nextSample = t0;
    let snapshotted = !snapshots;
    while (!done) {
      const now = performance.now();
      if (now >= nextChange) {
        nextChange += changeSeconds * 1000;
        const type = changes % 2 === 0 ? 'pg_track_table' : 'pg_untrack_table';
        try {
          await metadataCall(running.url, { type, args: { source: 'default', table: 'soak_extra' } });
          changes++;
        } catch (e) {
          changeFailures++;
          log(`soak: ${type} failed: ${String(e).slice(0, 200)}`);
        }
      }
      if (now >= nextSample) {
        nextSample += sampleSeconds * 1000;
        const s = await sample(running, t0, changes);
        samples.push(s);
        if (samples.length % Math.max(1, Math.round(60 / sampleSeconds)) === 1)
          log(
            `  ${s.minute.toFixed(1).padStart(5)} min  RSS ${f1(s.rssMiB)} MiB  heap used ${f1(s.heapUsedMiB)} / total ${f1(s.heapTotalMiB)} MiB  changes ${changes}`,
          );
      }
      if (!snapshotted && now - t0 >= (seconds * 1000) / 4) {
        snapshotted = true;
        running.child.kill('SIGUSR2');
      }
      await sleep(Math.max(10, Math.min(nextChange, nextSample) - performance.now()));
    }
    const results = await loads;
    const end = await sample(running, t0, changes);
    samples.push(end);
    if (snapshots) {
      running.child.kill('SIGUSR2');
      // The snapshot is written synchronously by the engine: wait until its file count says so.
      const deadline = Date.now() + 120_000;
      while (Date.now() < deadline && (await readdir(heapDir)).filter((f) => f.endsWith('.heapsnapshot')).length < 2) await sleep(500);
    }
    const requests = results.reduce((s, r) => s + r.requests.total, 0);
    const errors = results.reduce((s, r) => s + r.errors + r.timeouts, 0);
    const non2xx = results.reduce((s, r) => s + r.non2xx, 0);
    const half = samples.filter((s) => s.minute >= minutes / 2);
    const pts = (k: 'rssMiB' | 'heapUsedMiB' | 'heapTotalMiB'): [number, number][] =>
      half.filter((s) => s[k] !== null).map((s) => [s.minute, s[k] as number] as [number, number]);
    const summary = {
      minutes,
      targetRate: rate,
      achievedRate: requests / ((performance.now() - t0) / 1000),
      requests,
      errors,
      non2xx,
      p50: Math.max(...results.map((r) => r.latency.p50)),
      p99: Math.max(...results.map((r) => r.latency.p99)),
      metadataChanges: changes,
      metadataChangeFailures: changeFailures,
      rssFirst: samples[0]?.rssMiB ?? null,
      rssEnd: end.rssMiB,
      heapUsedFirst: samples[0]?.heapUsedMiB ?? null,
      heapUsedEnd: end.heapUsedMiB,
      rssSlopeLastHalf: slope(pts('rssMiB')),
      heapUsedSlopeLastHalf: slope(pts('heapUsedMiB')),
      heapTotalSlopeLastHalf: slope(pts('heapTotalMiB')),
    };
    // A row a minute (the last sample of each minute) keeps the table readable; the JSON has every sample.
    const rows = samples.filter((s, i) => i === samples.length - 1 || Math.floor((samples[i + 1]?.minute ?? 0) + 1e-9) > Math.floor(s.minute + 1e-9));
    const md = [
      `# Soak: ${minutes} min, four mixed reads at ${rate} requests/s, a metadata change every ${changeSeconds} s`,
      '',
      `Started ${started.toISOString()}; ${reads.map((r) => `${r.name}/${r.role}`).join(', ')}; engine from ${engineRoot ?? ROOT}.`,
      '',
      '| minute | RSS MiB | heap used MiB | heap total MiB | external MiB | metadata changes |',
      '|---|---|---|---|---|---|',
      ...rows.map((s) => `| ${s.minute.toFixed(1)} | ${f1(s.rssMiB)} | ${f1(s.heapUsedMiB)} | ${f1(s.heapTotalMiB)} | ${f1(s.externalMiB)} | ${s.changes} |`),
      '',
      `Achieved ${summary.achievedRate.toFixed(0)} requests/s (${requests} requests, ${errors} errors, ${non2xx} non-2xx; worst p50 ${summary.p50} ms, worst p99 ${summary.p99} ms); ${changes} metadata changes (${changeFailures} failed).`,
      `Slope of the last half (MiB/min): RSS ${f1(summary.rssSlopeLastHalf === null ? null : summary.rssSlopeLastHalf)}` +
        `, heap used ${summary.heapUsedSlopeLastHalf?.toFixed(2) ?? 'n/a'}, heap total ${summary.heapTotalSlopeLastHalf?.toFixed(2) ?? 'n/a'}` +
        ` (RSS ${summary.rssSlopeLastHalf?.toFixed(2) ?? 'n/a'}).`,
      snapshots ? `Heap snapshots: ${path.relative(ROOT, heapDir)} (node test/bench/heap-summary.ts <end> <quarter>).` : '',
      'Heap used moves with the garbage collector (a sample may land before or after a collection): read the slope, not one sample.',
    ].join('\n');
    await mkdir(outDir, { recursive: true });
    const stem = `soak-${started.toISOString().replace(/[:.]/g, '-')}`;
    await writeFile(path.join(outDir, `${stem}.json`), JSON.stringify({ command: `node test/bench/run.ts ${argv.join(' ')}`, summary, samples }, null, 2));
    await writeFile(path.join(outDir, `${stem}.md`), md);
    log(`\n${md}\nresults: test/bench/results/${stem}.{json,md}`);
  } finally {
    await engine?.stop();
    await bench.stop();
  }
}

if (import.meta.url === `file://${process.argv[1] ?? ''}`) await runSoak();
