/** The graphql-default name rules. */
import { describe, expect, it } from 'vitest';
import { camelCase, pascalCase } from '../../../engine/graphql/schema/naming-convention.ts';

describe('graphql-default names', () => {
  it('PascalCases type names', () => {
    expect(pascalCase('author_bool_exp')).toBe('AuthorBoolExp');
    expect(pascalCase('shop_orders_aggregate_fields')).toBe('ShopOrdersAggregateFields');
    expect(pascalCase('timestamptz')).toBe('Timestamptz');
  });

  it('camelCases fields, arguments and operators, keeping a leading underscore', () => {
    expect(camelCase('author_by_pk')).toBe('authorByPk');
    expect(camelCase('order_by')).toBe('orderBy');
    expect(camelCase('_is_null')).toBe('_isNull');
    expect(camelCase('_has_keys_any')).toBe('_hasKeysAny');
    expect(camelCase('_set')).toBe('_set');
    expect(camelCase('id')).toBe('id');
  });
});
