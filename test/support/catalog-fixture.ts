/**
 * Hand-built catalogs for unit and golden tests of the GraphQL read path, so
 * they run without metadata or a database.
 */
import type { SourceConnection } from '../../engine/backends/backend.ts';
import type {
  Catalog,
  ColumnInfo,
  FunctionInfo,
  QualifiedName,
  RelationshipInfo,
  TableInfo,
  TablePermissions,
  SelectPermissionInfo,
} from '../../engine/catalog/types.ts';
import { tableKey } from '../../engine/catalog/types.ts';

/** A column; options override the defaults (nullable, no enum, not array). */
export function col(name: string, dbType: string, opts: Partial<ColumnInfo> = {}): ColumnInfo {
  return {
    name,
    gqlName: name,
    dbType,
    elementType: null,
    typeCategory: 'base',
    enumLabels: null,
    nullable: true,
    hasDefault: false,
    isGenerated: false,
    description: null,
    enumTable: null,
    ...opts,
  };
}

/** An object relationship on local columns. */
export function objRel(name: string, target: string, mapping: Array<[string, string]>, schema = 'public'): RelationshipInfo {
  return { name, kind: 'object', target: { schema, name: target }, columnMapping: mapping, comment: null, viaLocalForeignKey: true };
}

/** An array relationship. */
export function arrRel(name: string, target: string, mapping: Array<[string, string]>, schema = 'public'): RelationshipInfo {
  return { name, kind: 'array', target: { schema, name: target }, columnMapping: mapping, comment: null, viaLocalForeignKey: false };
}

/** A select permission (columns default to every column of the table). */
export function selectPerm(p: Partial<SelectPermissionInfo> & { columns: readonly string[] }): TablePermissions {
  return {
    select: { filter: {}, limit: null, allowAggregations: false, ...p },
    insert: null,
    update: null,
    delete: null,
  };
}

/** Options of {@link tbl}. */
export interface TableOptions {
  schema?: string;
  gqlName?: string;
  primaryKey?: string[];
  relationships?: RelationshipInfo[];
  permissions?: Record<string, TablePermissions>;
  enumValues?: Array<{ value: string; comment: string | null }>;
  kind?: TableInfo['kind'];
}

/** A tracked table with v2 default names. */
export function tbl(name: string, columns: ColumnInfo[], o: TableOptions = {}): TableInfo {
  const schema = o.schema ?? 'public';
  const base = o.gqlName ?? (schema === 'public' ? name : `${schema}_${name}`);
  return {
    source: 'default',
    name: { schema, name },
    gqlName: base,
    rootFields: {
      select: base,
      selectByPk: `${base}_by_pk`,
      selectAggregate: `${base}_aggregate`,
      insert: `insert_${base}`,
      insertOne: `insert_${base}_one`,
      update: `update_${base}`,
      updateByPk: `update_${base}_by_pk`,
      updateMany: `update_${base}_many`,
      delete: `delete_${base}`,
      deleteByPk: `delete_${base}_by_pk`,
    },
    kind: o.kind ?? 'table',
    description: null,
    columns,
    primaryKey: o.primaryKey ?? ['id'],
    uniqueConstraints: [],
    foreignKeys: [],
    relationships: o.relationships ?? [],
    enumValues: o.enumValues ?? null,
    mutability: { insertable: true, updatable: true, deletable: true },
    permissions: new Map(Object.entries(o.permissions ?? {})),
  };
}

/** A connection that must never be used (SQL-generation tests). */
export const unusedConnection: SourceConnection = {
  kind: 'postgres',
  queryJsonText: () => Promise.reject(new Error('no database in this test')),
  transactionJsonText: () => Promise.reject(new Error('no database in this test')),
  close: () => Promise.resolve(),
};

/** A catalog with one `default` source holding `tables`. */
export function catalogOf(tables: TableInfo[], version = 1, connection: SourceConnection = unusedConnection): Catalog {
  const roles = new Set<string>();
  for (const t of tables) for (const r of t.permissions.keys()) roles.add(r);
  return {
    version,
    resourceVersion: version,
    sources: new Map([['default', { name: 'default', kind: 'postgres', connection, tables: new Map(tables.map((t) => [tableKey(t.name), t])) }]]),
    roles: [...roles],
    inconsistencies: [],
  };
}

/** The name of a table in the fixture. */
export function qn(name: string, schema = 'public'): QualifiedName {
  return { schema, name };
}

/**
 * A small music store: artists → albums → tracks → genres, a jsonb and an
 * array column, an enum table, a table in another schema with custom names,
 * and a `user` role with a session-variable filter and a limit, who may also
 * insert, update and delete tracks of their own albums.
 */
