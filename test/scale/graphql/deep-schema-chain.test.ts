/**
 * Note [Flat type collection] (see test/unit/graphql/deep-schema.test.ts): a schema whose
 * tables chain by relationships through thousands of tables builds (graphql-js's own recursive
 * type walk overflowed the stack).
 */
import { describe, expect, it } from 'vitest';
import type { TableInfo } from '../../../engine/catalog/types.ts';
import { buildRoleSchema } from '../../../engine/graphql/schema/build-schema.ts';
import { arrRel, catalogOf, col, objRel, selectPerm, tbl } from '../../support/catalog-fixture.ts';

/** `n` tables, each but the first pointing at its predecessor, relationships both ways; `user` reads them all. */
function chain(n: number): TableInfo[] {
  const name = (i: number): string => `t${i}`;
  return Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    const relationships = [];
    if (i > 1) relationships.push(objRel('prev', name(i - 1), [['prev_id', 'id']]));
    if (i < n) relationships.push(arrRel('nexts', name(i + 1), [['id', 'prev_id']]));
    return tbl(name(i), [col('id', 'int4', { nullable: false }), col('prev_id', 'int4')], {
      relationships,
      permissions: { user: selectPerm({ columns: ['id', 'prev_id'] }) },
    });
  });
}

describe('flat type collection', () => {
  it('builds the schema of a chain of 6,000 tables', () => {
    const { schema } = buildRoleSchema(catalogOf(chain(6000)), 'user', false);
    expect(schema.getType('t6000_bool_exp')).toBeDefined();
    expect(Object.keys(schema.getQueryType()?.getFields() ?? {})).toHaveLength(12000);
  });
});
