/**
 * The memory of role schemas on the metadata-at-scale database of
 * lib/scale.ts (N tables chained by foreign keys, relationships both ways,
 * R roles with select permissions on every table), in one process without
 * the HTTP server: the catalog is built by the metadata service, then the
 * admin and every role get their schema through one SchemaCache, as the
 * engine's GraphQL service does. Prints the heap each schema keeps, and
 * optionally writes heap snapshots before and after (for heap-summary.ts)
 * and a hash of every role's printed schema (to compare two checkouts).
 *
 * With `--heap-prof <file>`, a V8 sampling heap profile of the role builds
 * (no collection between roles then, so objects are promoted as in the
 * engine's warm-up) is written after a full collection: what the builds
 * keep; with `--heap-prof-promoted` as well, every sampled object a young
 * collection did not free, dead or alive (`includeObjectsCollectedByMajorGC`);
 * with `--heap-prof-all`, everything allocated.
 * The second minus the first, by site (alloc-sites.ts), is the garbage the
 * builds promote: Note [What the builds promote] in schema-cache.ts.
 *
 * With `--burst` (implied by `--heap-prof`), no collection between roles
 * either, as in the engine's warm-up, and it prints what the builds added
 * to the old generation (v8.GCProfiler: bytes young collections promoted,
 * and growth between collections, which is what V8 allocates there
 * directly: large objects, hidden classes, internalized strings), the old
 * generation at the end and after a full collection, and the builds' CPU
 * ms: Note [What the builds promote] in engine/graphql/schema/schema-cache.ts.
 *
 * Run: node --expose-gc test/bench/schema-memory.ts [tables=2000] [roles=10] [--snapshot dir] [--sdl]
 *        [--heap-prof file [--heap-prof-promoted | --heap-prof-all]]
 * (as `engine serve` runs: NODE_ENV=production and --max-semi-space-size=16 before the script).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { GCProfiler, getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { printSchema } from 'graphql';
import { buildSession } from '../../engine/auth/session.ts';
import { SchemaCache } from '../../engine/graphql/schema/schema-cache.ts';
import { silentLogger } from '../../engine/logger.ts';
import { MetadataService } from '../../engine/metadata/service.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { createScaleTables, withScaleTables } from './lib/scale.ts';
import { gc, mib } from './lib/heap.ts';

const argv = process.argv.slice(2);
const positional = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--snapshot' && argv[i - 1] !== '--heap-prof');
const TABLES = Number(positional[0] ?? 2000);
const ROLES = Number(positional[1] ?? 10);
const snapshotAt = argv.indexOf('--snapshot');
const SNAPSHOT_DIR = snapshotAt >= 0 ? argv[snapshotAt + 1] : undefined;
const SDL = argv.includes('--sdl');
const heapProfAt = argv.indexOf('--heap-prof');
const HEAP_PROF = heapProfAt >= 0 ? argv[heapProfAt + 1] : undefined;
const PROMOTED = argv.includes('--heap-prof-promoted') || argv.includes('--heap-prof-all');
const ALL = argv.includes('--heap-prof-all');
const BURST = argv.includes('--burst') || HEAP_PROF !== undefined;

/** Whether a heap space is outside the young generation. */
const isOld = (name: string): boolean => name !== 'new_space' && name !== 'new_large_object_space';

/** Bytes used outside the young generation (old, code, large-object spaces). */
function oldUsed(): number {
  let n = 0;
  for (const s of getHeapSpaceStatistics()) if (isOld(s.space_name)) n += s.space_used_size;
  return n;
}

interface GcStat {
  readonly gcType: string;
  readonly beforeGC: { readonly heapSpaceStatistics: ReadonlyArray<{ readonly spaceName: string; readonly spaceUsedSize: number }> };
  readonly afterGC: { readonly heapSpaceStatistics: ReadonlyArray<{ readonly spaceName: string; readonly spaceUsedSize: number }> };
}

/** Old-generation bytes used in one GCProfiler snapshot. */
const oldOf = (s: GcStat['beforeGC']): number => s.heapSpaceStatistics.reduce((n, sp) => n + (isOld(sp.spaceName) ? sp.spaceUsedSize : 0), 0);

/** Bytes young collections moved to the old generation, and bytes the old generation grew by between collections, from `start` to `end`. */
function oldAllocation(stats: readonly GcStat[], start: number, end: number): { promoted: number; direct: number } {
  let promoted = 0;
  let direct = 0;
  let last = start;
  for (const s of stats) {
    const before = oldOf(s.beforeGC);
    const after = oldOf(s.afterGC);
    direct += before - last;
    // A young collection's growth is what it promoted; a full one only frees.
    if (s.gcType === 'Scavenge' || s.gcType === 'MinorMarkSweep') promoted += after - before;
    last = after;
  }
  direct += end - last;
  return { promoted, direct };
}

type Json = Record<string, unknown>;

async function call(service: MetadataService, body: Json): Promise<Json> {
  const res = await service.handle('metadata', body, buildSession('admin', {}));
  if (res.status !== 200) throw new Error(`metadata call failed: ${JSON.stringify(res).slice(0, 500)}`);
  return (res as { json: Json }).json;
}

