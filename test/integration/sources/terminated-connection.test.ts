/**
 * A connection PostgreSQL ends while the engine holds it between two
 * statements (a server shutting down, `pg_terminate_backend`, a failover):
 * that transaction fails and the pool goes on with a new connection; the
 * process does not crash (Note [Errors of checked-out clients] in
 * engine/backends/postgres/connection.ts). The crash was an uncaught 'error'
 * event, which fails this file's run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresConnection } from '../../../engine/backends/postgres/connection.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let conn: PostgresConnection;

beforeAll(async () => {
  db = await createTestDatabase('terminated');
  conn = new PostgresConnection(db.url);
});
afterAll(async () => {
  await conn?.close();
  await db?.drop();
});

/** Resolves once `pid` no longer runs (bounded). */
async function gone(pid: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while ((await db.sql('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount !== 0) {
    if (Date.now() > deadline) throw new Error(`backend ${pid} still runs`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a connection terminated while checked out', () => {
  it('fails the transaction that held it, then the pool serves again', async () => {
    let pid = 0;
    const held = conn.withTransaction(async (client) => {
      pid = Number((await client.query('SELECT pg_backend_pid() AS pid')).rows[0]?.pid);
      // Between two statements: no query is waiting for the server's FATAL message.
      await db.sql('SELECT pg_terminate_backend($1, 5000)', [pid]);
      await gone(pid);
      // A round trip elsewhere: the terminated socket's message and end have been read by now.
      await db.sql('SELECT 1');
      await client.query('SELECT 1');
    });
    await expect(held).rejects.toThrow(/terminat|not queryable/);
    const again = (await conn.queryable.query('SELECT pg_backend_pid() AS pid')) as { rows: Array<{ pid: number }> };
    expect(again.rows[0]?.pid).not.toBe(pid);
  });
});
