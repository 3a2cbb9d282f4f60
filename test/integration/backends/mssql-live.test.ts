/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * The MSSQL backend against a real SQL Server, when one is given:
 * ENGINE_TEST_MSSQL_URL is a connection string as v2 takes it
 * (`Server=localhost,1433;Uid=sa;Pwd=...;Encrypt=no`). Without it every test
 * is skipped with that reason printed. Each run works in a schema of its own
 * (and dbo tables named after it). First the backend alone (compilers,
 * connection, introspection), then an engine process (`engine serve`, its
 * metadata in PostgreSQL) with the server as an `mssql` source: the metadata
 * family, mssql_run_sql, GraphQL queries, mutations and subscriptions (graphql-ws), as admin and as a
 * role with session variables, and cross-source relationships with a PostgreSQL source both ways.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createClient, type Client } from 'graphql-ws';
import type * as ir from '../../../engine/ir/index.ts';
import { buildSession } from '../../../engine/auth/session.ts';
import { TransactionStatementError } from '../../../engine/backends/backend.ts';
import { bindStatement } from '../../../engine/execute/bind-statement.ts';
import { mssqlBackend } from '../../../engine/backends/mssql/index.ts';
import type { MssqlConnection } from '../../../engine/backends/mssql/connection.ts';
import { spawnEngine, type EngineProcess } from '../../support/engine-process.ts';
import { createTestDatabase, type TestDatabase } from '../../support/pg.ts';
import { wsUrl } from '../../support/ws-client.ts';

const url = process.env['ENGINE_TEST_MSSQL_URL'];
if (url === undefined) console.log('[mssql live] skipped: ENGINE_TEST_MSSQL_URL is not set (a SQL Server connection string)');
const session = buildSession('admin', {});
const schema = `engine_test_${randomUUID().slice(0, 8)}`;
let conn: MssqlConnection;

const run = (text: string): Promise<string | null> => conn.queryJsonText({ text, values: [] });

