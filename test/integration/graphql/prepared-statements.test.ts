/**
 * Request statements run as named prepared statements (Note [Named prepared
 * statements] in engine/backends/postgres/connection.ts). A column type
 * change keeps the SQL text but not the parameter types PostgreSQL kept for
 * it; the engine must still answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReadFixture, type ReadFixture } from '../../support/read-schema.ts';

let f: ReadFixture;
beforeAll(async () => {
  f = await startReadFixture({}, `CREATE TABLE things (id serial PRIMARY KEY, code int NOT NULL); INSERT INTO things (code) VALUES (1), (2);`, {
    type: 'pg_track_table',
    args: { table: { schema: 'public', name: 'things' } },
  });
});
afterAll(async () => {
  await f?.close();
});

describe('named prepared statements', () => {
  it('survive a column type change under the same statement text', async () => {
    for (let i = 0; i < 8; i++) {
      const r = await f.gql('query ($c: Int!) { things(where: {code: {_eq: $c}}) { id } }', { c: 2 });
      expect(r).toEqual({ data: { things: [{ id: 2 }] } });
    }
    const alter = await f.engine.post('/v2/query', { type: 'run_sql', args: { source: 'default', sql: 'ALTER TABLE things ALTER COLUMN code TYPE text' } });
    expect(alter.status).toBe(200);
    for (let i = 0; i < 3; i++) {
      const r = await f.gql('query ($c: String!) { things(where: {code: {_eq: $c}}) { id } }', { c: '2' });
      expect(r).toEqual({ data: { things: [{ id: 2 }] } });
    }
  });
});
