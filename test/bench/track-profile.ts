/**
 * Where a metadata change's time goes at scale, in one process (no HTTP): the
 * metadata-at-scale database of lib/scale.ts, replace_metadata, every role
 * schema built through one SchemaCache (as the GraphQL service does), then
 * one more table tracked and the admin and every role schema built again.
 * Each schema is then asked one query, as a role's first request would be
 * (the engine's validate step, where graphql-js validates a new schema).
 * Run under `node --cpu-prof` to see which functions the change spends on.
 *
 * With --collection, a query collection holds one query first, so every
 * metadata call validates it against the admin schema of its build (Note
 * [Checking stored queries] in engine/rest/query-check.ts).
 *
 * The heap after each change (with --expose-gc) shows what older catalog
 * versions keep.
 *
 * With --profile-tracks=<file.cpuprofile>, a CPU profile of the tracks only
 * (the call and every schema after it, not the first build) goes to that file
 * (for profile-summary.ts). With --profile-first=<file.cpuprofile>, a CPU
 * profile of the first build only (every schema after replace_metadata and
 * each role's first request).
 *
 * Run: node [--cpu-prof] [--expose-gc] test/bench/track-profile.ts [tables=2000] [roles=10] [tracks=3] [--collection] [--profile-tracks=<file>] [--profile-first=<file>]
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { buildSession } from '../../engine/auth/session.ts';
import { SchemaCache } from '../../engine/graphql/schema/schema-cache.ts';
import { silentLogger } from '../../engine/logger.ts';
import { MetadataService } from '../../engine/metadata/service.ts';
import { adminQueryChecker } from '../../engine/rest/query-check.ts';
import { prepareOperation } from '../../engine/execute/validate.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { createScaleTables, tableName, withScaleTables } from './lib/scale.ts';
import { gc, mib } from './lib/heap.ts';

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const TABLES = Number(positional[0] ?? 2000);
const ROLES = Number(positional[1] ?? 10);
const TRACKS = Number(positional[2] ?? 3);
const COLLECTION = process.argv.includes('--collection');
const PROFILE_TRACKS = process.argv.find((a) => a.startsWith('--profile-tracks='))?.slice('--profile-tracks='.length);
const PROFILE_FIRST = process.argv.find((a) => a.startsWith('--profile-first='))?.slice('--profile-first='.length);
type Json = Record<string, unknown>;

/** CPU milliseconds of this process (user + system): less sensitive than wall time to other work on the machine. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function startProfile(): Promise<Session> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return session;
}

async function stopProfile(session: Session, file: string): Promise<void> {
  const { profile } = await session.post('Profiler.stop');
  await writeFile(file, JSON.stringify(profile));
  session.disconnect();
}

async function call(service: MetadataService, body: Json): Promise<Json> {
  const res = await service.handle('metadata', body, buildSession('admin', {}));
  if (res.status !== 200) throw new Error(`metadata call failed: ${JSON.stringify(res).slice(0, 500)}`);
  return (res as { json: Json }).json;
}

const pg = await startBenchPostgres();
try {
  const url = await pg.createDatabase('track_profile');
  await createScaleTables(pg, 'track_profile', TABLES + TRACKS);
  // As the engine: stored queries are checked with the request path's schema cache (an older checkout ignores it).
  const cache = new SchemaCache();
  const service = await MetadataService.start({
    metadataDatabaseUrl: url,
    defaultDatabaseUrl: url,
    logger: silentLogger,
    ...(COLLECTION ? { checkQueries: adminQueryChecker({}, () => cache) } : {}),
  });
  try {
    const doc = withScaleTables(await call(service, { type: 'export_metadata', args: {} }), TABLES, ROLES);
    await call(service, { type: 'replace_metadata', args: doc });
    if (COLLECTION) {
      const query = { name: 'first', query: `query first { ${tableName(1)}(limit: 1) { id name } }` };
      await call(service, { type: 'create_query_collection', args: { name: 'bench', definition: { queries: [query] } } });
    }
    const roles: Array<readonly [string, boolean]> = [['admin', true], ...Array.from({ length: ROLES }, (_, r) => [`role_${r + 1}`, false] as const)];
    // What a role's first request adds to its schema: the engine's validate step (graphql-js validates the schema then).
    const firstRequest = (role: string, isAdmin: boolean, table: string): number => {
      const t = cpuMs();
      prepareOperation(cache.get(service.catalogRef.current, role, isAdmin).schema, `{ ${table}(limit: 1) { id } }`, null);
      return cpuMs() - t;
    };
    let requestsMs = 0;
    // Each role's build and first request, CPU ms (the first build's are printed: where a replace's time goes).
    let perRole: string[] = [];
    const allRoles = (table = tableName(TABLES)): number => {
      let built = 0;
      const builds: number[] = [];
      for (const [role, isAdmin] of roles) {
        const t = cpuMs();
        cache.get(service.catalogRef.current, role, isAdmin);
        builds.push(cpuMs() - t);
        built += builds[builds.length - 1] as number;
      }
      requestsMs = 0;
      perRole = roles.map(([role, isAdmin], i) => {
        const ms = firstRequest(role, isAdmin, table);
        requestsMs += ms;
        return `${role} ${(builds[i] as number).toFixed(0)}+${ms.toFixed(0)}`;
      });
      return built;
    };
    const first = PROFILE_FIRST === undefined ? null : await startProfile();
    const firstMs = allRoles();
    if (first !== null && PROFILE_FIRST !== undefined) await stopProfile(first, PROFILE_FIRST);
    console.log(`first build of every schema: ${firstMs.toFixed(0)} ms, then a request of every role ${requestsMs.toFixed(0)} ms (CPU)`);
    console.log(`  each role, build + first request (CPU ms): ${perRole.join(', ')}`);
    const inspector = PROFILE_TRACKS === undefined ? null : new Session();
    if (inspector !== null) {
      inspector.connect();
      await inspector.post('Profiler.enable');
      await inspector.post('Profiler.start');
    }
    for (let k = 1; k <= TRACKS; k++) {
      const t = cpuMs();
      await call(service, { type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: tableName(TABLES + k) } } });
      const trackMs = cpuMs() - t;
      const t1 = cpuMs();
      cache.get(service.catalogRef.current, 'admin', true);
      const adminMs = cpuMs() - t1;
      const adminRequestMs = firstRequest('admin', true, tableName(TABLES + k));
      const rest = allRoles();
      gc();
      const heap = mib(process.memoryUsage().heapUsed);
      console.log(
        `track ${tableName(TABLES + k)}: call ${trackMs.toFixed(0)} ms, admin schema ${adminMs.toFixed(0)} ms + its first request ${adminRequestMs.toFixed(0)} ms, then every role ${rest.toFixed(0)} ms + their requests ${requestsMs.toFixed(0)} ms (CPU); heap ${heap}`,
      );
    }
    if (inspector !== null && PROFILE_TRACKS !== undefined) {
      const { profile } = await inspector.post('Profiler.stop');
      await writeFile(PROFILE_TRACKS, JSON.stringify(profile));
      inspector.disconnect();
    }
  } finally {
    await service.close();
  }
} finally {
  await pg.stop();
}
