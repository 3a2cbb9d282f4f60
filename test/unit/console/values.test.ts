/**
 * The console's reading of typed text as a value of a column's type
 * (introspect.ts `parseValue`, Note [Typed text becomes a value once]): the
 * value typed, exactly, or a refusal with the reason, never something else.
 */
import { describe, expect, it } from 'vitest';
import { parseValue, type DbColumn } from '../../../engine/console/src/introspect.ts';

/** A column of `type` as the engine prints it (`<prefix>_get_table_info`: v2's type names). */
const col = (type: string): DbColumn => ({ name: 'c', type, nullable: false, hasDefault: false });

describe('parseValue', () => {
  it('reads numbers as typed', () => {
    expect(parseValue(col('numeric'), '9.99')).toEqual({ ok: true, value: 9.99 });
    expect(parseValue(col('float8'), '-0.5')).toEqual({ ok: true, value: -0.5 });
    expect(parseValue(col('integer'), ' 42 ')).toEqual({ ok: true, value: 42 });
  });

  it('keeps as text a number a JavaScript number would not hold exactly', () => {
    expect(parseValue(col('numeric'), '0.1000000000000000000001')).toEqual({ ok: true, value: '0.1000000000000000000001' });
    expect(parseValue(col('bigint'), '9007199254740993')).toEqual({ ok: true, value: '9007199254740993' });
    expect(parseValue(col('numeric'), '1e400')).toEqual({ ok: true, value: '1e400' });
    expect(parseValue(col('float8'), '1e400')).toMatchObject({ ok: false });
  });

  it('refuses text that is not a number of the type, saying why', () => {
    expect(parseValue(col('numeric'), '9,99')).toEqual({ ok: false, problem: '"9,99" is not a number (column c is numeric)' });
    for (const text of ['', 'abc', '0x10', '.', '1e', '9.9.9']) expect(parseValue(col('numeric'), text)).toMatchObject({ ok: false });
    expect(parseValue(col('integer'), '9.5')).toEqual({ ok: false, problem: '"9.5" is not a whole number (column c is integer)' });
  });

  it('reads booleans only from true and false', () => {
    expect(parseValue(col('boolean'), 'true')).toEqual({ ok: true, value: true });
    expect(parseValue(col('boolean'), 'false')).toEqual({ ok: true, value: false });
    for (const text of ['t', 'truerue', 'yes', '']) expect(parseValue(col('boolean'), text)).toMatchObject({ ok: false });
  });

  it('reads JSON columns as JSON and keeps text columns as typed', () => {
    expect(parseValue(col('jsonb'), '{"a": [1, 2]}')).toEqual({ ok: true, value: { a: [1, 2] } });
    expect(parseValue(col('jsonb'), 'hello')).toMatchObject({ ok: false });
    expect(parseValue(col('text'), ' 9.99 ')).toEqual({ ok: true, value: ' 9.99 ' });
    expect(parseValue(undefined, 'true')).toEqual({ ok: true, value: 'true' });
  });
});
