/**
 * Where a `replace_metadata` call goes at scale, on a running engine over
 * HTTP: the metadata-at-scale database of lib/scale.ts, an engine started on
 * it with an empty document (no tables, as the scale bench's replace finds
 * it) under `node --cpu-prof`, then the replace of the whole document (N tables
 * × R roles) and the admin and every role answered. The engine's CPU profile
 * is cut in two at the answer (samples are matched by the monotonic clock,
 * which the profile and this process share): `<dir>/<label>-<k>-call.cpuprofile`
 * (request → answer) and `…-after.cpuprofile` (answer → every role answered),
 * for profile-summary.ts. Prints the engine CPU, wall time and RSS of each
 * part. `--before-root <checkout>` alternates each round with that checkout's
 * engine; `--no-prof` leaves the profiler out (CPU figures without its cost).
 *
 * Run: node test/bench/replace-profile.ts [tables=2000] [roles=10] [rounds=2] [dir=/tmp/replace-profile] [--engine-root <checkout>] [--before-root <checkout>] [--no-prof]
 */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { metadataCall } from './lib/engine-metadata.ts';
import { setEngineRoot, startEngine } from './lib/engine.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { cpuMs, rssMiB } from './lib/process.ts';
import { profileArgs } from './lib/profile-args.ts';
import { allRolesAnswer, createScaleTables, tableName, withScaleTables } from './lib/scale.ts';

const {
  afterRoot,
  beforeRoot,
  profile: PROFILE,
  tables: TABLES,
  roles: ROLES,
  rounds: ROUNDS,
  dir: DIR,
} = profileArgs(process.argv.slice(2), '/tmp/replace-profile');

interface Profile {
  nodes: unknown[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The monotonic clock in µs, as V8's profiler stamps its samples (CLOCK_MONOTONIC on Linux). */
const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

/** The samples of `p` between `from` and `to` (µs, monotonic) as a profile of their own. */
function cut(p: Profile, from: number, to: number): Profile {
  const samples: number[] = [];
  const timeDeltas: number[] = [];
  let t = p.startTime;
  let last = from;
  p.samples.forEach((id, i) => {
    t += p.timeDeltas[i] ?? 0;
    if (t < from || t > to) return;
    samples.push(id);
    timeDeltas.push(t - last);
    last = t;
  });
  return { nodes: p.nodes, startTime: from, endTime: to, samples, timeDeltas };
}

const pg = await startBenchPostgres();
try {
  const db = 'replace_profile';
  const url = await pg.createDatabase(db);
  await createScaleTables(pg, db, TABLES);
  await rm(DIR, { recursive: true, force: true });
  await mkdir(DIR, { recursive: true });
  const sides =
    beforeRoot === null
      ? ([['after', afterRoot]] as const)
      : ([
          ['before', beforeRoot],
          ['after', afterRoot],
        ] as const);
  const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const runs: Record<string, Array<{ call: number; callCpu: number; all: number; allCpu: number; rssCall: number; rssAll: number }>> = {};
  for (let k = 1; k <= ROUNDS; k++) {
    for (const [label, root] of sides) {
      setEngineRoot(root);
      // An empty document first, in an engine of its own, so the measured one starts as the scale bench's does.
      let body: string;
      {
        const setup = await startEngine(url);
        try {
          const exported = await metadataCall(setup.url, { type: 'export_metadata', args: {} });
          const empty = withScaleTables(exported, 0, 0);
          await metadataCall(setup.url, JSON.stringify({ type: 'replace_metadata', args: empty }));
          body = JSON.stringify({ type: 'replace_metadata', args: withScaleTables(empty, TABLES, ROLES) });
        } finally {
          await setup.stop();
        }
      }
      const profDir = path.join(DIR, `${label}-${k}-raw`);
      const engine = await startEngine(url, PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []);
      const pid = engine.child.pid;
      let marks: [number, number, number];
      let r: { call: number; callCpu: number; all: number; allCpu: number; rssCall: number; rssAll: number };
      try {
        const cpu0 = (await cpuMs(pid)) ?? NaN;
        const t0 = nowUs();
        await metadataCall(engine.url, body);
        const t1 = nowUs();
        const cpu1 = (await cpuMs(pid)) ?? NaN;
        const rssCall = (await rssMiB(pid)) ?? NaN;
        const t2 = nowUs();
        await allRolesAnswer(engine.url, tableName(TABLES), ROLES);
        const t3 = nowUs();
        const cpu2 = (await cpuMs(pid)) ?? NaN;
        const rssAll = (await rssMiB(pid)) ?? NaN;
        marks = [t0, t1, t3];
        r = { call: (t1 - t0) / 1000, callCpu: cpu1 - cpu0, all: (t3 - t0) / 1000 - (t2 - t1) / 1000, allCpu: cpu2 - cpu0, rssCall, rssAll };
      } finally {
        await engine.stop();
      }
      (runs[label] ??= []).push(r);
      console.log(
        `${label} ${k}: replace answer ${r.call.toFixed(0)} ms (engine CPU ${r.callCpu.toFixed(0)} ms, RSS ${r.rssCall} MiB); every role answered ${r.all.toFixed(0)} ms (engine CPU ${r.allCpu.toFixed(0)} ms, RSS ${r.rssAll} MiB)`,
      );
      if (PROFILE) {
        const [file] = await readdir(profDir);
        if (file === undefined) throw new Error(`no profile in ${profDir}`);
        const p = JSON.parse(await readFile(path.join(profDir, file), 'utf8')) as Profile;
        await writeFile(path.join(DIR, `${label}-${k}-call.cpuprofile`), JSON.stringify(cut(p, marks[0], marks[1])));
        await writeFile(path.join(DIR, `${label}-${k}-after.cpuprofile`), JSON.stringify(cut(p, marks[1], marks[2])));
        await rm(profDir, { recursive: true, force: true });
      }
    }
  }
  for (const [label, rs] of Object.entries(runs)) {
    const m = (f: (r: (typeof rs)[number]) => number): string => median(rs.map(f)).toFixed(0);
    console.log(
      `${label} median of ${rs.length}: replace answer ${m((r) => r.call)} ms (CPU ${m((r) => r.callCpu)} ms, RSS ${m((r) => r.rssCall)} MiB), every role ${m((r) => r.all)} ms (CPU ${m((r) => r.allCpu)} ms, RSS ${m((r) => r.rssAll)} MiB)`,
    );
  }
  if (PROFILE) console.log(`profiles in ${DIR} (node test/bench/profile-summary.ts <file>)`);
} finally {
  await pg.stop();
}
