/**
 * Row-level refetch's pure parts (Note [Row-level refetch], Note [Change reports with rows]):
 * the key texts a bound value compares as, the change report's parsing, and which groups a
 * change may concern.
 */
import { describe, expect, it } from 'vitest';
import { keyText, parseChange } from '../../../engine/backends/postgres/live-query.ts';
import { mayRead, type KeyColumn } from '../../../engine/subscriptions/row-keys.ts';

describe('keyText', () => {
  it('gives the text to_jsonb(row) ->> column gives for an equal column value', () => {
    expect(keyText('int4', 5)).toBe('5');
    expect(keyText('int8', ' -007 ')).toBe('-7');
    expect(keyText('int8', 9007199254740993n)).toBe('9007199254740993');
    expect(keyText('text', 'a b')).toBe('a b');
    expect(keyText('uuid', '{A0EEBC99-9C0B4EF8-BB6D-6BB9BD380A11}')).toBe('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    expect(keyText('bool', true)).toBe('true');
  });

  it('is null (matches every row) where it cannot be sure', () => {
    expect(keyText('int4', 1.5)).toBeNull();
    expect(keyText('int4', '1e3')).toBeNull();
    expect(keyText('int4', 2 ** 60)).toBeNull();
    expect(keyText('text', 5)).toBeNull();
    expect(keyText('bool', 't')).toBeNull();
    expect(keyText('uuid', 'not-a-uuid')).toBeNull();
    expect(keyText('numeric', '1.0')).toBeNull();
    expect(keyText('citext', 'A')).toBeNull();
    expect(keyText('timestamptz', '2020-01-01')).toBeNull();
  });
});

describe('parseChange', () => {
  it('reads a table-only report and a report with rows; anything else is not ours or has no rows', () => {
    expect(parseChange('["public","t"]')).toEqual({ table: { schema: 'public', name: 't' }, rows: null });
    expect(parseChange('["public","t",["grp","id"],[["1","2"],[null,"3"]]]')).toEqual({
      table: { schema: 'public', name: 't' },
      rows: {
        columns: ['grp', 'id'],
        rows: [
          ['1', '2'],
          [null, '3'],
        ],
      },
    });
    expect(parseChange('["public","t",["id"],[["1","2"]]]')).toEqual({ table: { schema: 'public', name: 't' }, rows: null });
    expect(parseChange('["public","t",["id"],[[1]]]')).toEqual({ table: { schema: 'public', name: 't' }, rows: null });
    expect(parseChange('not json')).toBeNull();
    expect(parseChange('{"a":1}')).toBeNull();
  });
});

describe('mayRead', () => {
  const grp: KeyColumn = { column: 'grp', dbType: 'int4', param: 0 };
  const owner: KeyColumn = { column: 'owner', dbType: 'text', param: 1 };
  const change = {
    columns: ['grp', 'owner'],
    rows: [
      ['1', 'a'],
      ['2', 'b'],
      [null, 'c'],
    ],
  };
  const texts =
    (values: Record<string, string | null>) =>
    (c: KeyColumn): string | null =>
      values[c.column] ?? null;

  it('matches a group only when one row has every key value of one read', () => {
    expect(mayRead([[grp]], texts({ grp: '1' }), change)).toBe(true);
    expect(mayRead([[grp]], texts({ grp: '3' }), change)).toBe(false);
    expect(mayRead([[grp, owner]], texts({ grp: '1', owner: 'a' }), change)).toBe(true);
    // Both values occur, never in the same row.
    expect(mayRead([[grp, owner]], texts({ grp: '1', owner: 'b' }), change)).toBe(false);
    // Two reads (root fields): either may match.
    expect(mayRead([[grp], [owner]], texts({ grp: '9', owner: 'c' }), change)).toBe(true);
  });

  it('matches every row where a value cannot be compared or a column was not reported', () => {
    expect(mayRead([[grp]], texts({ grp: null }), change)).toBe(true);
    const other: KeyColumn = { column: 'other', dbType: 'int4', param: 2 };
    expect(mayRead([[other]], texts({ other: '5' }), change)).toBe(true);
    expect(mayRead([[grp]], texts({ grp: '1' }), { columns: ['grp'], rows: [] })).toBe(false);
  });
});
