/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Join keys compared as values of their type, not as text (Note [Join keys
 * by type] in engine/execute/join-keys.ts), through HTTP on a real
 * PostgreSQL and a real GraphQL server: a remote's Float or String keys
 * joined to an int column, a remote's Int keys to a numeric column whose
 * values read `1.0`, a numeric or float column's values written into a
 * remote's Int argument (a fraction matches nothing instead of failing the
 * request), keys told apart by value.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';

let s: SeededEngine;
let remote: GraphqlTestServer;

const SDL = `
type Score { n: Int! ref: Float! code: String! }
type Item { id: Int! name: String! }
type Query { scores: [Score!]! item(id: Int!): Item }
`;
const root = {
  scores: () => [
    { n: 1, ref: 1, code: '01' },
    { n: 2, ref: 2.5, code: '2.0' },
    { n: 3, ref: 3, code: 'x' },
  ],
  item: ({ id }: { id: number }) => ({ id, name: `item ${id}` }),
};

const md = async (type: string, args: unknown): Promise<any> => await s.engine.metadata({ type, args });
const gql = async (query: string): Promise<any> => (await s.engine.graphql<any>(query)).body;

beforeAll(async () => {
  remote = await startGraphqlServer(SDL, root);
  s = await startSeededEngine({
    prefix: 'joinkeys',
    sql: `CREATE TABLE thing (id int PRIMARY KEY, weight numeric(6,1) NOT NULL, rating float8 NOT NULL);
          INSERT INTO thing VALUES (1, 1.0, 1), (2, 2.0, 2.5), (3, 2.5, 3), (4, 1.0, 1e10);`,
  });
  const ok = async (type: string, args: unknown): Promise<void> => {
    const r = await md(type, args);
    expect(r.body, JSON.stringify(r.body)).toEqual({ message: 'success' });
  };
  await ok('pg_track_table', { table: 'thing' });
  await ok('add_remote_schema', { name: 'scores', definition: { url: remote.url, timeout_seconds: 5 } });
  const toThing = (name: string, type: string, mapping: Record<string, string>): unknown => ({
    remote_schema: 'scores',
    type_name: 'Score',
    name,
    definition: { to_source: { source: 'default', table: 'thing', relationship_type: type, field_mapping: mapping } },
  });
  await ok('create_remote_schema_remote_relationship', toThing('byRef', 'object', { ref: 'id' }));
  await ok('create_remote_schema_remote_relationship', toThing('byCode', 'object', { code: 'id' }));
  await ok('create_remote_schema_remote_relationship', toThing('byWeight', 'array', { n: 'weight' }));
  for (const column of ['weight', 'rating']) {
    await ok('pg_create_remote_relationship', {
      table: 'thing',
      name: `item_by_${column}`,
      definition: { to_remote_schema: { remote_schema: 'scores', lhs_fields: [column], remote_field: { item: { arguments: { id: `$${column}` } } } } },
    });
  }
});

afterAll(async () => {
  await s?.close();
  await remote?.close();
});

describe('join keys by type', () => {
  it('match a remote’s Float and String keys to an int column by value; a fraction or a non-number matches nothing', async () => {
    const r = await gql('{ scores { n byRef { id } byCode { id } } }');
    expect(r).toEqual({
      data: {
        scores: [
          { n: 1, byRef: { id: 1 }, byCode: { id: 1 } },
          // ref 2.5 is no int: no row (it was bound as is and failed the statement); "2.0" is 2.
          { n: 2, byRef: null, byCode: { id: 2 } },
          { n: 3, byRef: { id: 3 }, byCode: null },
        ],
      },
    });
  });

  it('match a remote’s Int keys to a numeric column whose values read 1.0', async () => {
    const r = await gql('{ scores { n byWeight(order_by: {id: asc}) { id weight } } }');
    expect(r).toEqual({
      data: {
        scores: [
          {
            n: 1,
            byWeight: [
              { id: 1, weight: 1.0 },
              { id: 4, weight: 1.0 },
            ],
          },
          { n: 2, byWeight: [{ id: 2, weight: 2.0 }] },
          { n: 3, byWeight: [] },
        ],
      },
    });
  });

  it('write numeric and float values into an Int argument by value, once per distinct value', async () => {
    const before = remote.queries().length;
    const r = await gql('{ thing(order_by: {id: asc}) { id item_by_weight { id } item_by_rating { name } } }');
    expect(r).toEqual({
      data: {
        thing: [
          { id: 1, item_by_weight: { id: 1 }, item_by_rating: { name: 'item 1' } },
          { id: 2, item_by_weight: { id: 2 }, item_by_rating: null },
          // 2.5 is no Int: null without asking the remote (it failed the whole request before); 1e10 does not fit 32 bits.
          { id: 3, item_by_weight: null, item_by_rating: { name: 'item 3' } },
          { id: 4, item_by_weight: { id: 1 }, item_by_rating: null },
        ],
      },
    });
    const sent = remote.queries().slice(before);
    expect(sent).toHaveLength(1);
    const query = sent[0]?.body.query ?? '';
    // weight: 1 and 2 (1.0 twice is one key); rating: 1 and 3.
    expect(query.match(/item\(id: /g)?.length).toBe(4);
    expect(query).not.toContain('2.5');
  });
});
