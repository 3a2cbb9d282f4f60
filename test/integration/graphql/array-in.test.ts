/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * `_in` / `_nin` on array columns (`<scalar>_array_comparison_exp`): a list
 * of arrays, literal or from variables (the whole list, one array, inside a
 * structural `where`), sent as one JSON parameter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReadFixture, type ReadFixture } from '../../support/read-schema.ts';

const SCHEMA = `
CREATE TYPE mood AS ENUM ('happy', 'sad');
CREATE TABLE items (
  id int PRIMARY KEY,
  nums int4[],
  tags text[],
  big int8[],
  moods mood[]
);
INSERT INTO items VALUES
  (1, '{1,2}', '{a,b}', '{9007199254740993}', '{happy}'),
  (2, '{2,1}', '{"x,y","}"}', '{1}', '{sad,happy}'),
  (3, '{}', '{}', NULL, '{}'),
  (4, NULL, '{a}', '{2,3}', NULL);
`;
const TRACK = { type: 'pg_track_table', args: { table: 'items' } };

let f: ReadFixture;
beforeAll(async () => {
  f = await startReadFixture({}, SCHEMA, TRACK);
});
afterAll(async () => {
  await f?.close();
});

async function ids(where: string, variables?: Record<string, unknown>, decl = ''): Promise<number[]> {
  const r = await f.gql(`query${decl} { items(where: ${where}, order_by: {id: asc}) { id } }`, variables);
  expect(r.errors).toBeUndefined();
  return r.data.items.map((x: { id: number }) => x.id);
}

describe('array column _in / _nin', () => {
  it('offers _in and _nin taking a list of arrays', async () => {
    const r = await f.gql(
      '{ __type(name: "Int_array_comparison_exp") { inputFields { name type { kind ofType { kind ofType { kind ofType { kind ofType { name } } } } } } } }',
    );
    const fields = r.data.__type.inputFields as any[];
    expect(fields.map((x) => x.name)).toEqual(expect.arrayContaining(['_in', '_nin', '_eq', '_contains']));
    const inType = fields.find((x) => x.name === '_in').type;
    expect(inType).toEqual({ kind: 'LIST', ofType: { kind: 'NON_NULL', ofType: { kind: 'LIST', ofType: { kind: 'NON_NULL', ofType: { name: 'Int' } } } } });
  });

  it('literals: order matters, empty arrays and empty lists, NULL columns never match _in', async () => {
    expect(await ids('{nums: {_in: [[1, 2], [7]]}}')).toEqual([1]);
    expect(await ids('{nums: {_in: [[2, 1], []]}}')).toEqual([2, 3]);
    expect(await ids('{nums: {_in: []}}')).toEqual([]);
    expect(await ids('{nums: {_nin: [[1, 2]]}}')).toEqual([2, 3]);
    // As the scalar `_nin`: nothing to differ from holds for every row, NULL included.
    expect(await ids('{nums: {_nin: []}}')).toEqual([1, 2, 3, 4]);
    expect(await ids('{tags: {_in: [["x,y", "}"], ["a"]]}}')).toEqual([2, 4]);
    expect(await ids('{big: {_in: [["9007199254740993"], [2, 3]]}}')).toEqual([1, 4]);
    expect(await ids('{moods: {_in: [["sad", "happy"]]}}')).toEqual([2]);
    // A single array stands for a one-item list (GraphQL input coercion).
    expect(await ids('{nums: {_in: [7]}}')).toEqual([]);
  });

  it('variables: the whole list, one array of it, and a structural where', async () => {
    expect(await ids('{nums: {_in: $v}}', { v: [[1, 2], []] }, '($v: [[Int!]!])')).toEqual([1, 3]);
    expect(await ids('{nums: {_in: $v}}', { v: [[2, 1]] }, '($v: [[Int!]!])')).toEqual([2]);
    expect(await ids('{nums: {_nin: $v}}', { v: [] }, '($v: [[Int!]!])')).toEqual([1, 2, 3, 4]);
    expect(await ids('{tags: {_in: [["a", "b"], $t]}}', { t: ['a'] }, '($t: [String!]!)')).toEqual([1, 4]);
    expect(await ids('{tags: {_in: [["a", "b"], $t]}}', { t: ['x,y', '}'] }, '($t: [String!]!)')).toEqual([1, 2]);
    expect(
      await ids(
        '$w',
        {
          w: {
            nums: {
              _nin: [
                [1, 2],
                [2, 1],
              ],
            },
          },
        },
        '($w: items_bool_exp)',
      ),
    ).toEqual([3]);
    const r = await f.gql('query($v: [[Int!]!]) { items(where: {nums: {_in: $v}}) { id } }', { v: null });
    expect(r.errors?.[0]?.message).toContain('unexpected null value');
  });

  it('keeps values out of the SQL text: one JSON parameter', async () => {
    const query = '{ items(where: {tags: {_in: [["zz\'; DROP TABLE items; --"], ["a"]]}}) { id } }';
    const r = await f.engine.post('/v1/graphql/explain', { query: { query }, user: {} });
    expect(r.status).toBe(200);
    const b = r.body as Array<{ sql: string; prepared_arguments: unknown[] }>;
    expect(b[0]?.sql).not.toContain('DROP TABLE');
    expect(b[0]?.sql).toContain('jsonb_array_elements');
    expect(b[0]?.prepared_arguments).toEqual([JSON.stringify([["zz'; DROP TABLE items; --"], ['a']])]);
    expect(await ids('{tags: {_in: [["zz\'; DROP TABLE items; --"]]}}')).toEqual([]);
  });
});
