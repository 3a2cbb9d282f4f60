/**
 * Issue 12, point 3: a query nobody waits for is cancelled in PostgreSQL, a
 * statement timeout bounds every request, and a huge operation is refused
 * before any SQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';

let db: TestDatabase;
const engines: TestEngine[] = [];

/** A relationship-cycle fan-out: `aliases` aliases of `children` per level, `levels` deep, through fragments. */
function fanOut(aliases: number, levels: number): string {
  const frags: string[] = [];
  for (let l = 1; l <= levels; l++) {
    const inner = l === 1 ? 'id' : `...L${l - 1}`;
    const fields = Array.from({ length: aliases }, (_, i) => `c${i}: children { ${inner} }`).join(' ');
    frags.push(`fragment L${l} on node { id ${fields} }`);
  }
  return `query FanOut { node { ...L${levels} } } ${frags.join(' ')}`;
}

/** Running statements of the test database that read `node` (not this poll itself). */
async function runningOnNode(): Promise<number> {
  const r = await db.sql(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid() AND query LIKE '%"node"%'`,
  );
  return (r.rows[0] as { n: number }).n;
}

async function poll(what: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await what()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return what();
}

beforeAll(async () => {
  db = await createTestDatabase('cancel');
  // 2,000 nodes under 20 parents: each level of the fan-out multiplies the rows by about 100.
  await db.sql(`
    CREATE TABLE node (id serial PRIMARY KEY, parent_id int);
    INSERT INTO node (parent_id) SELECT (g % 20) + 1 FROM generate_series(1, 2000) g;
  `);
});

afterAll(async () => {
  await Promise.all(engines.map((e) => e.close()));
  await db?.drop();
});

async function engineWith(settings: Parameters<typeof startTestEngine>[0]): Promise<TestEngine> {
  const e = await startTestEngine({ databaseUrl: db.url, ...settings });
  engines.push(e);
  const track = await e.metadata({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { table: 'node' } },
      {
        type: 'pg_create_array_relationship',
        args: { table: 'node', name: 'children', using: { manual_configuration: { remote_table: 'node', column_mapping: { id: 'parent_id' } } } },
      },
    ],
  });
  // Engines of this file share the database's metadata: the first one tracks.
  if (track.status !== 200) expect(track.body).toMatchObject({ code: 'already-tracked' });
  return e;
}

describe('cancellation and timeouts', () => {
  it('cancels the SQL of a fan-out query when the client disconnects', async () => {
    const e = await engineWith({ queryFieldLimit: 0 });
    const controller = new AbortController();
    const request = fetch(`${e.url}/v1/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: fanOut(8, 5) }),
      signal: controller.signal,
    }).catch((err: unknown) => err);
    expect(await poll(async () => (await runningOnNode()) > 0, 60_000)).toBe(true);
    controller.abort();
    await request;
    expect(await poll(async () => (await runningOnNode()) === 0, 10_000)).toBe(true);
    // The engine still answers, on a pool that lost the cancelled connection.
    expect((await e.graphql('{ node(limit: 1, order_by: {id: asc}) { id } }')).body).toEqual({ data: { node: [{ id: 1 }] } });
  }, 120_000);

  it('answers a statement that runs past the statement timeout with a clean error', async () => {
    const e = await engineWith({ statementTimeout: 1 });
    const started = Date.now();
    const r = await e.graphql(fanOut(8, 3));
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ errors: [{ message: 'canceling statement due to statement timeout', extensions: { path: '$', code: 'timeout' } }] });
    expect(await poll(async () => (await runningOnNode()) === 0, 10_000)).toBe(true);
  }, 60_000);

  it('refuses 10,000 root aliases as a validation error before any SQL', async () => {
    const e = await engineWith({});
    let q = '{';
    for (let i = 0; i < 10_000; i++) q += ` a${i}: __typename`;
    const started = Date.now();
    const r = await e.graphql(`${q} }`);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(r).toMatchObject({
      status: 200,
      body: { errors: [{ message: 'field limit of 5000 exceeded', extensions: { path: '$', code: 'validation-failed' } }] },
    });
  });
});
