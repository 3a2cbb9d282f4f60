/**
 * What the GraphQL schema of an MSSQL source offers, on the golden fixture recorded for MSSQL
 * (test/golden/fixture/introspection.mssql.json): v2's MSSQL comparison operators (`_like` and
 * `_nlike` on text, no `_ilike`/`_similar`/`_regex`) in `<Scalar>_MSSQL_comparison_exp` types, and
 * SQL Server's nulls order for `asc`/`desc` (Note [Comparison operators per backend]), and v2's
 * MSSQL upsert argument `if_matched` in place of `on_conflict` (Note [MSSQL if_matched]).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Catalog } from '../../../../engine/catalog/types.ts';
import { EngineError } from '../../../../engine/errors/engine-error.ts';
import type { Plan } from '../../../../engine/execute/plan.ts';
import { SchemaCache } from '../../../../engine/graphql/schema/schema-cache.ts';
import { catalogFromRecording, documentForKind, readMetadata, readRecording } from '../../../support/recorded-catalog.ts';
import { planRequest } from '../../../support/request-pipeline.ts';

const fixture = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../golden/fixture');
const pgDoc = readMetadata(path.join(fixture, 'metadata.json'));
const catalog: Catalog = catalogFromRecording(documentForKind(pgDoc, 'mssql'), readRecording(path.join(fixture, 'introspection.mssql.json')));
const pgCatalog: Catalog = catalogFromRecording(pgDoc, readRecording(path.join(fixture, 'introspection.json')));

function plan(query: string, on: Catalog = catalog): Plan {
  return planRequest(new SchemaCache(), on, { query });
}

function refusal(query: string): EngineError {
  try {
    plan(query);
  } catch (e) {
    if (e instanceof EngineError) return e;
    throw e;
  }
  throw new Error('the query was planned');
}

/** The static answer of an introspection query. */
function introspected(query: string, on: Catalog = catalog): unknown {
  const step = plan(query, on).steps.find((s) => s.kind === 'static');
  if (step?.kind !== 'static') throw new Error('no static answer');
  return JSON.parse(step.json) as unknown;
}