describe.skipIf(url === undefined)('MSSQL live', () => {
  beforeAll(async () => {
    const resolved = mssqlBackend.configuration.resolve({ connection_info: { connection_string: url } }, { env: () => undefined, statementTimeoutMs: 60_000 });
    if ('reason' in resolved) throw new Error(resolved.reason);
    conn = mssqlBackend.connect(resolved) as MssqlConnection;
    await run(`EXEC('CREATE SCHEMA [${schema}]')`);
    await run(`CREATE TABLE [${schema}].[items] (
      [id] INT IDENTITY(1,1) PRIMARY KEY, [uid] UNIQUEIDENTIFIER NOT NULL DEFAULT NEWID(), [name] NVARCHAR(200) NOT NULL,
      [at] DATETIME2 NULL, [at_tz] DATETIMEOFFSET NULL, [ok] BIT NULL, [price] DECIMAL(12, 2) NULL, [blob] VARBINARY(MAX) NULL)`);
  }, 120_000);

  afterAll(async () => {
    if (conn === undefined) return;
    await run(`DROP TABLE IF EXISTS [${schema}].[items]; EXEC('DROP SCHEMA IF EXISTS [${schema}]')`).catch(() => undefined);
    await conn.close();
  });

  const items = { schema, name: 'items' };
  const column = (c: string): ir.Field => ({ kind: 'column', alias: c, column: c, asText: false });
  const rows = (where: ir.BoolExp | null): ir.RowSource => ({
    table: items,
    where,
    orderBy: [{ target: { kind: 'column', column: 'id' }, direction: 'asc', nulls: 'first' }],
    distinctOn: [],
    limit: null,
    limitCap: null,
    offset: null,
  });

  it('inserts through MERGE with typed JSON input, and reads the rows back as JSON', async () => {
    const target = { serverVersion: null, table: () => undefined };
    const insert: ir.Mutation = {
      kind: 'insert',
      insert: {
        rows: {
          kind: 'const',
          value: JSON.stringify([
            { name: 'a', at: '2024-01-02T03:04:05.123', at_tz: '2024-01-02T03:04:05+02:00', ok: true, price: '12.34', blob: 'AQID' },
            { name: 'b' },
          ]),
        },
        root: {
          table: items,
          primaryKey: ['id'],
          inputColumns: ['name', 'at', 'at_tz', 'ok', 'price', 'blob'].map((c) => ({ column: c, key: c })),
          partitions: [
            { columns: ['name', 'at', 'at_tz', 'ok', 'price', 'blob'].map((c) => ({ column: c, key: c })), parents: [] },
            { columns: [{ column: 'name', key: 'name' }], parents: [] },
          ],
          presets: null,
          onConflict: null,
          check: null,
          parents: [],
          children: [],
        },
        primaryKey: ['id'],
        output: {
          kind: 'response',
          filter: null,
          fields: [
            { kind: 'affected-rows', alias: 'n' },
            { kind: 'returning', alias: 'r', fields: [column('name')] },
          ],
        },
      },
    };
    const stmts = mssqlBackend.compile.mutation(insert, target).statements.map((s) => bindStatement(s.sql, {}, session));
    const [out] = await conn.transactionJsonText(stmts);
    expect(JSON.parse(out ?? 'null')).toEqual({ n: 2, r: [{ name: 'a' }, { name: 'b' }] });
    const q = mssqlBackend.compile.query([
      {
        kind: 'select',
        alias: 'items',
        source: 's',
        select: { from: rows(null), cardinality: 'many', fields: ['id', 'name', 'at', 'at_tz', 'ok', 'price', 'blob'].map(column) },
      },
    ]);
    const data = JSON.parse((await conn.queryJsonText(bindStatement(q, {}, session))) ?? 'null') as { items: unknown[] };
    expect(data.items[0]).toEqual({
      id: 1,
      name: 'a',
      at: '2024-01-02T03:04:05.1230000',
      at_tz: '2024-01-02T03:04:05+02:00',
      ok: true,
      price: 12.34,
      blob: 'AQID',
    });
    expect(data.items[1]).toMatchObject({ id: 2, name: 'b', ok: null });
  });

  it('filters with typed parameters and _in lists', async () => {
    const where: ir.BoolExp = { kind: 'compare', left: { column: 'id', cast: null }, op: 'in', right: { kind: 'const', value: [2, 3] }, dbType: 'int' };
    const q = mssqlBackend.compile.query([
      { kind: 'select', alias: 'items', source: 's', select: { from: rows(where), cardinality: 'many', fields: [column('name')] } },
    ]);
    expect(JSON.parse((await conn.queryJsonText(bindStatement(q, {}, session))) ?? 'null')).toEqual({ items: [{ name: 'b' }] });
  });

  it('concatenates a FOR JSON answer longer than one row', async () => {
    const text = await run(
      `SELECT TOP (2000) o.object_id AS [id], o.name AS [name] FROM sys.all_objects AS o CROSS JOIN (VALUES (1), (2)) AS v(x) FOR JSON PATH`,
    );
    expect((JSON.parse(text ?? '[]') as unknown[]).length).toBe(2000);
  });

  it('rolls the whole transaction back when a permission check fails, as permission-error', async () => {
    const update: ir.Mutation = {
      kind: 'update',
      update: {
        table: items,
        where: { kind: 'and', items: [] },
        ops: [{ kind: 'set', value: { kind: 'const', value: JSON.stringify({ name: 'zzz' }) }, columns: [{ column: 'name', key: 'name' }] }],
        presets: null,
        check: { kind: 'compare', left: { column: 'name', cast: null }, op: 'eq', right: { kind: 'const', value: 'never' }, dbType: 'nvarchar' },
        output: { kind: 'response', filter: null, fields: [{ kind: 'affected-rows', alias: 'n' }] },
      },
    };
    const stmts = mssqlBackend.compile
      .mutation(update, { serverVersion: null, table: () => undefined })
      .statements.map((s) => bindStatement(s.sql, {}, session));
    const e = await conn.transactionJsonText(stmts).then(
      () => null,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(TransactionStatementError);
    expect(mssqlBackend.toEngineError((e as Error).cause, stmts[0]!)).toMatchObject({
      code: 'permission-error',
      message: 'check constraint of an update permission has failed',
    });
    expect(await run(`SELECT COUNT(*) AS n FROM [${schema}].[items] WHERE [name] = N'zzz' FOR JSON PATH, WITHOUT_ARRAY_WRAPPER`)).toBe('{"n":0}');
  });

  it('introspects tables, identity and uniqueidentifier columns and the primary key', async () => {
    const i = await mssqlBackend.introspector(conn).introspect();
    const t = i.tables.get(`${schema}.items`);
    expect(t?.primaryKey?.columns).toEqual(['id']);
    expect(t?.columns.map((c) => [c.name, c.dbType])).toEqual([
      ['id', 'int'],
      ['uid', 'uniqueidentifier'],
      ['name', 'nvarchar'],
      ['at', 'datetime2'],
      ['at_tz', 'datetimeoffset'],
      ['ok', 'bit'],
      ['price', 'decimal'],
      ['blob', 'varbinary'],
    ]);
  });
});

/*
 * Through an engine process. The tables: dbo `<id>_artists` and `<id>_albums`
 * (tracked as `artists` and `albums` by custom names), `<schema>.labels`
 * (its root field the default `<schema>_labels`). Tests run in order and share
 * the data; each says what it expects from the ones before.
 */
const id = schema.slice('engine_test_'.length);
const artistsT = `e2e_${id}_artists`;
const albumsT = `e2e_${id}_albums`;
const artistsPk = `e2e_${id}_artists_pkey`;
const labels = `${schema}_labels`;

describe.skipIf(url === undefined)('MSSQL live through an engine process', () => {
  let ms: MssqlConnection;
  let db: TestDatabase;
  let engine: EngineProcess;

  const exec = (text: string): Promise<string | null> => ms.queryJsonText({ text, values: [] });

  async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
    const res = await fetch(`${engine.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  }
  const md = (type: string, args: Record<string, unknown>): Promise<{ status: number; body: any }> => post('/v1/metadata', { type, args });
  const runSql = (sql: string, extra: Record<string, unknown> = {}): Promise<{ status: number; body: any }> =>
    post('/v2/query', { type: 'mssql_run_sql', args: { source: 'ms', sql, ...extra } });
  const gql = async (query: string, headers: Record<string, string> = {}): Promise<any> => (await post('/v1/graphql', { query }, headers)).body;
  const asUser = (userId: string): Record<string, string> => ({ 'X-Engine-Role': 'user', 'X-Engine-User-Id': userId });
  const ok = { message: 'success' };

  beforeAll(async () => {
    const resolved = mssqlBackend.configuration.resolve({ connection_info: { connection_string: url } }, { env: () => undefined, statementTimeoutMs: 60_000 });
    if ('reason' in resolved) throw new Error(resolved.reason);
    ms = mssqlBackend.connect(resolved) as MssqlConnection;
    await exec(`IF SCHEMA_ID(N'${schema}') IS NULL EXEC('CREATE SCHEMA [${schema}]')`);
    await exec(`CREATE TABLE [dbo].[${artistsT}] (
      [id] INT NOT NULL CONSTRAINT [${artistsPk}] PRIMARY KEY, [name] NVARCHAR(200) NOT NULL, [country] NVARCHAR(50) NULL)`);
    await exec(`CREATE TABLE [dbo].[${albumsT}] (
      [id] INT IDENTITY(1,1) PRIMARY KEY, [title] NVARCHAR(200) NOT NULL,
      [artist_id] INT NOT NULL CONSTRAINT [e2e_${id}_albums_artist_fkey] REFERENCES [dbo].[${artistsT}] ([id]), [price] DECIMAL(10, 2) NULL)`);
    await exec(`CREATE TABLE [${schema}].[labels] ([id] INT NOT NULL PRIMARY KEY, [name] NVARCHAR(100) NOT NULL, [artist_id] INT NULL)`);
    await exec(`INSERT INTO [dbo].[${artistsT}] ([id], [name], [country]) VALUES (1, N'Ann', N'UK'), (2, N'Bob', NULL), (3, N'Cid', N'FR');
      INSERT INTO [dbo].[${albumsT}] ([title], [artist_id], [price]) VALUES (N'A1', 1, 10.00), (N'A2', 1, 20.00), (N'B1', 2, NULL), (N'C1', 3, 5.50);
      INSERT INTO [${schema}].[labels] ([id], [name], [artist_id]) VALUES (1, N'L1', 1), (2, N'L2', NULL)`);
    db = await createTestDatabase('mslive');
    engine = await spawnEngine(['--database-url', db.url]);
  }, 180_000);

  afterAll(async () => {
    await engine?.stop('SIGKILL');
    await db?.drop();
    if (ms === undefined) return;
    await exec(
      `DROP TABLE IF EXISTS [${schema}].[extra]; DROP TABLE IF EXISTS [${schema}].[labels]; DROP TABLE IF EXISTS [dbo].[${albumsT}];
       DROP TABLE IF EXISTS [dbo].[${artistsT}]; EXEC('DROP SCHEMA IF EXISTS [${schema}]')`,
    ).catch(() => undefined);
    await ms.close();
  });

  it('adds the source, tracks tables in dbo and another schema, with relationships and permissions', async () => {
    expect((await md('mssql_add_source', { name: 'ms', configuration: { connection_info: { connection_string: url } } })).body).toEqual(ok);
    const track = (table: unknown, configuration?: unknown): Promise<{ status: number; body: any }> =>
      md('mssql_track_table', { source: 'ms', table, ...(configuration === undefined ? {} : { configuration }) });
    expect((await track({ schema: 'dbo', name: artistsT }, { custom_name: 'artists' })).body).toEqual(ok);
    expect((await track(albumsT, { custom_name: 'albums' })).body).toEqual(ok);
    expect((await track({ schema, name: 'labels' })).body).toEqual(ok);
    const on = (type: string, args: Record<string, unknown>): Promise<{ status: number; body: any }> => md(type, { source: 'ms', ...args });
    const albums = { schema: 'dbo', name: albumsT };
    const artists = { schema: 'dbo', name: artistsT };
    expect((await on('mssql_create_object_relationship', { table: albums, name: 'artist', using: { foreign_key_constraint_on: 'artist_id' } })).body).toEqual(
      ok,
    );
    expect(
      (
        await on('mssql_create_array_relationship', {
          table: artists,
          name: 'albums',
          using: { foreign_key_constraint_on: { table: albums, column: 'artist_id' } },
        })
      ).body,
    ).toEqual(ok);
    expect(
      (
        await on('mssql_create_object_relationship', {
          table: { schema, name: 'labels' },
          name: 'artist',
          using: { manual_configuration: { remote_table: artists, column_mapping: { artist_id: 'id' } } },
        })
      ).body,
    ).toEqual(ok);
    const mine = { artist_id: { _eq: 'X-Engine-User-Id' } };
    expect(
      (
        await on('mssql_create_select_permission', {
          table: albums,
          role: 'user',
          permission: { columns: ['id', 'title', 'artist_id', 'price'], filter: mine, allow_aggregations: true },
        })
      ).body,
    ).toEqual(ok);
    expect((await on('mssql_create_select_permission', { table: artists, role: 'user', permission: { columns: ['id', 'name'], filter: {} } })).body).toEqual(
      ok,
    );
    expect(
      (
        await on('mssql_create_insert_permission', {
          table: albums,
          role: 'user',
          permission: { columns: ['title', 'price'], check: { price: { _lt: 100 } }, set: { artist_id: 'X-Engine-User-Id' } },
        })
      ).body,
    ).toEqual(ok);
    expect(
      (
        await on('mssql_create_update_permission', {
          table: albums,
          role: 'user',
          permission: { columns: ['title', 'price'], filter: mine, check: { price: { _lt: 100 } } },
        })
      ).body,
    ).toEqual(ok);
    expect((await on('mssql_create_delete_permission', { table: albums, role: 'user', permission: { filter: mine } })).body).toEqual(ok);

    const exported = (await md('export_metadata', {})).body;
    const source = exported.sources.find((s: any) => s.name === 'ms');
    expect(source.kind).toBe('mssql');
    expect(source.tables.map((t: any) => t.table)).toEqual(expect.arrayContaining([artists, albums, { schema, name: 'labels' }]));
    expect((await md('get_inconsistent_metadata', {})).body).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('queries with filters, order, limit/offset and by primary key', async () => {
    expect(await gql('{ artists(where: {country: {_is_null: false}}, order_by: {name: desc}) { id name } }')).toEqual({
      data: {
        artists: [
          { id: 3, name: 'Cid' },
          { id: 1, name: 'Ann' },
        ],
      },
    });
    expect(await gql('{ albums(order_by: {id: asc}, limit: 2, offset: 1) { title } }')).toEqual({ data: { albums: [{ title: 'A2' }, { title: 'B1' }] } });
    expect(await gql('{ albums(where: {title: {_like: "A%"}}, order_by: {id: asc}) { title } }')).toEqual({
      data: { albums: [{ title: 'A1' }, { title: 'A2' }] },
    });
    expect(await gql('{ artists(where: {_or: [{id: {_in: [1, 3]}}, {name: {_eq: "Bob"}}], _not: {id: {_eq: 3}}}, order_by: {id: asc}) { id } }')).toEqual({
      data: { artists: [{ id: 1 }, { id: 2 }] },
    });
    // SQL Server's own nulls order: asc puts NULL first (v2's MSSQL).
    expect(await gql('{ albums(order_by: [{price: asc}, {id: asc}]) { title price } }')).toEqual({
      data: {
        albums: [
          { title: 'B1', price: null },
          { title: 'C1', price: 5.5 },
          { title: 'A1', price: 10 },
          { title: 'A2', price: 20 },
        ],
      },
    });
    expect(await gql('{ artists_by_pk(id: 2) { name country } none: artists_by_pk(id: 99) { name } }')).toEqual({
      data: { artists_by_pk: { name: 'Bob', country: null }, none: null },
    });
  });

  it('queries nested relationships, in dbo and across schemas, and filters and orders through them', async () => {
    expect(await gql('{ artists(order_by: {id: asc}) { name albums(order_by: {title: asc}) { title artist { id } } } }')).toEqual({
      data: {
        artists: [
          {
            name: 'Ann',
            albums: [
              { title: 'A1', artist: { id: 1 } },
              { title: 'A2', artist: { id: 1 } },
            ],
          },
          { name: 'Bob', albums: [{ title: 'B1', artist: { id: 2 } }] },
          { name: 'Cid', albums: [{ title: 'C1', artist: { id: 3 } }] },
        ],
      },
    });
    expect(await gql(`{ ${labels}(order_by: {id: asc}) { name artist { name } } }`)).toEqual({
      data: {
        [labels]: [
          { name: 'L1', artist: { name: 'Ann' } },
          { name: 'L2', artist: null },
        ],
      },
    });
    expect(await gql('{ artists(where: {albums: {price: {_gt: 15}}}) { name } }')).toEqual({ data: { artists: [{ name: 'Ann' }] } });
    expect(await gql('{ albums(order_by: [{artist: {name: desc}}, {title: asc}]) { title } }')).toEqual({
      data: { albums: [{ title: 'C1' }, { title: 'B1' }, { title: 'A1' }, { title: 'A2' }] },
    });
  });

  it('aggregates at the root and through an array relationship', async () => {
    expect(await gql('{ albums_aggregate { aggregate { count sum { price } max { price } min { title } } } }')).toEqual({
      data: { albums_aggregate: { aggregate: { count: 4, sum: { price: 35.5 }, max: { price: 20 }, min: { title: 'A1' } } } },
    });
    expect(await gql('{ artists(where: {id: {_eq: 1}}) { albums_aggregate(order_by: {title: asc}) { aggregate { count } nodes { title } } } }')).toEqual({
      data: { artists: [{ albums_aggregate: { aggregate: { count: 2 }, nodes: [{ title: 'A1' }, { title: 'A2' }] } }] },
    });
  });

  it('applies a role’s permissions with its session variables', async () => {
    expect(await gql('{ albums(order_by: {id: asc}) { title } albums_aggregate { aggregate { count } } }', asUser('1'))).toEqual({
      data: { albums: [{ title: 'A1' }, { title: 'A2' }], albums_aggregate: { aggregate: { count: 2 } } },
    });
    expect(await gql('{ albums { title } }', asUser('2'))).toEqual({ data: { albums: [{ title: 'B1' }] } });
    // Columns outside the role's permission are not in its schema.
    const hidden = await gql('{ artists { country } }', asUser('1'));
    expect(hidden.errors[0].extensions.code).toBe('validation-failed');
  });

  it('upserts through if_matched (v2’s MSSQL), updates and deletes as admin', async () => {
    expect(
      await gql(`mutation { insert_artists(objects: [{id: 2, name: "Bobby"}, {id: 4, name: "Dee"}],
        if_matched: {match_columns: [id], update_columns: [name]}) { affected_rows returning { id name } } }`),
    ).toEqual({
      data: {
        insert_artists: {
          affected_rows: 2,
          returning: [
            { id: 2, name: 'Bobby' },
            { id: 4, name: 'Dee' },
          ],
        },
      },
    });
    // Matched on a column that is no key, without update_columns: the matched row is left alone;
    // a `where` the existing row fails leaves it alone too.
    expect(
      await gql(`mutation { by_name: insert_artists(objects: [{id: 9, name: "Cid"}], if_matched: {match_columns: [name]}) { affected_rows }
        kept: insert_artists(objects: [{id: 1, name: "Zed"}], if_matched: {match_columns: [id], update_columns: [name], where: {name: {_eq: "nobody"}}}) { affected_rows } }`),
    ).toEqual({ data: { by_name: { affected_rows: 0 }, kept: { affected_rows: 0 } } });
    expect(await gql('{ artists_by_pk(id: 9) { id } }')).toEqual({ data: { artists_by_pk: null } });
    expect(await gql('mutation { update_albums(where: {title: {_eq: "B1"}}, _set: {price: 7.25}) { affected_rows returning { title price } } }')).toEqual({
      data: { update_albums: { affected_rows: 1, returning: [{ title: 'B1', price: 7.25 }] } },
    });
    const c1 = (await gql('{ albums(where: {title: {_eq: "C1"}}) { id } }')).data.albums[0].id as number;
    expect(await gql(`mutation { update_albums_by_pk(pk_columns: {id: ${c1}}, _inc: {price: 1}) { price } }`)).toEqual({
      data: { update_albums_by_pk: { price: 6.5 } },
    });
    expect(await gql('mutation { delete_albums(where: {title: {_eq: "B1"}}) { affected_rows } delete_artists_by_pk(id: 4) { name } }')).toEqual({
      data: { delete_albums: { affected_rows: 1 }, delete_artists_by_pk: { name: 'Dee' } },
    });
    expect(await gql('{ artists(order_by: {id: asc}) { name } }')).toEqual({ data: { artists: [{ name: 'Ann' }, { name: 'Bobby' }, { name: 'Cid' }] } });
  });

  it('inserts, updates and deletes as a role: presets, filters, and checks that roll back', async () => {
    expect(await gql('mutation { insert_albums_one(object: {title: "U1", price: 9}) { title artist_id } }', asUser('1'))).toEqual({
      data: { insert_albums_one: { title: 'U1', artist_id: 1 } },
    });
    const refused = await gql('mutation { insert_albums_one(object: {title: "U2", price: 500}) { title } }', asUser('1'));
    expect(refused.errors[0]).toMatchObject({ message: 'check constraint of an insert permission has failed', extensions: { code: 'permission-error' } });
    expect(await gql('{ albums_aggregate(where: {title: {_eq: "U2"}}) { aggregate { count } } }')).toEqual({
      data: { albums_aggregate: { aggregate: { count: 0 } } },
    });
    // Only the user's own rows (A1, A2, U1) are updated.
    expect(await gql('mutation { update_albums(where: {}, _set: {price: 1}) { affected_rows } }', asUser('1'))).toEqual({
      data: { update_albums: { affected_rows: 3 } },
    });
    const tooHigh = await gql('mutation { update_albums(where: {title: {_eq: "A1"}}, _set: {price: 150}) { affected_rows } }', asUser('1'));
    expect(tooHigh.errors[0]).toMatchObject({ message: 'check constraint of an update permission has failed', extensions: { code: 'permission-error' } });
    expect(await gql('{ albums(where: {title: {_eq: "A1"}}) { price } }')).toEqual({ data: { albums: [{ price: 1 }] } });
    expect(await gql('mutation { delete_albums(where: {title: {_eq: "C1"}}) { affected_rows } }', asUser('1'))).toEqual({
      data: { delete_albums: { affected_rows: 0 } },
    });
    expect(await gql('mutation { delete_albums(where: {title: {_eq: "U1"}}) { affected_rows } }', asUser('1'))).toEqual({
      data: { delete_albums: { affected_rows: 1 } },
    });
  });

  it('mssql_run_sql answers rows as v2 does, read_only undoes its writes, errors are in v2’s classes', async () => {
    expect((await runSql(`SELECT [id], [name] FROM [dbo].[${artistsT}] WHERE [id] < 3 ORDER BY [id]`)).body).toEqual({
      result_type: 'TuplesOk',
      result: [
        ['id', 'name'],
        [1, 'Ann'],
        [2, 'Bobby'],
      ],
    });
    // v2 compat: no row is CommandOk.
    expect((await runSql(`SELECT [id] FROM [dbo].[${artistsT}] WHERE [id] = 99`)).body).toEqual({ result_type: 'CommandOk', result: null });
    const ro = await runSql(`INSERT INTO [dbo].[${artistsT}] ([id], [name]) VALUES (50, N'Ro'); SELECT COUNT(*) AS [n] FROM [dbo].[${artistsT}]`, {
      read_only: true,
    });
    expect(ro.body).toEqual({ result_type: 'TuplesOk', result: [['n'], [4]] });
    expect((await runSql(`SELECT COUNT(*) AS [n] FROM [dbo].[${artistsT}]`)).body.result).toEqual([['n'], [3]]);
    const missing = await runSql('SELECT * FROM [dbo].[engine_no_such_table]');
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: 'not-found', error: expect.stringMatching(/^Syntax error or access violation\. Table or view not found\. /) });
  });

  it('mssql_run_sql DDL: a new table is trackable at once; dropping a tracked one is refused unless cascade', async () => {
    expect(
      (await runSql(`CREATE TABLE [${schema}].[extra] ([id] INT NOT NULL PRIMARY KEY, [note] NVARCHAR(50)); INSERT INTO [${schema}].[extra] VALUES (1, N'x')`))
        .body,
    ).toEqual({
      result_type: 'CommandOk',
      result: null,
    });
    expect((await md('mssql_track_table', { source: 'ms', table: { schema, name: 'extra' } })).body).toEqual(ok);
    expect(await gql(`{ ${schema}_extra { id note } }`)).toEqual({ data: { [`${schema}_extra`]: [{ id: 1, note: 'x' }] } });
    const before = (await md('export_metadata', {})).body;
    const refused = await runSql(`DROP TABLE [${schema}].[extra]`);
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('dependency-error');
    expect(refused.body.error).toContain('extra');
    // Rolled back: the table and the metadata are as they were.
    expect((await runSql(`SELECT COUNT(*) AS [n] FROM [${schema}].[extra]`)).body.result).toEqual([['n'], [1]]);
    expect((await md('export_metadata', {})).body).toEqual(before);
    expect((await runSql(`DROP TABLE [${schema}].[extra]`, { cascade: true })).status).toBe(200);
    const tables = (await md('export_metadata', {})).body.sources.find((s: any) => s.name === 'ms').tables.map((t: any) => t.table);
    expect(tables).not.toContainEqual({ schema, name: 'extra' });
    expect((await md('get_inconsistent_metadata', {})).body).toEqual({ is_consistent: true, inconsistent_objects: [] });
  });

  it('serves subscriptions as multiplexed, polled live queries: each subscriber its own rows, a write outside the engine seen', async () => {
    const clients: Client[] = [];
    const watch = (headers: Record<string, string>, query: string, variables: Record<string, unknown>): { results: any[]; errors: unknown[] } => {
      const c = createClient({ url: wsUrl(engine.url), webSocketImpl: WebSocket, connectionParams: { headers }, retryAttempts: 0 });
      clients.push(c);
      const out = { results: [] as any[], errors: [] as unknown[] };
      c.subscribe({ query, variables }, { next: (r) => out.results.push(r), error: (e) => out.errors.push(e), complete: () => undefined });
      return out;
    };
    try {
      // One cohort, two subscribers with different session variables; the limit is a variable (a shared parameter of the batch).
      const q = 'subscription ($n: Int) { albums(where: {title: {_like: "S%"}}, order_by: {title: asc}, limit: $n) { title } }';
      const one = watch(asUser('1'), q, { n: 5 });
      const three = watch(asUser('3'), q, { n: 1 });
      const last = (o: { results: any[] }): unknown => o.results.at(-1);
      await expect.poll(() => last(one), { timeout: 20_000 }).toEqual({ data: { albums: [] } });
      await expect.poll(() => last(three), { timeout: 20_000 }).toEqual({ data: { albums: [] } });
      await exec(`INSERT INTO [dbo].[${albumsT}] ([title], [artist_id]) VALUES (N'S1', 1), (N'S2', 1), (N'S3', 3), (N'S4', 3)`);
      await expect.poll(() => last(one), { timeout: 20_000 }).toEqual({ data: { albums: [{ title: 'S1' }, { title: 'S2' }] } });
      await expect.poll(() => last(three), { timeout: 20_000 }).toEqual({ data: { albums: [{ title: 'S3' }] } });
      expect([...one.errors, ...three.errors]).toEqual([]);
    } finally {
      await Promise.all(clients.map((c) => c.dispose()));
      await exec(`DELETE FROM [dbo].[${albumsT}] WHERE [title] LIKE N'S%'`);
    }
  });

  it('reload_metadata sees a column added outside the engine', async () => {
    await exec(`ALTER TABLE [${schema}].[labels] ADD [since] INT NULL`);
    await exec(`UPDATE [${schema}].[labels] SET [since] = 1999 WHERE [id] = 1`);
    expect((await md('reload_metadata', { reload_sources: ['ms'] })).body).toMatchObject({ message: 'success', is_consistent: true });
    expect(await gql(`{ ${labels}(order_by: {id: asc}) { since } }`)).toEqual({ data: { [labels]: [{ since: 1999 }, { since: null }] } });
  });

  // Cross-source (`to_source`) relationships with a PostgreSQL source (the engine's own database): each level one statement on its target.
  it('joins across sources both ways: PostgreSQL → MSSQL and MSSQL → PostgreSQL, nested', async () => {
    await db.sql(`CREATE TABLE label_notes (label_id int PRIMARY KEY, note text NOT NULL);
      INSERT INTO label_notes VALUES (1, 'first'), (2, 'second'), (3, 'orphan')`);
    expect((await md('pg_add_source', { name: 'pg', configuration: { connection_info: { database_url: db.url } } })).body).toEqual(ok);
    expect((await md('pg_track_table', { source: 'pg', table: 'label_notes' })).body).toEqual(ok);
    const toMs = { to_source: { source: 'ms', table: { schema, name: 'labels' }, relationship_type: 'object', field_mapping: { label_id: 'id' } } };
    const toPg = {
      to_source: { source: 'pg', table: { schema: 'public', name: 'label_notes' }, relationship_type: 'array', field_mapping: { id: 'label_id' } },
    };
    expect((await md('pg_create_remote_relationship', { source: 'pg', table: 'label_notes', name: 'label', definition: toMs })).body).toEqual(ok);
    expect((await md('mssql_create_remote_relationship', { source: 'ms', table: { schema, name: 'labels' }, name: 'notes', definition: toPg })).body).toEqual(
      ok,
    );
    expect((await md('get_inconsistent_metadata', {})).body).toEqual({ is_consistent: true, inconsistent_objects: [] });
    expect(await gql('{ label_notes(order_by: {label_id: asc}) { note label { id name notes { note } } } }')).toEqual({
      data: {
        label_notes: [
          { note: 'first', label: { id: 1, name: 'L1', notes: [{ note: 'first' }] } },
          { note: 'second', label: { id: 2, name: 'L2', notes: [{ note: 'second' }] } },
          { note: 'orphan', label: null },
        ],
      },
    });
    expect(await gql(`{ ${labels}(order_by: {id: asc}) { id notes(order_by: {note: asc}) { note label { id } } } }`)).toEqual({
      data: {
        [labels]: [
          { id: 1, notes: [{ note: 'first', label: { id: 1 } }] },
          { id: 2, notes: [{ note: 'second', label: { id: 2 } }] },
        ],
      },
    });
    const exported = (await md('export_metadata', {})).body;
    const msLabels = exported.sources.find((x: any) => x.name === 'ms').tables.find((t: any) => t.table.name === 'labels');
    expect(msLabels.remote_relationships).toEqual([{ name: 'notes', definition: toPg }]);
  });
});
