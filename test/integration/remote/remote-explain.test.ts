/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * `/v1/graphql/explain` on queries with remote joins, over HTTP on real
 * PostgreSQL and a real GraphQL server: per root field the main statement
 * and its plan (v2's `field`, `sql`, `plan`), then the join statements
 * (their plans, keys as typed placeholders) and the remote requests a run
 * would send (their documents, keys as placeholders); a remote root field
 * shows its request. Explain sends nothing to the remote.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../../support/engine.ts';
import { startGraphqlServer, type GraphqlTestServer } from '../../support/graphql-server.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';

let db: TestDatabase;
let engine: TestEngine;
let bios: GraphqlTestServer;

const SDL = `
type Artist { id: Int! bio: String! }
type Query { artistById(id: Int!): Artist artists(limit: Int): [Artist!]! }
`;
const root = {
  artistById: ({ id }: { id: number }) => ({ id, bio: `bio of ${id}` }),
  artists: () => [1, 2].map((id) => ({ id, bio: `bio of ${id}` })),
};

const md = async (type: string, args: unknown): Promise<any> => await engine.metadata({ type, args });
const explain = async (query: string, variables?: Record<string, unknown>, user?: Record<string, string>): Promise<any> =>
  await engine.post('/v1/graphql/explain', { query: { query, variables }, ...(user === undefined ? {} : { user }) });

beforeAll(async () => {
  db = await createTestDatabase('rsx');
  await db.sql(`
    CREATE TABLE album (id int PRIMARY KEY, title text NOT NULL, artist_id int);
    CREATE TABLE track (id int PRIMARY KEY, name text NOT NULL, artist_id int NOT NULL);
    INSERT INTO album SELECT i, 'album ' || i, 1 + (i % 3) FROM generate_series(1, 10) i;
    INSERT INTO track SELECT i, 'track ' || i, 1 + (i % 2) FROM generate_series(1, 10) i;
  `);
  engine = await startTestEngine({ databaseUrl: db.url });
  for (const t of ['album', 'track']) expect((await md('pg_track_table', { table: t })).status).toBe(200);
  bios = await startGraphqlServer(SDL, root);
  expect((await md('add_remote_schema', { name: 'bios', definition: { url: bios.url } })).status).toBe(200);
  const rel = await md('pg_create_remote_relationship', {
    table: 'album',
    name: 'artist_info',
    hasura_fields: ['artist_id'],
    remote_schema: 'bios',
    remote_field: { artistById: { arguments: { id: '$artist_id' } } },
  });
  expect(rel.status, JSON.stringify(rel.body)).toBe(200);
  const typeRel = await md('create_remote_schema_remote_relationship', {
    remote_schema: 'bios',
    type_name: 'Artist',
    name: 'tracks',
    definition: { to_source: { source: 'default', table: 'track', relationship_type: 'array', field_mapping: { id: 'artist_id' } } },
  });
  expect(typeRel.status, JSON.stringify(typeRel.body)).toBe(200);
});

afterAll(async () => {
  await engine?.close();
  await bios?.close();
  await db?.drop();
});

describe('explain with remote joins', () => {
  it('lists the main statement, then the remote request of a table → remote join and the statement of the remote → table join below it', async () => {
    const before = bios.queries().length;
    const r = await explain('query($t: String!) { album(where: {title: {_neq: $t}}) { title artist_info { bio tracks(order_by: {id: asc}) { name } } } }', {
      t: 'x',
    });
    expect(r.status, r.text).toBe(200);
    expect(bios.queries().length).toBe(before);
    expect(r.body).toHaveLength(1);
    const [album] = r.body;
    // v2's members, as v2 clients read them.
    expect(album.field).toBe('album');
    expect(album.sql).toContain('SELECT');
    expect(album.plan.join('\n')).toMatch(/Seq Scan on album/);
    expect(album.prepared_arguments).toContain('x');
    expect(album.joins).toHaveLength(2);
    const [remote, table] = album.joins;
    // One aliased copy of the field per distinct key; the join field of the remote → table join selected under its hidden key.
    expect(remote).toEqual({
      kind: 'remote',
      path: 'album.artist_info',
      remote_schema: 'bios',
      query: 'query { j0k<n>: artistById(id: <artist_id: Int>) { bio __engine_join_id: id } }',
    });
    expect(table.kind).toBe('sql');
    expect(table.path).toBe('album.artist_info.tracks');
    expect(table.source).toBe('default');
    expect(table.sql).toMatch(/"track"/);
    expect(table.plan.join('\n')).toMatch(/Scan on track/);
    expect(table.prepared_arguments).toContain('<keys: int4[]>');
  });

  it('shows a remote root field as the request it sends, with its joins', async () => {
    const before = bios.queries().length;
    const r = await explain('query($n: Int) { artists(limit: $n) { id tracks { name } } }', { n: 2 });
    expect(r.status, r.text).toBe(200);
    expect(bios.queries().length).toBe(before);
    expect(r.body).toHaveLength(1);
    const [f] = r.body;
    expect(f.field).toBe('artists');
    expect(f.sql).toBeNull();
    expect(f.plan).toBeNull();
    expect(f.remote_request.remote_schema).toBe('bios');
    expect(f.remote_request.query).toMatch(/^query \(\$n: Int\) \{ r0: artists\(limit: \$n\) \{/);
    expect(f.remote_request.variables).toEqual({ n: 2 });
    expect(f.joins).toHaveLength(1);
    expect(f.joins[0]).toMatchObject({
      kind: 'sql',
      path: 'artists.tracks',
      source: 'default',
      prepared_arguments: expect.arrayContaining(['<keys: int4[]>']),
    });
    expect(f.joins[0].plan.length).toBeGreaterThan(0);
  });

  it('keeps v2 answers for a query without joins, and database and remote fields side by side', async () => {
    const r = await explain('{ track(limit: 1) { name } artists { bio } }');
    expect(r.status, r.text).toBe(200);
    expect(r.body.map((f: any) => f.field)).toEqual(['track', 'artists']);
    expect(r.body[0].joins).toBeUndefined();
    expect(typeof r.body[0].sql).toBe('string');
    expect(r.body[1].remote_request.query).toContain('artists');
  });
});
