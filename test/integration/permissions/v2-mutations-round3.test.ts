/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * v2 compatibility, third round (issue 34), mutations and permissions: each case is v2's
 * answer over HTTP against a real PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';

const SQL = `
CREATE TABLE owner (id int PRIMARY KEY, name text, level int);
CREATE TABLE item (
  id serial PRIMARY KEY, owner_id int REFERENCES owner(id), tags jsonb, meta jsonb, title text, note text, num int, level int
);
CREATE FUNCTION item_title_length(i item) RETURNS int AS $$ SELECT length(i.title) $$ LANGUAGE sql STABLE;
INSERT INTO owner VALUES (1, 'one', 5), (2, 'two', 7);
INSERT INTO item (owner_id, title) VALUES (1, 'first');
`;

const track = {
  type: 'bulk',
  args: [
    { type: 'pg_track_table', args: { source: 'default', table: 'owner' } },
    { type: 'pg_track_table', args: { source: 'default', table: 'item' } },
    { type: 'pg_create_object_relationship', args: { source: 'default', table: 'item', name: 'owner', using: { foreign_key_constraint_on: 'owner_id' } } },
    { type: 'pg_add_computed_field', args: { source: 'default', table: 'item', name: 'title_length', definition: { function: 'item_title_length' } } },
  ],
};

const readAll = { columns: ['id', 'title', 'meta', 'tags', 'num', 'owner_id', 'level', 'note'], computed_fields: ['title_length'], filter: {} };

/** Insert (and optionally update) permissions per role, each with `readAll` to select. */
const roles: Record<string, { insert: unknown; update?: unknown }> = {
  tagged: { insert: { check: { tags: { _contained_in: 'X-Hasura-Tags' } }, columns: ['id', 'title', 'tags'] } },
  same_tags: { insert: { check: { tags: { _eq: 'X-Hasura-Tags' } }, columns: ['title', 'tags'] } },
  owners: { insert: { check: { owner_id: { _in: 'X-Hasura-Owners' } }, columns: ['title', 'owner_id'] } },
  preset_meta: { insert: { check: {}, set: { meta: 'X-Hasura-Meta', tags: 'x-hasura-tags' }, columns: ['title'] } },
  titler: {
    insert: { check: {}, columns: ['id', 'title', 'num'] },
    update: { columns: ['title'], filter: {}, check: {}, set: { note: 'X-Hasura-Note' } },
  },
  level_check: { insert: { check: { owner: { level: { _ceq: ['$', 'level'] } } }, columns: '*' } },
};

let s: SeededEngine;
const gql = async (query: string, role?: string, session: Record<string, string> = {}, variables?: Record<string, unknown>): Promise<any> =>
  (await s.engine.graphql(query, variables, role === undefined ? undefined : { 'x-engine-role': role, ...session })).body;

beforeAll(async () => {
  s = await startSeededEngine({ prefix: 'v2mut3', sql: SQL, track });
  const args: unknown[] = [];
  for (const [role, p] of Object.entries(roles)) {
    args.push({ type: 'pg_create_select_permission', args: { source: 'default', table: 'item', role, permission: readAll } });
    args.push({ type: 'pg_create_insert_permission', args: { source: 'default', table: 'item', role, permission: p.insert } });
    if (p.update !== undefined) args.push({ type: 'pg_create_update_permission', args: { source: 'default', table: 'item', role, permission: p.update } });
  }
  const r = await s.engine.metadata({ type: 'bulk', args });
  if (r.status !== 200) throw new Error(r.text);
});
afterAll(async () => {
  await s?.close();
});

describe('session variables holding JSON in insert checks and presets', () => {
  const tags = { 'x-hasura-tags': '["a","b"]' };

  it('a jsonb check against a session JSON array compares with the array (v2 casts the text to jsonb)', async () => {
    const ok = await gql('mutation { insert_item_one(object: {title: "t", tags: ["a"]}) { tags } }', 'tagged', tags);
    expect(ok).toEqual({ data: { insert_item_one: { tags: ['a'] } } });
    const eq = await gql('mutation { insert_item_one(object: {title: "t", tags: ["a", "b"]}) { tags } }', 'same_tags', tags);
    expect(eq).toEqual({ data: { insert_item_one: { tags: ['a', 'b'] } } });
  });

  it('a failing check is permission-error, not a data exception', async () => {
    const r = await gql('mutation { insert_item_one(object: {title: "t", tags: ["z"]}) { id } }', 'tagged', tags);
    expect(r.errors).toEqual([
      {
        message: 'check constraint of an insert permission has failed',
        extensions: { path: '$.selectionSet.insert_item_one.args.object', code: 'permission-error' },
      },
    ]);
  });

  it('_in against a session JSON array or Postgres array literal', async () => {
    for (const owners of ['[1,2]', '{1,2}']) {
      const r = await gql('mutation { insert_item_one(object: {title: "o", owner_id: 2}) { owner_id } }', 'owners', { 'x-hasura-owners': owners });
      expect(r).toEqual({ data: { insert_item_one: { owner_id: 2 } } });
    }
  });

  it('a preset from a session JSON object or array fills a jsonb column with that document', async () => {
    const session = { 'x-hasura-meta': '{"k":[1,{"n":null}]}', ...tags };
    const one = await gql('mutation { insert_item_one(object: {title: "p"}) { meta tags } }', 'preset_meta', session);
    expect(one).toEqual({ data: { insert_item_one: { meta: { k: [1, { n: null }] }, tags: ['a', 'b'] } } });
    const many = await gql('mutation { insert_item(objects: [{title: "p1"}, {title: "p2"}]) { returning { meta } } }', 'preset_meta', session);
    expect(many.data.insert_item.returning).toEqual([{ meta: { k: [1, { n: null }] } }, { meta: { k: [1, { n: null }] } }]);
    const { rows } = await s.db.sql("SELECT jsonb_typeof(meta) AS t FROM item WHERE title IN ('p', 'p1', 'p2')");
    expect(rows.map((x) => x.t)).toEqual(['object', 'object', 'object']);
  });

  it('a preset session value that is not JSON is a data exception', async () => {
    const r = await gql('mutation { insert_item_one(object: {title: "bad"}) { id } }', 'preset_meta', { 'x-hasura-meta': 'not json', ...tags });
    expect(r.errors?.[0]?.extensions?.code).toBe('data-exception');
  });
});

