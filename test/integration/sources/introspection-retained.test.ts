/**
 * What an introspection keeps alive (Note [Slices keep the row's text] in
 * engine/backends/postgres/introspect.ts): the stamp and identity it returns
 * must not hold the whole row text they were cut from. Measured in a child
 * process with `--expose-gc`: introspections of a database of 200 tables
 * (a row text of ~0.4 MB each) whose stamps and identities alone are kept must
 * not grow the heap and external memory by the texts.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..', '..');
const TABLES = 200;
const KEPT = 8;

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase('retained');
  const ddl = Array.from(
    { length: TABLES },
    (_, i) => `CREATE TABLE t${i} (id serial PRIMARY KEY, name text NOT NULL, value int, owner_id int, created_at timestamptz DEFAULT now());`,
  );
  await db.sql(ddl.join('\n'));
});
afterAll(async () => {
  await db?.drop();
});

const CHILD = `
import pg from 'pg';
import { introspectPostgres } from ${JSON.stringify(path.join(ROOT, 'engine/backends/postgres/introspect.ts'))};
const client = new pg.Client({ connectionString: process.env.DB_URL });
await client.connect();
const used = () => { gc(); gc(); const m = process.memoryUsage(); return m.heapUsed + m.external; };
const rowText = JSON.stringify([...(await introspectPostgres(client)).tables.values()]).length;
const base = used();
const kept = [];
for (let i = 0; i < ${KEPT}; i++) {
  const r = await introspectPostgres(client);
  kept.push(r.ddlStamp, r.identity ?? '');
}
const grown = used() - base;
await client.end();
console.log(JSON.stringify({ rowText, grown, kept: kept.length }));
`;

describe('an introspection', () => {
  it('keeps its stamp and identity without the row text they came from', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--input-type=module', '-e', CHILD], {
      cwd: ROOT,
      env: { ...process.env, DB_URL: db.url },
      timeout: 120_000,
    });
    const r = JSON.parse(stdout.trim()) as { rowText: number; grown: number; kept: number };
    expect(r.kept).toBe(2 * KEPT);
    // Sliced strings kept ~8 row texts (~3 MB); copies keep a few hundred bytes each (plus what the JIT made).
    expect(r.rowText).toBeGreaterThan(200_000);
    expect(r.grown).toBeLessThan(r.rowText);
  });
});
