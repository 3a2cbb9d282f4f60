/**
 * A request statement on a PostgreSQL source (PostgresConnection.queryJsonText,
 * engine/backends/postgres/connection.ts): checked out, run and released in
 * pg's callbacks (Note [Request statements in callbacks]). What the path must
 * keep: named prepared statements and their unnamed retry after a schema
 * change, the cancel of a statement whose client went away (Note [Cancel on
 * disconnect]), the statement timeout, a connection the server ends
 * mid-statement, and a pool with no free connection. Errors are read through
 * the backend's classification, as the engine answers them. And the same
 * statements answered as byte strings (queryJsonByteString; Note [Answer
 * bytes] in engine/backends/postgres/answer-bytes.ts): the UTF-8 bytes of the
 * text path's answer, for cells larger than a socket read and with characters
 * of every UTF-8 length, pipelined with text statements, under a role's time
 * limit, after a stale prepared statement and after a failed statement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresConnection, type PostgresPoolSettings } from '../../../engine/backends/postgres/connection.ts';
import { classifyPostgresError } from '../../../engine/backends/postgres/errors.ts';
import { graphqlErrorBody } from '../../../engine/errors/wire-body.ts';
import type { BoundStatement } from '../../../engine/backends/backend.ts';
import { RequestContext } from '../../../engine/request-context.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { eventually, eventuallyValue } from '../../support/eventually.ts';

let db: TestDatabase;
const conns: PostgresConnection[] = [];

beforeAll(async () => {
  db = await createTestDatabase('pgconn');
  await db.sql(`CREATE TABLE thing (id int PRIMARY KEY, code int NOT NULL); INSERT INTO thing VALUES (1, 1), (2, 2); CREATE SEQUENCE ticket;`);
  // Names with 1- to 4-byte UTF-8 characters; 3,000 rows make a JSON cell of several hundred KB.
  await db.sql(`CREATE TABLE word (id int PRIMARY KEY, name text NOT NULL);
    INSERT INTO word SELECT i, 'w' || i || ' Beyoncé Дмитрий 東京 🎸 "quoted" \\ back' FROM generate_series(1, 3000) AS i;`);
});
afterAll(async () => {
  await Promise.all(conns.map((c) => c.close()));
  await db?.drop();
});

function connect(settings: PostgresPoolSettings = {}): PostgresConnection {
  const c = new PostgresConnection(db.url, settings);
  conns.push(c);
  return c;
}

const stmt = (text: string, values: unknown[] = []): BoundStatement => ({ text, values });

/** The pid of the backend running a statement that contains `marker` (bounded wait). */
async function runningPid(marker: string): Promise<number> {
  return await eventuallyValue(
    async () => {
      const r = await db.sql(`SELECT pid FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid() AND position($1 in query) > 0`, [marker]);
      return (r.rows[0] as { pid: number } | undefined)?.pid;
    },
    { what: `a running statement marked ${marker}`, timeoutMs: 20_000, intervalMs: 20 },
  );
}

