/**
 * `node test/bench/introspection-freshness.ts [tables] [rounds]`: what Note
 * [Introspection freshness] costs on the metadata-at-scale database (default
 * 2,000 tables chained by foreign keys, lib/scale.ts): the DDL stamp asked
 * before every metadata request, against the whole introspection paid by the
 * first request after a DDL. Both run interleaved on one pool, `rounds` times
 * (default 30), after a warm-up; medians and 10th/90th percentiles in ms.
 */
import pg from 'pg';
import { ddlStamp } from '../../engine/backends/postgres/ddl-stamp.ts';
import { introspectPostgres } from '../../engine/backends/postgres/introspect.ts';
import { startBenchPostgres } from './lib/postgres.ts';
import { createTableSql } from './lib/scale.ts';

const tables = Number(process.argv[2] ?? 2000);
const rounds = Number(process.argv[3] ?? 30);

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((s.length - 1) * p))] ?? NaN;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

const bench = await startBenchPostgres();
try {
  const db = 'bench_freshness';
  const url = await bench.createDatabase(db);
  const ddl: string[] = [];
  for (let i = 1; i <= tables; i++) ddl.push(createTableSql(i));
  for (let k = 0; k < ddl.length; k += 250) await bench.sql(db, ddl.slice(k, k + 250).join('\n'));
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    for (let i = 0; i < 3; i++) {
      await ddlStamp(pool);
      await introspectPostgres(pool);
    }
    const stamp: number[] = [];
    const whole: number[] = [];
    for (let r = 0; r < rounds; r++) {
      stamp.push(await timed(() => ddlStamp(pool)));
      whole.push(await timed(() => introspectPostgres(pool)));
    }
    const row = (name: string, xs: number[]): string => `| ${name} | ${pct(xs, 0.5).toFixed(1)} | ${pct(xs, 0.1).toFixed(1)} | ${pct(xs, 0.9).toFixed(1)} |`;
    console.log(`${tables} tables, ${rounds} rounds interleaved\n| ms | median | p10 | p90 |\n|---|---|---|---|`);
    console.log(row('DDL stamp', stamp));
    console.log(row('whole introspection (with its stamp)', whole));
  } finally {
    await pool.end();
  }
} finally {
  await bench.stop();
}
