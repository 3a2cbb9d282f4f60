/**
 * Sharing schemas and types between roles (schema-cache.ts, Note [Shared
 * role types] in role-access.ts) never changes what a role sees: through a
 * SchemaCache that serves many roles, each role's printed schema equals the
 * one built for it alone (buildRoleSchema shares nothing), whatever order the
 * roles come in, and equals the recorded SDL (golden hashes, taken before any
 * sharing of types between read shapes existed). A role with fewer columns
 * never sees another role's columns. With remote schema permissions on, a
 * remote relationship shows each role its own view of the remote.
 */
import { createHash } from 'node:crypto';
import { isEnumType, isInputObjectType, isObjectType, printSchema, type GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Catalog, TableInfo, TablePermissions } from '../../../engine/catalog/types.ts';
import { buildRoleSchema, type SchemaOptions } from '../../../engine/graphql/schema/build-schema.ts';
import { buildSchema } from 'graphql';
import { remoteNames } from '../../../engine/remote/customize.ts';
import { resolveRemotePermission } from '../../../engine/remote/permissions.ts';
import { resolveRemoteRelationship } from '../../../engine/remote/relationship.ts';
import type { RemoteSchemaInfo, RemoteView } from '../../../engine/remote/types.ts';
import { SchemaCache } from '../../../engine/graphql/schema/schema-cache.ts';
import { arrRel, catalogOf, col, musicCatalog, objRel, selectPerm, tbl } from '../../support/catalog-fixture.ts';

const tableName = (i: number): string => `t${String(i).padStart(3, '0')}`;

/**
 * The shape of the metadata-at-scale benchmark (test/bench/lib/scale.ts) in
 * memory: `n` tables chained by foreign keys, relationships both ways, and
 * `roles` roles (even ones see every column and aggregate, odd ones three
 * columns with a limit; every third role is unfiltered). With `requiredFk`
 * the foreign key columns are NOT NULL, so whether a target is filtered
 * shows in the schema (object relationships become nullable).
 */
function scaleCatalog(n: number, roles: number, requiredFk = false): Catalog {
  const tables: TableInfo[] = [];
  for (let i = 1; i <= n; i++) {
    const fks: Array<[string, number]> = [];
    if (i > 1) fks.push(['a_id', i - 1]);
    if (i > 2) fks.push(['b_id', Math.floor(i / 2)]);
    const columns = [
      col('id', 'int4', { nullable: false, hasDefault: true }),
      col('name', 'text', { nullable: false }),
      col('value', 'int4'),
      col('owner_id', 'int4'),
      col('created_at', 'timestamptz', { hasDefault: true }),
      ...fks.map(([c]) => col(c, 'int4', { nullable: !requiredFk })),
    ];
    const relationships = fks.map(([c, ref]) => objRel(`${c === 'a_id' ? 'prev' : 'half'}_${tableName(ref)}`, tableName(ref), [[c, 'id']]));
    if (i + 1 <= n) relationships.push(arrRel(`next_${tableName(i + 1)}s`, tableName(i + 1), [['id', 'a_id']]));
    for (const j of [2 * i, 2 * i + 1]) if (j > 2 && j <= n) relationships.push(arrRel(`double_${tableName(j)}s`, tableName(j), [['id', 'b_id']]));
    const permissions: Record<string, TablePermissions> = {};
    for (let r = 0; r < roles; r++) {
      permissions[`role_${r + 1}`] = selectPerm({
        columns: r % 2 === 0 ? columns.map((c) => c.name) : ['id', 'name', 'value'],
        filter: r % 3 === 0 ? {} : { owner_id: { _eq: 'X-Engine-User-Id' } },
        ...(r % 2 === 0 ? { allowAggregations: true } : { limit: 100 }),
      });
    }
    tables.push(tbl(tableName(i), columns, { relationships, permissions }));
  }
  return catalogOf(tables);
}

/** {@link scaleCatalog} plus a table only the admin reads (the scale benchmark tracks one more table, no permissions). */
function scaleWithExtra(n: number, roles: number): Catalog {
  const base = scaleCatalog(n, roles);
  const source = base.sources.get('default');
  if (source === undefined) return base;
  const extra = tbl('extra', [col('id', 'int4', { nullable: false }), col('name', 'text')]);
  return { ...base, sources: new Map([['default', { ...source, tables: new Map([...source.tables, ['public.extra', extra]]) }]]) };
}

