/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Remote relationships (table → remote schema field) through HTTP on real
 * PostgreSQL and a real GraphQL server: ONE remote request per join level
 * whatever the row count (counted on the server), nested under array
 * relationships, null join keys, customized names, plan-cache hits, both
 * stored forms, refusals of relationships that do not fit, dependency
 * reports, and a role that cannot read the join column not seeing the field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;
let bios: GraphqlTestServer;

const SDL = `
type Country { code: String! name: String! }
type Artist { id: Int! bio: String! country: Country! }
type Query { artistById(id: Int!): Artist artistByName(name: String!): Artist hello: String }
`;
const artistOf = (id: number): any => ({ id, bio: `bio of ${id}`, country: { code: id % 2 === 0 ? 'FR' : 'DE', name: id % 2 === 0 ? 'France' : 'Germany' } });
const root = {
  artistById: ({ id }: { id: number }) => (id > 0 ? artistOf(id) : null),
  artistByName: ({ name }: { name: string }) => ({ ...artistOf(name.length), bio: `named ${name}` }),
  hello: () => 'hi',
};

const md = async (type: string, args: unknown): Promise<any> => await engine.metadata({ type, args });
const gql = async (query: string, variables?: Record<string, unknown>, headers?: Record<string, string>): Promise<any> =>
  (await engine.graphql(query, variables, headers)).body;
/** Runs `fn` and answers how many non-introspection requests the remote got meanwhile. */
const counting = async <T>(fn: () => Promise<T>): Promise<{ result: T; requests: number }> => {
  const before = bios.queries().length;
  const result = await fn();
  return { result, requests: bios.queries().length - before };
};

