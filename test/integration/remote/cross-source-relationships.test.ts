/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * `to_source` remote relationships of tables (cross-source joins) through
 * HTTP on two real PostgreSQL databases, each source behind its own
 * statement-counting proxy: ONE statement on the target source per
 * response level whatever the row count, the role's select permission on
 * the target, array arguments per parent, object relationships, nesting
 * (the target's own relationships, its remote relationship to a real
 * GraphQL server, and back to the first source), under a mutation's
 * `returning` and an aggregate's nodes, roles served while remote schema
 * permissions are on, refused in subscriptions; refusals of bad definitions with nothing stored,
 * dependency reports and cascade, export and replace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine } from '../../support/engine.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { startPgProxy, type PgProxy } from '../../support/pg-proxy.ts';
import { startSeededEngine, type SeededEngine } from '../../support/seeded-engine.ts';
import { openRawSocket } from '../../support/ws-client.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';

let s: SeededEngine;
let shop: TestDatabase;
let mainProxy: PgProxy;
let shopProxy: PgProxy;
let genres: GraphqlTestServer;

const md = async (type: string, args: unknown): Promise<any> => await s.engine.metadata({ type, args });
const gql = async (query: string, headers?: Record<string, string>): Promise<any> => (await s.engine.graphql<any>(query, undefined, headers)).body;
const user = { 'x-engine-role': 'user' };

/** Runs `fn` and counts the statements run on each database. */
async function counting<T>(fn: () => Promise<T>): Promise<{ result: T; main: number; shop: number }> {
  mainProxy.reset();
  shopProxy.reset();
  const result = await fn();
  return { result, main: mainProxy.counts.executions, shop: shopProxy.counts.executions };
}

const albumsRel = {
  table: 'artist',
  name: 'albums',
  definition: { to_source: { source: 'shop', table: { schema: 'public', name: 'album' }, relationship_type: 'array', field_mapping: { id: 'artist_id' } } },
};
const artistRel = {
  source: 'shop',
  table: 'album',
  name: 'artist',
  definition: {
    to_source: { source: 'default', table: { schema: 'public', name: 'artist' }, relationship_type: 'object', field_mapping: { artist_id: 'id' } },
  },
};

beforeAll(async () => {
  genres = await startGraphqlServer('type Genre { id: Int! name: String! } type Query { genre(id: Int!): Genre }', {
    genre: ({ id }: { id: number }) => ({ id, name: `genre ${id}` }),
  });
  shop = await createTestDatabase('xsrcshop');
  await shop.sql(`CREATE TABLE album (id int PRIMARY KEY, title text NOT NULL, artist_id int, price numeric(6,2) NOT NULL, title_group text NOT NULL DEFAULT 'g');
    CREATE TABLE track (id int PRIMARY KEY, album_id int NOT NULL REFERENCES album(id), name text NOT NULL);
    INSERT INTO album SELECT i, 'album ' || i, 1 + (i - 1) / 5, 5 + i FROM generate_series(1, 100) AS i;
    INSERT INTO track VALUES (1, 1, 't1'), (2, 1, 't2'), (3, 6, 't3');`);
  shopProxy = await startPgProxy(shop.url);
  s = await startSeededEngine({
    prefix: 'xsrcmain',
    sql: `CREATE TABLE artist (id int PRIMARY KEY, name text NOT NULL, secret text);
          INSERT INTO artist SELECT i, 'artist ' || i, 's' || i FROM generate_series(1, 20) AS i;
          INSERT INTO artist VALUES (21, 'nobody', NULL);`,
    settings: async (db) => {
      mainProxy = await startPgProxy(db.url);
      return { databaseUrl: mainProxy.url, metadataDatabaseUrl: db.url };
    },
  });
  const ok = async (type: string, args: unknown): Promise<void> => {
    const r = await md(type, args);
    expect(r.body, JSON.stringify(r.body)).toEqual({ message: 'success' });
  };
  await ok('pg_add_source', { name: 'shop', configuration: { connection_info: { database_url: shopProxy.url } } });
  await ok('pg_track_table', { table: 'artist' });
  await ok('pg_track_table', { source: 'shop', table: 'album' });
  await ok('pg_track_table', { source: 'shop', table: 'track' });
  await ok('pg_create_array_relationship', {
    source: 'shop',
    table: 'album',
    name: 'tracks',
    using: { foreign_key_constraint_on: { table: 'track', column: 'album_id' } },
  });
  await ok('pg_create_select_permission', { table: 'artist', role: 'user', permission: { columns: ['id', 'name'], filter: {} } });
  await ok('pg_create_select_permission', {
    source: 'shop',
    table: 'album',
    role: 'user',
    permission: { columns: ['id', 'title', 'artist_id'], filter: { price: { _lt: 50 } }, limit: 3 },
  });
  await ok('pg_create_insert_permission', { table: 'artist', role: 'user', permission: { columns: ['id', 'name'], check: {} } });
  // `guest` reads artists but not albums: it does not see the relationship.
  await ok('pg_create_select_permission', { table: 'artist', role: 'guest', permission: { columns: ['id', 'name'], filter: {} } });
  await ok('pg_create_remote_relationship', albumsRel);
  await ok('pg_create_remote_relationship', artistRel);
  await ok('add_remote_schema', { name: 'genres', definition: { url: genres.url, timeout_seconds: 5 } });
  await ok('pg_create_remote_relationship', {
    source: 'shop',
    table: 'album',
    name: 'genre',
    definition: { to_remote_schema: { remote_schema: 'genres', lhs_fields: ['id'], remote_field: { genre: { arguments: { id: '$id' } } } } },
  });
});

