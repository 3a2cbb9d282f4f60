/**
 * What writing the metadata document costs the metadata database by column
 * type: the 2,000-table × 10-role document of lib/scale.ts written with one
 * UPDATE through node-postgres as jsonb, text and json, rounds interleaved,
 * wall ms per write (Note [Document stored as json] in
 * engine/backends/postgres/metadata-db/metadata-storage.ts).
 *
 * Run: node test/bench/document-store-cost.ts [tables=2000] [rounds=6]
 */
import pg from 'pg';
import { startBenchPostgres } from './lib/postgres.ts';
import { tableEntry } from './lib/scale.ts';

const TABLES = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 6);
const bench = await startBenchPostgres();
try {
  const client = new pg.Client({ connectionString: await bench.createDatabase('document_store_cost') });
  await client.connect();
  await client.query("CREATE TABLE m (id int PRIMARY KEY, as_jsonb jsonb, as_text text, as_json json); INSERT INTO m VALUES (1, '{}', '', '{}')");
  const doc = { version: 3, sources: [{ name: 'default', kind: 'postgres', tables: Array.from({ length: TABLES }, (_, k) => tableEntry(k + 1, TABLES, 10)) }] };
  const text = JSON.stringify(doc);
  console.log(`document ${(text.length / 1048576).toFixed(2)} MiB`);
  const times: Record<string, number[]> = { as_jsonb: [], as_text: [], as_json: [] };
  for (let i = 0; i < ROUNDS; i++) {
    for (const [column, list] of Object.entries(times)) {
      const t0 = performance.now();
      await client.query(`UPDATE m SET ${column} = $1 WHERE id = 1`, [text]);
      list.push(performance.now() - t0);
    }
  }
  for (const [column, list] of Object.entries(times)) console.log(`${column.slice(3).padEnd(5)} ${list.map((t) => t.toFixed(0)).join(' / ')} ms`);
  await client.end();
} finally {
  await bench.stop();
}
