/**
 * v2's `pool_settings.retries` on a PostgreSQL source (Note [Retries after
 * connection errors] in engine/backends/postgres/connection.ts): a statement
 * whose connection was dead before it ran, or whose connection could not be
 * made, is tried again on another connection; one that may have run is not;
 * out of retries the client gets v2's `postgres-error` "connection error".
 *
 * The dead connections are real: pooled connections whose backends
 * `pg_terminate_backend` ended while idle. Their FATAL message and close wait
 * in the sockets, unread, while this process's event loop is blocked (the
 * terminating client runs in a child process, synchronously), so the next
 * statements are written on them before the pool can notice: what a busy
 * engine meets after a failover or a restart.
 */
import { execFileSync } from 'node:child_process';
import net from 'node:net';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresConnection, type PostgresPoolSettings } from '../../../engine/backends/postgres/connection.ts';
import { classifyPostgresError } from '../../../engine/backends/postgres/errors.ts';
import { backendFor } from '../../../engine/backends/registry.ts';
import { clientOf, MetadataDatabase } from '../../../engine/backends/postgres/metadata-db/database.ts';
import { graphqlErrorBody } from '../../../engine/errors/wire-body.ts';
import type { BoundStatement } from '../../../engine/backends/backend.ts';
import { RequestContext } from '../../../engine/request-context.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { eventually } from '../../support/eventually.ts';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';
import { startTestEngine } from '../../support/engine.ts';
import { startTestServer, type TestServer } from '../../support/http-server.ts';

let db: TestDatabase;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  db = await createTestDatabase('pgretry');
  await db.sql(`CREATE TABLE note (id serial PRIMARY KEY, marker text NOT NULL)`);
});
afterAll(async () => {
  for (const close of closers) await close().catch(() => {});
  await db?.drop();
});

const stmt = (text: string, values: unknown[] = []): BoundStatement => ({ text, values });
const insert = (marker: string): BoundStatement => stmt(`INSERT INTO note (marker) VALUES ($1) RETURNING id::text`, [marker]);

/** A source connection as the engine opens one from a source's `pool_settings` (v2's default retries when absent). */
function fromPoolSettings(url: string, poolSettings: Record<string, unknown>): PostgresConnection {
  const pgb = backendFor('postgres');
  const resolved = pgb.configuration.resolve(
    { connection_info: { database_url: url, pool_settings: poolSettings } },
    { env: () => undefined, statementTimeoutMs: 0 },
  );
  if ('reason' in resolved) throw new Error(resolved.reason);
  const c = pgb.connect(resolved) as PostgresConnection;
  closers.push(() => c.close());
  return c;
}

function connect(url: string, settings: PostgresPoolSettings): PostgresConnection {
  const c = new PostgresConnection(url, settings);
  closers.push(() => c.close());
  return c;
}

