/** Note [Permission literals]: what each type family accepts, as PostgreSQL's input functions do. */
import { describe, expect, it } from 'vitest';
import { literalProblem } from '../../../engine/catalog/permission-literals.ts';
import { backendFor } from '../../../engine/backends/registry.ts';
import { col } from '../../support/catalog-fixture.ts';

const pg = backendFor('postgres');
const scalar = (t: string) => pg.scalar(t);
const ok = (dbType: string, v: unknown, extra = {}): boolean => literalProblem(col('c', dbType, extra), v, scalar) === null;

describe('permission literals', () => {
  it('integers: numbers and integer text within range, PostgreSQL 16 prefixes and underscores', () => {
    for (const v of [1, -5, '42', ' 7 ', '+3', '0x1F', '1_000', '-2147483648']) expect(ok('int4', v), String(v)).toBe(true);
    for (const v of ['abc', 1.5, '1.5', '', true, {}, [1], '2147483648', '1__0']) expect(ok('int4', v), String(v)).toBe(false);
    expect(ok('int2', 40000)).toBe(false);
    expect(ok('int8', '9223372036854775807')).toBe(true);
    expect(ok('int8', '9223372036854775808')).toBe(false);
  });
  it('numerics, booleans, uuids', () => {
    for (const v of [1.5, '2.5e3', '.5', 'NaN', '-Infinity', '1_000.5']) expect(ok('numeric', v), String(v)).toBe(true);
    for (const v of ['abc', true, '1.2.3']) expect(ok('numeric', v), String(v)).toBe(false);
    for (const v of [true, false, 't', 'TRUE', 'yes', 'of', 'on', 1, '0']) expect(ok('bool', v), String(v)).toBe(true);
    for (const v of ['o', 'maybe', 2, '']) expect(ok('bool', v), String(v)).toBe(false);
    for (const v of ['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{a0eebc999c0b4ef8bb6d6bb9bd380a11}', 'A0EE-BC99-9C0B-4EF8-BB6D-6BB9-BD38-0A11']) {
      expect(ok('uuid', v), v).toBe(true);
    }
    for (const v of ['abc', 1, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1', '{a0eebc999c0b4ef8bb6d6bb9bd380a11']) expect(ok('uuid', v), String(v)).toBe(false);
  });
  it('dates and times loosely, enums by label; session variables, null, json and arrays unchecked', () => {
    for (const v of ['2024-01-01', 'today', 'Jan 8 1999', 'epoch']) expect(ok('date', v), v).toBe(true);
    for (const v of ['abc', 5, true]) expect(ok('timestamptz', v), String(v)).toBe(false);
    expect(ok('interval', 5)).toBe(true);
    expect(ok('mood', 'happy', { typeCategory: 'enum', enumLabels: ['happy', 'sad'] })).toBe(true);
    expect(ok('mood', 'angry', { typeCategory: 'enum', enumLabels: ['happy', 'sad'] })).toBe(false);
    for (const t of ['int4', 'uuid', 'bool', 'date']) {
      expect(ok(t, 'X-Engine-User-Id')).toBe(true);
      expect(ok(t, null)).toBe(true);
    }
    expect(ok('jsonb', 'abc')).toBe(true);
    expect(ok('_int4', 'abc', { elementType: 'int4' })).toBe(true);
    expect(literalProblem(col('id', 'int4'), 'abc', scalar)).toBe('expects an integer for column "id" of type int4, not "abc"');
  });
});
