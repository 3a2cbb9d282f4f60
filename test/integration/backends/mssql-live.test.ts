/**
 * The MSSQL backend against a real SQL Server, when one is given:
 * ENGINE_TEST_MSSQL_URL is a connection string as v2 takes it
 * (`Server=localhost,1433;Uid=sa;Pwd=...;Encrypt=no`). Without it every test
 * is skipped with that reason printed. Each run works in a schema of its own.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type * as ir from '../../../engine/ir/index.ts';
import { buildSession } from '../../../engine/auth/session.ts';
import { TransactionStatementError } from '../../../engine/backends/backend.ts';
import { bindStatement } from '../../../engine/execute/bind-statement.ts';
import { mssqlBackend } from '../../../engine/backends/mssql/index.ts';
import type { MssqlConnection } from '../../../engine/backends/mssql/connection.ts';

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