describe('insert input coercion', () => {
  it('one object given for objects, holding a variable, is a list of one (GraphQL input coercion)', async () => {
    const q = 'mutation($n: Int) { insert_item(objects: {title: "single", num: $n}) { affected_rows returning { num } } }';
    expect(await gql(q, undefined, {}, { n: 3 })).toEqual({ data: { insert_item: { affected_rows: 1, returning: [{ num: 3 }] } } });
    // v2 compat: a numeric string for an Int variable (Note [Lenient variables]).
    expect(await gql(q, undefined, {}, { n: '2147483647' })).toEqual({ data: { insert_item: { affected_rows: 1, returning: [{ num: 2147483647 }] } } });
  });
});

describe('on_conflict for a role restricted to some update columns', () => {
  it('a column outside the update permission is refused (validation-failed)', async () => {
    const r = await gql(
      'mutation { insert_item_one(object: {id: 1, title: "x"}, on_conflict: {constraint: item_pkey, update_columns: [num]}) { id } }',
      'titler',
    );
    expect(r.data).toBeUndefined();
    expect(r.errors[0].extensions.code).toBe('validation-failed');
    const v = await gql(
      'mutation($c: [item_update_column!]!) { insert_item_one(object: {id: 1, title: "x"}, on_conflict: {constraint: item_pkey, update_columns: $c}) { id } }',
      'titler',
      {},
      { c: ['num'] },
    );
    expect(v.errors[0].extensions.code).toBe('validation-failed');
    expect((await s.db.sql('SELECT title FROM item WHERE id = 1')).rows[0].title).toBe('first');
  });

  it('_PLACEHOLDER, the only value of a role that may update no column, is refused rather than ignored', async () => {
    const r = await gql(
      'mutation { insert_item_one(object: {title: "x"}, on_conflict: {constraint: item_pkey, update_columns: [_PLACEHOLDER]}) { id } }',
      'preset_meta',
      { 'x-hasura-meta': '{}', 'x-hasura-tags': '[]' },
    );
    expect(r).toEqual({
      errors: [{ message: 'erroneous column name', extensions: { path: expect.stringContaining('on_conflict'), code: 'validation-failed' } }],
    });
  });

  it('an upsert whose update preset fills a column returns the updated row', async () => {
    const r = await gql(
      'mutation { insert_item_one(object: {id: 1, title: "upserted"}, on_conflict: {constraint: item_pkey, update_columns: [title]}) { id title note } }',
      'titler',
      { 'x-hasura-note': 'from session' },
    );
    expect(r).toEqual({ data: { insert_item_one: { id: 1, title: 'upserted', note: 'from session' } } });
  });
});

describe('column comparisons across tables in insert checks', () => {
  it('_ceq through an object relationship compares the related row with the inserted one', async () => {
    const ok = await gql('mutation { insert_item_one(object: {title: "lv", owner_id: 1, level: 5}) { level } }', 'level_check');
    expect(ok).toEqual({ data: { insert_item_one: { level: 5 } } });
    const bad = await gql('mutation { insert_item_one(object: {title: "lv", owner_id: 1, level: 6}) { level } }', 'level_check');
    expect(bad.errors?.[0]?.extensions?.code).toBe('permission-error');
  });
});

describe('computed fields in mutation returning', () => {
  it('a computed field granted to the role is on its object type in insert and update returning', async () => {
    const ins = await gql('mutation { insert_item(objects: [{title: "four"}]) { returning { title_length } } }', 'titler');
    expect(ins).toEqual({ data: { insert_item: { returning: [{ title_length: 4 }] } } });
    const upd = await gql('mutation { update_item(where: {id: {_eq: 1}}, _set: {title: "twelve chars"}) { returning { title_length } } }', 'titler', {
      'x-hasura-note': 'n',
    });
    expect(upd).toEqual({ data: { update_item: { returning: [{ title_length: 12 }] } } });
  });
});
