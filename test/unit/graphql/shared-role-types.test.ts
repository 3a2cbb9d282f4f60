/**
 * Note [Shared role types]: roles whose permissions differ only in filters,
 * limits, checks and preset values share one GraphQLSchema, and each still
 * gets its own permissions in the IR (equal to what an unshared schema of its
 * own gives).
 */
import type { GraphQLObjectType, GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Catalog, TableInfo, TablePermissions } from '../../../engine/catalog/types.ts';
import { prepareOperation } from '../../../engine/execute/validate.ts';
import { buildRoleSchema, type RoleSchema } from '../../../engine/graphql/schema/build-schema.ts';
import { SchemaCache } from '../../../engine/graphql/schema/schema-cache.ts';
import { toIrOperation } from '../../../engine/graphql/to-ir/operation.ts';
import { musicCatalog } from '../../support/catalog-fixture.ts';

/** `catalog` plus `role`, whose permission on each table is `edit` of the `user` role's. */
function withRole(catalog: Catalog, role: string, edit: (table: string, p: TablePermissions) => TablePermissions): Catalog {
  const sources = new Map(
    [...catalog.sources].map(([name, source]) => {
      const tables = new Map<string, TableInfo>(
        [...source.tables].map(([key, t]) => {
          const user = t.permissions.get('user');
          if (user === undefined) return [key, t];
          return [key, { ...t, permissions: new Map([...t.permissions, [role, edit(t.name.name, user)]]) }];
        }),
      );
      return [name, { ...source, tables }];
    }),
  );
  return { ...catalog, sources, roles: [...catalog.roles, role] };
}

/** `catalog` with tracks.album_id NOT NULL. */
function requireAlbumId(catalog: Catalog): Catalog {
  const sources = new Map(
    [...catalog.sources].map(([name, source]) => {
      const tables = new Map<string, TableInfo>(
        [...source.tables].map(([key, t]) => [
          key,
          t.name.name !== 'tracks' ? t : { ...t, columns: t.columns.map((c) => (c.name === 'album_id' ? { ...c, nullable: false } : c)) },
        ]),
      );
      return [name, { ...source, tables }];
    }),
  );
  return { ...catalog, sources };
}

/** `user`'s shape with other filters, limits, checks and presets. */
function otherRules(_table: string, p: TablePermissions): TablePermissions {
  const idAbove = { id: { _gt: 'X-Engine-User-Id' } };
  return {
    // An unfiltered table stays unfiltered: whether reads are filtered is part of the shape.
    select: p.select === null ? null : { ...p.select, filter: Object.keys(p.select.filter).length === 0 ? p.select.filter : idAbove, limit: 3 },
    insert: p.insert === null ? null : { ...p.insert, check: idAbove, set: { genre_id: 2 } },
    update: p.update === null ? null : { ...p.update, filter: idAbove, check: { milliseconds: { _lt: 1000 } } },
    delete: p.delete === null ? null : { filter: { milliseconds: { _gt: 5 } } },
  };
}

const OPERATIONS = [
  'query { albums(where: {artist: {name: {_eq: "x"}}}, order_by: {artist: {name: asc}}) { id artist { name } tracks(limit: 5) { name } } }',
  'query { albums_by_pk(id: 1) { title } artists_aggregate { aggregate { count } nodes { albums { id } } } }',
  'query { tracks(where: {album: {title: {_eq: "t"}}}) { album { artist { name } } } }',
  'mutation { insert_tracks(objects: [{name: "n", album_id: 1}]) { affected_rows returning { id } } }',
  'mutation { update_tracks(where: {name: {_eq: "n"}}, _set: {milliseconds: 3}) { returning { name } } delete_tracks(where: {id: {_eq: 1}}) { affected_rows } }',
  'mutation { update_tracks_by_pk(pk_columns: {id: 1}, _set: {name: "m"}) { id } delete_tracks_by_pk(id: 2) { id } }',
];

function irOf(rs: RoleSchema, query: string): string {
  const { document, operation } = prepareOperation(rs.schema, query, null);
  const op = toIrOperation({ schema: rs.schema, access: rs.access, document, operation, variables: {}, stringifyNumericTypes: false, introspection: true });
  return JSON.stringify(op.fields);
}