describe('the schema of an MSSQL source', () => {
  it('is consistent on the fixture recorded for MSSQL', () => {
    expect(catalog.inconsistencies).toEqual([]);
  });

  it("offers v2's MSSQL text operators only: _like and _nlike", () => {
    const fields = (name: string, on?: Catalog): unknown => introspected(`{ __type(name: "${name}") { name description inputFields { name } } }`, on);
    expect(fields('String_MSSQL_comparison_exp')).toEqual({
      __type: {
        name: 'String_MSSQL_comparison_exp',
        description: `Boolean expression to compare columns of type "String". All fields are combined with logical 'AND'.`,
        inputFields: ['_eq', '_gt', '_gte', '_in', '_is_null', '_like', '_lt', '_lte', '_neq', '_nin', '_nlike'].map((name) => ({ name })),
      },
    });
    expect(fields('String_comparison_exp')).toEqual({ __type: null });
    // A PostgreSQL source keeps every text operator under v2's PostgreSQL name.
    const pg = fields('String_comparison_exp', pgCatalog) as { __type: { inputFields: { name: string }[] } };
    expect(pg.__type.inputFields.map((f) => f.name)).toEqual(expect.arrayContaining(['_ilike', '_similar', '_regex', '_like']));
    const e = refusal('{ albums(where: {title: {_ilike: "%a%"}}) { id } }');
    expect(e.code).toBe('validation-failed');
    expect(e.message).toContain(`field '_ilike' not found in type: 'String_MSSQL_comparison_exp'`);
    expect(() => plan('{ albums(where: {title: {_nlike: "%a%"}}) { id } }')).not.toThrow();
  });

  it("upserts with v2's MSSQL if_matched, not on_conflict; a PostgreSQL source the reverse", () => {
    type Args = { __type: { fields: { name: string; args: { name: string }[] }[] } };
    const insertArgs = (on: Catalog): string[] => {
      const t = introspected('{ __type(name: "mutation_root") { fields { name args { name } } } }', on) as Args;
      return (t.__type.fields.find((f) => f.name === 'insert_artists')?.args ?? []).map((a) => a.name);
    };
    expect(insertArgs(catalog)).toEqual(['if_matched', 'objects']);
    expect(insertArgs(pgCatalog)).toEqual(['objects', 'on_conflict']);
    const type = (name: string, on: Catalog = catalog): unknown =>
      introspected(
        `{ __type(name: "${name}") { name inputFields { name defaultValue type { kind ofType { kind ofType { kind ofType { name } } } } } enumValues { name } } }`,
        on,
      );
    const listOf = (name: string) => ({ kind: 'NON_NULL', ofType: { kind: 'LIST', ofType: { kind: 'NON_NULL', ofType: { name } } } });
    expect(type('artists_if_matched')).toEqual({
      __type: {
        name: 'artists_if_matched',
        inputFields: [
          { name: 'match_columns', defaultValue: '[]', type: listOf('artists_insert_match_column') },
          { name: 'update_columns', defaultValue: '[]', type: listOf('artists_update_column') },
          { name: 'where', defaultValue: null, type: { kind: 'INPUT_OBJECT', ofType: null } },
        ],
        enumValues: null,
      },
    });
    expect(type('artists_insert_match_column')).toMatchObject({ __type: { enumValues: [{ name: 'id' }, { name: 'name' }, { name: 'tags' }] } });
    for (const name of ['artists_on_conflict', 'artists_constraint']) expect(type(name)).toEqual({ __type: null });
    for (const name of ['artists_if_matched', 'artists_insert_match_column']) expect(type(name, pgCatalog)).toEqual({ __type: null });
    const e = refusal('mutation { insert_artists(objects: [{id: 1}], on_conflict: {constraint: artists_pkey}) { affected_rows } }');
    expect(e.code).toBe('validation-failed');
    expect(e.message).toBe("'insert_artists' has no argument named 'on_conflict'");
    // if_matched becomes the MERGE's match: its columns, or none (every row inserted).
    const merge = (q: string): string => {
      const step = plan(q).steps.find((s) => s.kind === 'write');
      if (step?.kind !== 'write') throw new Error('no write step');
      return JSON.stringify(step);
    };
    expect(
      merge('mutation { insert_artists(objects: [{id: 1, name: "a"}], if_matched: {match_columns: [name], update_columns: [id]}) { affected_rows } }'),
    ).toContain('ON ([_t].[name] = [_s].[name]) WHEN MATCHED THEN UPDATE SET [id] = [_s].[id]');
    expect(merge('mutation { insert_artists(objects: [{id: 1, name: "a"}], if_matched: {update_columns: [name]}) { affected_rows } }')).toContain('ON (1 = 0)');
  });

  it('offers if_matched only to a role that may select and update the table, as v2', () => {
    const mutationArgs = (on: Catalog): string[] => {
      const step = planRequest(new SchemaCache(), on, {
        query: '{ __type(name: "mutation_root") { fields { name args { name } } } }',
        role: 'user',
      }).steps.find((s) => s.kind === 'static');
      if (step?.kind !== 'static') throw new Error('no static answer');
      const fields = (JSON.parse(step.json) as { __type: { fields: { name: string; args: { name: string }[] }[] } }).__type.fields;
      return (fields.find((f) => f.name === 'insert_tracks')?.args ?? []).map((a) => a.name);
    };
    expect(mutationArgs(catalog)).toEqual(['if_matched', 'objects']);
    // The same role without its update permission on tracks: it still inserts, but cannot upsert.
    const base = documentForKind(pgDoc, 'mssql');
    const doc = {
      ...base,
      sources: base.sources.map((src) => ({ ...src, tables: src.tables.map((t) => (t.table.name === 'tracks' ? { ...t, update_permissions: [] } : t)) })),
    };
    const noUpdate = catalogFromRecording(doc, readRecording(path.join(fixture, 'introspection.mssql.json')));
    expect(mutationArgs(noUpdate)).toEqual(['objects']);
  });

  it("sorts asc with nulls first and desc with nulls last, SQL Server's order (v2's MSSQL)", () => {
    const text = (q: string): string => {
      const step = plan(q).steps.find((s) => s.kind === 'read');
      if (step?.kind !== 'read') throw new Error('no read step');
      return step.sql.text;
    };
    // The server's own order: no CASE key in front.
    for (const dir of ['asc', 'desc']) {
      const t = text(`{ albums(order_by: {title: ${dir}}) { id } }`);
      expect(t).toMatch(new RegExp(`ORDER BY \\[_\\d+\\]\\.\\[title\\] ${dir.toUpperCase()}`));
      expect(t).not.toContain('IS NULL THEN');
    }
    // The other orders are asked for.
    expect(text('{ albums(order_by: {title: asc_nulls_last}) { id } }')).toMatch(/ORDER BY \(CASE WHEN \[_\d+\]\.\[title\] IS NULL THEN 1 ELSE 0 END\) ASC/);
    expect(text('{ albums(order_by: {title: desc_nulls_first}) { id } }')).toMatch(/ORDER BY \(CASE WHEN \[_\d+\]\.\[title\] IS NULL THEN 0 ELSE 1 END\) ASC/);
  });
});
