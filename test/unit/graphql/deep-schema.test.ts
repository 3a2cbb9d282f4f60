/**
 * Note [Flat type collection]: a schema whose tables chain by relationships
 * through thousands of tables builds (graphql-js's own recursive type walk
 * overflowed the stack), with the types in graphql-js's order.
 */
import { GraphQLSchema, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildRoleSchema } from '../../../engine/graphql/schema/build-schema.ts';
import { collectTypes } from '../../../engine/graphql/schema/collect-types.ts';
import { musicCatalog } from '../../support/catalog-fixture.ts';

describe('flat type collection', () => {
  it('lists the types in the order graphql-js collects them', () => {
    for (const [role, isAdmin] of [
      ['admin', true],
      ['user', false],
    ] as const) {
      const { schema } = buildRoleSchema(musicCatalog(), role, isAdmin);
      const roots = [schema.getQueryType() ?? undefined, schema.getMutationType() ?? undefined, schema.getSubscriptionType() ?? undefined];
      const plain = new GraphQLSchema({ query: roots[0], mutation: roots[1], subscription: roots[2] });
      expect(Object.keys(schema.getTypeMap())).toEqual(Object.keys(plain.getTypeMap()));
      expect(collectTypes(roots).types.map((t) => t.name)).toEqual(Object.keys(plain.getTypeMap()));
      expect(printSchema(schema)).toBe(printSchema(plain));
    }
  });
});
