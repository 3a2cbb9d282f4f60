import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from '../../../engine/errors/suggest.ts';

describe('suggestions', () => {
  it('measures edits, a transposition counting one', () => {
    expect(editDistance('colums', 'columns')).toBe(1);
    expect(editDistance('tabel', 'table')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('suggests only close names', () => {
    expect(closest('colums', ['columns', 'filter', 'check'])).toBe('columns');
    expect(closest('pg_trak_table', ['pg_track_table', 'pg_untrack_table'])).toBe('pg_track_table');
    expect(closest('foo', ['columns', 'filter'])).toBeUndefined();
    expect(didYouMean('Filter', ['filter'])).toBe('; did you mean "filter"?');
    expect(didYouMean('zzz', ['filter'])).toBe('');
  });
});