/** Opens `n` connections in `c`'s pool (left idle there) and answers their backends' pids. */
async function warm(c: PostgresConnection, n: number): Promise<number[]> {
  // n transactions open at once: each holds a connection of its own until all are read.
  const open = await Promise.all(Array.from({ length: n }, () => c.openTransaction()));
  const pids = await Promise.all(open.map(async (t) => (await t.client.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`)).rows[0]?.pid ?? 0));
  await Promise.all(open.map((t) => t.commit()));
  expect(new Set(pids).size).toBe(n);
  expect(c.poolStats()).toEqual({ total: n, idle: n, waiting: 0 });
  return pids;
}

/** Opens `n` connections in `pool` (all checked out at once, then left idle there) and answers their backends' pids. */
async function heldPids(pool: pg.Pool, n: number): Promise<number[]> {
  const clients = await Promise.all(Array.from({ length: n }, () => pool.connect()));
  const pids = await Promise.all(clients.map(async (cl) => (await cl.query<{ pid: number }>(`SELECT pg_backend_pid() AS pid`)).rows[0]?.pid ?? 0));
  for (const cl of clients) cl.release();
  expect(new Set(pids).size).toBe(n);
  return pids;
}

/**
 * Ends the backends `pids` and waits until they are gone, blocking this
 * process's event loop meanwhile: their FATAL and close stay unread in the
 * pool's sockets until the statements issued next are written on them.
 */
function terminateUnnoticed(pids: readonly number[], url: string = db.url): void {
  const script = `import pg from 'pg';
const c = new pg.Client(process.env.TERMINATE_URL);
await c.connect();
const r = await c.query('SELECT bool_and(pg_terminate_backend(p, 10000)) AS ended FROM unnest($1::int[]) p', [JSON.parse(process.env.TERMINATE_PIDS)]);
await c.end();
if (r.rows[0].ended !== true) process.exit(3);`;
  execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { ...process.env, TERMINATE_URL: url, TERMINATE_PIDS: JSON.stringify(pids) },
    timeout: 30_000,
  });
}

async function markers(marker: string): Promise<number> {
  return Number((await db.sql(`SELECT count(*)::int AS n FROM note WHERE marker = $1`, [marker])).rows[0]?.n);
}

/** What a client (not an admin) is answered for `e`: v2's error body. */
const answered = (e: unknown): unknown => graphqlErrorBody(classifyPostgresError(e, stmt('')), false);
const connectionError = { errors: [{ message: 'connection error', extensions: { path: '$', code: 'postgres-error' } }] };

/** The reads and mutations sent right after the pool's backends ended: a read, a multi-statement mutation, a one-statement mutation. */
function afterTermination(c: PostgresConnection, marker: string): Array<Promise<unknown>> {
  return [
    c.queryJsonText(stmt(`SELECT count(*)::text FROM note WHERE marker = 'none'`), { cancel: new RequestContext('127.0.0.1') }),
    c.transactionJsonText([insert(`${marker}-tx`), insert(`${marker}-tx`)], { cancel: new RequestContext('127.0.0.1') }),
    c.queryJsonText(insert(`${marker}-one`)),
    c.queryJsonText(stmt(`SELECT 'read'::text`)),
  ];
}

describe('retries of a PostgreSQL source after connection errors', () => {
  it('run reads and mutations whose pooled connections were found dead on new ones (v2 default: 1 retry), each mutation once', async () => {
    const c = fromPoolSettings(db.url, { max_connections: 3 });
    terminateUnnoticed(await warm(c, 3));
    const results = await Promise.allSettled(afterTermination(c, 'retried'));
    expect(results).toEqual([
      { status: 'fulfilled', value: '0' },
      { status: 'fulfilled', value: [expect.any(String), expect.any(String)] },
      { status: 'fulfilled', value: expect.any(String) },
      { status: 'fulfilled', value: 'read' },
    ]);
    expect(await markers('retried-tx')).toBe(2);
    expect(await markers('retried-one')).toBe(1);
    // A time-limited read (its own transaction) and live-query rows after the same loss.
    terminateUnnoticed(await warm(c, 3));
    const limited = c.queryJsonText(stmt(`SELECT 'limited'::text`), { timeoutMs: 5000 });
    const rows = c.queryRows({ text: `SELECT 'rows'`, rowMode: 'array' });
    const tx = c.withTransaction(async (client) => (await client.query(`SELECT 'run_sql' AS v`)).rows[0]?.v as unknown);
    expect(await Promise.all([limited, rows, tx])).toEqual(['limited', [['rows']], 'run_sql']);
  });

  it("answer v2's connection error with retries 0, and run none of the mutations", async () => {
    const c = fromPoolSettings(db.url, { max_connections: 3, retries: 0 });
    terminateUnnoticed(await warm(c, 3));
    const results = await Promise.allSettled(afterTermination(c, 'unretried'));
    // The first three took the dead connections; the fourth waited for a new one.
    for (const r of results.slice(0, 3)) {
      expect(r.status).toBe('rejected');
      const e = (r as PromiseRejectedResult).reason as { cause?: unknown };
      expect(answered('cause' in (e as object) && e.constructor.name === 'TransactionStatementError' ? e.cause : e)).toEqual(connectionError);
    }
    expect(results[3]).toEqual({ status: 'fulfilled', value: 'read' });
    expect(await markers('unretried-tx')).toBe(0);
    expect(await markers('unretried-one')).toBe(0);
    // The pool goes on with new connections.
    expect(await c.queryJsonText(stmt(`SELECT 'after'::text`))).toBe('after');
  });

  it("retry the metadata database's statements and transactions on its dead pooled connections (v2's default 1)", async () => {
    const mdb = await MetadataDatabase.open(db.url);
    closers.push(() => mdb.close());
    terminateUnnoticed(await heldPids(mdb.pool, 3));
    const [read, written] = await Promise.all([
      mdb.pool.query<{ one: number }>(`SELECT 1 AS one`),
      mdb.transaction(async (tx) => ({ commit: true, value: (await clientOf(tx).query(`INSERT INTO note (marker) VALUES ('metadata-tx')`)).rowCount })),
      mdb.pool.query(`INSERT INTO note (marker) VALUES ('metadata-one')`),
    ]);
    expect(read.rows).toEqual([{ one: 1 }]);
    expect(written).toBe(1);
    expect(await markers('metadata-tx')).toBe(1);
    expect(await markers('metadata-one')).toBe(1);
    // ENGINE_GRAPHQL_NO_OF_RETRIES=0 (v2's --retries 0): the same loss fails them, and runs neither insert.
    const none = await MetadataDatabase.open(db.url, undefined, 0);
    closers.push(() => none.close());
    terminateUnnoticed(await heldPids(none.pool, 2));
    const failed = await Promise.allSettled([
      none.transaction(async (tx) => ({ commit: true, value: (await clientOf(tx).query(`INSERT INTO note (marker) VALUES ('unretried-metadata')`)).rowCount })),
      none.pool.query(`INSERT INTO note (marker) VALUES ('unretried-metadata')`),
    ]);
    for (const r of failed) expect(answered((r as PromiseRejectedResult).reason)).toEqual(connectionError);
    expect(await markers('unretried-metadata')).toBe(0);
  });

  it('not try again a mutation whose connection ended after it was sent, with no word from the server', async () => {
    // A proxy that passes the statements on, then drops the engine's side at the server's first answer (a
    // proxy dying after passing the bytes on): the server commits, the engine only sees the connection end.
    const proxy = await cuttingProxy(db.url);
    const c = connect(proxy.url, { maxConnections: 2, retries: 3 });
    expect(await c.queryJsonText(stmt(`SELECT 'through'::text`))).toBe('through');
    for (const [marker, tag, run] of [
      ['cut-tx', 'COMMIT', () => c.transactionJsonText([insert('cut-tx'), insert('cut-tx')])],
      ['cut-one', 'INSERT 0 1', () => c.queryJsonText(insert('cut-one'))],
    ] as const) {
      proxy.cutAt(tag);
      const e = await run().then(
        () => null,
        (err: unknown) => err,
      );
      expect(e).not.toBeNull();
      expect(answered((e as { cause?: unknown }).cause ?? e)).toEqual(connectionError);
      // The first try committed; no second try ran it again.
      await eventually(async () => (await markers(marker)) > 0, { what: `${marker} committed`, timeoutMs: 10_000, intervalMs: 20 });
      expect(await markers(marker)).toBe(marker === 'cut-tx' ? 2 : 1);
      expect(await c.queryJsonText(stmt(`SELECT 'after'::text`))).toBe('after');
    }
  });

  it('try to connect again to a server that stays down, with v2’s waits and bound, then answer the connection error', async () => {
    const down = await refusingServer();
    for (const [retries, tries] of [
      [2, 3],
      [10, 7], // v2 never waits 6 s or more: 0.1 + 0.2 + … + 3.2 s, then no more.
    ] as const) {
      const c = connect(down.url, { retries });
      const before = down.accepted;
      const e = await c.queryJsonText(stmt(`SELECT 1::text`)).then(
        () => null,
        (err: unknown) => err,
      );
      expect(answered(e)).toEqual(connectionError);
      expect(down.accepted - before).toBe(tries);
    }
    const c = connect(down.url, { retries: 1 });
    const before = down.accepted;
    const e = await c.transactionJsonText([insert('never')]).then(
      () => null,
      (err: unknown) => err,
    );
    expect(answered(e)).toEqual(connectionError);
    expect(down.accepted - before).toBe(2);
  });

  it("answer v2's max connections error for a server out of connections, and the connection error for a role at its limit", async () => {
    const full = await tooManyClientsServer();
    const c = connect(full.url, { retries: 1 });
    const e = await c.queryJsonText(stmt(`SELECT 1::text`)).then(
      () => null,
      (err: unknown) => err,
    );
    expect(answered(e)).toEqual({
      errors: [{ message: 'max connections reached on postgres', extensions: { path: '$', code: 'postgres-max-connections-error' } }],
    });
    // Refused at connect, as any connection failure: tried again.
    expect(full.accepted).toBe(2);
    const role = `limited_${Math.random().toString(36).slice(2, 8)}`;
    await db.sql(`CREATE ROLE ${role} LOGIN PASSWORD 'pw' CONNECTION LIMIT 0`);
    closers.push(async () => void (await db.sql(`DROP ROLE ${role}`)));
    const url = new URL(db.url);
    url.username = role;
    url.password = 'pw';
    const limited = await connect(url.toString(), { retries: 0 })
      .queryJsonText(stmt(`SELECT 1::text`))
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(limited).toMatchObject({ code: '53300' });
    expect(answered(limited)).toEqual(connectionError);
  });

  it('answer a request cancelled while it waits to try again as cancelled, and try no more', async () => {
    const down = await refusingServer();
    const c = connect(down.url, { retries: 5 });
    const ctx = new RequestContext('127.0.0.1');
    const failed = c.queryJsonText(stmt(`SELECT 1::text`), { cancel: ctx }).then(
      () => null,
      (err: unknown) => err,
    );
    await eventually(() => down.accepted === 1, { what: 'the first try', timeoutMs: 10_000, intervalMs: 5 });
    ctx.cancel();
    expect(await failed).toMatchObject({ code: '57014' });
    expect(down.accepted).toBe(1);
  });
});

// The other users of the databases' connections (the metadata store, the event and scheduled-event
// workers, their LISTEN connections) recover after the same loss: a check, which held before retries too
// (the pools drop a closed idle connection once its close is read; a worker's failed poll is polled again).
describe('an engine whose every database connection was ended', () => {
  let s: SeededEngine;
  let hook: TestServer;
  const names = (): string[] =>
    hook.requests.map((r) => (JSON.parse(r.body) as { event?: { data?: { new?: { name?: string } } } }).event?.data?.new?.name ?? '');
  const insert = async (name: string): Promise<unknown> =>
    (await s.engine.graphql('mutation ($n: String!) { insert_item_one(object: {name: $n}) { id } }', { n: name })).body;

  beforeAll(async () => {
    hook = await startTestServer((_req, _body, res) => void res.writeHead(200).end('{}'));
    s = await startSeededEngine({
      prefix: 'pgloss',
      sql: `CREATE TABLE item (id serial PRIMARY KEY, name text NOT NULL)`,
      track: { type: 'pg_track_table', args: { table: 'item' } },
      settings: { eventsFetchInterval: 200 },
    });
    const r = await s.engine.metadata({
      type: 'pg_create_event_trigger',
      args: { name: 'item_added', table: 'item', webhook: hook.url, insert: { columns: '*' } },
    });
    expect(r.status, r.text).toBe(200);
  });
  afterAll(async () => {
    await s?.close();
    await hook?.close();
  });

  it('answers, writes once, delivers events and scheduled events and serves metadata after the loss', async () => {
    expect(await insert('before')).toMatchObject({ data: { insert_item_one: { id: 1 } } });
    await eventually(() => names().includes('before'), { what: 'the event of the insert before the loss', timeoutMs: 20_000 });
    // The source's pool, the metadata database's pool and every LISTEN connection (one database here).
    const pids = (
      await s.db.sql(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`)
    ).rows.map((r) => (r as { pid: number }).pid);
    expect(pids.length).toBeGreaterThan(2);
    terminateUnnoticed(pids, s.db.url);
    // Requests at once, while the workers' timers race them to the dead connections.
    const [read, written] = await Promise.all([s.engine.graphql('{ item(order_by: {id: asc}) { name } }'), insert('after')]);
    // The read and the insert run concurrently: the read may see the new row or not.
    expect(read.body).toMatchObject({ data: { item: expect.arrayContaining([{ name: 'before' }]) } });
    expect(written).toMatchObject({ data: { insert_item_one: { id: expect.any(Number) } } });
    expect((await s.db.sql(`SELECT count(*)::int AS n FROM item WHERE name = 'after'`)).rows[0]).toEqual({ n: 1 });
    // The event worker, its LISTEN connection, the metadata store and the scheduled events' worker recover.
    await eventually(() => names().includes('after'), { what: 'the event of the insert after the loss', timeoutMs: 30_000 });
    const exported = await s.engine.metadata({ type: 'export_metadata', args: {} });
    expect(exported.status, exported.text).toBe(200);
    const scheduled = await s.engine.metadata({
      type: 'create_scheduled_event',
      args: { webhook: `${hook.url}scheduled`, schedule_at: new Date(Date.now() + 500).toISOString(), payload: { after: 'loss' } },
    });
    expect(scheduled.status, scheduled.text).toBe(200);
    await eventually(() => hook.requests.some((r) => r.path === '/scheduled'), { what: 'the scheduled event after the loss', timeoutMs: 40_000 });
    expect(names().filter((n) => n === 'after')).toHaveLength(1);
  });
});

