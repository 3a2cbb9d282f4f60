/**
 * Bad input on a GraphQL WebSocket (Note [WebSocket bounds]): binary and
 * oversized frames, 10,000 subscribe messages on one socket, a client that
 * never reads. Each is refused or closed cleanly, the engine keeps serving.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';
import { openRawSocket } from '../../support/ws-client.ts';

const SQL = `CREATE TABLE big (id int PRIMARY KEY, body text NOT NULL);
INSERT INTO big SELECT i, repeat('x', 200000) FROM generate_series(1, 2) i;`;

let s: SeededEngine;

beforeAll(async () => {
  s = await startSeededEngine({ prefix: 'ws_bad', sql: SQL, track: { type: 'pg_track_table', args: { source: 'default', table: 'big' } } });
});

afterAll(async () => {
  await s?.close();
});

async function ready(): Promise<Awaited<ReturnType<typeof openRawSocket>>> {
  const ws = await openRawSocket(s.engine.url, 'graphql-transport-ws');
  ws.send({ type: 'connection_init' });
  await ws.waitFor((m) => m['type'] === 'connection_ack');
  return ws;
}

describe('bad input on a WebSocket', () => {
  it('closes on a binary frame (4400) and on a frame over 4 MiB (1009)', async () => {
    const a = await ready();
    a.ws.send(Buffer.from([1, 2, 3]));
    expect((await a.waitClosed()).code).toBe(4400);
    const b = await ready();
    b.send({ type: 'subscribe', id: '1', payload: { query: `{ big { id } } # ${'y'.repeat(5 * 1024 * 1024)}` } });
    expect((await b.waitClosed()).code).toBe(1009);
  });

  it('runs at most 1,000 operations per socket: 10,000 subscribes get 1,000 subscriptions and 9,000 refusals', async () => {
    const ws = await ready();
    for (let i = 0; i < 10_000; i++) ws.send({ type: 'subscribe', id: String(i), payload: { query: 'subscription { big_by_pk(id: 1) { id } }' } });
    await expect.poll(() => ws.messages.filter((m) => m['type'] === 'error').length, { timeout: 60_000 }).toBe(9000);
    await expect.poll(() => ws.messages.filter((m) => m['type'] === 'next').length, { timeout: 60_000 }).toBe(1000);
    const refusal = ws.messages.find((m) => m['type'] === 'error');
    expect(refusal?.['payload']).toEqual([{ message: 'too many operations on one socket (at most 1000)', extensions: { path: '$', code: 'bad-request' } }]);
    // One cohort, one group: the 1,000 subscribers share one row of one statement.
    expect(s.engine.engine.socket.live.stats).toEqual({ cohorts: 1, groups: 1, tracked: 1 });
    ws.close();
    await expect.poll(() => s.engine.engine.socket.live.stats.cohorts).toBe(0);
  });

  it('destroys the socket of a client that never reads, and keeps serving others', async () => {
    const ws = await ready();
    const raw = (ws.ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    raw.pause();
    // Each answer is ~400 kB: the engine's send buffer (8 MiB) and the kernel's fill long before 100 answers.
    for (let i = 0; i < 100; i++) ws.send({ type: 'subscribe', id: `q${i}`, payload: { query: '{ big { id body } }' } });
    // The engine destroys it while the client still does not read.
    await expect.poll(() => s.engine.engine.openSockets(), { timeout: 30_000 }).toBe(0);
    raw.resume();
    expect((await ws.waitClosed(30_000)).code).toBe(1006);
    expect(ws.messages.filter((m) => m['type'] === 'next').length).toBeLessThan(100);
    const other = await ready();
    other.send({ type: 'subscribe', id: '1', payload: { query: '{ big(limit: 1) { id } }' } });
    expect((await other.waitFor((m) => m['type'] === 'next'))['payload']).toEqual({ data: { big: [{ id: 1 }] } });
    other.close();
  });
});
