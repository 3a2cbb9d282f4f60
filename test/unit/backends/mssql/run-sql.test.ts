/**
 * `mssql_run_sql` without a SQL Server (the live suite,
 * test/integration/backends/mssql-live.test.ts, runs it against one): the
 * answer's shape from tedious' column metadata and rows (Note [MSSQL run_sql
 * result]), v2's error classes, and the backend's transaction against a real
 * socket that is not SQL Server: refused, nothing run, no connection kept.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { mssqlConfiguration, MssqlSettings } from '../../../../engine/backends/mssql/configuration.ts';
import { MssqlConnection } from '../../../../engine/backends/mssql/connection.ts';
import { mssqlBackend } from '../../../../engine/backends/mssql/index.ts';
import { RunSqlCollector, runSqlCell, toRunSqlError } from '../../../../engine/backends/mssql/run-sql.ts';

const col = (colName: string, type: string): { colName: string; type: { name: string } } => ({ colName, type: { name: type } });

describe('the answer', () => {
  it('is TuplesOk with the header of the last result set and its rows as JSON values', () => {
    const c = new RunSqlCollector();
    c.columns([col('ignored', 'Int')]);
    c.row([{ value: 7 }]);
    c.columns([col('id', 'Int'), col('name', 'NVarChar'), col('big', 'BigInt'), col('ok', 'Bit'), col('blob', 'VarBinary'), col('none', 'NVarChar')]);
    c.row([{ value: 1 }, { value: 'a' }, { value: '9007199254740993' }, { value: true }, { value: Buffer.from([1, 2, 3]) }, { value: null }]);
    expect(c.result()).toEqual({
      result_type: 'TuplesOk',
      result: [
        ['id', 'name', 'big', 'ok', 'blob', 'none'],
        [1, 'a', '9007199254740993', true, 'AQID', null],
      ],
    });
  });

  it('is CommandOk with a null result when the last result set has no row (v2 compat), or there is none', () => {
    const c = new RunSqlCollector();
    expect(c.result()).toEqual({ result_type: 'CommandOk', result: null });
    c.columns([col('id', 'Int')]);
    expect(c.result()).toEqual({ result_type: 'CommandOk', result: null });
  });

  it('writes dates and times as the ISO text of their SQL type', () => {
    const d = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 123));
    expect(runSqlCell(d, 'Date')).toBe('2024-01-02');
    expect(runSqlCell(d, 'Time')).toBe('03:04:05.123');
    expect(runSqlCell(d, 'DateTime2')).toBe('2024-01-02T03:04:05.123');
    expect(runSqlCell(d, 'DateTimeOffset')).toBe('2024-01-02T03:04:05.123Z');
  });
});

describe('errors', () => {
  it('are v2’s classes with the server’s message, the SQL in internal', () => {
    const sql = 'SELECT * FROM nowhere';
    const e = toRunSqlError(Object.assign(new Error("Invalid object name 'nowhere'."), { number: 208 }), sql);
    expect(e).toMatchObject({
      code: 'not-found',
      message: "Syntax error or access violation. Table or view not found. Invalid object name 'nowhere'.",
      status: 400,
      internal: { query: sql },
    });
    expect(toRunSqlError(Object.assign(new Error('Violation of PRIMARY KEY'), { number: 2627 }), sql)).toMatchObject({
      code: 'constraint-violation',
      message: 'Integrity constraint violation. Violation of PRIMARY KEY',
    });
    expect(toRunSqlError(Object.assign(new Error("Incorrect syntax near 'x'."), { number: 102 }), sql)).toMatchObject({
      code: 'bad-request',
      message: "Syntax error or access violation. Incorrect syntax near 'x'.",
    });
  });

  it('are unexpected "database query error" outside those classes', () => {
    expect(toRunSqlError(Object.assign(new Error('Deadlock'), { number: 1205 }), 'UPDATE t SET x = 1')).toMatchObject({
      code: 'unexpected',
      message: 'database query error',
      internal: { query: 'UPDATE t SET x = 1', exception: { type: 'unsuccessful_return_code', message: 'Deadlock' } },
    });
  });
});

describe('the transaction against a socket that is not SQL Server', () => {
  it('is refused with the connection error, runs nothing and keeps no connection', async () => {
    const server = createServer((s) => s.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const settings = mssqlConfiguration.resolve(
      { connection_info: { connection_string: `Server=127.0.0.1,${port};Uid=sa;Pwd=x;Encrypt=no;Connection Timeout=5` } },
      { env: () => undefined, statementTimeoutMs: 60_000 },
    );
    if (!(settings instanceof MssqlSettings)) throw new Error('not resolved');
    const conn = new MssqlConnection(settings);
    try {
      let ran = false;
      const alone = await mssqlBackend.runSql!(conn, 'SELECT 1', false, async () => {
        ran = true;
        return await Promise.resolve(null);
      }).then(
        () => null,
        (x: unknown) => x,
      );
      expect(alone).toBeInstanceOf(Error);
      expect(ran).toBe(false);
      const held = await mssqlBackend.openSqlTransaction!(conn).then(
        () => null,
        (x: unknown) => x,
      );
      expect(held).toBeInstanceOf(Error);
      expect(conn.poolStats()).toMatchObject({ total: 0, waiting: 0 });
    } finally {
      await conn.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
