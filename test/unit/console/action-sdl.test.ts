/**
 * The console's SDL of actions and custom types: parsed into the metadata's
 * shapes, printed back, and merged by name (Note [Custom types merge by name]).
 */
import { describe, expect, it } from 'vitest';
import { actionToSdl, mergeTypes, parseActionSdl, parseTypesSdl, typesToSdl, typesUsedBy } from '../../../engine/console/src/pages/actions/action-sdl.ts';
import type { CustomTypes } from '../../../engine/console/src/metadata-state.tsx';

describe('action SDL', () => {
  it('parses one root field into name, arguments, output type and kind of root', () => {
    expect(parseActionSdl('type Query {\n  """Finds"""\n  find(ids: [Int!]!, q: SearchInput): [Hit!]\n}')).toEqual({
      name: 'find',
      type: 'query',
      arguments: [
        { name: 'ids', type: '[Int!]!' },
        { name: 'q', type: 'SearchInput' },
      ],
      output_type: '[Hit!]',
      description: 'Finds',
    });
  });

  it('refuses anything but one field of Query or Mutation, and bad syntax', () => {
    expect(() => parseActionSdl('type Foo { a: Int }')).toThrow(/type Query or type Mutation/);
    expect(() => parseActionSdl('type Mutation { a: Int b: Int }')).toThrow(/exactly one field/);
    expect(() => parseActionSdl('type Mutation { a(: Int }')).toThrow(/not valid GraphQL SDL/);
  });

  it('prints an action and the types it uses, which parse back to the same', () => {
    const def = { type: 'mutation' as const, arguments: [{ name: 'x', type: 'In!' }], output_type: 'Out', handler: 'http://h' };
    const types: CustomTypes = {
      input_objects: [{ name: 'In', fields: [{ name: 'c', type: 'Colour' }] }],
      objects: [{ name: 'Out', fields: [{ name: 'n', type: 'Int!', description: 'the count' }] }],
      enums: [{ name: 'Colour', values: [{ value: 'RED' }] }],
      scalars: [{ name: 'Unused' }],
    };
    expect(actionToSdl('act', def)).toBe('type Mutation {\n  act(x: In!): Out\n}');
    const used = typesUsedBy(def, types);
    expect([...used].sort()).toEqual(['Colour', 'In', 'Out']);
    const sdl = typesToSdl(types, used);
    expect(sdl).not.toContain('Unused');
    const { scalars: _unused, ...rest } = types;
    expect(parseTypesSdl(sdl)).toEqual(rest);
  });

  it('merges by name: replaced types keep their relationships, others stay', () => {
    const rel = [{ name: 'order', type: 'object' as const, remote_table: 'orders', field_mapping: { id: 'id' } }];
    const existing: CustomTypes = {
      objects: [{ name: 'Out', fields: [{ name: 'id', type: 'Int' }], relationships: rel }],
      scalars: [{ name: 'Keep' }, { name: 'Out2' }],
    };
    const merged = mergeTypes(existing, parseTypesSdl('type Out { id: Int!\n extra: String }\ninput Out2 { a: Int }'));
    expect(merged).toEqual({
      scalars: [{ name: 'Keep' }],
      input_objects: [{ name: 'Out2', fields: [{ name: 'a', type: 'Int' }] }],
      objects: [
        {
          name: 'Out',
          fields: [
            { name: 'id', type: 'Int!' },
            { name: 'extra', type: 'String' },
          ],
          relationships: rel,
        },
      ],
    });
  });
});
