/**
 * Starts the bench's PostgreSQL, one data set and the three peers, writes the
 * load targets of every cell to a JSON file, and keeps everything running
 * until Ctrl-C: for profiling a peer by hand (`perf`, `strace -c -p <pid>`,
 * autocannon with other settings) without the bench's timing loop.
 *
 * Run: node test/bench/serve.ts [dataset] [targets.json]
 * (dataset: chinook or sf<N>, default chinook; targets default /tmp/bench-targets.json)
 */
import { writeFile } from 'node:fs/promises';
import { loadDataset } from './lib/datasets.ts';
import { prepareCells, startOtherPeers } from './lib/peers.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { chinookWorkloadText } from './data/chinook.ts';
import { loadWorkload } from './workload.ts';

const dataset = process.argv[2] ?? 'chinook';
const out = process.argv[3] ?? '/tmp/bench-targets.json';

const bench = await startBenchPostgres();
const ds = await loadDataset(bench, dataset, 8);
const peers = await startOtherPeers(ds.engine, ds.databaseUrl, 8);
const cells = await prepareCells(peers, loadWorkload(await chinookWorkloadText()));
const targets = cells.filter((c) => c.targets !== null).map((c) => ({ op: c.op.name, role: c.role, targets: c.targets }));
await writeFile(
  out,
  JSON.stringify(
    { pids: { engine: peers.pid('engine'), postgraphile: peers.pid('postgraphile'), raw: peers.pid('raw'), postmaster: bench.postmasterPid }, cells: targets },
    null,
    2,
  ),
);
console.log(`peers running on ${dataset}; targets and pids in ${out}; Ctrl-C stops`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await peers.stop();
  await bench.stop();
  process.exit(0);
}
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
setInterval(() => {}, 1 << 30);
