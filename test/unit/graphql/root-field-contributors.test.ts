/**
 * Note [Root-field contributors]: a role schema is the root fields of every
 * contributor in list order, and a contributor's fingerprint part decides,
 * with the others, which roles share a schema.
 */
import { ACTION_ROOT_FIELDS } from '../../../engine/graphql/schema/action-root-fields.ts';
import { GraphQLString, printSchema, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Catalog, TableInfo } from '../../../engine/catalog/types.ts';
import { buildRoleSchema } from '../../../engine/graphql/schema/build-schema.ts';
import { withDescriptor, type RootFieldDescriptor } from '../../../engine/graphql/schema/descriptors.ts';
import type { RootFieldContributor } from '../../../engine/graphql/schema/root-field-contributor.ts';
import { FUNCTION_ROOT_FIELDS, ROOT_FIELD_CONTRIBUTORS, TABLE_ROOT_FIELDS } from '../../../engine/graphql/schema/root-fields.ts';
import { SchemaCache } from '../../../engine/graphql/schema/schema-cache.ts';
import { REMOTE_ROOT_FIELDS } from '../../../engine/graphql/schema/remote-root-fields.ts';
import { AGGREGATE_ONLY_ROOT_FIELDS } from '../../../engine/graphql/schema/aggregate-only-fields.ts';
import { musicCatalog } from '../../support/catalog-fixture.ts';

/** A contributor giving `<role>_hello` on each root to the roles in `roles` only. */
function greeter(roles: readonly string[]): RootFieldContributor {
  const field = (role: string) => ({
    type: GraphQLString,
    extensions: withDescriptor<RootFieldDescriptor>({ kind: 'static', json: JSON.stringify(`hello ${role}`) }),
  });
  return {
    name: 'greeter',
    rootFields: (input, root) => (roles.includes(input.role) ? { [`${root}_hello`]: field(input.role) } : {}),
    fingerprint: (_catalog, role) => (roles.includes(role) ? ['greeted'] : []),
  };
}

/** `catalog` plus role `twin`, with exactly `user`'s permissions on every table. */
function withTwin(catalog: Catalog): Catalog {
  const sources = new Map(
    [...catalog.sources].map(([name, source]) => {
      const tables = new Map<string, TableInfo>(
        [...source.tables].map(([key, t]) => {
          const user = t.permissions.get('user');
          return [key, user === undefined ? t : { ...t, permissions: new Map([...t.permissions, ['twin', user]]) }];
        }),
      );
      return [name, { ...source, tables }];
    }),
  );
  return { ...catalog, sources, roles: [...catalog.roles, 'twin'] };
}

const fieldNames = (t: GraphQLObjectType | null | undefined): string[] => Object.keys(t?.getFields() ?? {});

describe('root-field contributors', () => {
  it('are tables, aggregate-only tables, functions, actions, then remote schemas, and the list given builds the same schema as the default', () => {
    expect(ROOT_FIELD_CONTRIBUTORS).toEqual([TABLE_ROOT_FIELDS, AGGREGATE_ONLY_ROOT_FIELDS, FUNCTION_ROOT_FIELDS, ACTION_ROOT_FIELDS, REMOTE_ROOT_FIELDS]);
    const catalog = musicCatalog();
    for (const [role, isAdmin] of [
      ['admin', true],
      ['user', false],
    ] as const) {
      const byDefault = printSchema(buildRoleSchema(catalog, role, isAdmin).schema);
      const explicit = printSchema(
        buildRoleSchema(catalog, role, isAdmin, { contributors: [TABLE_ROOT_FIELDS, FUNCTION_ROOT_FIELDS, ACTION_ROOT_FIELDS] }).schema,
      );
      expect(explicit).toBe(byDefault);
    }
  });

  it('put every contributor’s fields on each root, in list order', () => {
    const catalog = musicCatalog();
    const contributors = [...ROOT_FIELD_CONTRIBUTORS, greeter(['user'])];
    const plain = buildRoleSchema(catalog, 'user', false).schema;
    const greeted = buildRoleSchema(catalog, 'user', false, { contributors }).schema;
    expect(fieldNames(greeted.getQueryType())).toEqual([...fieldNames(plain.getQueryType()), 'query_hello']);
    expect(fieldNames(greeted.getMutationType())).toEqual([...fieldNames(plain.getMutationType()), 'mutation_hello']);
    // Without tables, only the other contributors' fields remain.
    const tablesOnly = buildRoleSchema(catalog, 'user', false, { contributors: [greeter(['user'])] }).schema;
    expect(fieldNames(tablesOnly.getQueryType())).toEqual(['query_hello']);
  });

  it('decide schema sharing through their fingerprint parts', () => {
    const catalog = withTwin(musicCatalog());
    const shared = new SchemaCache();
    expect(shared.get(catalog, 'twin', false).schema).toBe(shared.get(catalog, 'user', false).schema);
    // The greeter reads the role name: its part keeps `user` and `twin` apart, and each gets its own fields.
    const apart = new SchemaCache({ contributors: [...ROOT_FIELD_CONTRIBUTORS, greeter(['user'])] });
    const user = apart.get(catalog, 'user', false).schema;
    const twin = apart.get(catalog, 'twin', false).schema;
    expect(twin).not.toBe(user);
    expect(fieldNames(user.getQueryType())).toContain('query_hello');
    expect(fieldNames(twin.getQueryType())).not.toContain('query_hello');
  });
});
