/** The metadata body check (engine/server/metadata-body.ts): what it refuses, and the path and message of the first thing refused. */
import { describe, expect, it } from 'vitest';
import { MAX_METADATA_DEPTH, metadataBodyProblem } from '../../../engine/server/metadata-body.ts';

const nested = (levels: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = i % 2 === 0 ? [v] : { a: v };
  return v;
};

describe('metadataBodyProblem', () => {
  it('accepts a body of ordinary strings, surrogate pairs and deep but bounded nesting', () => {
    expect(metadataBodyProblem({ type: 'x', args: { name: 'café 😀', list: ['a', 'b'], n: 1, z: null, deep: nested(MAX_METADATA_DEPTH - 2) } })).toBeNull();
  });

  it.each([
    [
      'a lone high surrogate in a value',
      { args: { tables: [{ name: 'ok' }, { name: 'x\ud800' }] } },
      '$.args.tables[1].name',
      'invalid string: a lone UTF-16 surrogate is not valid Unicode',
    ],
    ['a lone low surrogate in a value', { args: ['\udc00y'] }, '$.args[0]', 'invalid string: a lone UTF-16 surrogate is not valid Unicode'],
    ['a NUL in a value', { args: { role: 'a\u0000b' } }, '$.args.role', 'invalid string: the NUL character (\\u0000) cannot be stored'],
    ['a lone surrogate in a key', { args: { ['k\ud83d']: 1 } }, '$.args', 'invalid key: a lone UTF-16 surrogate is not valid Unicode'],
    ['a NUL in a key', { ['a\u0000']: 1 }, '$', 'invalid key: the NUL character (\\u0000) cannot be stored'],
  ])('refuses %s, at its path', (_what, body, path, message) => {
    expect(metadataBodyProblem(body)).toEqual({ path, message });
  });

  it('refuses nesting past the bound, at the value that goes past it', () => {
    const r = metadataBodyProblem({ args: nested(MAX_METADATA_DEPTH + 5) });
    expect(r?.message).toBe(`the body is nested more than ${MAX_METADATA_DEPTH} levels deep`);
    expect(r?.path.startsWith('$.args[0].a[0]')).toBe(true);
  });

  it('finds the one value refused in a large body', () => {
    const tables = Array.from({ length: 2000 }, (_, i) => ({
      table: { schema: 'public', name: `t${i}` },
      select_permissions: [{ role: 'r', permission: { columns: '*' } }],
    }));
    (tables[1234]?.select_permissions[0] as { role: string }).role = 'r\ud800';
    expect(metadataBodyProblem({ type: 'replace_metadata', args: { version: 3, sources: [{ name: 'default', tables }] } })).toEqual({
      path: '$.args.sources[0].tables[1234].select_permissions[0].role',
      message: 'invalid string: a lone UTF-16 surrogate is not valid Unicode',
    });
  });
});
