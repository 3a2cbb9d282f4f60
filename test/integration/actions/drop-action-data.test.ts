/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * drop_action's `clear_data` deletes an asynchronous action's stored
 * requests and results in the transaction that stores the metadata change
 * (Note [Effects]): a request that fails after the drop keeps both the
 * action and its data; `clear_data: false` keeps the data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startTestServer, type TestServer } from '../../support/http-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

const USER = { 'x-engine-role': 'user', 'x-engine-user-id': '3' };
const DEFINITION = { kind: 'asynchronous', arguments: [{ name: 'n', type: 'Int!' }], output_type: 'Out', handler: '' };

let db: TestDatabase;
let handler: TestServer;
let e: TestEngine;

beforeAll(async () => {
  db = await createTestDatabase('drop_action_data');
  handler = await startTestServer((_req, body, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ n: (JSON.parse(body) as { input: { n: number } }).input.n }));
  });
  e = await startTestEngine({ databaseUrl: db.url });
  expect((await e.metadata({ type: 'set_custom_types', args: { objects: [{ name: 'Out', fields: [{ name: 'n', type: 'Int!' }] }] } })).body).toEqual({
    message: 'success',
  });
  await create();
}, 60_000);

afterAll(async () => {
  await e?.close();
  await handler?.close();
  await db?.drop();
});

async function create(): Promise<void> {
  const r = await e.metadata({
    type: 'bulk',
    args: [
      { type: 'create_action', args: { name: 'work', definition: { ...DEFINITION, handler: handler.url } } },
      { type: 'create_action_permission', args: { action: 'work', role: 'user' } },
    ],
  });
  expect(r.body).toEqual([{ message: 'success' }, { message: 'success' }]);
}

async function result(id: string): Promise<any> {
  const r = await e.graphql<any>('query($id: uuid!) { work(id: $id) { output { n } errors } }', { id }, USER);
  return r.body.data === undefined ? r.body : r.body.data.work;
}

/** Submits `n` and waits (bounded) until its result is stored. */
async function submitted(n: number): Promise<string> {
  const id = (await e.graphql<any>(`mutation { work(n: ${n}) }`, undefined, USER)).body.data.work as string;
  await expect.poll(async () => (await result(id))?.output, { timeout: 20_000 }).toEqual({ n });
  return id;
}

async function stored(): Promise<number> {
  const r = await db.sql("SELECT count(*)::int AS n FROM engine_metadata.action_log WHERE action_name = 'work'");
  return (r.rows[0] as { n: number }).n;
}

describe('drop_action clear_data', () => {
  it('keeps the action and its data when a later call of the same request fails', async () => {
    const id = await submitted(1);
    const r = await e.metadata({
      type: 'bulk',
      args: [
        { type: 'drop_action', args: { name: 'work', clear_data: true } },
        { type: 'drop_action', args: { name: 'no_such_action' } },
      ],
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'not-exists' });
    expect(await stored()).toBe(1);
    expect(await result(id)).toEqual({ output: { n: 1 }, errors: null });
  });

  it('keeps the data with clear_data false (a re-created action reads it), deletes it by default', async () => {
    const id = await submitted(2);
    expect((await e.metadata({ type: 'drop_action', args: { name: 'work', clear_data: false } })).body).toEqual({ message: 'success' });
    expect(await stored()).toBe(2);
    await create();
    expect(await result(id)).toEqual({ output: { n: 2 }, errors: null });
    expect((await e.metadata({ type: 'drop_action', args: { name: 'work' } })).body).toEqual({ message: 'success' });
    expect(await stored()).toBe(0);
    await create();
    expect(await result(id)).toBeNull();
  });
});
