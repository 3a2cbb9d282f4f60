/**
 * Join keys brought to one text per value of their type (Note [Join keys by
 * type] in engine/execute/join-keys.ts): numbers exact from their text,
 * integers in range only, JSON with sorted keys, UUIDs in one spelling.
 */
import { describe, expect, it } from 'vitest';
import { canonicalKey, canonicalRowKey } from '../../../engine/execute/join-keys.ts';

describe('join keys by type', () => {
  it('write numbers as plain decimals, exact, whatever their spelling', () => {
    for (const [v, want] of [
      [1, '1'],
      ['1.0', '1'],
      ['001.500', '1.5'],
      ['-0.0', '0'],
      ['1e3', '1000'],
      ['1.5E-3', '0.0015'],
      [1e21, '1000000000000000000000'],
      ['123456789012345678901234567890.10', '123456789012345678901234567890.1'],
      ['NaN', 'NaN'],
    ] as const)
      expect(canonicalKey(v, 'number'), String(v)).toBe(want);
    for (const v of ['abc', '', '1.2.3', true, { a: 1 }, '1e99999']) expect(canonicalKey(v, 'number'), String(v)).toBeNull();
  });

  it('take integers of the column’s width only', () => {
    expect(canonicalKey(2.0, 'int32')).toBe('2');
    expect(canonicalKey('2.0', 'int32')).toBe('2');
    expect(canonicalKey('007', 'int16')).toBe('7');
    expect(canonicalKey(2.5, 'int32')).toBeNull();
    expect(canonicalKey(2147483647, 'int32')).toBe('2147483647');
    expect(canonicalKey(2147483648, 'int32')).toBeNull();
    expect(canonicalKey(-2147483648, 'int32')).toBe('-2147483648');
    expect(canonicalKey(40000, 'int16')).toBeNull();
    expect(canonicalKey('9223372036854775807', 'int64')).toBe('9223372036854775807');
    expect(canonicalKey('9223372036854775808', 'int64')).toBeNull();
  });

  it('compare JSON values with keys in any order, and rows’ JSON text likewise', () => {
    const a = canonicalKey({ b: [1, { d: 2, c: 3 }], a: 'x' }, 'json');
    expect(a).toBe('{"a":"x","b":[1,{"c":3,"d":2}]}');
    expect(canonicalRowKey('{"b": [1, {"c": 3, "d": 2}], "a": "x"}', 'json')).toBe(a);
    expect(canonicalRowKey('not json', 'json')).toBeNull();
  });

  it('read booleans, UUIDs and text', () => {
    expect(canonicalKey(true, 'boolean')).toBe('true');
    expect(canonicalRowKey('false', 'boolean')).toBe('false');
    expect(canonicalKey('yes please', 'boolean')).toBeNull();
    expect(canonicalKey('{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}', 'uuid')).toBe('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    expect(canonicalKey('a0eebc999c0b4ef8bb6d6bb9bd380a11', 'uuid')).toBe('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
    expect(canonicalKey('not-a-uuid', 'uuid')).toBeNull();
    expect(canonicalKey(5, 'text')).toBe('5');
    expect(canonicalKey('1.0', 'text')).toBe('1.0');
    expect(canonicalKey(null, 'text')).toBeNull();
  });
});
