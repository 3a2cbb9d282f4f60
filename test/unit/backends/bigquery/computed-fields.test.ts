/**
 * BigQuery computed fields (Note [Computed fields by argument mapping]): the
 * catalog's resolution of v2's `{function, argument_mapping, return_table}`
 * against hand-built introspected routines (the `RETURNS TABLE` cases the
 * emulator does not report), with v2's reasons; and the SQL of a
 * computed field's rows, read by sqlglot's bigquery dialect.
 */
import { describe, expect, it } from 'vitest';
import type { IntrospectedFunction } from '../../../../engine/backends/introspection.ts';
import { bigqueryNaming } from '../../../../engine/backends/bigquery/naming.ts';
import { compileQuery } from '../../../../engine/backends/bigquery/compile.ts';
import { resolveMappedComputedField } from '../../../../engine/catalog/stages/computed-fields.ts';
import type { TableDraft } from '../../../../engine/catalog/stages/tables.ts';
import type { ComputedFieldMetadata } from '../../../../engine/model/document.ts';
import type * as ir from '../../../../engine/ir/index.ts';
import { parseSql, sqlglotPython } from '../../../support/sqlglot.ts';

const authors = { schema: 'shop', name: 'authors' };
const articles = { schema: 'shop', name: 'articles' };
// Only what the resolution reads of a draft: its name, naming and columns.
const draft = {
  entry: { table: authors },
  naming: bigqueryNaming,
  columns: [{ name: 'id' }, { name: 'name' }],
} as unknown as TableDraft;

function tvf(over: Partial<IntrospectedFunction> = {}): IntrospectedFunction {
  return {
    name: { schema: 'shop', name: 'search' },
    oid: 1,
    volatility: 'volatile',
    returnsSet: true,
    returnType: { schema: '', name: 'TABLE', typeCategory: 'composite' },
    returnTable: null,
    args: [
      { name: 'a_id', dbType: 'INT64', elementType: null, typeCategory: 'base', hasDefault: false },
      { name: 'q', dbType: 'STRING', elementType: null, typeCategory: 'base', hasDefault: false },
    ],
    comment: null,
    ...over,
  };
}

function resolve(fn: IntrospectedFunction, definition: Record<string, unknown>, tracked = true): unknown {
  const entry = { name: 'found', definition: { function: { dataset: 'shop', name: 'search' }, ...definition } } as ComputedFieldMetadata;
  return resolveMappedComputedField(draft, entry, new Map([['shop.search', [fn]]]), () => tracked);
}

const prefix = 'the computed field "found" cannot be added to table "shop.authors" ';

