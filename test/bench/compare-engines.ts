/**
 * `node test/bench/compare-engines.ts <before-root> [after-root] [options]`:
 * before/after numbers for an engine change. Two engines (two checkouts, e.g.
 * `git worktree add /tmp/before <commit>` with a node_modules symlink) serve
 * the same data set, and every workload operation is loaded on each in
 * alternation, so machine noise hits both alike. Prints a Markdown table of
 * median req/s and CPU per request (engine process and PostgreSQL).
 *
 * Options: --dataset chinook|sf<N> (default chinook), --seconds N (4),
 * --repeats N (3), --connections N (16), --pool N (8), --ops a,b and --roles a,b
 * (only these operations and roles), --gc (both engines run with V8's
 * `--trace-gc-nvp`; the table adds, per request, the bytes young collections
 * promoted to the old generation and the collector's main-thread pauses, and
 * the full collections per 1,000 requests, from the lines printed during each
 * load. Pauses are wall time: on a loaded machine they grow with the load, the
 * promoted bytes do not; also the bytes allocated per request and the young
 * collections per 1,000 requests, which tell an engine whose young generation
 * the memory reducer shrank: Note [First cell after idle] in
 * engine/server/graphql-fast-path.ts), --idle N (N seconds without load before every
 * measured run, so that each run is what the bench's first cell measures: an
 * engine that idled while the other peers warmed up; Note [First cell after
 * idle] in engine/server/graphql-fast-path.ts).
 */
import path from 'node:path';
import { chinookWorkloadText } from './data/chinook.ts';
import { datasetAvailable, loadDataset } from './lib/datasets.ts';
import { setEngineRoot, startEngine } from './lib/engine.ts';
import { runLoad, warmUntilSteady, type LoadResult } from './lib/load.ts';
import { engineHeaders, ROLES } from './lib/peers.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { ROOT } from './lib/process.ts';
import { loadWorkload } from './workload.ts';
import type { ChildProcess } from 'node:child_process';

const args = process.argv.slice(2);
const positional = args.filter((a, i) => !a.startsWith('--') && !(args[i - 1] ?? '').startsWith('--'));
const option = (name: string, dflt: string): string => {
  const i = args.indexOf(name);
  return i >= 0 ? (args[i + 1] ?? dflt) : dflt;
};
const beforeRoot = positional[0];
if (beforeRoot === undefined) throw new Error('usage: compare-engines.ts <before-root> [after-root] [--dataset d] [--seconds n] [--repeats n]');
const afterRoot = positional[1] ?? ROOT;
const dataset = option('--dataset', 'chinook');
const seconds = Number(option('--seconds', '4'));
const repeats = Number(option('--repeats', '3'));
const connections = Number(option('--connections', '16'));
const pool = Number(option('--pool', '8'));
const onlyOps = option('--ops', '')
  .split(',')
  .filter((s) => s !== '');
const onlyRoles = option('--roles', '')
  .split(',')
  .filter((s) => s !== '');
const gc = args.includes('--gc');
const idleSeconds = Number(option('--idle', '0'));
if (!datasetAvailable(dataset)) throw new Error(`data set ${dataset} is not available`);

/**
 * V8's `--trace-gc-nvp` lines of one engine, summed: main-thread pause ms, bytes promoted by young collections, full
 * and young collections, and bytes allocated (each line's `allocated`: since the collection before).
 */