async function backendGone(pid: number): Promise<void> {
  await eventually(async () => (await db.sql('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0, {
    what: `backend ${pid} to end`,
    timeoutMs: 20_000,
    intervalMs: 20,
  });
}

/** The error a promise rejects with (fails when it resolves). */
async function failure(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
}

/** What a client is answered for `e` (not an admin): v2's error body. */
const answered = (e: unknown): unknown => graphqlErrorBody(classifyPostgresError(e, stmt('')), false);
const v2Error = (code: string, message: string): unknown => ({ errors: [{ message, extensions: { path: '$', code } }] });

const pidOf = async (c: PostgresConnection, cancel?: RequestContext): Promise<number> =>
  Number(await c.queryJsonText(stmt('SELECT pg_backend_pid()::text'), cancel === undefined ? undefined : { cancel }));

describe('request statements on a PostgreSQL pool', () => {
  it('answer the first cell as text (null without a row) and prepare each text once per connection', async () => {
    const c = connect({ maxConnections: 1 });
    const ctx = new RequestContext('127.0.0.1');
    const text = `SELECT json_agg(id ORDER BY id)::text FROM thing WHERE code >= $1`;
    for (let i = 0; i < 3; i++) expect(await c.queryJsonText(stmt(text, [1]), { cancel: ctx })).toBe('[1, 2]');
    expect(await c.queryJsonText(stmt(text, [2]))).toBe('[2]');
    expect(await c.queryJsonText(stmt('SELECT id::text FROM thing WHERE id = $1', [99]), { cancel: ctx })).toBeNull();
    // One connection: it holds this text once, under a name (not re-parsed per request).
    const held = await c.queryJsonText(stmt(`SELECT json_agg(name)::text FROM pg_prepared_statements WHERE statement = $1`, [text]));
    expect(JSON.parse(held ?? 'null')).toEqual([expect.stringMatching(/^engine_\d+$/)]);
  });

  it('run a statement again unnamed when a column type change left its prepared parameter types stale', async () => {
    await db.sql(`CREATE TABLE retyped (id int PRIMARY KEY, code int NOT NULL); INSERT INTO retyped VALUES (1, 7)`);
    const text = `SELECT json_agg(id)::text FROM retyped WHERE code = $1`;
    for (const cancel of [undefined, new RequestContext('127.0.0.1')]) {
      await db.sql(`DROP TABLE retyped; CREATE TABLE retyped (id int PRIMARY KEY, code int NOT NULL); INSERT INTO retyped VALUES (1, 7)`);
      const c = connect({ maxConnections: 1 });
      const opts = cancel === undefined ? undefined : { cancel };
      expect(await c.queryJsonText(stmt(text, ['7']), opts)).toBe('[1]');
      const pid = await pidOf(c);
      await db.sql(`ALTER TABLE retyped ALTER COLUMN code TYPE text`);
      // The kept parameter type (int) no longer fits `code = $1` (text = integer): run unnamed, answered.
      expect(await c.queryJsonText(stmt(text, ['7']), opts)).toBe('[1]');
      expect(await c.queryJsonText(stmt(text, ['7']), opts)).toBe('[1]');
      // On the same connection: the failed statement did not cost it.
      expect(await pidOf(c)).toBe(pid);
    }
  });

  it("prepare a transaction's statements once per connection, as a lone statement's (Note [Generic plans for mutations])", async () => {
    await db.sql(`CREATE TABLE tx_named (id int PRIMARY KEY)`);
    const c = connect({ maxConnections: 1 });
    const write = `WITH w AS (INSERT INTO tx_named SELECT $1::int RETURNING id) SELECT json_agg(id)::text FROM w`;
    const check = `SELECT (count(*) > 0)::text FROM tx_named WHERE id = $1::int`;
    for (let i = 1; i <= 3; i++) expect(await c.transactionJsonText([stmt(write, [i]), stmt(check, [i])], { timeoutMs: 5000 })).toEqual([`[${i}]`, 'true']);
    const held = await c.queryJsonText(stmt(`SELECT json_agg(statement ORDER BY statement)::text FROM pg_prepared_statements WHERE name LIKE 'engine\\_%'`));
    // Each text once, under a name: the write, the check and the role time limit's setter.
    expect((JSON.parse(held ?? '[]') as string[]).filter((t) => t === write || t === check || t.includes("set_config('statement_timeout'"))).toHaveLength(3);
  });

  it('run a transaction again unnamed when a column type change left a prepared statement stale, writing once', async () => {
    await db.sql(`CREATE TABLE tx_retyped (id int PRIMARY KEY, code int NOT NULL); CREATE TABLE tx_log (code text NOT NULL)`);
    const c = connect({ maxConnections: 1 });
    const write = `WITH w AS (INSERT INTO tx_log SELECT $1::text RETURNING code) SELECT json_agg(code)::text FROM w`;
    const read = `SELECT json_agg(id)::text FROM tx_retyped WHERE code = $1`;
    await db.sql(`INSERT INTO tx_retyped VALUES (1, 7)`);
    expect(await c.transactionJsonText([stmt(write, ['a']), stmt(read, ['7'])])).toEqual(['["a"]', '[1]']);
    await db.sql(`ALTER TABLE tx_retyped ALTER COLUMN code TYPE text`);
    // The read's kept parameter type (int) no longer fits `code = $1`: the whole transaction again, unnamed.
    expect(await c.transactionJsonText([stmt(write, ['b']), stmt(read, ['7'])])).toEqual(['["b"]', '[1]']);
    expect(await c.transactionJsonText([stmt(write, ['c']), stmt(read, ['7'])])).toEqual(['["c"]', '[1]']);
    expect((await db.sql(`SELECT code FROM tx_log ORDER BY code`)).rows).toEqual([{ code: 'a' }, { code: 'b' }, { code: 'c' }]);
  });

  it('cancel a running statement in PostgreSQL when its request is cancelled, and drop that connection', async () => {
    const c = connect({ maxConnections: 2 });
    const ctx = new RequestContext('127.0.0.1');
    const running = failure(c.queryJsonText(stmt(`SELECT pg_sleep(60)::text AS cancel_me`), { cancel: ctx }));
    const pid = await runningPid('cancel_me');
    ctx.cancel();
    const e = await running;
    expect(e).toMatchObject({ code: '57014' });
    expect(answered(e)).toEqual(v2Error('timeout', 'canceling statement due to user request'));
    // A late cancel must not reach the next request's statement: the connection is gone.
    await backendGone(pid);
    expect(await c.queryJsonText(stmt('SELECT 1::text'), { cancel: new RequestContext('127.0.0.1') })).toBe('1');
    expect(c.poolStats().total).toBeLessThanOrEqual(2);
  });

  it('run nothing for a request cancelled while it waits for a connection, and keep that connection', async () => {
    const c = connect({ maxConnections: 1 });
    const holder = await c.openTransaction();
    const heldPid = Number((await holder.client.query('SELECT pg_backend_pid() AS pid')).rows[0]?.pid);
    const ctx = new RequestContext('127.0.0.1');
    const waiting = failure(c.queryJsonText(stmt(`SELECT nextval('ticket')::text`), { cancel: ctx }));
    await eventually(() => c.poolStats().waiting === 1, { what: 'the request to wait for the only connection', timeoutMs: 10_000, intervalMs: 10 });
    ctx.cancel();
    await holder.rollback();
    expect(await waiting).toMatchObject({ code: '57014' });
    // Nothing ran, no cancel was sent, so the connection went back to the pool as it was.
    expect((await db.sql(`SELECT is_called FROM ticket`)).rows[0]).toEqual({ is_called: false });
    expect(await pidOf(c)).toBe(heldPid);
  });

  it('refuse a request cancelled before it asked for a connection, without checking one out', async () => {
    const c = connect({ maxConnections: 1 });
    const ctx = new RequestContext('127.0.0.1');
    ctx.cancel();
    expect(await failure(c.queryJsonText(stmt(`SELECT nextval('ticket')::text`), { cancel: ctx }))).toMatchObject({ code: '57014' });
    expect(c.poolStats().total).toBe(0);
  });

  it('answer a statement past the statement timeout with the timeout error, and keep serving', async () => {
    const c = connect({ maxConnections: 1, statementTimeoutMs: 200 });
    const pid = await pidOf(c, new RequestContext('127.0.0.1'));
    for (const cancel of [undefined, new RequestContext('127.0.0.1')]) {
      const e = await failure(c.queryJsonText(stmt(`SELECT pg_sleep(30)::text`), cancel === undefined ? undefined : { cancel }));
      expect(answered(e)).toEqual(v2Error('timeout', 'canceling statement due to statement timeout'));
    }
    // The server ended only the statement: the same connection answers on.
    expect(await pidOf(c)).toBe(pid);
  });

  it('fail a statement whose connection the server ends mid-statement, then serve on a new connection', async () => {
    const c = connect({ maxConnections: 1 });
    for (const cancel of [undefined, new RequestContext('127.0.0.1')]) {
      const running = failure(c.queryJsonText(stmt(`SELECT pg_sleep(60)::text AS terminate_me`), cancel === undefined ? undefined : { cancel }));
      const pid = await runningPid('terminate_me');
      await db.sql('SELECT pg_terminate_backend($1)', [pid]);
      const e = await running;
      // v2's answer to a connection failure (Note [Retries after connection errors]; no retries here).
      expect(answered(e)).toEqual(v2Error('postgres-error', 'connection error'));
      await backendGone(pid);
      const next = await pidOf(c, cancel);
      expect(next).not.toBe(pid);
    }
    expect(c.poolStats().total).toBe(1);
  });

  it('answer a request that finds no free connection within the connect timeout with an error, and go on after', async () => {
    const c = connect({ maxConnections: 1, connectTimeoutSeconds: 0.3 });
    const holder = await c.openTransaction();
    for (const cancel of [undefined, new RequestContext('127.0.0.1')]) {
      const e = await failure(c.queryJsonText(stmt('SELECT 1::text'), cancel === undefined ? undefined : { cancel }));
      expect(String(e)).toMatch(/timeout exceeded when trying to connect/);
      expect(answered(e)).toEqual(v2Error('unexpected', 'database query error'));
    }
    await holder.rollback();
    expect(await c.queryJsonText(stmt('SELECT 2::text'), { cancel: new RequestContext('127.0.0.1') })).toBe('2');
  });

  it('fail a request to a server that cannot be reached, without crashing', async () => {
    const url = new URL(db.url);
    url.port = '1';
    const c = new PostgresConnection(url.toString(), { connectTimeoutSeconds: 5 });
    conns.push(c);
    const e = await failure(c.queryJsonText(stmt('SELECT 1::text'), { cancel: new RequestContext('127.0.0.1') }));
    expect(String(e)).toMatch(/ECONNREFUSED|connect/);
  });

  it('fail a statement whose values pg cannot send, once, and answer the request waiting for its connection', async () => {
    const c = connect({ maxConnections: 1 });
    // pg fails it from inside client.query (binding the values), then calls it back again for its Sync.
    const unsendable = {
      toPostgres: (): never => {
        throw new Error('no wire form');
      },
    };
    for (const cancel of [undefined, new RequestContext('127.0.0.1')]) {
      const opts = cancel === undefined ? undefined : { cancel };
      const bad = failure(c.queryJsonText(stmt('SELECT $1::text AS bad_value', [unsendable]), opts));
      const waiting = c.queryJsonText(stmt(`SELECT 'next'::text`), opts);
      expect(await bad).toMatchObject({ message: 'no wire form' });
      expect(await waiting).toBe('next');
      expect(await c.queryJsonText(stmt(`SELECT 'after'::text`), opts)).toBe('after');
    }
  });

  it('keep answers apart under concurrency on pipelined connections, with cancels and errors among them', async () => {
    const c = connect({ maxConnections: 3 });
    const n = 300;
    const results = await Promise.allSettled(
      Array.from({ length: n }, (_, i) => {
        const ctx = new RequestContext('127.0.0.1');
        const p =
          i % 10 === 3
            ? c.queryJsonText(stmt('SELECT (1 / ($1::int - $1::int))::text', [i]), { cancel: ctx })
            : c.queryJsonText(stmt('SELECT ($1::int * 2)::text', [i]), { cancel: ctx });
        if (i % 10 === 7) ctx.cancel();
        return p;
      }),
    );
    for (const [i, r] of results.entries()) {
      if (i % 10 === 3) expect(r).toMatchObject({ status: 'rejected', reason: { code: '22012' } });
      else if (i % 10 === 7) expect(r).toMatchObject({ status: 'rejected', reason: { code: '57014' } });
      else expect(r).toEqual({ status: 'fulfilled', value: String(i * 2) });
    }
    await eventually(() => c.poolStats().idle === c.poolStats().total, { what: 'every connection back in the pool', timeoutMs: 10_000, intervalMs: 20 });
    expect(c.poolStats().total).toBeLessThanOrEqual(3);
  });
});

const WORDS = `SELECT json_build_object('words', coalesce(json_agg(json_build_object('id', id, 'name', name) ORDER BY id), '[]'))::text FROM word WHERE id <= $1`;

/** The bytes a byte-string answer stands for (null for none). */
async function bytesOf(c: PostgresConnection, s: BoundStatement, opts?: Parameters<PostgresConnection['queryJsonByteString']>[1]): Promise<Buffer | null> {
  const cell = await c.queryJsonByteString(s, opts);
  return cell === null ? null : Buffer.from(cell, 'latin1');
}

describe('request statements answered as bytes', () => {
  it('give the UTF-8 bytes of the text answer, byte for byte, for cells larger than a socket read', async () => {
    const c = connect({ maxConnections: 1 });
    for (const n of [1, 10, 3000]) {
      const text = await c.queryJsonText(stmt(WORDS, [n]));
      const bytes = await bytesOf(c, stmt(WORDS, [n]));
      expect(bytes?.equals(Buffer.from(text ?? '', 'utf8'))).toBe(true);
      expect((JSON.parse(String(bytes)) as { words: unknown[] }).words).toHaveLength(n);
    }
    expect((await bytesOf(c, stmt(WORDS, [3000])))?.length).toBeGreaterThan(200_000);
  });

  it('answer null for no row and for a NULL cell, and keep only the first row', async () => {
    const c = connect({ maxConnections: 1 });
    expect(await bytesOf(c, stmt('SELECT name FROM word WHERE id = $1', [-1]))).toBeNull();
    expect(await bytesOf(c, stmt('SELECT NULL::text'))).toBeNull();
    expect(String(await bytesOf(c, stmt('SELECT to_json(id)::text FROM word WHERE id <= 3 ORDER BY id')))).toBe('1');
  });

  it('share a pipelining connection with text statements, each answered its own cell', async () => {
    const c = connect({ maxConnections: 1 });
    const sizes = Array.from({ length: 40 }, (_, i) => 1 + ((i * 397) % 3000));
    const answers = await Promise.all(
      sizes.map(async (n, i) => (i % 2 === 0 ? String(await bytesOf(c, stmt(WORDS, [n]))) : ((await c.queryJsonText(stmt(WORDS, [n]))) ?? ''))),
    );
    answers.forEach((a, i) => expect((JSON.parse(a) as { words: unknown[] }).words, `request ${i}`).toHaveLength(sizes[i] ?? -1));
  });

  it('answer under a role time limit (a transaction) and with a cancellation, the same bytes', async () => {
    const c = connect({ maxConnections: 2 });
    const plain = await bytesOf(c, stmt(WORDS, [50]));
    expect((await bytesOf(c, stmt(WORDS, [50]), { timeoutMs: 5000 }))?.equals(plain ?? Buffer.alloc(0))).toBe(true);
    expect((await bytesOf(c, stmt(WORDS, [50]), { cancel: new RequestContext('127.0.0.1') }))?.equals(plain ?? Buffer.alloc(0))).toBe(true);
    expect(await bytesOf(c, stmt('SELECT NULL::text'), { timeoutMs: 5000 })).toBeNull();
  });

  it('run again unnamed after a column type change left the prepared statement stale', async () => {
    await db.sql(`CREATE TABLE retyped_b (id int PRIMARY KEY, code int NOT NULL); INSERT INTO retyped_b VALUES (1, 7)`);
    const c = connect({ maxConnections: 1 });
    const text = `SELECT json_agg(id)::text FROM retyped_b WHERE code = $1`;
    expect(String(await bytesOf(c, stmt(text, ['7'])))).toBe('[1]');
    await db.sql(`ALTER TABLE retyped_b ALTER COLUMN code TYPE text`);
    expect(String(await bytesOf(c, stmt(text, ['7'])))).toBe('[1]');
  });

  it('fail a statement the server refuses and answer the next one on the same connection', async () => {
    const c = connect({ maxConnections: 1 });
    const pid = await c.queryJsonText(stmt('SELECT pg_backend_pid()::text'));
    await expect(bytesOf(c, stmt('SELECT (1 / $1::int)::text', [0]))).rejects.toMatchObject({ code: '22012' });
    expect(String(await bytesOf(c, stmt('SELECT pg_backend_pid()::text')))).toBe(pid);
  });
});
