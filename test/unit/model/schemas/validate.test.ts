import { describe, expect, it } from 'vitest';
import { isEngineError } from '../../../../engine/errors/engine-error.ts';
import { createArrayRelationshipArgs, trackTableArgs } from '../../../../engine/model/schemas/args.ts';
import { assertValid, type JsonSchema } from '../../../../engine/model/schemas/validate.ts';

function failure(schema: JsonSchema, value: unknown): { path: string; message: string; code: string } {
  try {
    assertValid(schema, value, '$.args');
  } catch (e) {
    if (isEngineError(e)) return { path: e.path, message: e.message, code: e.code };
    throw e;
  }
  throw new Error('expected a validation failure');
}

describe('assertValid', () => {
  it('passes valid args through', () => {
    expect(assertValid(trackTableArgs, { table: 'a' }, '$.args')).toEqual({ table: 'a' });
  });

  it('names a missing key at the object holding it', () => {
    expect(failure(trackTableArgs, {})).toEqual({ path: '$.args', message: 'key "table" not found', code: 'parse-failed' });
  });

  it('merges the type errors of alternatives', () => {
    expect(failure(trackTableArgs, { table: 3 })).toMatchObject({ path: '$.args.table', message: 'expected String or Object, encountered Number' });
  });

  it('prefers the deeper error of an object alternative', () => {
    expect(failure(trackTableArgs, { table: { schema: 'public' } })).toMatchObject({ path: '$.args.table', message: 'key "name" not found' });
  });

  it('reports unexpected keys with their path', () => {
    expect(failure(trackTableArgs, { table: 'a', colour: 1 })).toMatchObject({ path: '$.args.colour', message: 'unexpected key "colour"' });
  });

  it('writes array indices and nested keys as a JSON path', () => {
    const r = failure(createArrayRelationshipArgs, {
      table: 'a',
      name: 'b',
      using: { foreign_key_constraint_on: { table: 'c', columns: ['x', 4] } },
    });
    expect(r.path).toBe('$.args.using.foreign_key_constraint_on.columns[1]');
  });
});
