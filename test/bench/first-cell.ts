/**
 * What the bench's first cell measures of an engine, and why it is dearer than
 * later ones: `run.ts` warms every peer in turn (Engine first) and then
 * measures Engine first, so Engine has idled while PostGraphile and raw SQL
 * warmed up (Note [First cell after idle] in engine/server/graphql-fast-path.ts).
 * This runs that sequence alone on AlbumByPK admin for engine variants,
 * alternated: a fresh engine warmed until steady (lib/load.ts), `--idle` ms
 * without load, 150 requests, then `--runs` runs of 2 s, each one's engine CPU
 * per request (the first is the first cell's figure). `--trace` adds V8's
 * `--trace-gc --trace-opt --trace-deopt` and counts, per phase (warm-up, idle,
 * load), the full collections, the optimized functions V8 marked for
 * deoptimization because objects their code embeds died, and the
 * compilations.
 *
 * Run: node test/bench/first-cell.ts [--rounds 3] [--idle 20000] [--runs 4] [--op AlbumByPK] [--trace]
 *        name=<checkout>[:<node flag>,<node flag>] ...
 * e.g. `default=. nofavor=.:--no-memory-reducer-favors-memory` (a checkout: `.` or a `git worktree`
 * with a node_modules symlink).
 */
import path from 'node:path';
import { chinookWorkloadText } from './data/chinook.ts';
import { loadDataset } from './lib/datasets.ts';
import { setEngineRoot, startEngine } from './lib/engine.ts';
import { runLoad, warmUntilSteady } from './lib/load.ts';
import { engineHeaders } from './lib/peers.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { loadWorkload } from './workload.ts';

const argv = process.argv.slice(2);
const opt = (n: string, d: string): string => {
  const i = argv.indexOf(n);
  return i >= 0 ? (argv[i + 1] ?? d) : d;
};
const ROUNDS = Number(opt('--rounds', '3'));
const IDLE_MS = Number(opt('--idle', '20000'));
const RUNS = Number(opt('--runs', '4'));
const OP = opt('--op', 'AlbumByPK');
const TRACE = argv.includes('--trace');
const variants = argv
  .filter((a) => a.includes('=') && !a.startsWith('--'))
  .map((a) => {
    // Split at the first `=` and `:` only: a flag may carry its own value (`--min-semi-space-size=16`).
    const eq = a.indexOf('=');
    const name = a.slice(0, eq);
    const rest = a.slice(eq + 1);
    const colon = rest.indexOf(':');
    const root = colon < 0 ? rest : rest.slice(0, colon);
    const flags = colon < 0 ? undefined : rest.slice(colon + 1);
    return { name, root: path.resolve(root), flags: flags === undefined || flags === '' ? [] : flags.split(',') };
  });
if (variants.length === 0) throw new Error('usage: first-cell.ts [options] name=<checkout>[:<flag>,...] ...');

/** Counts of one phase of an engine's `--trace-*` output. */
interface Phase {
  fullGcs: number;
  reduceGcs: number;
  weakCleared: number;
  compiles: number;
}
const newPhase = (): Phase => ({ fullGcs: 0, reduceGcs: 0, weakCleared: 0, compiles: 0 });

const pg = await startBenchPostgres();
try {
  const workload = loadWorkload(await chinookWorkloadText());
  const op = workload.ops.find((o) => o.name === OP);
  if (op === undefined) throw new Error(`unknown operation ${OP}`);
  const body = JSON.stringify({ query: workload.engineQuery.get(OP), operationName: OP, variables: op.variables });
  let databaseUrl: string | null = null;
  const lines: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
      setEngineRoot(v.root);
      const nodeArgs = [...v.flags, ...(TRACE ? ['--trace-gc', '--trace-opt', '--trace-deopt'] : [])];
      // The first engine loads the data set and stores its metadata; later ones serve the same database.
      let engine;
      if (databaseUrl === null) {
        const ds = await loadDataset(pg, 'chinook', 8, nodeArgs);
        databaseUrl = ds.databaseUrl;
        engine = ds.engine;
      } else engine = await startEngine(databaseUrl, nodeArgs);
      const phases = { warm: newPhase(), idle: newPhase(), load: newPhase() };
      let phase: Phase = phases.warm;
      let rest = '';
      engine.child.stdout?.on('data', (c: Buffer) => {
        const text = rest + c.toString();
        const end = text.lastIndexOf('\n');
        rest = text.slice(end + 1);
        for (const line of text.slice(0, end + 1).split('\n')) {
          if (line.includes('Mark-Compact')) {
            phase.fullGcs++;
            if (line.includes('(reduce)')) phase.reduceGcs++;
          } else if (line.includes('embedded weak objects cleared')) phase.weakCleared++;
          else if (line.includes('completed compiling')) phase.compiles++;
        }
      });
      const pid = engine.child.pid;
      const target = { url: `${engine.url}/v1/graphql`, body, headers: engineHeaders('admin') };
      const w = await warmUntilSteady(target, 16, pid, pg.postmasterPid);
      phase = phases.idle;
      await new Promise((r) => setTimeout(r, IDLE_MS));
      phase = phases.load;
      await runLoad(target, { connections: 16, requests: 150 }, pid, pg.postmasterPid);
      const runs: string[] = [];
      for (let i = 0; i < RUNS; i++) {
        const r = await runLoad(target, { connections: 16, seconds: 2 }, pid, pg.postmasterPid);
        runs.push(`${((r.serverCpuMsPerReq ?? NaN) * 1000).toFixed(1)} µs (${r.rps.toFixed(0)}/s)`);
      }
      await engine.stop();
      const traced = TRACE
        ? `; full GCs (reduce) warm ${phases.warm.fullGcs} (${phases.warm.reduceGcs}), idle ${phases.idle.fullGcs} (${phases.idle.reduceGcs}); ` +
          `marked for deopt (weak objects cleared) idle ${phases.idle.weakCleared}; compiles warm ${phases.warm.compiles}, load ${phases.load.compiles}`
        : '';
      const line = `round ${round} ${v.name.padEnd(10)} warm-up ${w.windows.length} s${w.steady ? '' : ' (not steady)'}; after ${IDLE_MS} ms idle, engine CPU per request of each 2 s run: ${runs.join(', ')}${traced}`;
      lines.push(line);
      process.stdout.write(`${line}\n`);
    }
  }
  process.stdout.write(`\n${lines.join('\n')}\n`);
} finally {
  await pg.stop();
}