interface GcTally {
  pauseMs: number;
  promoted: number;
  full: number;
  young: number;
  allocated: number;
}
/** One `--trace-gc-nvp` line: `… pause=1.23 … gc=s … allocated=45678 promoted=12345 …` (gc: s scavenge, ms/mc full, mmc minor mark-sweep). */
const GC_LINE = /pause=([\d.]+)[^\n]*?\bgc=(\w+)[^\n]*?\ballocated=(\d+) promoted=(\d+)/g;
function tallyGc(child: ChildProcess): GcTally {
  const t: GcTally = { pauseMs: 0, promoted: 0, full: 0, young: 0, allocated: 0 };
  let rest = '';
  child.stdout?.on('data', (c: Buffer) => {
    const text = rest + c.toString();
    const end = text.lastIndexOf('\n');
    rest = text.slice(end + 1);
    for (const m of text.slice(0, end + 1).matchAll(GC_LINE)) {
      t.pauseMs += Number(m[1]);
      t.allocated += Number(m[3]);
      if (m[2] === 'ms' || m[2] === 'mc') t.full++;
      else {
        t.young++;
        t.promoted += Number(m[4]);
      }
    }
  });
  return t;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const pg = await startBenchPostgres();
try {
  setEngineRoot(path.resolve(beforeRoot));
  const nodeArgs = gc ? ['--trace-gc-nvp'] : [];
  const before = await loadDataset(pg, dataset, pool, nodeArgs);
  // The second engine serves the same database and reads the metadata the first one stored there.
  setEngineRoot(path.resolve(afterRoot));
  const after = await startEngine(before.databaseUrl, nodeArgs);
  const engines = [
    { label: 'before', engine: before.engine, gc: tallyGc(before.engine.child) },
    { label: 'after', engine: after, gc: tallyGc(after.child) },
  ];
  const gcOf: Record<string, Array<{ us: number; promoted: number; fullPerK: number; youngPerK: number; allocated: number }>> = {};
  const workload = loadWorkload(await chinookWorkloadText());
  const lines = [
    `Before: ${path.resolve(beforeRoot)}; after: ${path.resolve(afterRoot)}; data set ${dataset}; ${repeats} × ${seconds} s per engine, alternated, ${connections} connections, pool ${pool}${idleSeconds > 0 ? `, ${idleSeconds} s idle before each run` : ''}.`,
    '',
    `| operation | role | before req/s | after req/s | after/before | before µs/req engine + PG | after µs/req engine + PG |${gc ? ' before allocated B/req, promoted B/req, GC pause µs/req, young and full per 1k | after allocated B/req, promoted B/req, GC pause µs/req, young and full per 1k |' : ''}`,
    `|---|---|---:|---:|---:|---:|---:|${gc ? '---:|---:|' : ''}`,
  ];
  let warmed = false;
  for (const op of workload.ops) {
    if (onlyOps.length > 0 && !onlyOps.includes(op.name)) continue;
    for (const role of ROLES) {
      if (onlyRoles.length > 0 && !onlyRoles.includes(role)) continue;
      if (role === 'customer' && op.customerNotApplicable !== null) continue;
      const body = JSON.stringify({ query: workload.engineQuery.get(op.name), operationName: op.name, variables: op.variables });
      // Both engines to their steady state before the first cell (Note [Steady-state warm-up] in lib/load.ts).
      if (!warmed) {
        warmed = true;
        for (const e of engines) {
          const w = await warmUntilSteady(
            { url: `${e.engine.url}/v1/graphql`, body, headers: engineHeaders(role) },
            connections,
            e.engine.child.pid,
            pg.postmasterPid,
          );
          process.stdout.write(`warm-up ${e.label}: ${w.windows.map((x) => x.toFixed(0)).join(' → ')} req/s${w.steady ? '' : ' (not steady)'}\n`);
        }
      }
      const results: Record<string, LoadResult[]> = { before: [], after: [] };
      for (const e of engines)
        await runLoad(
          { url: `${e.engine.url}/v1/graphql`, body, headers: engineHeaders(role) },
          { connections, seconds: 1 },
          e.engine.child.pid,
          pg.postmasterPid,
        );
      for (const e of engines) gcOf[e.label] = [];
      for (let rep = 0; rep < repeats; rep++) {
        for (const e of rep % 2 === 0 ? engines : [...engines].reverse()) {
          if (idleSeconds > 0) await new Promise((r) => setTimeout(r, idleSeconds * 1000));
          // Lines printed by now belong to earlier loads (the engine writes them as it collects).
          const gc0 = { ...e.gc };
          const r = await runLoad(
            { url: `${e.engine.url}/v1/graphql`, body, headers: engineHeaders(role) },
            { connections, seconds },
            e.engine.child.pid,
            pg.postmasterPid,
          );
          if (r.errors > 0 || r.non2xx > 0) throw new Error(`${e.label} ${op.name} ${role}: ${r.errors} errors, ${r.non2xx} non-2xx`);
          results[e.label]?.push(r);
          gcOf[e.label]?.push({
            us: ((e.gc.pauseMs - gc0.pauseMs) * 1000) / r.requests,
            promoted: (e.gc.promoted - gc0.promoted) / r.requests,
            fullPerK: ((e.gc.full - gc0.full) * 1000) / r.requests,
            youngPerK: ((e.gc.young - gc0.young) * 1000) / r.requests,
            allocated: (e.gc.allocated - gc0.allocated) / r.requests,
          });
        }
      }
      const b = results['before'] ?? [];
      const a = results['after'] ?? [];
      const rb = median(b.map((r) => r.rps));
      const ra = median(a.map((r) => r.rps));
      const cpu = (rs: LoadResult[]): string =>
        `${median(rs.map((r) => (r.serverCpuMsPerReq ?? NaN) * 1000)).toFixed(0)} + ${median(rs.map((r) => r.postgresCpuMsPerReq * 1000)).toFixed(0)}`;
      const gcCell = (label: string): string => {
        const xs = gcOf[label] ?? [];
        const m = (f: (x: (typeof xs)[number]) => number): number => median(xs.map(f));
        return ` ${m((x) => x.allocated).toFixed(0)}, ${m((x) => x.promoted).toFixed(0)}, ${m((x) => x.us).toFixed(1)}, ${m((x) => x.youngPerK).toFixed(1)} and ${m((x) => x.fullPerK).toFixed(2)} |`;
      };
      const line = `| ${op.name} | ${role} | ${rb.toFixed(0)} | ${ra.toFixed(0)} | ${(ra / rb).toFixed(2)}× | ${cpu(b)} | ${cpu(a)} |${gc ? gcCell('before') + gcCell('after') : ''}`;
      lines.push(line);
      process.stdout.write(`${line}\n`);
    }
  }
  process.stdout.write(`\n${lines.join('\n')}\n`);
  await after.stop();
  await before.engine.stop();
} finally {
  await pg.stop();
}
