/**
 * What tracking many tables costs, in one process (no HTTP): N tables of the
 * metadata-at-scale database tracked
 *   - one `pg_track_table` call per table (a script or an older console),
 *   - one `bulk` of `pg_track_table` calls,
 *   - one `bulk_keep_going` of them (each call a request of its own: Note
 *     [Bulk that keeps going]),
 *   - one `pg_track_tables` call (v2.24's "track all"),
 *   - one `pg_track_tables` call whose list also names an already-tracked
 *     table and a table the database lacks (both come back as warnings: Note
 *     [Tracking many tables]),
 * each on a fresh metadata (untracked again by clear_metadata), CPU ms of the
 * engine's process and wall ms per round. The separate calls and
 * `bulk_keep_going` are measured only up to `--separate-max` tables (default
 * 500): they build the catalog once per call.
 *
 * Run: node test/bench/track-tables-cost.ts [tables=1000] [rounds=3] [--separate-max=500]
 */
import { buildSession } from '../../engine/auth/session.ts';
import { silentLogger } from '../../engine/logger.ts';
import { MetadataService } from '../../engine/metadata/service.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { createScaleTables, tableName } from './lib/scale.ts';

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const TABLES = Number(positional[0] ?? 1000);
const ROUNDS = Number(positional[1] ?? 3);
const SEPARATE_MAX = Number(process.argv.find((a) => a.startsWith('--separate-max='))?.slice('--separate-max='.length) ?? 500);
type Json = Record<string, unknown>;

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function call(service: MetadataService, body: Json): Promise<Json> {
  const res = await service.handle('metadata', body, buildSession('admin', {}));
  if (res.status !== 200) throw new Error(`metadata call failed: ${JSON.stringify(res).slice(0, 500)}`);
  return (res as { json: Json }).json;
}

const table = (k: number): Json => ({ table: { schema: 'public', name: tableName(k) } });
const all = Array.from({ length: TABLES }, (_, k) => table(k + 1));

const pg = await startBenchPostgres();
try {
  const url = await pg.createDatabase('track_tables_cost');
  await createScaleTables(pg, 'track_tables_cost', TABLES);
  const service = await MetadataService.start({ metadataDatabaseUrl: url, defaultDatabaseUrl: url, logger: silentLogger });
  try {
    const noSetup = async (): Promise<void> => {};
    const ways: Array<readonly [string, () => Promise<void>, () => Promise<void>]> = [
      [
        'one pg_track_table call per table',
        async () => {
          for (const t of all) await call(service, { type: 'pg_track_table', args: t });
        },
        noSetup,
      ],
      [
        'bulk of pg_track_table',
        async () => void (await call(service, { type: 'bulk', args: all.map((t) => ({ type: 'pg_track_table', args: t })) })),
        noSetup,
      ],
      [
        'bulk_keep_going of pg_track_table',
        async () => void (await call(service, { type: 'bulk_keep_going', args: all.map((t) => ({ type: 'pg_track_table', args: t })) })),
        noSetup,
      ],
      ['pg_track_tables', async () => void (await call(service, { type: 'pg_track_tables', args: { tables: all } })), noSetup],
      [
        'pg_track_tables, 2 of them warned',
        async () => {
          const r = await call(service, { type: 'pg_track_tables', args: { tables: [...all, { table: { schema: 'public', name: 'no_such_table' } }] } });
          if ((r['warnings'] as unknown[] | undefined)?.length !== 2) throw new Error(`expected 2 warnings: ${JSON.stringify(r).slice(0, 300)}`);
        },
        async () => void (await call(service, { type: 'pg_track_table', args: table(1) })),
      ],
    ];
    console.log(`${TABLES} tables, ${ROUNDS} rounds; CPU ms / wall ms of each round`);
    for (const [name, run, setup] of ways) {
      if ((name.startsWith('one ') || name.startsWith('bulk_keep_going')) && TABLES > SEPARATE_MAX) {
        console.log(`${name}: skipped above --separate-max=${SEPARATE_MAX}`);
        continue;
      }
      const cells: string[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        await call(service, { type: 'clear_metadata', args: {} });
        await setup();
        const c = cpuMs();
        const w = performance.now();
        await run();
        cells.push(`${(cpuMs() - c).toFixed(0)} / ${(performance.now() - w).toFixed(0)}`);
      }
      console.log(`${name}: ${cells.join(', ')}`);
    }
  } finally {
    await service.close();
  }
} finally {
  await pg.stop();
}