describe('a source whose server went down', () => {
  it("answers v2's connection error over GraphQL after its retries, the driver's words to admins only", async () => {
    const own = await createTestDatabase('pgretryown');
    closers.push(() => own.drop());
    const engine = await startTestEngine({ databaseUrl: own.url });
    closers.push(() => engine.close());
    const proxy = await downableProxy(db.url);
    const added = await engine.metadata({
      type: 'pg_add_source',
      args: { name: 'far', configuration: { connection_info: { database_url: proxy.url, pool_settings: { retries: 2 } } } },
    });
    expect(added.status, added.text).toBe(200);
    const tracked = await engine.metadata({ type: 'pg_track_table', args: { source: 'far', table: 'note' } });
    expect(tracked.status, tracked.text).toBe(200);
    const perm = await engine.metadata({
      type: 'pg_create_select_permission',
      args: { source: 'far', table: 'note', role: 'reader', permission: { columns: ['id'], filter: {} } },
    });
    expect(perm.status, perm.text).toBe(200);
    expect((await engine.graphql('{ note(limit: 1) { id } }')).status).toBe(200);
    proxy.down();
    // A round trip to the engine: its pool has read the closes of its connections (a statement written on one
    // before that would end with no word from the server, and not be tried again).
    expect((await engine.get('/healthz')).status).toBe(200);
    const before = await proxy.refused();
    const admin = await engine.graphql('{ note { id } }');
    expect(admin.status).toBe(200);
    expect(admin.body).toEqual({
      errors: [
        { message: 'connection error', extensions: { path: '$', code: 'postgres-error', internal: expect.stringMatching(/Connection terminated|ECONN/) } },
      ],
    });
    // The first try and two retries.
    expect((await proxy.refused()) - before).toBe(3);
    const reader = await engine.graphql('{ note { id } }', undefined, { 'x-engine-role': 'reader' });
    expect(reader.body).toEqual({ errors: [{ message: 'connection error', extensions: { path: '$', code: 'postgres-error' } }] });
    // The engine's own database and its other sources serve on.
    expect((await engine.metadata({ type: 'export_metadata', args: {} })).status).toBe(200);
  });
});