describe('resolveMappedComputedField', () => {
  it('takes the mapped arguments from the row and offers the others as args, returning rows of return_table', () => {
    expect(resolve(tvf(), { argument_mapping: { a_id: 'id' }, return_table: { dataset: 'shop', name: 'articles' } })).toEqual({
      name: 'found',
      function: { schema: 'shop', name: 'search' },
      description: null,
      tableArgument: null,
      sessionArgument: null,
      args: [{ name: 'q', dbType: 'STRING', elementType: null, typeCategory: 'base', hasDefault: false }],
      returns: { kind: 'table', table: articles, returnsSet: true },
      argumentMapping: { a_id: 'id' },
    });
  });

  it("gives v2's reasons: RETURNS TABLE with or without return_table, untracked table, bad mapping, not table-valued", () => {
    const cols = { returnColumns: [{ name: 'id', dbType: 'INT64', elementType: null }] };
    expect(resolve(tvf(cols), { argument_mapping: { a_id: 'id' }, return_table: { dataset: 'shop', name: 'articles' } })).toEqual({
      reason: `${prefix}because return table "shop.articles" is not required as the function "shop.search" returns arbitrary column fields`,
    });
    expect(resolve(tvf(cols), { argument_mapping: { a_id: 'id' } })).toEqual({
      reason: `${prefix}because function "shop.search" returns the columns of its RETURNS TABLE, which the engine does not support yet`,
    });
    expect(resolve(tvf(), { argument_mapping: { a_id: 'id' }, return_table: { dataset: 'shop', name: 'articles' } }, false)).toEqual({
      reason: `${prefix}because function "shop.search" returning set of table "shop.articles" is not tracked`,
    });
    expect(resolve(tvf({ returnsSet: false }), { argument_mapping: { x: 'nope' }, return_table: { dataset: 'shop', name: 'articles' } })).toEqual({
      reason:
        `${prefix}for the following reasons: \n` +
        '  • function "shop.search" is not a TABLE_VALUED_FUNCTION\n' +
        '  • the argument "x" is not one of function "shop.search" input arguments\n' +
        '  • the column "nope" does not exist in table "shop.authors"\n',
    });
    const missing = { name: 'found', definition: { function: { dataset: 'shop', name: 'nope' }, argument_mapping: {} } } as ComputedFieldMetadata;
    expect(resolveMappedComputedField(draft, missing, new Map(), () => true)).toEqual({ reason: 'no such function exists: "shop.nope"' });
    expect(resolve(tvf({ args: [] }), { argument_mapping: {} })).toEqual({ reason: `${prefix}because function "shop.search" has no input arguments defined` });
    const anyType = tvf({ args: [{ name: 'v', dbType: 'ANY TYPE', elementType: null, typeCategory: 'pseudo', hasDefault: false }] });
    expect(resolve(anyType, { argument_mapping: {} })).toEqual({
      reason: `${prefix}because argument "v" has no data type defined in the function "shop.search"`,
    });
  });
});

describe('the SQL of a computed field on BigQuery', () => {
  const rows = (table: ir.QualifiedName, limit: ir.ParamSource | null = null): ir.RowSource => ({
    table,
    where: null,
    orderBy: [],
    distinctOn: [],
    limit,
    limitCap: null,
    offset: null,
  });
  const field: ir.ComputedRowsField = {
    kind: 'computed-rows',
    alias: 'found',
    call: {
      function: { schema: 'shop', name: 'search' },
      tableArgument: null,
      args: [{ name: 'q', value: { kind: 'const', value: '%u%' } }],
      argumentMapping: { a_id: 'id' },
      argTypes: { q: 'STRING' },
    },
    select: {
      from: rows(articles, { kind: 'const', value: 2 }),
      fields: [{ kind: 'column', alias: 'title', column: 'title', asText: false }],
      cardinality: 'many',
    },
  };
  const stmt = compileQuery([{ kind: 'select', alias: 'shop_authors', source: 'bq', select: { from: rows(authors), fields: [field], cardinality: 'many' } }]);

  it("calls the function on the row's columns by name and the args as typed parameters, packed for the LIMIT (v2's shape)", async () => {
    expect(stmt.text).toBe(
      'SELECT TO_JSON_STRING(STRUCT(ARRAY(SELECT AS STRUCT ARRAY(SELECT AS STRUCT `_3`.`title` AS `title` FROM (SELECT `_2`.* FROM ' +
        'UNNEST(ARRAY(SELECT `_4` FROM `shop`.`search`(`a_id` => `_1`.`id`, `q` => @p1) AS `_4`)) AS `_2` LIMIT @p2) AS `_3` ' +
        'LIMIT @global_select_limit) AS `found` FROM (SELECT `_0`.* FROM `shop`.`authors` AS `_0`) AS `_1` LIMIT @global_select_limit) AS `shop_authors`)) AS `j`',
    );
    expect(stmt.params).toEqual([
      { kind: 'const', value: '%u%' },
      { kind: 'const', value: 2 },
    ]);
    expect(stmt.paramTypes).toEqual([
      { dbType: 'STRING', list: false },
      { dbType: 'INT64', list: false },
    ]);
    const py = await sqlglotPython();
    if ('skip' in py) return;
    expect(await parseSql(py.python, 'bigquery', [stmt.text])).toEqual([null]);
  }, 600_000);
});
