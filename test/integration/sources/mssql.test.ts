/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * MSSQL sources through the metadata API with no SQL Server: the `mssql_`
 * operations reach the mssql backend (engine/backends/mssql/), a source
 * whose server cannot be reached is refused by `mssql_add_source` with
 * tedious' connection error, in v2's inconsistent-object shape, and kept
 * as inconsistent by `replace_metadata` with allow_inconsistent_metadata,
 * its tables, relationships and permissions exported exactly as given.
 * The same against a real SQL Server: test/integration/backends/mssql-live.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/engine-process.ts';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';

let f: MetadataFixture;
let closedPort: number;

beforeAll(async () => {
  f = await startFixture();
  // A port nothing listens on: one the system just gave a server that closed it.
  closedPort = await freePort();
}, 120_000);
afterAll(async () => {
  await f?.close();
});

const connectionString = (): string => `Server=127.0.0.1,${closedPort};Database=music;Uid=sa;Pwd=secret;Encrypt=no;Connect Timeout=5`;

/** An mssql source with tables, relationships, permissions and a customization, as v2 exports one. */
function msSource(): any {
  return {
    name: 'ms',
    kind: 'mssql',
    configuration: { connection_info: { connection_string: connectionString(), pool_settings: { max_connections: 5 } } },
    tables: [
      {
        table: { schema: 'dbo', name: 'albums' },
        configuration: { custom_name: 'records', column_config: { title: { custom_name: 'name' } } },
        object_relationships: [{ name: 'artist', using: { foreign_key_constraint_on: 'artist_id' } }],
        select_permissions: [{ role: 'user', permission: { columns: ['id', 'title'], filter: { artist_id: { _eq: 'X-Engine-User-Id' } }, limit: 5 } }],
        insert_permissions: [
          { role: 'user', permission: { columns: ['title'], check: { artist_id: { _eq: 'X-Engine-User-Id' } }, set: { artist_id: 'x-engine-user-id' } } },
        ],
        update_permissions: [{ role: 'user', permission: { columns: ['title'], filter: { artist_id: { _eq: 'X-Engine-User-Id' } }, check: null } }],
        delete_permissions: [{ role: 'user', permission: { filter: { artist_id: { _eq: 'X-Engine-User-Id' } } } }],
      },
      {
        table: { schema: 'dbo', name: 'artists' },
        array_relationships: [{ name: 'albums', using: { foreign_key_constraint_on: { table: { schema: 'dbo', name: 'albums' }, column: 'artist_id' } } }],
      },
    ],
  };
}

/** The source's inconsistency: its connection failed, with tedious' message. */
function connectionFailure(): unknown {
  return {
    definition: 'ms',
    name: 'source ms',
    type: 'source',
    reason: expect.stringMatching(new RegExp(`^Inconsistent object: could not connect to source "ms": Failed to connect to 127\\.0\\.0\\.1:${closedPort}`)),
  };
}

