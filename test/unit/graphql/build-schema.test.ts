/** Role schemas of the fixture catalog are valid and fully introspectable. */
import {
  assertValidSchema,
  buildClientSchema,
  getIntrospectionQuery,
  graphqlSync,
  printSchema,
  type GraphQLObjectType,
  type IntrospectionQuery,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildRoleSchema } from '../../../engine/graphql/schema/build-schema.ts';
import { SchemaCache } from '../../../engine/graphql/schema/schema-cache.ts';
import { musicCatalog } from '../../support/catalog-fixture.ts';

describe('buildRoleSchema', () => {
  for (const [role, isAdmin] of [
    ['admin', true],
    ['user', false],
    ['nobody', false],
  ] as const) {
    it(`${role}: valid, and the introspection round-trips`, () => {
      const { schema } = buildRoleSchema(musicCatalog(), role, isAdmin);
      assertValidSchema(schema);
      const r = graphqlSync({ schema, source: getIntrospectionQuery() });
      expect(r.errors).toBeUndefined();
      const client = buildClientSchema(r.data as unknown as IntrospectionQuery);
      expect(printSchema(client)).toBe(printSchema(schema));
    });
  }

  it('names the generated types after v2', () => {
    const { schema } = buildRoleSchema(musicCatalog(), 'admin', true);
    for (const name of [
      'query_root',
      'order_by',
      'albums',
      'albums_bool_exp',
      'albums_order_by',
      'albums_select_column',
      'albums_aggregate',
      'albums_aggregate_fields',
      'albums_aggregate_order_by',
      'tracks_sum_fields',
      'tracks_avg_order_by',
      'colors_enum',
      'colors_enum_comparison_exp',
      'Int_comparison_exp',
      'String_comparison_exp',
      'jsonb_comparison_exp',
      'jsonb_cast_exp',
      'String_array_comparison_exp',
      'numeric_comparison_exp',
      'bigint_comparison_exp',
      'shop_orders',
      'timestamptz_comparison_exp',
    ]) {
      expect(schema.getType(name), name).toBeDefined();
    }
    // Served over the WebSocket: the query fields (live queries).
    expect(schema.getSubscriptionType()?.name).toBe('subscription_root');
    expect(Object.keys(schema.getSubscriptionType()?.getFields() ?? {})).toEqual(expect.arrayContaining(['albums', 'albums_by_pk', 'albums_aggregate']));
    expect(schema.getMutationType()?.name).toBe('mutation_root');
    expect(Object.keys(schema.getMutationType()?.getFields() ?? {})).toEqual(
      expect.arrayContaining([
        'insert_albums',
        'insert_albums_one',
        'update_albums',
        'update_albums_by_pk',
        'update_albums_many',
        'delete_albums',
        'delete_albums_by_pk',
      ]),
    );
    const fields = schema.getQueryType()?.getFields() ?? {};
    expect(Object.keys(fields)).toEqual(expect.arrayContaining(['albums', 'albums_by_pk', 'albums_aggregate', 'shop_orders', 'colors']));
  });

  it('the user role sees only permitted tables, columns and aggregates', () => {
    const { schema } = buildRoleSchema(musicCatalog(), 'user', false);
    const q = Object.keys(schema.getQueryType()?.getFields() ?? {});
    expect(q.sort()).toEqual(['albums', 'albums_by_pk', 'artists', 'artists_aggregate', 'artists_by_pk', 'tracks', 'tracks_by_pk']);
    expect(schema.getType('albums_aggregate')).toBeUndefined();
    const albumFields = Object.keys((schema.getType('albums') as GraphQLObjectType).getFields());
    expect(albumFields).toEqual(['id', 'title', 'artist_id', 'artist', 'tracks']);
  });

  it('memoizes per catalog version and role', () => {
    const cache = new SchemaCache();
    const c1 = musicCatalog(1);
    expect(cache.get(c1, 'user', false)).toBe(cache.get(c1, 'user', false));
    const c2 = musicCatalog(2);
    expect(cache.get(c2, 'user', false)).not.toBe(cache.get(c1, 'user', false));
  });
});