/** Listens on a local port, closed (with `sockets`) after the tests: `base`'s URL with that port. */
async function listenLocal(server: net.Server, base: string, sockets: ReadonlySet<net.Socket> = new Set()): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const url = new URL(base);
  url.port = String((server.address() as net.AddressInfo).port);
  return url.toString();
}

/**
 * A TCP proxy to `target`'s server that can go down: its connections closed,
 * and each connection made after refused (reset at once), counted.
 */
async function downableProxy(target: string): Promise<{ url: string; down(): void; refused(): Promise<number> }> {
  const t = new URL(target);
  let isDown = false;
  let refused = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (isDown) {
      refused++;
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(Number(t.port), t.hostname);
    sockets.add(client).add(upstream);
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => {});
    upstream.on('error', () => {});
  });
  const url = await listenLocal(server, target, sockets);
  return {
    url,
    down: () => {
      isDown = true;
      for (const s of sockets) s.destroy();
    },
    refused: async () => refused,
  };
}

/** A server answering every connection's startup as PostgreSQL at max_connections does (FATAL 53300), counting them. */
async function tooManyClientsServer(): Promise<{ url: string; readonly accepted: number }> {
  let accepted = 0;
  const fields = Buffer.from('SFATAL\0VFATAL\0C53300\0Msorry, too many clients already\0\0');
  const reply = Buffer.alloc(5 + fields.length);
  reply.write('E', 0);
  reply.writeInt32BE(4 + fields.length, 1);
  fields.copy(reply, 5);
  const server = net.createServer((socket) => {
    accepted++;
    socket.on('error', () => {});
    // The startup message (no SSL asked on this URL): answered, then closed, as the postmaster does.
    socket.once('data', () => socket.end(reply));
  });
  const url = await listenLocal(server, db.url);
  return {
    url,
    get accepted() {
      return accepted;
    },
  };
}