/** `catalog` plus roles made from `user`'s permissions by `edit` (null: no permission on that table). */
function withRoles(catalog: Catalog, roles: Record<string, (table: string, p: TablePermissions) => TablePermissions | null>): Catalog {
  const sources = new Map(
    [...catalog.sources].map(([name, source]) => {
      const tables = new Map<string, TableInfo>(
        [...source.tables].map(([key, t]) => {
          const user = t.permissions.get('user');
          const all = selectPerm({ columns: t.columns.map((c) => c.name) });
          const permissions = new Map(t.permissions);
          for (const [role, edit] of Object.entries(roles)) {
            const p = edit(t.name.name, user ?? all);
            if (p !== null) permissions.set(role, p);
          }
          return [key, { ...t, permissions }];
        }),
      );
      return [name, { ...source, tables }];
    }),
  );
  return { ...catalog, sources, roles: [...catalog.roles, ...Object.keys(roles)] };
}

/** The music catalog with roles of many shapes: wide and narrow column sets, aggregations, filters, redaction. */
function musicRoles(): Catalog {
  const everything = (t: string, p: TablePermissions): TablePermissions => {
    const table = musicCatalog().sources.get('default')?.tables.get(`public.${t}`) ?? musicCatalog().sources.get('default')?.tables.get(`shop.${t}`);
    const columns = table?.columns.map((c) => c.name) ?? [];
    return { ...p, select: { columns, filter: {}, limit: null, allowAggregations: true } };
  };
  return withRoles(musicCatalog(), {
    wide: everything,
    wide_filtered: (t, p) => {
      const e = everything(t, p);
      return e.select === null ? e : { ...e, select: { ...e.select, filter: { id: { _gt: 'X-Engine-User-Id' } }, limit: 5 } };
    },
    narrow: (t, p) => (p.select === null ? null : { ...p, select: { ...p.select, columns: p.select.columns.slice(0, 2), allowAggregations: false } }),
    narrow_agg: (t, p) => (p.select === null ? null : { ...p, select: { ...p.select, columns: p.select.columns.slice(0, 2), allowAggregations: true } }),
    // An inherited role's redaction makes a non-null column nullable.
    redacted: (t, p) => {
      const e = everything(t, p);
      if (e.select === null) return e;
      return { ...e, select: { ...e.select, columnFilters: new Map([['id', { id: { _gt: 1 } }]]) } };
    },
    albums_only: (t, p) => (t === 'albums' ? everything(t, p) : null),
    // Reads like `wide` except one column fewer of albums: shares the types of tables whose types never reach albums.
    wide_but_albums: (t, p) => {
      const e = everything(t, p);
      return t !== 'albums' || e.select === null ? e : { ...e, select: { ...e.select, columns: e.select.columns.filter((c) => c !== 'meta') } };
    },
  });
}

const sha = (s: string): string => createHash('sha256').update(s).digest('hex').slice(0, 16);

function rolesOf(catalog: Catalog): Array<readonly [string, boolean]> {
  return [['admin', true], ...catalog.roles.map((r) => [r, false] as const)];
}

/** Every role's printed schema through one SchemaCache, roles taken in `order`. */
function sharedSdl(catalog: Catalog, order: ReadonlyArray<readonly [string, boolean]>, options: SchemaOptions = {}): Map<string, string> {
  const cache = new SchemaCache(options);
  return new Map(order.map(([role, isAdmin]) => [role, printSchema(cache.get(catalog, role, isAdmin).schema)]));
}

/** Names of every field, input field and enum value of the types of `table` in `schema`. */
function tableTypeMembers(schema: GraphQLSchema, table: string): Set<string> {
  const out = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!type.name.startsWith(`${table}_`) && type.name !== table) continue;
    if (isObjectType(type) || isInputObjectType(type)) for (const f of Object.keys(type.getFields())) out.add(f);
    if (isEnumType(type)) for (const v of type.getValues()) out.add(v.name);
  }
  return out;
}