export function musicCatalog(version = 1, connection: SourceConnection = unusedConnection): Catalog {
  const userAll = (cols: string[], extra: Partial<SelectPermissionInfo> = {}): Record<string, TablePermissions> => ({
    user: selectPerm({ ...extra, columns: cols }),
  });
  const artists = tbl('artists', [col('id', 'int4', { nullable: false }), col('name', 'text'), col('tags', '_text', { elementType: 'text' })], {
    relationships: [arrRel('albums', 'albums', [['id', 'artist_id']])],
    permissions: userAll(['id', 'name'], { allowAggregations: true }),
  });
  const albums = tbl(
    'albums',
    [
      col('id', 'int4', { nullable: false }),
      col('title', 'text', { nullable: false }),
      col('artist_id', 'int4'),
      col('meta', 'jsonb'),
      col('color', 'text', { enumTable: qn('colors') }),
    ],
    {
      relationships: [objRel('artist', 'artists', [['artist_id', 'id']]), arrRel('tracks', 'tracks', [['id', 'album_id']])],
      permissions: userAll(['id', 'title', 'artist_id'], { filter: { artist: { id: { _eq: 'X-Engine-User-Id' } } }, limit: 10 }),
    },
  );
  const tracks = tbl(
    'tracks',
    [
      col('id', 'int4', { nullable: false }),
      col('name', 'text', { nullable: false }),
      col('album_id', 'int4'),
      col('milliseconds', 'int4'),
      col('unit_price', 'numeric'),
      col('bytes', 'int8'),
      col('genre_id', 'int4'),
    ],
    {
      relationships: [objRel('album', 'albums', [['album_id', 'id']]), objRel('genre', 'genres', [['genre_id', 'id']])],
      permissions: {
        // The user writes tracks of their own artist's albums; inserted tracks get genre 1.
        user: {
          ...selectPerm({ columns: ['id', 'name', 'album_id', 'milliseconds'] }),
          insert: { columns: ['name', 'album_id', 'milliseconds'], check: { album: { artist_id: { _eq: 'X-Engine-User-Id' } } }, set: { genre_id: 1 } },
          update: {
            columns: ['name', 'milliseconds'],
            filter: { album: { artist_id: { _eq: 'X-Engine-User-Id' } } },
            check: { milliseconds: { _gt: 0 } },
            set: {},
          },
          delete: { filter: { album: { artist_id: { _eq: 'X-Engine-User-Id' } } } },
        },
      },
    },
  );
  // Admin-only: computed fields (a scalar, and rows with an argument with a default) and a tracked function.
  const genres: TableInfo = {
    ...tbl('genres', [col('id', 'int4', { nullable: false }), col('name', 'text')]),
    computedFields: [
      {
        name: 'shout',
        function: qn('genre_shout'),
        description: null,
        tableArgument: null,
        sessionArgument: null,
        args: [],
        returns: { kind: 'scalar', dbType: 'text', elementType: null, typeCategory: 'base' },
      },
      {
        name: 'similar',
        function: qn('similar_genres'),
        description: null,
        tableArgument: null,
        sessionArgument: 'engine_session',
        args: [{ name: 'depth', dbType: 'int4', elementType: null, typeCategory: 'base', hasDefault: true }],
        returns: { kind: 'table', table: qn('genres'), returnsSet: true },
      },
    ],
  };
  const colors = tbl('colors', [col('value', 'text', { nullable: false }), col('comment', 'text')], {
    primaryKey: ['value'],
    enumValues: [
      { value: 'red', comment: 'Red' },
      { value: 'blue', comment: null },
    ],
  });
  const orders = tbl('orders', [col('id', 'int8', { nullable: false }), col('total', 'numeric'), col('placed_at', 'timestamptz', { gqlName: 'placedAt' })], {
    schema: 'shop',
  });
  const catalog = catalogOf([artists, albums, tracks, genres, colors, orders], version, connection);
  const source = catalog.sources.get('default');
  if (source === undefined) return catalog;
  const searchGenres: FunctionInfo = {
    source: 'default',
    name: qn('search_genres'),
    gqlName: 'search_genres',
    rootFields: { function: 'search_genres', functionAggregate: 'search_genres_aggregate' },
    description: null,
    returnTable: qn('genres'),
    returnsSet: true,
    exposedAs: 'query',
    args: [
      { name: 'q', dbType: 'text', elementType: null, typeCategory: 'base', hasDefault: false },
      { name: 'max', dbType: 'int4', elementType: null, typeCategory: 'base', hasDefault: true },
    ],
    sessionArgument: 'engine_session',
    permissions: [],
  };
  return { ...catalog, sources: new Map([['default', { ...source, functions: new Map([['public.search_genres', searchGenres]]) }]]) };
}
