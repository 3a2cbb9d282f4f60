/**
 * The remote relationship form's reading and writing
 * (engine/console/src/pages/data/remote-relationship.ts): stored definitions
 * of both targets (and v2's older form) load into the form and save back the
 * same; argument values are read as the argument's type.
 */
import { describe, expect, it } from 'vitest';
import { buildSchema } from 'graphql';
import type { RemoteRelationshipMetadata } from '../../../engine/model/document.ts';
import { formOf, toRemoteSchema, toSource, typedArgument } from '../../../engine/console/src/pages/data/remote-relationship.ts';

const schema = buildSchema(
  'input UserWhere { name: String }  type Query { user(id: Int!, active: Boolean, tags: [String!], note: String, where: UserWhere): User }  type User { name: String! }',
);
const argType = (_step: number, a: string) =>
  schema
    .getQueryType()!
    .getFields()
    ['user']!.args.find((x) => x.name === a)?.type;
const keyOf = (_source: string, t: unknown) => (typeof t === 'string' ? `public.${t}` : `${(t as { schema: string }).schema}.${(t as { name: string }).name}`);

describe('remote relationship form', () => {
  it('loads a to_remote_schema relationship and writes it back the same', () => {
    const def = {
      remote_schema: 'crm',
      lhs_fields: ['user_id', 'flag'],
      remote_field: { user: { arguments: { id: '$user_id', active: '$flag', tags: ['a', 'b'], note: 'hi' }, field: { name: {} } } },
    };
    const form = formOf({ name: 'user', definition: { to_remote_schema: def } }, keyOf);
    expect(form.target).toBe('remote_schema');
    expect(form.remoteSchema.steps[0]!.args).toEqual({
      id: { from: 'column', column: 'user_id' },
      active: { from: 'column', column: 'flag' },
      tags: { from: 'value', text: '["a","b"]' },
      note: { from: 'value', text: 'hi' },
    });
    expect(toRemoteSchema(form.remoteSchema, argType)).toEqual(def);
  });

  it("reads v2's older form and saves it in the newer one", () => {
    const rel = { name: 'u', definition: { hasura_fields: ['uid'], remote_schema: 'crm', remote_field: { user: { arguments: { id: '$uid' } } } } };
    const form = formOf(rel as RemoteRelationshipMetadata, keyOf);
    expect(toRemoteSchema(form.remoteSchema, argType)).toEqual({
      remote_schema: 'crm',
      lhs_fields: ['uid'],
      remote_field: { user: { arguments: { id: '$uid' } } },
    });
  });

  it('loads a to_source relationship and writes it back the same, the table as written', () => {
    const def = { source: 'shop', table: 'reviews', relationship_type: 'array' as const, field_mapping: { id: 'order_id', kind: 'kind' } };
    const form = formOf({ name: 'reviews', definition: { to_source: def } }, keyOf);
    expect(form.source.table).toBe('public.reviews');
    expect(toSource(form.source, () => null)).toEqual(def);
    expect(() => toSource({ ...form.source, mapping: [{ from: 'id', to: '' }] }, () => null)).toThrow('Map each column');
  });

  it('reads a typed argument value as its type, refusing what is not one', () => {
    expect(typedArgument(argType(0, 'id'), '42', 'id')).toBe(42);
    expect(() => typedArgument(argType(0, 'id'), '4.2', 'id')).toThrow('"4.2" is not an Int');
    expect(typedArgument(argType(0, 'active'), 'false', 'active')).toBe(false);
    expect(typedArgument(argType(0, 'note'), '42', 'note')).toBe('42');
    expect(typedArgument(argType(0, 'tags'), '["x"]', 'tags')).toEqual(['x']);
    // GraphQL takes one item for a list of one.
    expect(typedArgument(argType(0, 'tags'), 'x', 'tags')).toBe('x');
    expect(typedArgument(argType(0, 'where'), '{"name":"$n"}', 'where')).toEqual({ name: '$n' });
    expect(() => typedArgument(argType(0, 'where'), 'x', 'where')).toThrow('not JSON (UserWhere is an input object or a list)');
    expect(() => toRemoteSchema({ remote: 'crm', lhs: [], steps: [{ field: 'user', args: { id: { from: 'value', text: '1' } } }] }, argType)).toThrow(
      'Pass at least one column',
    );
  });
});
