/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * GraphQL name clashes of derived types: a table whose name is another
 * table's derived type (`x_bool_exp`, `x_aggregate_fields`, `x_insert_input`,
 * ...) or a function's `<fn>_args` is refused (nothing stored), and a
 * replaced document with such a clash leaves the later object inconsistent
 * while the schema keeps working.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';

const SCHEMA = `
CREATE TABLE x (id int PRIMARY KEY, name text);
INSERT INTO x VALUES (1, 'one'), (2, 'two');
CREATE TABLE x_bool_exp (id int PRIMARY KEY);
CREATE TABLE x_aggregate_fields (id int PRIMARY KEY);
CREATE TABLE x_insert_input (id int PRIMARY KEY);
CREATE TABLE x_mutation_response (id int PRIMARY KEY);
CREATE TABLE x_max_order_by (id int PRIMARY KEY);
CREATE TABLE y_order_by (id int PRIMARY KEY);
CREATE TABLE y (id int PRIMARY KEY);
CREATE TABLE find_x_args (id int PRIMARY KEY);
CREATE FUNCTION find_x(search text) RETURNS SETOF x AS $$ SELECT * FROM x WHERE name = search $$ LANGUAGE sql STABLE;
CREATE FUNCTION x_label(r x, prefix text) RETURNS text AS $$ SELECT prefix || r.name $$ LANGUAGE sql STABLE;
CREATE TABLE x_label_args (id int PRIMARY KEY);
`;

let f: MetadataFixture;
beforeAll(async () => {
  f = await startFixture(SCHEMA);
});
afterAll(async () => {
  await f?.close();
});

async function xNames(): Promise<unknown> {
  return f.engine.graphql('{ x(order_by: {id: asc}) { id name } }');
}

describe('derived GraphQL type names', () => {
  it("refuses a table named like another table's derived type, storing nothing", async () => {
    expect((await f.md('pg_track_table', { table: 'x' })).status).toBe(200);
    const before = await f.exported();
    for (const name of ['x_bool_exp', 'x_aggregate_fields', 'x_insert_input', 'x_mutation_response', 'x_max_order_by']) {
      const r = await f.md('pg_track_table', { table: name });
      expect(r.status, name).toBe(400);
      expect(['already-exists', 'invalid-configuration']).toContain(r.body.code);
      expect(r.body.path).toBe('$.args');
      expect(r.body.error).toContain(`"${name}"`);
      expect(r.body.error).toContain('table "x"');
    }
    expect(await f.exported()).toEqual(before);
    expect(((await xNames()) as any).body).toEqual({
      data: {
        x: [
          { id: 1, name: 'one' },
          { id: 2, name: 'two' },
        ],
      },
    });
  });

  it('refuses the other way round: a table whose derived type is already a table', async () => {
    expect((await f.md('pg_track_table', { table: 'y_order_by' })).status).toBe(200);
    const before = await f.exported();
    const r = await f.md('pg_track_table', { table: 'y' });
    expect(r.status).toBe(400);
    expect(r.body.error).toContain('"y_order_by"');
    expect(await f.exported()).toEqual(before);
    expect((await f.engine.graphql('{ y_order_by { id } }')).body).toEqual({ data: { y_order_by: [] } });
  });

  it("refuses a table named like a function's <fn>_args type, and a custom_name that takes a derived name", async () => {
    expect((await f.md('pg_track_function', { function: 'find_x' })).status).toBe(200);
    const before = await f.exported();
    // Functions claim their names after tables, so the table would make the tracked function inconsistent.
    const r = await f.md('pg_track_table', { table: 'find_x_args' });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'unexpected', error: 'cannot continue due to new inconsistent metadata' });
    expect(r.body.internal).toEqual([expect.objectContaining({ type: 'function', reason: expect.stringContaining('"find_x_args"') })]);
    const custom = await f.md('pg_track_table', { table: 'y', configuration: { custom_name: 'x_select_column' } });
    expect(custom.status).toBe(400);
    expect(custom.body.error).toContain('"x_select_column"');
    expect(await f.exported()).toEqual(before);
    const q = await f.engine.graphql('{ find_x(args: {search: "two"}) { id } }');
    expect(q.body).toEqual({ data: { find_x: [{ id: 2 }] } });
  });

  it("claims a computed field's <fn>_args: shared by the fields over one function, refused to a table", async () => {
    const def = { function: 'x_label' };
    expect((await f.md('pg_add_computed_field', { table: 'x', name: 'label', definition: def })).status).toBe(200);
    expect((await f.md('pg_add_computed_field', { table: 'x', name: 'label2', definition: def })).status).toBe(200);
    const before = await f.exported();
    const r = await f.md('pg_track_table', { table: 'x_label_args' });
    expect(r.status).toBe(400);
    expect(r.body.internal.map((o: any) => o.definition.name)).toEqual(['label', 'label2']);
    for (const o of r.body.internal) expect(o).toMatchObject({ type: 'computed_field', reason: expect.stringContaining('"x_label_args"') });
    expect(await f.exported()).toEqual(before);
    const q = await f.engine.graphql('{ x(where: {id: {_eq: 1}}) { label(args: {prefix: "a-"}) label2(args: {prefix: "b-"}) } }');
    expect(q.body).toEqual({ data: { x: [{ label: 'a-one', label2: 'b-one' }] } });
  });

  it('replace_metadata with a clash makes the later table inconsistent; the schema still works', async () => {
    const doc = {
      version: 3,
      sources: [
        {
          name: 'default',
          kind: 'postgres',
          tables: [{ table: { schema: 'public', name: 'x' } }, { table: { schema: 'public', name: 'x_aggregate_fields' } }],
          configuration: (await f.exported()).sources[0].configuration,
        },
      ],
    };
    const refused = await f.md('replace_metadata', { metadata: doc });
    expect(refused.status).toBe(400);
    const r = await f.md('replace_metadata', { metadata: doc, allow_inconsistent_metadata: true });
    expect(r.status).toBe(200);
    expect(r.body.is_consistent).toBe(false);
    expect(r.body.inconsistent_objects).toEqual([expect.objectContaining({ type: 'table', reason: expect.stringContaining('"x_aggregate_fields"') })]);
    expect(((await xNames()) as any).body).toEqual({
      data: {
        x: [
          { id: 1, name: 'one' },
          { id: 2, name: 'two' },
        ],
      },
    });
    const agg = await f.engine.graphql('{ x_aggregate { aggregate { count } } }');
    expect(agg.body).toEqual({ data: { x_aggregate: { aggregate: { count: 2 } } } });
  });
});