describe('shared role types', () => {
  const catalog = withRole(musicCatalog(), 'other', otherRules);

  it('roles differing only in filters, limits, checks and presets share one schema', () => {
    const cache = new SchemaCache();
    const user = cache.get(catalog, 'user', false);
    const other = cache.get(catalog, 'other', false);
    expect(other.schema).toBe(user.schema);
    expect(other.role).toBe('other');
    expect(other.access).not.toBe(user.access);
  });

  it('each role gets its own permissions in the IR, as from a schema of its own', () => {
    const cache = new SchemaCache();
    expect(cache.get(catalog, 'other', false).schema).toBe(cache.get(catalog, 'user', false).schema);
    for (const role of ['user', 'other']) {
      const shared = cache.get(catalog, role, false);
      const own = buildRoleSchema(catalog, role, false);
      for (const q of OPERATIONS) expect(irOf(shared, q), `${role}: ${q}`).toBe(irOf(own, q));
    }
    const cacheOther = new SchemaCache();
    expect(irOf(cacheOther.get(catalog, 'user', false), OPERATIONS[0] ?? '')).not.toBe(irOf(cache.get(catalog, 'other', false), OPERATIONS[0] ?? ''));
  });

  it('roles that read alike but write differently share the table types', () => {
    const writes = withRole(musicCatalog(), 'other', (t, p) =>
      t === 'tracks' && p.update !== null ? { ...p, update: { ...p.update, columns: ['name'] }, delete: null } : p,
    );
    const cache = new SchemaCache();
    const user = cache.get(writes, 'user', false).schema;
    const other = cache.get(writes, 'other', false).schema;
    expect(other).not.toBe(user);
    for (const name of ['albums', 'tracks', 'tracks_bool_exp', 'artists_aggregate']) expect(other.getType(name), name).toBe(user.getType(name));
    expect(other.getType('tracks_set_input')).not.toBe(user.getType('tracks_set_input'));
    expect(Object.keys(other.getMutationType()?.getFields() ?? {})).not.toContain('delete_tracks');
  });

  it('a different column set, aggregation or filter presence where it shows gives another schema', () => {
    const fewer = withRole(musicCatalog(), 'other', (t, p) =>
      t === 'albums' && p.select !== null ? { ...p, select: { ...p.select, columns: ['id', 'title'] } } : p,
    );
    const agg = withRole(musicCatalog(), 'other', (t, p) =>
      t === 'albums' && p.select !== null ? { ...p, select: { ...p.select, allowAggregations: true } } : p,
    );
    const noDelete = withRole(musicCatalog(), 'other', (_t, p) => ({ ...p, delete: null }));
    for (const c of [fewer, agg, noDelete]) {
      const cache = new SchemaCache();
      expect(cache.get(c, 'other', false).schema).not.toBe(cache.get(c, 'user', false).schema);
    }
    // tracks.album_id is nullable, so whether albums are filtered does not show: one schema.
    const unfiltered = withRole(musicCatalog(), 'other', (t, p) => (t === 'albums' && p.select !== null ? { ...p, select: { ...p.select, filter: {} } } : p));
    const cache1 = new SchemaCache();
    expect(cache1.get(unfiltered, 'other', false).schema).toBe(cache1.get(unfiltered, 'user', false).schema);
    // With album_id NOT NULL, tracks.album is non-null for a role reading albums unfiltered only.
    const required = requireAlbumId(unfiltered);
    const cache2 = new SchemaCache();
    const other = cache2.get(required, 'other', false).schema;
    const user = cache2.get(required, 'user', false).schema;
    expect(other).not.toBe(user);
    const albumType = (s: GraphQLSchema): string => String((s.getType('tracks') as GraphQLObjectType).getFields()['album']?.type);
    expect([albumType(other), albumType(user)]).toEqual(['albums!', 'albums']);
    // Reading differently in one table gives every table type anew (relationships reach it).
    const cache = new SchemaCache();
    expect(cache.get(fewer, 'other', false).schema.getType('artists')).not.toBe(cache.get(fewer, 'user', false).schema.getType('artists'));
  });
});
