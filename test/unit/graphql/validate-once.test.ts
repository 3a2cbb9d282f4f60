/**
 * Note [Validating only new types] (graphql/schema/collect-types.ts): a
 * schema's first request validates only the types no schema that passed
 * validated before; a schema with an invalid new type gets graphql-js's own
 * errors; a new interface has the schema validated whole.
 */
import {
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  validateSchema,
  type GraphQLFieldConfigMap,
  type GraphQLSchema,
} from 'graphql';
import { describe, expect, it, vi } from 'vitest';
import { schemaOf } from '../../../engine/graphql/schema/collect-types.ts';
import { prepareOperation } from '../../../engine/execute/validate.ts';

/** Types shared by the schemas of a test (as role schemas share table types). */
function sharedTypes(): { readonly album: GraphQLObjectType; readonly where: GraphQLInputObjectType } {
  const where: GraphQLInputObjectType = new GraphQLInputObjectType({
    name: 'album_bool_exp',
    fields: () => ({ id: { type: GraphQLInt }, _and: { type: where } }),
  });
  const album = new GraphQLObjectType({ name: 'album', fields: { id: { type: GraphQLInt }, title: { type: GraphQLString } } });
  return { album, where };
}

function schemaWith(shared: ReturnType<typeof sharedTypes>, extra: GraphQLFieldConfigMap<unknown, unknown> = {}): GraphQLSchema {
  const query = new GraphQLObjectType({ name: 'query_root', fields: { album: { type: shared.album, args: { where: { type: shared.where } } }, ...extra } });
  return schemaOf(query, undefined).schema;
}

const QUERY = '{ album { id } }';
/** A query that reads no type's fields, so only validating the schema does. */
const TYPENAME = '{ __typename }';

describe('validating a schema through its new types', () => {
  it('reads no type another schema validated', () => {
    const shared = sharedTypes();
    prepareOperation(schemaWith(shared), QUERY, null);
    // Mostly new types, so the build leaves the schema to its first request (Note [Validating only new types]).
    const artists = Array.from({ length: 30 }, (_, i) => new GraphQLObjectType({ name: `artist${i}`, fields: { name: { type: GraphQLString } } }));
    const second = schemaWith(shared, Object.fromEntries(artists.map((a) => [a.name, { type: a }])));
    const albumFields = vi.spyOn(shared.album, 'getFields');
    const whereFields = vi.spyOn(shared.where, 'getFields');
    const artistFields = vi.spyOn(artists[7] as GraphQLObjectType, 'getFields');
    prepareOperation(second, TYPENAME, null);
    expect(albumFields).not.toHaveBeenCalled();
    expect(whereFields).not.toHaveBeenCalled();
    expect(artistFields).toHaveBeenCalled();
    // Marked validated: graphql-js does not validate it again.
    artistFields.mockClear();
    expect(validateSchema(second)).toEqual([]);
    expect(artistFields).not.toHaveBeenCalled();
  });

  it("answers graphql-js's errors for an invalid new type", () => {
    const shared = sharedTypes();
    prepareOperation(schemaWith(shared), QUERY, null);
    // An input cycle through non-null fields of new types, and a reserved field name.
    const a: GraphQLInputObjectType = new GraphQLInputObjectType({ name: 'cycle_a', fields: () => ({ b: { type: new GraphQLNonNull(b) } }) });
    const b: GraphQLInputObjectType = new GraphQLInputObjectType({ name: 'cycle_b', fields: () => ({ a: { type: new GraphQLNonNull(a) } }) });
    const bad = new GraphQLObjectType({ name: 'bad', fields: { __reserved: { type: GraphQLInt } } });
    const second = schemaWith(shared, { bad: { type: bad, args: { a: { type: a } } } });
    const fresh = schemaWith(sharedTypes(), { bad: { type: bad, args: { a: { type: a } } } });
    const expected = validateSchema(fresh).map((e) => e.message);
    expect(expected).toHaveLength(2);
    expect(() => prepareOperation(second, QUERY, null)).toThrow(expected.join('\n\n'));
    // The shared types are still known valid: a third schema over them passes.
    expect(() => prepareOperation(schemaWith(shared, { other: { type: GraphQLString } }), QUERY, null)).not.toThrow();
  });

  it("finds an invalid new type of a collection that replayed a validated schema's", () => {
    const shared = sharedTypes();
    const query = new GraphQLObjectType({ name: 'query_root', fields: { album: { type: shared.album, args: { where: { type: shared.where } } } } });
    const first = schemaOf(query, undefined);
    prepareOperation(first.schema, QUERY, null);
    const bad = new GraphQLObjectType({ name: 'bad', fields: { __reserved: { type: GraphQLInt } } });
    const next = new GraphQLObjectType({
      name: 'query_root',
      fields: { album: { type: shared.album, args: { where: { type: shared.where } } }, bad: { type: bad } },
    });
    const second = schemaOf(next, undefined, undefined, first);
    const expected = validateSchema(schemaOf(next, undefined).schema).map((e) => e.message);
    expect(expected).toEqual(['Name "__reserved" must not begin with "__", which is reserved by GraphQL introspection.']);
    expect(() => prepareOperation(second.schema, TYPENAME, null)).toThrow(expected[0]);
  });

  it('validates a schema with a new interface whole', () => {
    const shared = sharedTypes();
    prepareOperation(schemaWith(shared), QUERY, null);
    const node = new GraphQLInterfaceType({ name: 'Node', fields: { id: { type: GraphQLInt } } });
    const thing = new GraphQLObjectType({ name: 'thing', interfaces: [node], fields: { id: { type: GraphQLInt } } });
    const second = schemaWith(shared, { node: { type: node }, thing: { type: thing } });
    const albumFields = vi.spyOn(shared.album, 'getFields');
    prepareOperation(second, TYPENAME, null);
    expect(albumFields).toHaveBeenCalled();
  });
});
