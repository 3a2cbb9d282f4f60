/**
 * Note [Flat type collection]: a schema whose tables chain by relationships
 * through thousands of tables builds (graphql-js's own recursive type walk
 * overflowed the stack), with the types in graphql-js's order.
 */
import { GraphQLSchema, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { TableInfo } from '../../../engine/catalog/types.ts';
import { buildRoleSchema } from '../../../engine/graphql/schema/build-schema.ts';
import { collectTypes } from '../../../engine/graphql/schema/collect-types.ts';
import { arrRel, catalogOf, col, musicCatalog, objRel, selectPerm, tbl } from '../../support/catalog-fixture.ts';

/** `n` tables, each but the first pointing at its predecessor, relationships both ways; `user` reads them all. */
function chain(n: number): TableInfo[] {
  const name = (i: number): string => `t${i}`;
  return Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    const relationships = [];
    if (i > 1) relationships.push(objRel('prev', name(i - 1), [['prev_id', 'id']]));
    if (i < n) relationships.push(arrRel('nexts', name(i + 1), [['id', 'prev_id']]));
    return tbl(name(i), [col('id', 'int4', { nullable: false }), col('prev_id', 'int4')], { relationships, permissions: { user: selectPerm({ columns: ['id', 'prev_id'] }) } });
  });
}

describe('flat type collection', () => {
  it('builds the schema of a chain of 6,000 tables', () => {
    const { schema } = buildRoleSchema(catalogOf(chain(6000)), 'user', false);
    expect(schema.getType('t6000_bool_exp')).toBeDefined();
    expect(Object.keys(schema.getQueryType()?.getFields() ?? {})).toHaveLength(12000);
  });

  it('lists the types in the order graphql-js collects them', () => {
    for (const [role, isAdmin] of [['admin', true], ['user', false]] as const) {
      const { schema } = buildRoleSchema(musicCatalog(), role, isAdmin);
      const roots = [schema.getQueryType() ?? undefined, schema.getMutationType() ?? undefined, schema.getSubscriptionType() ?? undefined];
      const plain = new GraphQLSchema({ query: roots[0], mutation: roots[1], subscription: roots[2] });
      expect(Object.keys(schema.getTypeMap())).toEqual(Object.keys(plain.getTypeMap()));
      expect(collectTypes(roots).map((t) => t.name)).toEqual(Object.keys(plain.getTypeMap()));
      expect(printSchema(schema)).toBe(printSchema(plain));
    }
  });
});
