/**
 * `node test/bench/nested-insert-cost.ts <a.sql> [<b.sql> ...] [--parents N] [--children N] [--runs N]`:
 * what a nested insert statement costs PostgreSQL. Each file is a golden
 * `mutations/insert-nested-two-levels/expected.postgres.sql` (artists with
 * their albums) of some checkout (`git show <rev>:<path> > file`); every
 * statement is run as a prepared statement with N parents × M children as
 * its parameter, in BEGIN .. ROLLBACK, variants interleaved run by run.
 * Reported: median and 10th percentile ms per statement on the client.
 */
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { startBenchPostgres } from './lib/postgres.ts';

const args = process.argv.slice(2);
const opt = (name: string, dflt: number): number => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? dflt : Number(args[i + 1]);
};
const files = args.filter((a, i) => !a.startsWith('--') && !(args[i - 1] ?? '').startsWith('--'));
const parents = opt('parents', 200);
const children = opt('children', 20);
const runs = opt('runs', 40);

const rows = Array.from({ length: parents }, (_, p) => ({
  id: p + 1,
  name: `artist ${p}`,
  albums: { data: Array.from({ length: children }, (_, c) => ({ id: (p + 1) * 1000 + c, title: `album ${p}.${c}` })) },
}));

const server = await startBenchPostgres();
try {
  const url = await server.createDatabase('nested_insert');
  await server.sql(
    'nested_insert',
    'CREATE TABLE artists (id int PRIMARY KEY, name text); CREATE TABLE albums (id int PRIMARY KEY, title text, artist_id int REFERENCES artists(id)); CREATE INDEX ON albums (artist_id);',
  );
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  const texts = await Promise.all(files.map(async (f) => (await readFile(f, 'utf8')).split('\n-- params:')[0]!.trim().replace(/;$/, '')));
  const times: number[][] = texts.map(() => []);
  for (let r = -5; r < runs; r++) {
    for (let k = 0; k < texts.length; k++) {
      const i = (((r + k) % texts.length) + texts.length) % texts.length;
      await client.query('BEGIN');
      const t0 = process.hrtime.bigint();
      await client.query({ name: `v${i}`, text: texts[i]!, values: [JSON.stringify(rows)] });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      await client.query('ROLLBACK');
      if (r >= 0) times[i]!.push(ms);
    }
  }
  await client.end();
  const q = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!;
  console.log(`${parents} parents x ${children} children, ${runs} runs`);
  files.forEach((f, i) => console.log(`${f}: median ${q(times[i]!, 0.5).toFixed(2)} ms, p10 ${q(times[i]!, 0.1).toFixed(2)} ms`));
} catch (e) {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
} finally {
  await server.stop();
}