beforeAll(async () => {
  db = await createTestDatabase('rsj');
  await db.sql(`
    CREATE TABLE artist (id int PRIMARY KEY, name text NOT NULL);
    CREATE TABLE album (id int PRIMARY KEY, title text NOT NULL, artist_id int REFERENCES artist(id));
    INSERT INTO artist SELECT i, 'artist ' || i FROM generate_series(1, 10) i;
    INSERT INTO album SELECT i, 'album ' || i, 1 + (i % 10) FROM generate_series(1, 100) i;
    INSERT INTO album VALUES (101, 'no artist', NULL);
  `);
  engine = await startTestEngine({ databaseUrl: db.url });
  for (const t of ['artist', 'album']) expect((await md('pg_track_table', { table: t })).status).toBe(200);
  expect(
    (
      await md('pg_create_array_relationship', {
        table: 'artist',
        name: 'albums',
        using: { foreign_key_constraint_on: { table: 'album', column: 'artist_id' } },
      })
    ).status,
  ).toBe(200);
  expect((await md('pg_create_select_permission', { table: 'album', role: 'user', permission: { columns: ['id', 'title'], filter: {} } })).status).toBe(200);
  bios = await startGraphqlServer(SDL, root);
  expect((await md('add_remote_schema', { name: 'bios', definition: { url: bios.url } })).status).toBe(200);
  const r = await md('pg_create_remote_relationship', {
    table: 'album',
    name: 'artist_info',
    hasura_fields: ['artist_id'],
    remote_schema: 'bios',
    remote_field: { artistById: { arguments: { id: '$artist_id' } } },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
});

afterAll(async () => {
  await engine?.close();
  await bios?.close();
  await db?.drop();
});

describe('table → remote schema', () => {
  it('joins 101 albums with ONE remote request asking each distinct key once', async () => {
    const { result, requests } = await counting(() => gql('{ album(order_by: {id: asc}) { id title artist_info { id bio } } }'));
    expect(requests).toBe(1);
    expect(result.data.album).toHaveLength(101);
    expect(result.data.album[0]).toEqual({ id: 1, title: 'album 1', artist_info: { id: 2, bio: 'bio of 2' } });
    expect(result.data.album[9]).toEqual({ id: 10, title: 'album 10', artist_info: { id: 1, bio: 'bio of 1' } });
    expect(result.data.album[100]).toEqual({ id: 101, title: 'no artist', artist_info: null });
    const sent = bios.queries().at(-1)?.body.query ?? '';
    expect(sent.match(/artistById\(id:/g)).toHaveLength(10);
  });

  it('joins under an array relationship with one request too, and keeps the join column out of the answer', async () => {
    const q =
      '{ artist(order_by: {id: asc}, limit: 3) { name albums(order_by: {id: asc}, limit: 2) { title artist_info { __typename bio country { code } } } } }';
    const { result, requests } = await counting(() => gql(q));
    expect(requests).toBe(1);
    expect(result.data.artist[0]).toEqual({
      name: 'artist 1',
      albums: [
        { title: 'album 10', artist_info: { __typename: 'Artist', bio: 'bio of 1', country: { code: 'DE' } } },
        { title: 'album 20', artist_info: { __typename: 'Artist', bio: 'bio of 1', country: { code: 'DE' } } },
      ],
    });
    expect(JSON.stringify(result)).not.toContain('__engine_join');
  });

  it('a plan-cache hit makes one request again and introspects nothing', async () => {
    const introspections = bios.requests.length - bios.queries().length;
    const q = 'query($n: Int!) { album(order_by: {id: asc}, limit: $n) { artist_info { bio } } }';
    for (const n of [5, 50]) {
      const { result, requests } = await counting(() => gql(q, { n }));
      expect(requests).toBe(1);
      expect(result.data.album).toHaveLength(n);
    }
    expect(bios.requests.length - bios.queries().length).toBe(introspections);
  });

  it('takes the to_remote_schema form with a nested remote field path', async () => {
    const r = await md('pg_create_remote_relationship', {
      table: 'artist',
      name: 'homeland',
      definition: {
        to_remote_schema: {
          remote_schema: 'bios',
          lhs_fields: ['name'],
          remote_field: { artistByName: { arguments: { name: '$name' }, field: { country: { arguments: {} } } } },
        },
      },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const { result, requests } = await counting(() => gql('{ artist(where: {id: {_in: [1, 10]}}, order_by: {id: asc}) { name homeland { name } } }'));
    expect(requests).toBe(1);
    // "artist 1" has 8 characters (even: France), "artist 10" 9 (odd: Germany).
    expect(result.data.artist).toEqual([
      { name: 'artist 1', homeland: { name: 'France' } },
      { name: 'artist 10', homeland: { name: 'Germany' } },
    ]);
    const doc = (await md('export_metadata', {})).body;
    const artist = doc.sources[0].tables.find((t: any) => t.table.name === 'artist');
    expect(artist.remote_relationships).toEqual([
      {
        name: 'homeland',
        definition: {
          to_remote_schema: {
            remote_schema: 'bios',
            lhs_fields: ['name'],
            remote_field: { artistByName: { arguments: { name: '$name' }, field: { country: { arguments: {} } } } },
          },
        },
      },
    ]);
    expect((await md('pg_delete_remote_relationship', { table: 'artist', name: 'homeland' })).status).toBe(200);
  });

  it('a role that cannot read the join column does not see the field', async () => {
    const r = await gql('{ album(limit: 1) { title artist_info { bio } } }', undefined, { 'X-Engine-Role': 'user' });
    expect(r.errors[0].extensions.code).toBe('validation-failed');
  });
});

describe('remote relationship metadata', () => {
  it('refuses relationships that do not fit the table or the remote schema', async () => {
    const base = { table: 'album', name: 'bad', hasura_fields: ['artist_id'], remote_schema: 'bios' };
    const noField = await md('pg_create_remote_relationship', { ...base, remote_field: { nope: { arguments: {} } } });
    expect(noField.status).toBe(400);
    expect(noField.body.error).toContain('field "nope" does not exist');
    const noArg = await md('pg_create_remote_relationship', { ...base, remote_field: { artistById: { arguments: { idx: '$artist_id' } } } });
    expect(noArg.body.error).toContain('argument "idx" does not exist');
    const notJoin = await md('pg_create_remote_relationship', { ...base, remote_field: { artistById: { arguments: { id: '$id' } } } });
    expect(notJoin.body.error).toContain('"$id" is not one of the join fields');
    const noColumn = await md('pg_create_remote_relationship', {
      ...base,
      hasura_fields: ['nope'],
      remote_field: { artistById: { arguments: { id: '$nope' } } },
    });
    expect(noColumn.body.error).toContain('column "nope" does not exist');
    const noRemote = await md('pg_create_remote_relationship', {
      ...base,
      remote_schema: 'nope',
      remote_field: { artistById: { arguments: { id: '$artist_id' } } },
    });
    expect(noRemote.body.error).toContain('remote schema "nope" does not exist');
    const dup = await md('pg_create_remote_relationship', { ...base, name: 'artist_info', remote_field: { artistById: { arguments: { id: '$artist_id' } } } });
    expect(dup.body.code).toBe('already-exists');
    expect((await md('pg_delete_remote_relationship', { table: 'album', name: 'nope' })).body.code).toBe('not-exists');
  });

  it('keeps the remote schema while a relationship uses it, and reports the relationship when the remote changes under it', async () => {
    const r = await md('remove_remote_schema', { name: 'bios' });
    expect(r.body.code).toBe('dependency-error');
    expect(r.body.error).toContain('remote_relationship artist_info');
    bios.setSchema('type Query { hello: String }', { hello: () => 'hi' });
    expect((await md('reload_remote_schema', { name: 'bios' })).status).toBe(200);
    const inc = (await md('get_inconsistent_metadata', {})).body;
    expect(inc.inconsistent_objects).toEqual([
      expect.objectContaining({ type: 'remote_relationship', reason: expect.stringContaining('field "artistById" does not exist') }),
    ]);
    bios.setSchema(SDL, root);
    expect((await md('reload_remote_schema', { name: 'bios' })).status).toBe(200);
    expect((await md('get_inconsistent_metadata', {})).body.is_consistent).toBe(true);
  });

  it('legacy /v1/query names and update', async () => {
    const up = await engine.post('/v1/query', {
      type: 'update_remote_relationship',
      args: {
        table: 'album',
        name: 'artist_info',
        hasura_fields: ['artist_id'],
        remote_schema: 'bios',
        remote_field: { artistById: { arguments: { id: '$artist_id' } } },
      },
    });
    expect(up.status, up.text).toBe(200);
    expect((await gql('{ album(where: {id: {_eq: 3}}) { artist_info { bio } } }')).data.album).toEqual([{ artist_info: { bio: 'bio of 4' } }]);
  });
});