afterAll(async () => {
  await s?.close();
  await mainProxy?.close();
  await shopProxy?.close();
  await shop?.drop();
  await genres?.close();
});

describe('cross-source relationships', () => {
  it('join 100 rows of another source in one statement per level, nested back to the first source', async () => {
    const q = `{ artist(order_by: {id: asc}) { id albums(order_by: {id: asc}) { id tracks(order_by: {id: asc}) { name } artist { name } } } }`;
    const r = await counting(async () => await gql(q));
    const artists = r.result.data.artist;
    expect(artists).toHaveLength(21);
    expect(artists.flatMap((a: any) => a.albums)).toHaveLength(100);
    expect(artists[0]).toEqual({
      id: 1,
      albums: [
        { id: 1, tracks: [{ name: 't1' }, { name: 't2' }], artist: { name: 'artist 1' } },
        ...[2, 3, 4, 5].map((id) => ({ id, tracks: [], artist: { name: 'artist 1' } })),
      ],
    });
    expect(artists[1].albums[0]).toEqual({ id: 6, tracks: [{ name: 't3' }], artist: { name: 'artist 2' } });
    expect(artists[20]).toEqual({ id: 21, albums: [] });
    // main: the root field and the join back; shop: the albums with their tracks.
    expect({ main: r.main, shop: r.shop }).toEqual({ main: 2, shop: 1 });
  });

  it('join the target rows to a remote schema: one statement on each source, one remote request', async () => {
    const before = genres.queries().length;
    const r = await counting(
      async () => await gql('{ artist(where: {id: {_in: [1, 2]}}, order_by: {id: asc}) { id albums(order_by: {id: asc}, limit: 2) { id genre { name } } } }'),
    );
    expect(r.result).toEqual({
      data: {
        artist: [
          {
            id: 1,
            albums: [
              { id: 1, genre: { name: 'genre 1' } },
              { id: 2, genre: { name: 'genre 2' } },
            ],
          },
          {
            id: 2,
            albums: [
              { id: 6, genre: { name: 'genre 6' } },
              { id: 7, genre: { name: 'genre 7' } },
            ],
          },
        ],
      },
    });
    expect({ main: r.main, shop: r.shop }).toEqual({ main: 1, shop: 1 });
    const sent = genres.queries().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body.query?.match(/genre\(/g)?.length).toBe(4);
  });

  it('apply where, order_by, limit and offset per parent', async () => {
    const q = `{ artist(where: {id: {_in: [1, 2, 21]}}, order_by: {id: asc}) { id albums(where: {id: {_neq: 2}}, order_by: {id: desc}, limit: 2, offset: 1) { id } } }`;
    const r = await counting(async () => await gql(q));
    expect(r.result).toEqual({
      data: {
        artist: [
          { id: 1, albums: [{ id: 4 }, { id: 3 }] },
          { id: 2, albums: [{ id: 9 }, { id: 8 }] },
          { id: 21, albums: [] },
        ],
      },
    });
    expect({ main: r.main, shop: r.shop }).toEqual({ main: 1, shop: 1 });
  });

  it('apply distinct_on per parent', async () => {
    // Every album of artists 1 and 2 has the same title_group: distinct_on keeps one album per artist, not one in all.
    const r = await gql(`{ artist(where: {id: {_in: [1, 2]}}, order_by: {id: asc}) { id albums(distinct_on: [title_group]) { title_group } } }`);
    expect(r).toEqual({
      data: {
        artist: [
          { id: 1, albums: [{ title_group: 'g' }] },
          { id: 2, albums: [{ title_group: 'g' }] },
        ],
      },
    });
    const ordered = await gql(
      `{ artist(where: {id: {_in: [1, 2]}}, order_by: {id: asc}) { id albums(distinct_on: [title_group], order_by: [{title_group: asc}, {id: desc}]) { id } } }`,
    );
    expect(ordered).toEqual({
      data: {
        artist: [
          { id: 1, albums: [{ id: 5 }] },
          { id: 2, albums: [{ id: 10 }] },
        ],
      },
    });
  });

  it('join an object relationship, with aliases and the same field twice', async () => {
    const q = `{ album(where: {id: {_in: [1, 7]}}, order_by: {id: asc}) { id by: artist { name } again: artist { id } } }`;
    const r = await counting(async () => await gql(q));
    expect(r.result).toEqual({
      data: {
        album: [
          { id: 1, by: { name: 'artist 1' }, again: { id: 1 } },
          { id: 7, by: { name: 'artist 2' }, again: { id: 2 } },
        ],
      },
    });
    expect({ main: r.main, shop: r.shop }).toEqual({ main: 1, shop: 1 });
  });

  it('apply the role’s select permission on the target, and hide the field from a role without one', async () => {
    const r = await gql(`{ artist(where: {id: {_in: [1, 9]}}, order_by: {id: asc}) { id albums(order_by: {id: asc}) { id title } } }`, user);
    // Albums priced under 50 only (artist 9 has 41..45: price 46..50), at most 3 per artist (the permission's limit).
    expect(r).toEqual({
      data: {
        artist: [
          {
            id: 1,
            albums: [
              { id: 1, title: 'album 1' },
              { id: 2, title: 'album 2' },
              { id: 3, title: 'album 3' },
            ],
          },
          {
            id: 9,
            albums: [
              { id: 41, title: 'album 41' },
              { id: 42, title: 'album 42' },
              { id: 43, title: 'album 43' },
            ],
          },
        ],
      },
    });
    const guest = await gql(`{ artist { albums { id } } }`, { 'x-engine-role': 'guest' });
    expect(guest.errors[0].extensions.code).toBe('validation-failed');
    expect(guest.errors[0].message).toContain("field 'albums' not found in type: 'artist'");
    // A column the role does not read cannot be asked for on the target.
    const col = await gql(`{ artist { albums { price } } }`, user);
    expect(col.errors[0].extensions.code).toBe('validation-failed');
  });

  it('serve roles with select permission while remote schema permissions are on (no remote schema is involved)', async () => {
    const other = await startTestEngine({ databaseUrl: mainProxy.url, metadataDatabaseUrl: s.db.url, enableRemoteSchemaPermissions: true });
    try {
      const r = await other.graphql<any>('{ artist(where: {id: {_eq: 1}}) { albums(limit: 1) { id } } }', undefined, user);
      expect(r.body).toEqual({ data: { artist: [{ albums: [{ id: 1 }] }] } });
    } finally {
      await other.close();
    }
  });

  it('join under a mutation’s returning', async () => {
    const r = await counting(
      async () =>
        await gql(
          `mutation { insert_artist_one(object: {id: 50, name: "new"}) { id albums { id } } update_artist(where: {id: {_eq: 2}}, _set: {name: "renamed"}) { returning { name albums(limit: 1) { id artist { name } } } } }`,
        ),
    );
    expect(r.result).toEqual({
      data: {
        insert_artist_one: { id: 50, albums: [] },
        update_artist: { returning: [{ name: 'renamed', albums: [{ id: 6, artist: { name: 'renamed' } }] }] },
      },
    });
    // Both root fields' joins are one level of the write step: one statement on shop.
    expect(r.shop).toBe(1);
    await gql(
      `mutation { delete_artist(where: {id: {_eq: 50}}) { affected_rows } update_artist(where: {id: {_eq: 2}}, _set: {name: "artist 2"}) { affected_rows } }`,
    );
  });

  it('match an int column to a numeric one by value (6 and 6.00), both ways', async () => {
    const rel = (table: string, source: string, name: string, target: string, targetSource: string, mapping: Record<string, string>): unknown => ({
      source,
      table,
      name,
      definition: { to_source: { source: targetSource, table: target, relationship_type: 'object', field_mapping: mapping } },
    });
    expect((await md('pg_create_remote_relationship', rel('artist', 'default', 'priced', 'album', 'shop', { id: 'price' }))).status).toBe(200);
    expect((await md('pg_create_remote_relationship', rel('album', 'shop', 'priced_artist', 'artist', 'default', { price: 'id' }))).status).toBe(200);
    const r = await gql(
      '{ artist(where: {id: {_in: [5, 6, 7]}}, order_by: {id: asc}) { id priced { id } } album(where: {id: {_in: [1, 20]}}, order_by: {id: asc}) { id priced_artist { id } } }',
    );
    expect(r).toEqual({
      data: {
        artist: [
          { id: 5, priced: null },
          { id: 6, priced: { id: 1 } },
          { id: 7, priced: { id: 2 } },
        ],
        album: [
          { id: 1, priced_artist: { id: 6 } },
          { id: 20, priced_artist: null },
        ],
      },
    });
    await md('pg_delete_remote_relationship', { table: 'artist', name: 'priced' });
    await md('pg_delete_remote_relationship', { source: 'shop', table: 'album', name: 'priced_artist' });
  });

  it('join under an aggregate’s nodes, and show the join statement in explain', async () => {
    const r = await counting(async () => await gql('{ album_aggregate(where: {id: {_in: [2, 11]}}, order_by: {id: asc}) { nodes { id artist { name } } } }'));
    expect(r.result).toEqual({
      data: {
        album_aggregate: {
          nodes: [
            { id: 2, artist: { name: 'artist 1' } },
            { id: 11, artist: { name: 'artist 3' } },
          ],
        },
      },
    });
    expect({ main: r.main, shop: r.shop }).toEqual({ main: 1, shop: 1 });
    const explain = await s.engine.post('/v1/graphql/explain', { query: { query: '{ artist { albums { id } } }' } });
    expect(explain.status).toBe(200);
    const joins = (explain.body as any[]).flatMap((x: any) => x.joins ?? []);
    expect(joins).toContainEqual(expect.objectContaining({ kind: 'sql', source: 'shop', path: 'artist.albums' }));
  });

  it('is refused in a subscription (a live query cannot run joins), hidden keys never shown', async () => {
    const ws = await openRawSocket(s.engine.url, 'graphql-transport-ws');
    ws.send({ type: 'connection_init' });
    await ws.waitFor((m) => m['type'] === 'connection_ack');
    ws.send({ type: 'subscribe', id: '1', payload: { query: 'subscription { artist(where: {id: {_eq: 1}}) { id albums(limit: 1) { id } } }' } });
    const first = await ws.waitFor((m) => m['id'] === '1' && (m['type'] === 'next' || m['type'] === 'error'));
    ws.close();
    expect(JSON.stringify(first)).not.toContain('__engine_join');
    expect(first).toEqual({
      type: 'error',
      id: '1',
      payload: [{ message: 'Remote relationships are not allowed in subscriptions', extensions: { path: '$', code: 'not-supported' } }],
    });
  });

  it('refuse definitions that do not fit with 400, storing nothing', async () => {
    const before = (await md('export_metadata', {})).body;
    const to = albumsRel.definition.to_source;
    const bad: Array<[unknown, string]> = [
      [{ ...albumsRel, name: 'x', definition: { to_source: { ...to, source: 'nope' } } }, 'source "nope" does not exist'],
      [{ ...albumsRel, name: 'x', definition: { to_source: { ...to, table: 'nope' } } }, 'table "nope" is not tracked in source "shop"'],
      [
        { ...albumsRel, name: 'x', definition: { to_source: { ...to, field_mapping: { nope: 'artist_id' } } } },
        'column "nope" does not exist in table "artist"',
      ],
      [
        { ...albumsRel, name: 'x', definition: { to_source: { ...to, field_mapping: { id: 'nope' } } } },
        'column "nope" does not exist in table "album" of source "shop"',
      ],
      [{ ...albumsRel, name: 'name' }, 'field "name" already exists in table "artist"'],
      [{ ...artistRel, name: 'tracks' }, 'field "tracks" already exists in table "album"'],
    ];
    for (const [args, reason] of bad) {
      const r = await md('pg_create_remote_relationship', args);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.error).toContain(reason);
    }
    const shape = await md('pg_create_remote_relationship', { ...albumsRel, name: 'x', definition: { to_source: { ...to, relationship_type: 'many' } } });
    expect(shape.status).toBe(400);
    expect((await md('pg_create_remote_relationship', albumsRel)).body.code).toBe('already-exists');
    expect((await md('export_metadata', {})).body).toEqual(before);
  });

  it('are exported in v2’s form, replaced, updated and deleted', async () => {
    const doc = (await md('export_metadata', {})).body;
    const artist = doc.sources.find((x: any) => x.name === 'default').tables.find((t: any) => t.table.name === 'artist');
    expect(artist.remote_relationships).toEqual([{ name: 'albums', definition: albumsRel.definition }]);
    expect((await md('replace_metadata', doc)).status).toBe(200);
    expect((await gql('{ album(where: {id: {_eq: 3}}) { artist { id } } }')).data).toEqual({ album: [{ artist: { id: 1 } }] });
    const updated = await md('pg_update_remote_relationship', {
      ...albumsRel,
      definition: { to_source: { ...albumsRel.definition.to_source, relationship_type: 'object' } },
    });
    expect(updated.status).toBe(200);
    expect((await gql('{ artist(where: {id: {_eq: 2}}) { albums { id } } }')).data.artist[0].albums).toEqual(
      expect.objectContaining({ id: expect.any(Number) }),
    );
    expect((await md('pg_delete_remote_relationship', { table: 'artist', name: 'albums' })).status).toBe(200);
    expect((await gql('{ artist { albums { id } } }')).errors[0].extensions.code).toBe('validation-failed');
    expect((await md('pg_create_remote_relationship', albumsRel)).status).toBe(200);
  });

  it('report dependents of the target source, table and column, and cascade', async () => {
    const drop = await md('pg_drop_source', { name: 'shop' });
    expect(drop.status).toBe(400);
    expect(drop.body.code).toBe('dependency-error');
    expect(drop.body.error).toContain('remote_relationship albums in table artist in source default');
    const untrack = await md('pg_untrack_table', { source: 'shop', table: 'album' });
    expect(untrack.body.code).toBe('dependency-error');
    expect(untrack.body.error).toContain('remote_relationship albums in table artist in source default');
    const column = await s.engine.post('/v2/query', { type: 'run_sql', args: { source: 'shop', sql: 'ALTER TABLE album DROP COLUMN artist_id' } });
    expect(column.status).toBe(400);
    expect((column.body as any).code).toBe('dependency-error');
    expect(
      (await shop.sql(`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_name = 'album' AND column_name = 'artist_id'`)).rows[0].n,
    ).toBe(1);
    expect((await md('pg_untrack_table', { source: 'shop', table: 'album', cascade: true })).status).toBe(200);
    const artist = (await md('export_metadata', {})).body.sources.find((x: any) => x.name === 'default').tables.find((t: any) => t.table.name === 'artist');
    expect(artist.remote_relationships ?? []).toEqual([]);
    expect((await md('get_inconsistent_metadata', {})).body.is_consistent).toBe(true);
  });
});
