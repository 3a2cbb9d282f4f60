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
 * Run: node --expose-gc test/bench/schema-memory.ts [tables=2000] [roles=10] [--snapshot dir] [--sdl]
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { printSchema } from 'graphql';
import { buildSession } from '../../engine/auth/session.ts';
import { SchemaCache } from '../../engine/graphql/schema/schema-cache.ts';
import { silentLogger } from '../../engine/logger.ts';
import { MetadataService } from '../../engine/metadata/service.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { createScaleTables, withScaleTables } from './lib/scale.ts';
import { gc, mib } from './lib/heap.ts';

const argv = process.argv.slice(2);
const positional = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--snapshot');
const TABLES = Number(positional[0] ?? 2000);
const ROLES = Number(positional[1] ?? 10);
const snapshotAt = argv.indexOf('--snapshot');
const SNAPSHOT_DIR = snapshotAt >= 0 ? argv[snapshotAt + 1] : undefined;
const SDL = argv.includes('--sdl');

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
      t = performance.now();
      const sdl: string[] = [];
      for (const [role, isAdmin] of roles) {
        const t0 = performance.now();
        const s = cache.get(catalog, role, isAdmin);
        const ms = performance.now() - t0;
        const fresh = !seen.has(s.schema);
        seen.add(s.schema);
        // Building the type map is part of a schema's first use (validation, introspection).
        s.schema.getTypeMap();
        for (const type of Object.values(s.schema.getTypeMap())) if ('getFields' in type) type.getFields();
        gc();
        const now = process.memoryUsage().heapUsed;
        console.log(`${role}: ${fresh ? 'new schema' : 'shared'}, ${ms.toFixed(0)} ms, heap +${mib(now - last)}`);
        last = now;
        if (SDL) sdl.push(`${role} ${createHash('sha256').update(printSchema(s.schema)).digest('hex').slice(0, 16)}`);
      }
      const totalMs = performance.now() - t;
      gc();
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
