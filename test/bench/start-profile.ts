/**
 * Where an engine's start goes at scale: the metadata-at-scale database of
 * lib/scale.ts (made once), then the engine started on it `starts` times
 * under `node --cpu-prof`, each until /healthz answers and until the admin and
 * every role answered a query; the profiles go to `dir` (one per start, for
 * profile-summary.ts), the times to stdout, with the CPU the engine and
 * PostgreSQL spent until /healthz answered and the engine's until every role answered. `--before-root <checkout>`
 * alternates each start with one of the engine of that checkout (a git worktree of an
 * older commit), on the same database, and prints the medians of both; `--no-prof` leaves `--cpu-prof` out.
 *
 * Run: node test/bench/start-profile.ts [tables=2000] [roles=10] [starts=2] [dir=/tmp/start-profile] [--engine-root <checkout>] [--before-root <checkout>] [--no-prof]
 */
import { mkdir, rm } from 'node:fs/promises';
import { buildSession } from '../../engine/auth/session.ts';
import { silentLogger } from '../../engine/logger.ts';
import { MetadataService } from '../../engine/metadata/service.ts';
import { setEngineRoot, startEngine } from './lib/engine.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { cpuMs, postgresCpuMs } from './lib/process.ts';
import { profileArgs } from './lib/profile-args.ts';
import { createScaleTables, tableName, withScaleTables } from './lib/scale.ts';

const {
  afterRoot,
  beforeRoot,
  profile: PROFILE,
  tables: TABLES,
  roles: ROLES,
  rounds: STARTS,
  dir: DIR,
} = profileArgs(process.argv.slice(2), '/tmp/start-profile');
type Json = Record<string, unknown>;

async function call(service: MetadataService, body: Json): Promise<Json> {
  const res = await service.handle('metadata', body, buildSession('admin', {}));
  if (res.status !== 200) throw new Error(`metadata call failed: ${JSON.stringify(res).slice(0, 500)}`);
  return (res as { json: Json }).json;
}

async function answered(url: string, role: string | null): Promise<void> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (role !== null) Object.assign(headers, { 'x-engine-role': role, 'x-engine-user-id': '1' });
  const res = await fetch(`${url}/v1/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: `{ ${tableName(1)}(limit: 1) { id } }` }) });
  const text = await res.text();
  if (!res.ok || text.includes('"errors"')) throw new Error(`query failed: ${text.slice(0, 300)}`);
}

const pg = await startBenchPostgres();
try {
  const url = await pg.createDatabase('start_profile');
  await createScaleTables(pg, 'start_profile', TABLES);
  const service = await MetadataService.start({ metadataDatabaseUrl: url, defaultDatabaseUrl: url, logger: silentLogger });
  try {
    const doc = withScaleTables(await call(service, { type: 'export_metadata', args: {} }), TABLES, ROLES);
    await call(service, { type: 'replace_metadata', args: doc });
  } finally {
    await service.close();
  }
  await rm(DIR, { recursive: true, force: true });
  await mkdir(DIR, { recursive: true });
  // Two starts not measured, so the first measured one finds what a restart finds: the engine's own tables
  // made (async actions comment one of them after the first start's read, which moves the DDL stamp
  // once, so the second start reads the source again) and the introspection stored.
  setEngineRoot(afterRoot);
  for (let k = 0; k < 2; k++) await (await startEngine(url)).stop();
  const runs: Record<string, Array<{ healthz: number; engineCpu: number; pgCpu: number; all: number; allCpu: number }>> = {};
  const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  for (let k = 0; k < STARTS; k++) {
    for (const [label, root] of beforeRoot === null
      ? [['start', afterRoot] as const]
      : ([
          ['before', beforeRoot],
          ['after', afterRoot],
        ] as const)) {
      setEngineRoot(root);
      const pg0 = await postgresCpuMs(pg.postmasterPid);
      const t0 = performance.now();
      const engine = await startEngine(url, PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${DIR}`] : []);
      // CPU until /healthz answered: the engine process (its own threads) and every PostgreSQL process.
      const engineCpu = (await cpuMs(engine.child.pid)) ?? NaN;
      const pgCpu = (await postgresCpuMs(pg.postmasterPid)) - pg0;
      await answered(engine.url, null);
      const admin = performance.now() - t0;
      for (let r = 1; r <= ROLES; r++) await answered(engine.url, `role_${r}`);
      const all = performance.now() - t0;
      const allCpu = (await cpuMs(engine.child.pid)) ?? NaN;
      await engine.stop();
      (runs[label] ??= []).push({ healthz: engine.startMs, engineCpu, pgCpu, all, allCpu });
      console.log(
        `${label} ${k + 1}: /healthz ${engine.startMs.toFixed(0)} ms (CPU engine ${engineCpu.toFixed(0)} ms, PostgreSQL ${pgCpu.toFixed(0)} ms), admin ${admin.toFixed(0)} ms, all roles ${all.toFixed(0)} ms (CPU engine ${allCpu.toFixed(0)} ms)`,
      );
    }
  }
  for (const [label, rs] of Object.entries(runs)) {
    const m = (f: (r: (typeof rs)[number]) => number): string => median(rs.map(f)).toFixed(0);
    console.log(
      `${label} median of ${rs.length}: /healthz ${m((r) => r.healthz)} ms, CPU to /healthz engine ${m((r) => r.engineCpu)} ms + PostgreSQL ${m((r) => r.pgCpu)} ms, all roles ${m((r) => r.all)} ms (CPU engine ${m((r) => r.allCpu)} ms)`,
    );
  }
  if (PROFILE) console.log(`profiles in ${DIR}`);
} finally {
  await pg.stop();
}