/** A server that takes connections and closes them at once (PostgreSQL down behind a listening proxy), counting them. */
async function refusingServer(): Promise<{ url: string; readonly accepted: number }> {
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted++;
    socket.destroy();
  });
  const url = await listenLocal(server, db.url);
  return {
    url,
    get accepted() {
      return accepted;
    },
  };
}

/**
 * A TCP proxy to `target`'s server that, once told, keeps the answers of the
 * next statement sent on an open connection from the client and drops the
 * client's side when they show `tag` (a commit, or an insert whose commit
 * was sent with it): the server ran it, the client hears nothing.
 */
async function cuttingProxy(target: string): Promise<{ url: string; cutAt(tag: string): void }> {
  const t = new URL(target);
  let cutTag: Buffer | null = null;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(t.port), t.hostname);
    sockets.add(client).add(upstream);
    // Set once the connection is open (its first ReadyForQuery passed): new connections are not cut.
    let open = false;
    let kept: Buffer | null = null;
    client.on('data', (chunk) => {
      if (open && cutTag !== null && kept === null) kept = Buffer.alloc(0);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (kept !== null && cutTag !== null) {
        kept = Buffer.concat([kept, chunk]);
        if (kept.includes(cutTag)) {
          cutTag = null;
          client.destroy();
        }
        return;
      }
      // A ReadyForQuery ('Z', length 5, status) last: the server waits for the client.
      if (chunk.length >= 6 && chunk[chunk.length - 6] === 0x5a && chunk.readInt32BE(chunk.length - 5) === 5) open = true;
      if (!client.destroyed) client.write(chunk);
    });
    client.on('close', () => upstream.end());
    upstream.on('close', () => client.destroy());
    client.on('error', () => {});
    upstream.on('error', () => {});
  });
  const url = await listenLocal(server, target, sockets);
  return {
    url,
    cutAt: (tag) => {
      cutTag = Buffer.from(`${tag}\0`);
    },
  };
}