describe('an MSSQL source without a SQL Server', () => {
  it('mssql_add_source refuses a server it cannot connect to, with the connection error as an inconsistent object', async () => {
    const before = await f.exported();
    const r = await f.md('mssql_add_source', { name: 'ms', configuration: { connection_info: { connection_string: connectionString() } } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      code: 'invalid-configuration',
      path: '$.args',
      error: expect.stringMatching(/^Inconsistent object: could not connect to source "ms": Failed to connect to 127\.0\.0\.1:\d+/),
      internal: [connectionFailure()],
    });
    expect(await f.exported()).toEqual(before);
  });

  it('mssql_add_source checks the configuration against the mssql schema', async () => {
    const r = await f.md('mssql_add_source', { name: 'ms', configuration: { connection_info: { database_url: 'postgres://x' } } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'parse-failed', path: expect.stringMatching(/^\$\.args\.configuration\.connection_info/) });
  });

  it('replace_metadata keeps the unreachable source as inconsistent, and export_metadata gives it back exactly', async () => {
    const doc = await f.exported();
    const ms = msSource();
    const r = await f.md('replace_metadata', { allow_inconsistent_metadata: true, metadata: { ...doc, sources: [...doc.sources, ms] } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ is_consistent: false, inconsistent_objects: [connectionFailure()] });
    const exported = await f.exported();
    expect(exported.sources.find((s: any) => s.name === 'ms')).toEqual(ms);
    expect((await f.md('get_inconsistent_metadata')).body).toEqual({ is_consistent: false, inconsistent_objects: [connectionFailure()] });
    // The engine still serves GraphQL.
    expect((await f.engine.graphql('{ __typename }')).body).toEqual({ data: { __typename: 'query_root' } });
  });

  it('refuses pg_ operations on the mssql source, and mssql_ operations on the postgres one, with v2 answer', async () => {
    expect((await f.md('pg_track_table', { source: 'ms', table: 'genres' })).body).toEqual({
      code: 'not-exists',
      path: '$.args',
      error: 'source with name "ms" has backend type "mssql" which does not match the expected type postgres',
    });
    expect((await f.md('mssql_create_select_permission', { table: 'authors', role: 'r', permission: { columns: '*', filter: {} } })).body).toEqual({
      code: 'not-exists',
      path: '$.args',
      error: 'source with name "default" has backend type "postgres" which does not match the expected type mssql',
    });
    // Families the mssql backend has no operations for.
    expect((await f.md('mssql_track_function', { source: 'ms', function: 'f' })).body).toMatchObject({ code: 'not-supported' });
    expect((await f.md('mssql_create_event_trigger', { source: 'ms', name: 't', table: 'albums' })).body).toMatchObject({ code: 'not-supported' });
  });

  it('runs the mssql_ table operations on it; those that read its tables say it is inconsistent', async () => {
    const ok = { message: 'success' };
    const on = (type: string, args: Record<string, unknown>): Promise<any> => f.md(type, { source: 'ms', ...args });
    expect((await on('mssql_track_table', { table: 'genres' })).body).toEqual(ok);
    expect((await on('mssql_set_table_customization', { table: 'genres', configuration: { custom_root_fields: { select: 'allGenres' } } })).body).toEqual(ok);
    const genres = (await f.exported()).sources.find((s: any) => s.name === 'ms').tables.find((t: any) => t.table.name === 'genres');
    expect(genres).toEqual({ table: { schema: 'dbo', name: 'genres' }, configuration: { custom_root_fields: { select: 'allGenres' } } });
    const inconsistent = {
      code: 'invalid-configuration',
      path: '$.args.source',
      error: expect.stringMatching(/^source "ms" is inconsistent: could not connect to source "ms": Failed to connect/),
    };
    const manual = { manual_configuration: { remote_table: 'albums', column_mapping: { id: 'genre_id' } } };
    expect((await on('mssql_create_array_relationship', { table: 'genres', name: 'albums', using: manual })).body).toEqual(inconsistent);
    // Permissions are checked against the tables when the source is consistent again (as on postgres).
    expect((await on('mssql_create_select_permission', { table: 'genres', role: 'editor', permission: { columns: ['id'], filter: {} } })).body).toEqual(ok);
    expect((await on('mssql_create_insert_permission', { table: 'genres', role: 'editor', permission: { columns: ['id'], check: {} } })).body).toEqual(ok);
    // Those on what the metadata already has are made in it.
    expect((await on('mssql_rename_relationship', { table: 'artists', name: 'albums', new_name: 'records' })).body).toEqual(ok);
    expect((await on('mssql_set_relationship_comment', { table: 'artists', relationship: 'records', comment: 'theirs' })).body).toEqual(ok);
    expect((await on('mssql_drop_relationship', { table: 'artists', relationship: 'records' })).body).toEqual(ok);
    for (const kind of ['select', 'insert', 'update', 'delete'])
      expect((await on(`mssql_drop_${kind}_permission`, { table: 'albums', role: 'user' })).body).toEqual(ok);
    const tables = (await f.exported()).sources.find((s: any) => s.name === 'ms').tables;
    const { select_permissions, insert_permissions, update_permissions, delete_permissions, ...albums } = msSource().tables[0];
    void [select_permissions, insert_permissions, update_permissions, delete_permissions];
    expect(tables).toEqual([
      albums,
      { table: { schema: 'dbo', name: 'artists' } },
      {
        ...genres,
        select_permissions: [{ role: 'editor', permission: { columns: ['id'], filter: {} } }],
        insert_permissions: [{ role: 'editor', permission: { columns: ['id'], check: {} } }],
      },
    ]);
    expect((await on('mssql_untrack_table', { table: 'genres' })).body).toEqual(ok);
  });

  it('mssql_run_sql (/v2/query) runs on mssql sources only: the unreachable one is inconsistent, the postgres one of another type', async () => {
    const run = (args: Record<string, unknown>): Promise<any> => f.engine.post('/v2/query', { type: 'mssql_run_sql', args });
    const unreachable = await run({ source: 'ms', sql: 'SELECT 1 AS one', cascade: false, check_metadata_consistency: true });
    expect(unreachable.status).toBe(400);
    expect(unreachable.body).toEqual({
      code: 'invalid-configuration',
      path: '$.args.source',
      error: expect.stringMatching(/^source "ms" is inconsistent: could not connect to source "ms": Failed to connect to 127\.0\.0\.1:\d+/),
    });
    // v2 compat: `source` defaults to "default", here a postgres source.
    expect((await run({ sql: 'SELECT 1' })).body).toEqual({
      code: 'not-exists',
      path: '$.args',
      error: 'source with name "default" has backend type "postgres" which does not match the expected type mssql',
    });
    expect((await run({ source: 'nowhere', sql: 'SELECT 1' })).body).toMatchObject({ code: 'not-exists', path: '$.args.source' });
    expect((await run({ source: 'ms' })).body).toMatchObject({ code: 'parse-failed', path: '$.args' });
    // Inside a bulk, the failure rolls back the postgres SQL before it.
    const bulk = await f.engine.post('/v2/query', {
      type: 'bulk',
      args: [
        { type: 'run_sql', args: { sql: 'CREATE TABLE mssql_bulk_probe (id int)' } },
        { type: 'mssql_run_sql', args: { source: 'ms', sql: 'SELECT 1' } },
      ],
    });
    expect(bulk.body).toMatchObject({ code: 'invalid-configuration', path: '$.args[1].args.source' });
    expect((await f.sql("SELECT to_regclass('mssql_bulk_probe') IS NULL AS gone")).body).toEqual({ result_type: 'TuplesOk', result: [['gone'], ['t']] });
  });

  it('run_sql on the source says the connection failed; mssql_drop_source removes it with cascade', async () => {
    const sql = await f.engine.post('/v2/query', { type: 'run_sql', args: { source: 'ms', sql: 'SELECT 1' } });
    expect(sql.status).toBe(400);
    expect(sql.body).toMatchObject({
      code: 'invalid-configuration',
      path: '$.args.source',
      error: expect.stringContaining('could not connect to source "ms"'),
    });
    expect((await f.md('mssql_drop_source', { name: 'ms' })).body).toMatchObject({ code: 'dependency-error' });
    expect((await f.md('mssql_drop_source', { name: 'ms', cascade: true })).body).toEqual({ message: 'success' });
    expect((await f.exported()).sources.map((s: any) => s.name)).toEqual(['default']);
    expect((await f.md('get_inconsistent_metadata')).body).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });
});
