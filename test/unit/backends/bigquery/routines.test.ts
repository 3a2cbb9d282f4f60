/**
 * BigQuery routines as introspected functions (Note [BigQuery routines]), from
 * routines.get answers shaped as BigQuery gives them: a table-valued function
 * with `RETURNS TABLE<...>`, one without, an `ANY TYPE` argument, a scalar
 * function, and a procedure (left out).
 */
import { describe, expect, it } from 'vitest';
import { routineToFunction, type RestRoutine } from '../../../../engine/backends/bigquery/introspect-routines.ts';

const ref = (routineId: string) => ({ projectId: 'p', datasetId: 'shop', routineId });

describe('routineToFunction', () => {
  it('reads a table-valued function with a declared return table: a set of rows of no named table, with its columns', () => {
    const r: RestRoutine = {
      routineReference: ref('articles_of'),
      routineType: 'TABLE_VALUED_FUNCTION',
      arguments: [
        { name: 'author', argumentKind: 'FIXED_TYPE', mode: 'IN', dataType: { typeKind: 'INT64' } },
        { name: 'tags', dataType: { typeKind: 'ARRAY', arrayElementType: { typeKind: 'STRING' } } },
      ],
      returnTableType: {
        columns: [
          { name: 'id', type: { typeKind: 'INT64' } },
          { name: 'title', type: { typeKind: 'STRING' } },
        ],
      },
      determinismLevel: 'DETERMINISTIC',
      description: 'by author',
    };
    expect(routineToFunction(r)).toEqual({
      name: { schema: 'shop', name: 'articles_of' },
      oid: expect.any(Number),
      volatility: 'immutable',
      returnsSet: true,
      returnType: { schema: '', name: 'TABLE', typeCategory: 'composite' },
      returnTable: null,
      returnColumns: [
        { name: 'id', dbType: 'INT64', elementType: null },
        { name: 'title', dbType: 'STRING', elementType: null },
      ],
      args: [
        { name: 'author', dbType: 'INT64', elementType: null, typeCategory: 'base', hasDefault: false },
        { name: 'tags', dbType: 'ARRAY', elementType: 'STRING', typeCategory: 'base', hasDefault: false },
      ],
      comment: 'by author',
    });
  });

  it('reads a table-valued function without a declared return table, and an ANY TYPE argument', () => {
    const fn = routineToFunction({
      routineReference: ref('any_rows'),
      routineType: 'TABLE_VALUED_FUNCTION',
      arguments: [{ name: 'x', argumentKind: 'ANY_TYPE' }],
    });
    expect(fn).not.toBeNull();
    expect(fn?.returnColumns).toBeUndefined();
    expect(fn?.volatility).toBe('volatile');
    expect(fn?.args).toEqual([{ name: 'x', dbType: 'ANY TYPE', elementType: null, typeCategory: 'pseudo', hasDefault: false }]);
  });

  it('reads a scalar function as returning one value of its type, and leaves procedures out', () => {
    const scalar = routineToFunction({ routineReference: ref('twice'), routineType: 'SCALAR_FUNCTION', returnType: { typeKind: 'FLOAT64' } });
    expect(scalar?.returnsSet).toBe(false);
    expect(scalar?.returnType).toEqual({ schema: '', name: 'FLOAT64', typeCategory: 'base' });
    expect(routineToFunction({ routineReference: ref('load'), routineType: 'PROCEDURE' })).toBeNull();
  });
});
