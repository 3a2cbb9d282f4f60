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

  it('falls back to the longest candidate the word spells out', () => {
    expect(closest('_equal', ['_eq', '_neq', '_gt', '_in', '_ilike'])).toBe('_eq');
    expect(closest('_is_nullish', ['_is', '_is_null'])).toBe('_is_null');
    // Too short a candidate is no hint, and a word shorter than the candidate is not spelling it out.
    expect(closest('_nothing', ['_n'])).toBeUndefined();
    expect(closest('title', ['title_of_the_book'])).toBeUndefined();
  });
});