async function main(): Promise<void> {
  if ((globalThis as { gc?: unknown }).gc === undefined) console.log('(run with --expose-gc for exact heap numbers)');
  const pg = await startBenchPostgres();
  try {
    const url = await pg.createDatabase('schema_memory');
    await createScaleTables(pg, 'schema_memory', TABLES);
    const service = await MetadataService.start({ metadataDatabaseUrl: url, defaultDatabaseUrl: url, logger: silentLogger });
    try {
      const doc = withScaleTables(await call(service, { type: 'export_metadata', args: {} }), TABLES, ROLES);
      let t = performance.now();
      await call(service, { type: 'replace_metadata', args: doc });
      console.log(`## ${TABLES} tables × ${ROLES} roles`);
      console.log(`replace_metadata: ${(performance.now() - t).toFixed(0)} ms`);
      const catalog = service.catalogRef.current;
      gc();
      const heap0 = process.memoryUsage();
      console.log(`catalog built: heap ${mib(heap0.heapUsed)}, RSS ${mib(heap0.rss)}`);
      if (SNAPSHOT_DIR !== undefined) console.log(`snapshot: ${writeHeapSnapshot(path.join(SNAPSHOT_DIR, 'before.heapsnapshot'))}`);

      const cache = new SchemaCache();
      const seen = new Set<unknown>();
      const roles: Array<readonly [string, boolean]> = [['admin', true], ...Array.from({ length: ROLES }, (_, r) => [`role_${r + 1}`, false] as const)];
      let last = heap0.heapUsed;
      const profiler = HEAP_PROF === undefined ? undefined : new Session();
      if (profiler !== undefined) {
        profiler.connect();
        await profiler.post('HeapProfiler.enable');
        await profiler.post('HeapProfiler.startSampling', {
          samplingInterval: 32768,
          includeObjectsCollectedByMajorGC: PROMOTED,
          includeObjectsCollectedByMinorGC: ALL,
        });
      }
      t = performance.now();
      const cpu0 = process.cpuUsage();
      const gcProfiler = BURST ? new GCProfiler() : undefined;
      gcProfiler?.start();
      const old0 = oldUsed();
      const sdl: string[] = [];
      for (const [role, isAdmin] of roles) {
        const t0 = performance.now();
        const s = cache.get(catalog, role, isAdmin);
        const ms = performance.now() - t0;
        const fresh = !seen.has(s.schema);
        seen.add(s.schema);
        // Building the type map is part of a schema's first use (validation, introspection).
        s.schema.getTypeMap();
        const typeMap = s.schema.getTypeMap();
        for (const name in typeMap) {
          const type = typeMap[name]!;
          if ('getFields' in type) type.getFields();
        }
        if (!BURST) gc();
        const now = process.memoryUsage().heapUsed;
        console.log(`${role}: ${fresh ? 'new schema' : 'shared'}, ${ms.toFixed(0)} ms, heap +${mib(now - last)}`);
        last = now;
        if (SDL) sdl.push(`${role} ${createHash('sha256').update(printSchema(s.schema)).digest('hex').slice(0, 16)}`);
      }
      const totalMs = performance.now() - t;
      if (BURST) {
        const cpu = process.cpuUsage(cpu0);
        const old = oldUsed();
        const stats = (gcProfiler?.stop() as { statistics: GcStat[] } | undefined)?.statistics ?? [];
        const { promoted, direct } = oldAllocation(stats, old0, old);
        gc();
        const kept = oldUsed();
        console.log(`burst: old generation allocated by the builds ${mib(promoted + direct)} (promoted ${mib(promoted)}, directly ${mib(direct)})`);
        console.log(
          `burst: old generation at the end ${mib(old)}, after a full collection ${mib(kept)}: garbage ${mib(old - kept)}; builds CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms`,
        );
      }
      gc();
      if (profiler !== undefined && HEAP_PROF !== undefined) {
        const { profile } = await profiler.post('HeapProfiler.stopSampling');
        writeFileSync(HEAP_PROF, JSON.stringify(profile));
        console.log(`heap profile: ${HEAP_PROF}`);
        profiler.disconnect();
      }
      const heap1 = process.memoryUsage();
      console.log(
        `all ${roles.length} schemas: ${seen.size} distinct, ${totalMs.toFixed(0)} ms; heap kept ${mib(heap1.heapUsed - heap0.heapUsed)}, heap ${mib(heap1.heapUsed)}, RSS ${mib(heap1.rss)}`,
      );
      if (SNAPSHOT_DIR !== undefined) console.log(`snapshot: ${writeHeapSnapshot(path.join(SNAPSHOT_DIR, 'after.heapsnapshot'))}`);
      if (SDL) console.log(`printed schemas (sha256):\n${sdl.join('\n')}`);
      // Keeps the schemas alive until the end.
      if (cache.get(catalog, 'admin', true) === undefined) throw new Error('unreachable');
    } finally {
      await service.close();
    }
  } finally {
    await pg.stop();
  }
}

await main();
