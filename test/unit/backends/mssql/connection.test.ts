/**
 * The MSSQL connection layer without a SQL Server (none can run here; the
 * live suite is test/integration/backends/mssql-live.test.ts, run when
 * ENGINE_TEST_MSSQL_URL is set): connection strings as v2 takes them, the
 * configuration's resolution, each parameter's tedious type (checked by
 * tedious' own validation), the concatenation of FOR JSON rows, a real
 * tedious connection refused by a real socket, and the catalog query read by
 * the T-SQL parser.
 */
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { mssqlConfiguration, MssqlSettings, parseConnectionString } from '../../../../engine/backends/mssql/configuration.ts';
import { JsonTextCollector, MssqlConnection, tediousParameter } from '../../../../engine/backends/mssql/connection.ts';
import { classifyMssqlError } from '../../../../engine/backends/mssql/errors.ts';
import { INTROSPECTION_SQL } from '../../../../engine/backends/mssql/introspect.ts';
import { parseTsql, sqlglotPython } from '../../../support/sqlglot.ts';

const resolveOptions = (env: Record<string, string>) => ({ env: (n: string) => env[n], statementTimeoutMs: 60_000 });

describe('connection strings', () => {
  it('reads v2’s ODBC form', () => {
    expect(
      parseConnectionString(
        'Driver={ODBC Driver 18 for SQL Server};Server=tcp:db.example,1433;Database=app;Uid=sa;Pwd={p;a}}ss};Encrypt=yes;TrustServerCertificate=yes;',
      ),
    ).toEqual({ server: 'db.example', port: 1433, database: 'app', user: 'sa', password: 'p;a}ss', encrypt: true, trustServerCertificate: true });
  });

  it('reads the ADO.NET spellings, named instances and timeouts', () => {
    expect(parseConnectionString('Data Source=host\\SQLEXPRESS; Initial Catalog=shop; User ID=u; Password=p; Encrypt=false; Connection Timeout=5')).toEqual({
      server: 'host',
      instanceName: 'SQLEXPRESS',
      database: 'shop',
      user: 'u',
      password: 'p',
      encrypt: false,
      trustServerCertificate: false,
      connectTimeoutMs: 5000,
    });
  });

  it('refuses what it cannot read, saying why', () => {
    expect(() => parseConnectionString('Database=x')).toThrow('no Server');
    expect(() => parseConnectionString('Server=h,99999')).toThrow('is not a port');
    expect(() => parseConnectionString('Server=h;Pwd={open')).toThrow('no closing "}"');
    expect(() => parseConnectionString('Server=h;Encrypt=maybe')).toThrow('is not yes or no');
  });

  it('resolves from_env, and gives a reason when it cannot', () => {
    const conf = {
      connection_info: { connection_string: { from_env: 'MSSQL_URL' }, pool_settings: { max_connections: 7, idle_timeout: 2 }, isolation_level: 'snapshot' },
    };
    const ok = mssqlConfiguration.resolve(conf, resolveOptions({ MSSQL_URL: 'Server=h;Uid=u;Pwd=p' }));
    expect(ok).toBeInstanceOf(MssqlSettings);
    expect(ok).toMatchObject({ maxConnections: 7, idleTimeoutMs: 2000, isolationLevel: 'snapshot', target: { server: 'h', user: 'u' } });
    expect(mssqlConfiguration.resolve(conf, resolveOptions({}))).toMatchObject({ reason: 'environment variable "MSSQL_URL" is not set' });
    expect(mssqlConfiguration.resolve({ connection_info: { connection_string: 'Uid=u' } }, resolveOptions({}))).toMatchObject({
      reason: 'connection string: no Server',
    });
  });
});

describe('parameters', () => {
  /** tedious' own check of a value for its type (what it does before sending). */
  const valid = (p: { type: unknown; value: unknown }): unknown => (p.type as { validate: (v: unknown, c?: unknown) => unknown }).validate(p.value, undefined);

  it('types nulls by the column type, so SQL Server can compare them', () => {
    expect(tediousParameter({ dbType: 'int', list: false }, null).type.name).toBe('Int');
    expect(tediousParameter({ dbType: 'bit', list: false }, null).type.name).toBe('Bit');
    expect(tediousParameter({ dbType: 'varchar', list: false }, null).type.name).toBe('VarChar');
  });

  it('sends a list as JSON text (read by OPENJSON)', () => {
    const p = tediousParameter({ dbType: 'int', list: true }, [1, 2, 3]);
    expect(p.type.name).toBe('NVarChar');
    expect(p.value).toBe('[1,2,3]');
  });

  it('sends values tedious accepts: session text for an int, a big bigint, base64 binary, decimals as text', () => {
    expect(valid(tediousParameter({ dbType: 'int', list: false }, '42'))).toBe(42);
    expect(valid(tediousParameter({ dbType: 'bigint', list: false }, '9223372036854775807'))).toBe(9223372036854775807n);
    expect(Buffer.from(valid(tediousParameter({ dbType: 'varbinary', list: false }, 'AQID')) as Buffer)).toEqual(Buffer.from([1, 2, 3]));
    const dec = tediousParameter({ dbType: 'decimal', list: false }, '12345678901234567890.123456789');
    expect(dec.type.name).toBe('NVarChar');
    expect(dec.value).toBe('12345678901234567890.123456789');
    expect(tediousParameter(null, { a: 1 }).value).toBe('{"a":1}');
  });
});

describe('FOR JSON rows', () => {
  it('concatenates the rows SQL Server splits a FOR JSON answer into, of the last result set', () => {
    const doc = JSON.stringify({ rows: Array.from({ length: 300 }, (_, i) => ({ id: i, name: `name "${i}" ${'x'.repeat(i % 17)}` })) });
    expect(doc.length).toBeGreaterThan(3 * 2033);
    const c = new JsonTextCollector();
    c.columns();
    c.row('stale');
    c.columns();
    for (let i = 0; i < doc.length; i += 2033) c.row(doc.slice(i, i + 2033));
    expect(JSON.parse(c.text() ?? '')).toEqual(JSON.parse(doc));
  });

  it('answers null for no row or a NULL', () => {
    const c = new JsonTextCollector();
    c.columns();
    expect(c.text()).toBeNull();
    c.row(null);
    expect(c.text()).toBeNull();
  });
});

describe('tedious against a socket that is not SQL Server', () => {
  it('fails the connection with an error users see as a database error, without crashing', async () => {
    // A real TCP server that closes every connection: tedious' login fails.
    const server = createServer((s) => s.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const settings = mssqlConfiguration.resolve(
      { connection_info: { connection_string: `Server=127.0.0.1,${port};Uid=sa;Pwd=x;Encrypt=no;Connection Timeout=5` } },
      resolveOptions({}),
    );
    if (!(settings instanceof MssqlSettings)) throw new Error('not resolved');
    const conn = new MssqlConnection(settings);
    try {
      const stmt = { text: 'SELECT 1', values: [] };
      const e = await conn.queryJsonText(stmt).then(
        () => null,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(Error);
      expect(classifyMssqlError(e, stmt).code).toBe('unexpected');
    } finally {
      await conn.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

describe('catalog query', () => {
  it('is T-SQL the parser reads', async () => {
    const py = await sqlglotPython();
    if ('skip' in py) {
      console.log(`[mssql] parser check skipped: ${py.skip}`);
      return;
    }
    expect(await parseTsql(py.python, [INTROSPECTION_SQL])).toEqual([null]);
  }, 600_000);
});
