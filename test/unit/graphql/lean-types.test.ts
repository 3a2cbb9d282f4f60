/**
 * Note [Fields made directly] (graphql/schema/lean-types.ts): the lean types
 * make their fields, arguments and input fields themselves; they must be
 * graphql-js's own objects in all but identity (same properties, same order,
 * same values, extensions as toObjMap keeps them; the properties left
 * undefined on a prototype: Note [Field defaults on a prototype]), with argument lists
 * shared per argument map (Note [Shared fields]), and names still asserted
 * by graphql-js.
 */
import {
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLInputFieldConfigMap,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { inputObjectType, nullProto, objectType } from '../../../engine/graphql/schema/lean-types.ts';

/**
 * What reading each of graphql-js's properties of `like` (its own, in order) gives on `o`, own or inherited (Note
 * [Field defaults on a prototype]); extensions as plain entries (graphql-js gives each element its own empty map).
 */
function shape(o: object, like: object = o): Array<[string, unknown]> {
  return Object.keys(like).map((k) => {
    const v = (o as Record<string, unknown>)[k];
    if (k === 'extensions') return [k, { ...(v as object) }];
    if (k === 'args') {
      const theirs = (like as { args: object[] }).args;
      return [k, (v as object[]).map((arg, i) => shape(arg, theirs[i] ?? arg))];
    }
    return [k, v];
  });
}

/** Whether `o` holds as its own every property graphql-js reads of it that is set (none hidden on a prototype). */
function ownWhereSet(o: object, like: object): boolean {
  return Object.entries(like).every(([k, v]) => v === undefined || Object.hasOwn(o, k));
}

const listArgs: GraphQLFieldConfigArgumentMap = {
  limit: { type: GraphQLInt, description: 'limit the number of rows returned' },
  where: { type: GraphQLString, defaultValue: 'x', deprecationReason: 'old', extensions: { plain: 1 } },
};

function fieldConfigs(): GraphQLFieldConfigMap<unknown, unknown> {
  return {
    id: { type: new GraphQLNonNull(GraphQLInt), description: 'the key' },
    name: { type: GraphQLString, deprecationReason: 'renamed', extensions: nullProto({ engine: { kind: 'column' } }) },
    rows: { type: GraphQLString, args: listArgs },
    more: { type: GraphQLString, args: listArgs, extensions: { plain: true } },
    wider: { type: GraphQLString, args: { ...listArgs, offset: { type: GraphQLInt } } },
    none: { type: GraphQLString, args: {} },
  };
}

describe('lean types make graphql-js fields', () => {
  it('object fields and arguments as graphql-js makes them, argument lists shared per map', () => {
    const lean = objectType({ name: 'lean', fields: fieldConfigs });
    const plain = new GraphQLObjectType({ name: 'plain', fields: fieldConfigs });
    const a = lean.getFields();
    const b = plain.getFields();
    expect(Object.keys(a)).toEqual(Object.keys(b));
    for (const name of Object.keys(b)) {
      expect(shape(a[name] as object, b[name] as object)).toEqual(shape(b[name] as object));
      expect(ownWhereSet(a[name] as object, b[name] as object)).toBe(true);
    }
    // Fields with nothing but name, description, type, args and extensions keep the rest on a prototype.
    expect(Object.keys(a['rows'] as object)).toEqual(['name', 'description', 'type', 'args', 'extensions']);
    expect(Object.keys(a['name'] as object)).toHaveLength(9);
    // So do arguments with no default, deprecation or AST node.
    expect(Object.keys(a['rows']?.args[0] as object)).toEqual(['name', 'description', 'type', 'extensions']);
    expect(Object.keys(a['rows']?.args[1] as object)).toHaveLength(7);
    expect(Object.getPrototypeOf(a)).toBeNull();
    // One list for the fields made from one map; a spread of it is another map with its own list.
    expect(a['more']?.args).toBe(a['rows']?.args);
    expect(a['wider']?.args.map((x) => x.name)).toEqual(['limit', 'where', 'offset']);
    expect(a['none']?.args).toEqual([]);
    // A second type over the same map shares the list too; the type's own fields are made once.
    const other = objectType({ name: 'other', fields: { rows: { type: GraphQLString, args: listArgs } } });
    expect(other.getFields()['rows']?.args).toBe(a['rows']?.args);
    expect(lean.getFields()).toBe(a);
    expect(lean.toConfig().fields['rows']?.args?.['where']?.defaultValue).toBe('x');
  });

  it('input fields as graphql-js makes them', () => {
    const configs = (): GraphQLInputFieldConfigMap => ({
      id: { type: new GraphQLNonNull(GraphQLInt), description: 'the key', defaultValue: 3 },
      name: { type: GraphQLString, deprecationReason: 'renamed', extensions: { plain: 'x' } },
      tag: { type: GraphQLString, extensions: nullProto({ engine: { kind: 'column' } }) },
    });
    const lean = inputObjectType({ name: 'lean_input', fields: configs });
    const plain = new GraphQLInputObjectType({ name: 'plain_input', fields: configs });
    const a = lean.getFields();
    const b = plain.getFields();
    expect(Object.keys(a)).toEqual(Object.keys(b));
    for (const name of Object.keys(b)) {
      expect(shape(a[name] as object, b[name] as object)).toEqual(shape(b[name] as object));
      expect(ownWhereSet(a[name] as object, b[name] as object)).toBe(true);
    }
    expect(Object.keys(a['tag'] as object)).toEqual(['name', 'description', 'type', 'extensions']);
    expect(Object.keys(a['id'] as object)).toHaveLength(7);
  });

  it("asserts names with graphql-js's errors", () => {
    const bad = objectType({ name: 'bad', fields: { 'not-a-name': { type: GraphQLInt } } });
    expect(() => bad.getFields()).toThrow('Names must only contain [_a-zA-Z0-9] but "not-a-name" does not.');
    const badArg = objectType({ name: 'bad_arg', fields: { ok: { type: GraphQLInt, args: { '1st': { type: GraphQLInt } } } } });
    expect(() => badArg.getFields()).toThrow('Names must start with [_a-zA-Z] but "1st" does not.');
    const badInput = inputObjectType({ name: 'bad_input', fields: { 'a b': { type: GraphQLInt } } });
    expect(() => badInput.getFields()).toThrow('Names must only contain [_a-zA-Z0-9] but "a b" does not.');
  });
});