describe('schema sharing between roles', () => {
  for (const [name, catalog] of [
    ['music catalog', musicRoles()],
    ['scale shape', scaleCatalog(12, 10)],
    ['scale shape, NOT NULL foreign keys', scaleCatalog(12, 10, true)],
    ['scale shape, a table only the admin reads', scaleWithExtra(12, 10)],
  ] as const) {
    it(`${name}: every role's schema equals its unshared build, in any role order`, () => {
      const roles = rolesOf(catalog);
      const own = new Map(roles.map(([role, isAdmin]) => [role, printSchema(buildRoleSchema(catalog, role, isAdmin).schema)]));
      for (const order of [roles, [...roles].reverse(), [...roles.slice(1), ...roles.slice(0, 1)]]) {
        const shared = sharedSdl(catalog, order);
        for (const [role] of roles) expect(shared.get(role), `${name}, ${role}`).toBe(own.get(role));
      }
    });
  }

  it('prints the recorded SDL for every role (golden hashes)', () => {
    const hashes = (catalog: Catalog): Record<string, string> =>
      Object.fromEntries(rolesOf(catalog).map(([role, isAdmin]) => [role, sha(printSchema(new SchemaCache().get(catalog, role, isAdmin).schema))]));
    expect({ music: hashes(musicRoles()), scale: hashes(scaleCatalog(12, 4)), required: hashes(scaleCatalog(12, 4, true)) }).toEqual(GOLDEN);
  });

  it('the scale shape needs one schema per column set, and the admin shares the table types of roles reading everything', () => {
    const catalog = scaleCatalog(12, 10);
    const cache = new SchemaCache();
    const schemas = new Set(rolesOf(catalog).map(([role, isAdmin]) => cache.get(catalog, role, isAdmin).schema));
    // admin, the roles reading every column (filtered or not), the roles reading three.
    expect(schemas.size).toBe(3);
    const admin = cache.get(catalog, 'admin', true).schema;
    for (const name of ['t005', 't005_bool_exp', 't005_aggregate_order_by'])
      expect(cache.get(catalog, 'role_3', false).schema.getType(name), name).toBe(admin.getType(name));
  });

  it('types share field maps and argument lists where they are the same (Note [Shared fields])', () => {
    const { schema } = buildRoleSchema(scaleCatalog(12, 1), 'admin', true);
    const fieldsOf = (name: string): unknown => {
      const t = schema.getType(name);
      return isObjectType(t) || isInputObjectType(t) ? t.getFields() : undefined;
    };
    for (const op of ['stddev', 'stddev_pop', 'stddev_samp', 'var_pop', 'var_samp', 'variance'])
      expect(fieldsOf(`t005_${op}_fields`), op).toBe(fieldsOf('t005_avg_fields'));
    expect(fieldsOf('t005_min_fields')).toBe(fieldsOf('t005_max_fields'));
    expect(fieldsOf('t005_sum_fields')).not.toBe(fieldsOf('t005_avg_fields'));
    expect(fieldsOf('t005_sum_order_by')).toBe(fieldsOf('t005_avg_order_by'));
    expect(fieldsOf('t005_min_order_by')).not.toBe(fieldsOf('t005_avg_order_by'));
    // The list arguments over t005: its root fields and the array relationship from t004.
    const root = schema.getQueryType()?.getFields() ?? {};
    const t004 = schema.getType('t004');
    const next = isObjectType(t004) ? t004.getFields()['next_t005s'] : undefined;
    expect(root['t005']?.args).toHaveLength(5);
    expect(root['t005_aggregate']?.args).toBe(root['t005']?.args);
    expect(next?.args).toBe(root['t005']?.args);
  });

  it('schemas of roles reading differently share the types of the tables they read alike (Note [Shared table types])', () => {
    const scale = scaleWithExtra(12, 2);
    const cache = new SchemaCache();
    const role1 = cache.get(scale, 'role_1', false).schema;
    const admin = cache.get(scale, 'admin', true).schema;
    expect(admin.getType('extra')).toBeDefined();
    expect(role1.getType('extra')).toBeUndefined();
    for (const name of ['t001', 't012', 't005_bool_exp', 't005_aggregate', 'order_by', 'Int_comparison_exp'])
      expect(admin.getType(name), name).toBe(role1.getType(name));
    const music = musicRoles();
    const musicCache = new SchemaCache();
    const wide = musicCache.get(music, 'wide', false).schema;
    const fewer = musicCache.get(music, 'wide_but_albums', false).schema;
    // genres never reach albums; artists and tracks do, through their relationships.
    expect(fewer.getType('genres')).toBe(wide.getType('genres'));
    for (const name of ['albums', 'artists', 'tracks', 'tracks_bool_exp']) expect(fewer.getType(name), name).not.toBe(wide.getType(name));
    expect(tableTypeMembers(fewer, 'albums').has('meta')).toBe(false);
  });

  it('a cross-source relationship shows only to roles reading its target, whichever role came first', () => {
    const artist = tbl('artist', [col('id', 'int4', { nullable: false }), col('name', 'text')], {
      permissions: { both: selectPerm({ columns: ['id', 'name'] }), artists_only: selectPerm({ columns: ['id', 'name'] }) },
    });
    const album = {
      ...tbl('album', [col('id', 'int4', { nullable: false }), col('artist_id', 'int4')], {
        permissions: { both: selectPerm({ columns: ['id', 'artist_id'] }) },
      }),
      source: 'shop',
    };
    const base = catalogOf([artist]);
    const main = base.sources.get('default');
    if (main === undefined) throw new Error('no default source');
    const rel = {
      name: 'albums',
      kind: 'array',
      source: 'default',
      table: artist.name,
      targetSource: 'shop',
      target: album,
      columnMapping: [['id', 'artist_id']],
    } as const;
    const catalog: Catalog = {
      ...base,
      sources: new Map([
        ['default', { ...main, sourceRelationships: new Map([['public.artist', [rel]]]) }],
        ['shop', { ...main, name: 'shop', tables: new Map([['public.album', album]]) }],
      ]),
    };
    const roles = rolesOf(catalog);
    const own = new Map(roles.map(([role, isAdmin]) => [role, printSchema(buildRoleSchema(catalog, role, isAdmin).schema)]));
    expect(own.get('both')).toContain('albums(');
    expect(own.get('artists_only')).not.toContain('albums');
    for (const order of [roles, [...roles].reverse()]) {
      const shared = sharedSdl(catalog, order);
      for (const [role] of roles) expect(shared.get(role), role).toBe(own.get(role));
    }
  });

  it('remote relationships follow each role’s view of their remote, whichever role came first (remote schema permissions on)', () => {
    const original = buildSchema('type Bio { text: String! secret: String! } type Query { bio(id: Int!): Bio other: String }');
    const views = new Map<string, RemoteView>();
    const view = (role: string, sdl: string): void => {
      const r = resolveRemotePermission(sdl, original);
      if ('reason' in r) throw new Error(r.reason);
      views.set(role, { ...r, key: role });
    };
    view('bio_all', 'type Bio { text: String! secret: String! } type Query { bio(id: Int!): Bio }');
    view('bio_text', 'type Bio { text: String! } type Query { bio(id: Int!): Bio }');
    // Sees the remote but not the joined field: no relationship.
    view('other_only', 'type Query { other: String }');
    const remote: RemoteSchemaInfo = {
      name: 'bios',
      endpoint: { url: 'http://127.0.0.1:1/graphql', headers: [], forwardClientHeaders: false, timeoutMs: 1000 },
      original,
      names: remoteNames(original, undefined),
      namespace: null,
      full: { schema: original, presets: new Map(), key: '*' },
      roles: views,
    };
    const perms = Object.fromEntries(['bio_all', 'bio_text', 'other_only', 'no_view'].map((r) => [r, selectPerm({ columns: ['id', 'name'] })]));
    const artist = tbl('artist', [col('id', 'int4', { nullable: false }), col('name', 'text')], { permissions: perms });
    const base = catalogOf([artist]);
    const main = base.sources.get('default');
    if (main === undefined) throw new Error('no default source');
    const rr = resolveRemoteRelationship(
      'bio',
      'default',
      artist.name,
      new Set(['id', 'name']),
      { remoteSchema: 'bios', lhs: ['id'], remoteField: { bio: { arguments: { id: '$id' } } } },
      remote,
    );
    if ('reason' in rr) throw new Error(rr.reason);
    const catalog: Catalog = {
      ...base,
      sources: new Map([['default', { ...main, remoteRelationships: new Map([['public.artist', [rr]]]) }]]),
      remoteSchemas: new Map([['bios', remote]]),
    };
    const options: SchemaOptions = { remoteSchemaPermissions: true };
    const roles = rolesOf(catalog);
    const own = new Map(roles.map(([role, isAdmin]) => [role, printSchema(buildRoleSchema(catalog, role, isAdmin, options).schema)]));
    expect(own.get('admin')).toMatch(/type Bio \{\s+text: String!\s+secret: String!/);
    expect(own.get('bio_all')).toMatch(/type Bio \{\s+text: String!\s+secret: String!/);
    expect(own.get('bio_text')).toMatch(/type Bio \{\s+text: String!\s+\}/);
    for (const role of ['other_only', 'no_view']) expect(own.get(role), role).not.toMatch(/\bbio: Bio/);
    for (const role of ['admin', 'bio_all', 'bio_text']) expect(own.get(role), role).toMatch(/\bbio: Bio/);
    for (const order of [roles, [...roles].reverse()]) {
      const shared = sharedSdl(catalog, order, options);
      for (const [role] of roles) expect(shared.get(role), role).toBe(own.get(role));
    }
  });

  it('a role with fewer columns never sees the columns of a wider role built before it', () => {
    const catalog = musicRoles();
    const cache = new SchemaCache();
    // The wide roles first, so any shared type would have been made from their views.
    for (const role of ['wide', 'wide_filtered', 'redacted', 'albums_only']) cache.get(catalog, role, false);
    cache.get(catalog, 'admin', true);
    for (const role of ['narrow', 'narrow_agg', 'user']) {
      const schema = cache.get(catalog, role, false).schema;
      const albums = tableTypeMembers(schema, 'albums');
      for (const hidden of ['meta', 'color']) expect(albums.has(hidden), `${role} sees albums.${hidden}`).toBe(false);
      const tracks = tableTypeMembers(schema, 'tracks');
      for (const hidden of ['unit_price', 'bytes', 'genre_id']) expect(tracks.has(hidden), `${role} sees tracks.${hidden}`).toBe(false);
      expect(printSchema(schema)).toBe(printSchema(buildRoleSchema(catalog, role, false).schema));
    }
    const scale = scaleCatalog(12, 10);
    const scaleCache = new SchemaCache();
    scaleCache.get(scale, 'admin', true);
    scaleCache.get(scale, 'role_1', false);
    const narrow = scaleCache.get(scale, 'role_2', false).schema;
    for (let i = 1; i <= 12; i++) {
      const members = tableTypeMembers(narrow, tableName(i));
      for (const hidden of ['owner_id', 'created_at', 'a_id', 'b_id']) expect(members.has(hidden), `role_2 sees ${tableName(i)}.${hidden}`).toBe(false);
    }
  });
});

/**
 * printSchema hashes of every role, recorded from the unshared builds (and re-recorded when
 * subscription_root went away, and again when json/jsonb fields took `path` and roles that may insert
 * but not update got `on_conflict`, issue 15; and when subscription_root came back with the WebSocket,
 * holding the query fields and `<t>_stream`, issue 21; and when `<t>_aggregate_bool_exp` and `<cf>_aggregate`
 * order_by came, issue 15).
 */
const GOLDEN: Record<string, Record<string, string>> = {
  music: {
    admin: 'd4aa9c3606ad8068',
    albums_only: 'dbdda98e59e66de5',
    narrow: 'd9605632ea4ce2b9',
    narrow_agg: 'e198ba566ffcf5ae',
    redacted: '28957348a51173e2',
    user: '2323b3e0f97058ed',
    wide: '95c7571b254cae47',
    wide_filtered: '95c7571b254cae47',
    wide_but_albums: 'ed852266bf2b41f4',
  },
  scale: {
    admin: 'f7ec31a7c6730629',
    role_1: 'aa8efc0b010e4dc0',
    role_2: 'e76da488b2777967',
    role_3: 'aa8efc0b010e4dc0',
    role_4: 'e76da488b2777967',
  },
  // NOT NULL foreign keys: a filtered target makes the object relationships to it nullable (role_3 vs role_1).
  required: {
    admin: '77df004eca28b0cc',
    role_1: 'cd102017c1be2fad',
    role_2: 'e76da488b2777967',
    role_3: '7e1295bdacbf0c25',
    role_4: '587e92147c35ea3b',
  },
};
