import { describe, expect, it } from 'vitest';
import { checkOutput, shapeOutput, type RelationshipSlot } from '../../../engine/actions/output.ts';
import { parseTypeRef, printTypeRef, type CustomTypesInfo, type TypeRef } from '../../../engine/actions/types.ts';
import { EngineError } from '../../../engine/errors/engine-error.ts';

const types: CustomTypesInfo = {
  scalars: new Map([['Json', { name: 'Json', description: null }]]),
  enums: new Map([['Mood', { name: 'Mood', description: null, values: [{ value: 'happy', description: null, isDeprecated: false }] }]]),
  inputObjects: new Map(),
  objects: new Map([
    [
      'Out',
      {
        name: 'Out',
        description: null,
        fields: [
          { name: 'id', type: parseTypeRef('Int!') as TypeRef, description: null },
          { name: 'mood', type: parseTypeRef('Mood') as TypeRef, description: null },
          { name: 'any', type: parseTypeRef('Json') as TypeRef, description: null },
          { name: 'kids', type: parseTypeRef('[Out!]') as TypeRef, description: null },
        ],
        relationships: [],
      },
    ],
  ]),
};

function misfit(value: unknown, type: string): string {
  try {
    checkOutput('a', value, parseTypeRef(type) as TypeRef, types);
  } catch (e) {
    if (e instanceof EngineError) return e.message;
    throw e;
  }
  return 'fits';
}

describe('action output checks', () => {
  it('parses and prints type references', () => {
    for (const t of ['Int', 'Int!', '[Int]', '[Int!]!', '[[Out]!]']) expect(printTypeRef(parseTypeRef(t) as TypeRef)).toBe(t);
    expect(parseTypeRef('[Int')).toBeNull();
    expect(parseTypeRef('a b')).toBeNull();
  });

  it('accepts what fits', () => {
    expect(misfit({ id: 1, mood: 'happy', any: { x: [1] }, kids: [{ id: 2 }] }, 'Out!')).toBe('fits');
    expect(misfit(null, 'Out')).toBe('fits');
    expect(misfit([{ id: 1 }], '[Out!]!')).toBe('fits');
    expect(misfit(1.5, 'Float')).toBe('fits');
    expect(misfit('x', 'ID')).toBe('fits');
    // v2 accepts fields the output type lacks and drops them (issue 34).
    expect(misfit({ id: 1, nope: 1 }, 'Out')).toBe('fits');
  });

  it('names the path of what does not fit', () => {
    expect(misfit(null, 'Out!')).toContain('null where a value is required at output');
    expect(misfit({ mood: 'happy' }, 'Out')).toContain('at output.id');
    expect(misfit({ id: 1.5 }, 'Out')).toContain('expected an Int at output.id');
    expect(misfit({ id: 1, mood: 'sad' }, 'Out')).toContain('enum Mood at output.mood');
    expect(misfit({ id: 1, kids: [{ id: 1 }, { id: null }] }, 'Out')).toContain('output.kids[1].id');
    expect(misfit('x', '[String]')).toContain('expected a list');
    expect(misfit(1, 'Boolean')).toContain('expected a Boolean');
  });

  it('cuts the output to the selection, with aliases, __typename and relationship slots', () => {
    const slots: RelationshipSlot[][] = [];
    const out = shapeOutput(
      [{ id: 1, mood: 'happy', kids: [{ id: 2 }] }],
      {
        kind: 'object',
        fields: [
          { kind: 'field', alias: 'k', name: 'id', selection: { kind: 'leaf' } },
          { kind: 'typename', alias: '__typename', typename: 'Out' },
          {
            kind: 'field',
            alias: 'kids',
            name: 'kids',
            selection: { kind: 'object', fields: [{ kind: 'field', alias: 'id', name: 'id', selection: { kind: 'leaf' } }] },
          },
          { kind: 'relationship', alias: 'rel', index: 0 },
        ],
      },
      slots,
    );
    expect(out).toEqual([{ k: 1, __typename: 'Out', kids: [{ id: 2 }], rel: null }]);
    expect(slots[0]).toHaveLength(1);
    expect(slots[0]?.[0]?.parent).toMatchObject({ id: 1 });
  });
});
