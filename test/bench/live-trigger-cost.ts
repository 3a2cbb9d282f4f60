/**
 * What the live-query change triggers cost a writing statement (Note [Change reports with rows] in
 * engine/backends/postgres/live-query.ts): the PostgreSQL backend's CPU (schedstat, so other work on the
 * machine does not count) per single-row UPDATE and the time of one 10,000-row UPDATE, on a table with no
 * trigger, the table-only trigger, and the triggers that report key values (columns grp, id); modes
 * alternated over four rounds, medians shown.
 *
 * Run: node test/bench/live-trigger-cost.ts
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { startBenchPostgres } from './lib/postgres.ts';
import { postgresLiveQueries } from '../../engine/backends/postgres/live-query.ts';
import { PostgresConnection } from '../../engine/backends/postgres/connection.ts';

/** CPU µs of a process so far. */
const cpuUs = (pid: number): number => Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1000;

const bench = await startBenchPostgres();
try {
  const url = await bench.createDatabase('tc');
  await bench.sql(
    'tc',
    "CREATE TABLE t (id int PRIMARY KEY, grp int, v int, note text); INSERT INTO t SELECT i, i % 10, 0, repeat('x', 50) FROM generate_series(1, 10000) i;",
  );
  await bench.sql('tc', 'VACUUM ANALYZE t');
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const pid = Number((await c.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0]?.p);
  const listener = new pg.Client({ connectionString: url });
  await listener.connect();
  await listener.query('LISTEN engine_live_change');
  let notes = 0;
  listener.on('notification', () => notes++);
  const conn = new PostgresConnection(url, {});
  const modes = ['none', 'plain', 'rows'] as const;
  async function setMode(m: (typeof modes)[number]): Promise<void> {
    await c.query(
      'DROP TRIGGER IF EXISTS engine_live_change ON t; DROP TRIGGER IF EXISTS engine_live_rows_insert ON t; DROP TRIGGER IF EXISTS engine_live_rows_update ON t; DROP TRIGGER IF EXISTS engine_live_rows_delete ON t; DROP TRIGGER IF EXISTS engine_live_truncate ON t;',
    );
    const columns = m === 'rows' ? ['grp', 'id'] : [];
    if (m !== 'none') await postgresLiveQueries.watchTables?.(conn, [{ table: { schema: 'public', name: 't' }, columns }]);
  }
  const res: Record<string, number[]> = { none: [], plain: [], rows: [] };
  const bulk: Record<string, number[]> = { none: [], plain: [], rows: [] };
  for (let round = 0; round < 4; round++) {
    for (const m of round % 2 === 0 ? modes : [...modes].reverse()) {
      await setMode(m);
      const N = 2000;
      const t0 = cpuUs(pid);
      for (let i = 0; i < N; i++) await c.query({ name: 'u', text: 'UPDATE t SET v = v + 1 WHERE id = $1', values: [1 + (i % 10000)] });
      res[m]?.push((cpuUs(pid) - t0) / N);
      const t1 = performance.now();
      await c.query('UPDATE t SET v = v + 1');
      bulk[m]?.push(performance.now() - t1);
    }
  }
  const med = (a: number[] | undefined): number => [...(a ?? [])].sort((x, y) => x - y)[Math.floor((a?.length ?? 0) / 2)] ?? NaN;
  for (const m of modes)
    console.log(
      `${m}: single-row UPDATE ${med(res[m]).toFixed(1)} µs backend CPU/statement (runs ${(res[m] ?? []).map((x) => x.toFixed(0)).join(', ')}); 10,000-row UPDATE ${med(bulk[m]).toFixed(1)} ms`,
    );
  console.log(`notifications ${notes}`);
  await c.end();
  await listener.end();
  await conn.close();
} finally {
  await bench.stop();
}
