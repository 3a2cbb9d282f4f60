/**
 * What the live-query change triggers cost a writing statement (Note [Change reports with rows] in
 * engine/backends/postgres/live-query.ts): the PostgreSQL backend's CPU (schedstat) per single-row
 * UPDATE and the time of one 10,000-row UPDATE, on a table with no trigger, the table-only trigger, and
 * the triggers that report key values (columns grp, id). One table per mode and the modes' statements
 * interleaved one by one, so load from other work on the machine falls on every mode alike; medians
 * and trimmed means (10–90%) per mode.
 *
 * `--before <checkout>` adds `rows (before)`: the same triggers as installed by that checkout's
 * live-query.ts (e.g. a `git worktree` of an older commit), in the same run.
 *
 * Run: node test/bench/live-trigger-cost.ts [--statements 3000] [--before /tmp/before-x]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startBenchPostgres } from './lib/postgres.ts';
import { postgresLiveQueries } from '../../engine/backends/postgres/live-query.ts';
import { PostgresConnection } from '../../engine/backends/postgres/connection.ts';
import type { LiveQuerySupport } from '../../engine/backends/backend.ts';

const { values: args } = parseArgs({ options: { statements: { type: 'string', default: '3000' }, before: { type: 'string' } } });
const N = Number(args.statements);

/** CPU ns of a process so far. */
const cpuNs = (pid: number): number => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);

interface Mode {
  readonly name: string;
  readonly table: string;
  readonly install: ((url: string) => Promise<void>) | null;
}

type ConnectionClass = new (url: string, opts: object) => PostgresConnection;

/** Installs `support`'s triggers on `table` through a connection of that checkout's own class. */
const watch =
  (support: LiveQuerySupport, Connection: ConnectionClass, table: string, columns: string[]) =>
  async (url: string): Promise<void> => {
    const conn = new Connection(url, {});
    try {
      await support.watchTables?.(conn, [{ table: { schema: 'public', name: table }, columns }]);
    } finally {
      await conn.close();
    }
  };

const modes: Mode[] = [
  { name: 'none', table: 't_none', install: null },
  { name: 'plain', table: 't_plain', install: watch(postgresLiveQueries, PostgresConnection, 't_plain', []) },
  { name: 'rows', table: 't_rows', install: watch(postgresLiveQueries, PostgresConnection, 't_rows', ['grp', 'id']) },
];
if (args.before !== undefined) {
  const mod = (await import(path.resolve(args.before, 'engine/backends/postgres/live-query.ts'))) as { postgresLiveQueries: LiveQuerySupport };
  const connection = (await import(path.resolve(args.before, 'engine/backends/postgres/connection.ts'))) as { PostgresConnection: ConnectionClass };
  modes.push({
    name: 'rows (before)',
    table: 't_rows_before',
    install: watch(mod.postgresLiveQueries, connection.PostgresConnection, 't_rows_before', ['grp', 'id']),
  });
}

const bench = await startBenchPostgres();
try {
  const url = await bench.createDatabase('tc');
  for (const m of modes) {
    await bench.sql(
      'tc',
      `CREATE TABLE ${m.table} (id int PRIMARY KEY, grp int, v int, note text); INSERT INTO ${m.table} SELECT i, i % 10, 0, repeat('x', 50) FROM generate_series(1, 10000) i;`,
    );
    await bench.sql('tc', `VACUUM ANALYZE ${m.table}`);
  }
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const pid = Number((await c.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]?.p);
  const listener = new pg.Client({ connectionString: url });
  await listener.connect();
  await listener.query('LISTEN engine_live_change');
  let notes = 0;
  const example = new Map<string, string>();
  listener.on('notification', (m) => {
    notes++;
    const table = (JSON.parse(m.payload ?? '[]') as string[])[1] ?? '';
    if (!example.has(table)) example.set(table, m.payload ?? '');
  });
  for (const m of modes) await m.install?.(url);
  const cpu = new Map<string, number[]>(modes.map((m) => [m.name, []]));
  const bulk = new Map<string, number[]>(modes.map((m) => [m.name, []]));
  const WARM = 200;
  for (let i = 0; i < N + WARM; i++) {
    for (const m of i % 2 === 0 ? modes : [...modes].reverse()) {
      const t0 = cpuNs(pid);
      await c.query({ name: `u_${m.table}`, text: `UPDATE ${m.table} SET v = v + 1 WHERE id = $1`, values: [1 + (i % 10000)] });
      if (i >= WARM) cpu.get(m.name)?.push((cpuNs(pid) - t0) / 1000);
    }
    if (i % 1000 === 999)
      for (const m of modes) {
        const t1 = performance.now();
        await c.query(`UPDATE ${m.table} SET v = v + 1`);
        bulk.get(m.name)?.push(performance.now() - t1);
      }
  }
  const sorted = (a: readonly number[] | undefined): number[] => [...(a ?? [])].sort((x, y) => x - y);
  const median = (a: readonly number[] | undefined): number => sorted(a)[Math.floor((a?.length ?? 0) / 2)] ?? NaN;
  const trimmed = (a: readonly number[] | undefined): number => {
    const s = sorted(a);
    const t = s.slice(Math.floor(s.length * 0.1), Math.ceil(s.length * 0.9));
    return t.reduce((x, y) => x + y, 0) / t.length;
  };
  const none = median(cpu.get('none'));
  console.log(`${N} single-row UPDATEs per mode, interleaved; backend CPU per statement (schedstat):`);
  for (const m of modes)
    console.log(
      `${m.name}: median ${median(cpu.get(m.name)).toFixed(1)} µs (+${(median(cpu.get(m.name)) - none).toFixed(1)} over none), trimmed mean ${trimmed(cpu.get(m.name)).toFixed(1)} µs; 10,000-row UPDATE ${median(bulk.get(m.name)).toFixed(1)} ms (runs ${(bulk.get(m.name) ?? []).map((x) => x.toFixed(0)).join(', ')})`,
    );
  for (const m of modes) if (example.has(m.table)) console.log(`${m.name} report: ${example.get(m.table)?.slice(0, 120)}`);
  console.log(`notifications ${notes}`);
  await c.end();
  await listener.end();
} finally {
  await bench.stop();
}
