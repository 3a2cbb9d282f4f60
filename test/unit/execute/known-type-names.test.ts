/**
 * Note [Known type names without a list] (engine/execute/validate.ts): the
 * engine's KnownTypeNamesLookupRule reports what graphql-js's
 * KnownTypeNamesRule reports, message, suggestions and node, on operations
 * and SDL alike, and lists the schema's type names only when a name is
 * unknown.
 */
import { buildSchema, KnownTypeNamesRule, parse, validate, validateSchema, type GraphQLError, type GraphQLNamedType, type ValidationRule } from 'graphql';
import { describe, expect, it, vi } from 'vitest';
import { KnownTypeNamesLookupRule, prepareOperation } from '../../../engine/execute/validate.ts';

const schema = buildSchema(`
  enum Colour { RED GREEN }
  input album_bool_exp { id: Int, title: String }
  input albums_bool_exp { id: Int }
  type album { id: Int, title: String }
  type Query { album(where: album_bool_exp, colour: Colour): album }
`);

const DOCUMENTS = [
  'query Q($w: album_bool_exp, $c: Colour) { album(where: $w, colour: $c) { id } }',
  'query Q($w: album_bool_ex) { album(where: $w) { id } }',
  'query Q($a: Intt, $b: [Strin!]!, $c: Colr) { album { id } }',
  'query Q($a: Zzzzzzzzzzzz) { album { id } }',
  'query Q { ...F } fragment F on albun { id }',
  'query Q { album { ... on albm { id } ... on Album { title } } }',
  'query Q { album { ... on album { id } } }',
  // SDL in a document: the standard names are known there, types it defines are known.
  'type Mine { a: String, b: Boolean, c: __Type, d: Mine, e: Other } extend type Query { f: Floot }',
  'query Q($m: Mine) { album { id } } input Mine { a: Int }',
];

function errors(rule: ValidationRule, text: string, hideSuggestions = false): Array<{ message: string; node: unknown }> {
  return validate(schema, parse(text), [rule], { hideSuggestions }).map((e: GraphQLError) => ({ message: e.message, node: e.nodes?.[0] }));
}

describe('known type names by lookup', () => {
  it("reports exactly graphql-js's errors", () => {
    let reported = 0;
    for (const text of DOCUMENTS) {
      for (const hide of [false, true]) {
        const theirs = errors(KnownTypeNamesRule, text, hide);
        expect(errors(KnownTypeNamesLookupRule, text, hide), text).toEqual(theirs);
        reported += theirs.length;
      }
    }
    // The cases do report errors, with suggestions.
    expect(reported).toBeGreaterThan(10);
    expect(errors(KnownTypeNamesRule, DOCUMENTS[1] as string)[0]?.message).toBe(
      'Unknown type "album_bool_ex". Did you mean "album_bool_exp" or "albums_bool_exp"?',
    );
  });

  it("lists the schema's type names only when a name is unknown", () => {
    expect(validateSchema(schema)).toEqual([]);
    const map = schema.getTypeMap();
    let listed = 0;
    const counting = new Proxy(map, {
      ownKeys(target) {
        listed += 1;
        return Reflect.ownKeys(target);
      },
    }) as Record<string, GraphQLNamedType>;
    const spy = vi.spyOn(schema, 'getTypeMap').mockReturnValue(counting);
    try {
      expect(errors(KnownTypeNamesLookupRule, DOCUMENTS[0] as string)).toEqual([]);
      expect(listed).toBe(0);
      expect(errors(KnownTypeNamesLookupRule, DOCUMENTS[1] as string)).toHaveLength(1);
      expect(listed).toBe(1);
    } finally {
      spy.mockRestore();
    }
  });

  it("answers the engine's request step with the v2 wording", () => {
    expect(() => prepareOperation(schema, DOCUMENTS[1] as string, null)).toThrow('Unknown type "album_bool_ex"; did you mean "album_bool_exp"?');
  });
});
