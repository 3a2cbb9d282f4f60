/**
 * The source configuration editor's reading and writing (pages/sources/source-config.ts): the
 * fields a kind has, typed whole numbers, and what the form does not show kept as it came.
 */
import { describe, expect, it } from 'vitest';
import { readForm, writeForm } from '../../../engine/console/src/pages/sources/source-config.ts';
import { configurationFields } from '../../../engine/console/src/source-kinds.ts';

const pg = {
  connection_info: {
    database_url: { from_env: 'PG_URL' },
    pool_settings: { max_connections: 20, idle_timeout: 180 },
    isolation_level: 'serializable',
    ssl_configuration: { sslmode: 'require' },
  },
  read_replicas: [{ database_url: 'postgres://r1/db', pool_settings: { max_connections: 4, retries: 1 } }],
  extensions_schema: 'extensions',
};

describe('source configuration form', () => {
  it('has the settings of each kind', () => {
    expect(configurationFields('postgres').pool.map((s) => s.key)).toEqual([
      'max_connections',
      'total_max_connections',
      'idle_timeout',
      'retries',
      'pool_timeout',
      'connection_lifetime',
    ]);
    expect(configurationFields('mssql').isolationLevels).toContain('snapshot');
    expect(configurationFields('mssql').preparedStatements).toBe(false);
    expect(configurationFields('bigquery').connectionKey).toBeNull();
    expect(configurationFields('bigquery').topLevel.map((s) => s.key)).toEqual(['global_select_limit', 'retry_base_delay', 'retry_limit']);
  });

  it('writes back unchanged what it read', () => {
    const customization = {
      root_fields: { namespace: 'ns', prefix: 'p_' },
      type_names: { prefix: 'T_', mapping: { a: 'b' } },
      naming_convention: 'hasura-default',
    };
    const form = readForm('postgres', pg, customization);
    expect(form.numbers['max_connections']).toBe('20');
    expect(form.isolationLevel).toBe('serializable');
    expect(form.replicas).toHaveLength(1);
    expect(writeForm('postgres', form, pg, customization)).toEqual({ configuration: pg, customization });
  });

  it('sets and clears settings, keeping the rest of each replica', () => {
    const form = readForm('postgres', pg, undefined);
    const out = writeForm(
      'postgres',
      {
        ...form,
        numbers: { ...form.numbers, max_connections: ' 7 ', idle_timeout: '' },
        isolationLevel: '',
        preparedStatements: 'on',
        replicas: [
          { ...form.replicas[0]!, maxConnections: '' },
          { connection: 'REPLICA_2', fromEnv: true, maxConnections: '2', original: null },
        ],
        namespace: 'reports',
      },
      pg,
      undefined,
    );
    expect(out.configuration).toEqual({
      connection_info: {
        database_url: { from_env: 'PG_URL' },
        pool_settings: { max_connections: 7 },
        ssl_configuration: { sslmode: 'require' },
        use_prepared_statements: true,
      },
      read_replicas: [
        { database_url: 'postgres://r1/db', pool_settings: { retries: 1 } },
        { database_url: { from_env: 'REPLICA_2' }, pool_settings: { max_connections: 2 } },
      ],
      extensions_schema: 'extensions',
    });
    expect(out.customization).toEqual({ root_fields: { namespace: 'reports' } });
  });

  it('refuses text that is no whole number with the field, and leaves the range to the engine', () => {
    const form = readForm('postgres', pg, undefined);
    expect(() => writeForm('postgres', { ...form, numbers: { ...form.numbers, retries: '1e2' } }, pg, undefined)).toThrow(
      'Connection retries must be a whole number, not "1e2"',
    );
    const zero = writeForm('postgres', { ...form, numbers: { ...form.numbers, max_connections: '0' } }, pg, undefined);
    expect((zero.configuration['connection_info'] as { pool_settings: unknown }).pool_settings).toEqual({ max_connections: 0, idle_timeout: 180 });
  });

  it('reads and writes the connection, a value or an environment variable, keeping connection parameters', () => {
    const form = readForm('postgres', pg, undefined);
    expect([form.connectionMode, form.connection]).toEqual(['env', 'PG_URL']);
    const info = (out: { configuration: Record<string, unknown> }) => out.configuration['connection_info'] as Record<string, unknown>;
    const byValue = writeForm('postgres', { ...form, connectionMode: 'value', connection: ' postgres://u@h/db ' }, pg, undefined);
    expect(info(byValue)['database_url']).toBe('postgres://u@h/db');
    expect(() => writeForm('postgres', { ...form, connection: ' ' }, pg, undefined)).toThrow('The connection needs an environment variable');
    const params = { connection_info: { database_url: { connection_parameters: { host: 'h', port: 5432, username: 'u', database: 'd' } } } };
    const kept = readForm('postgres', params, undefined);
    expect(kept.connectionMode).toBe('parameters');
    expect(writeForm('postgres', kept, params, undefined).configuration).toEqual(params);
    // mssql's connection string, from the environment.
    const ms = { connection_info: { connection_string: 'Server=a' } };
    const msForm = readForm('mssql', ms, undefined);
    expect(info(writeForm('mssql', { ...msForm, connectionMode: 'env', connection: 'MS_CONN' }, ms, undefined))).toEqual({
      connection_string: { from_env: 'MS_CONN' },
    });
  });

  it("writes v2's ssl_configuration: the mode and each file's environment variable; none without a mode", () => {
    const form = readForm('postgres', pg, undefined);
    expect(form.ssl).toEqual({ mode: 'require', rootCert: '', cert: '', key: '', password: '' });
    const ssl = (f: typeof form) => (writeForm('postgres', f, pg, undefined).configuration['connection_info'] as Record<string, unknown>)['ssl_configuration'];
    expect(ssl({ ...form, ssl: { mode: 'verify-full', rootCert: ' CA ', cert: 'CERT', key: 'KEY', password: '' } })).toEqual({
      sslmode: 'verify-full',
      sslrootcert: { from_env: 'CA' },
      sslcert: { from_env: 'CERT' },
      sslkey: { from_env: 'KEY' },
    });
    expect(ssl({ ...form, ssl: { ...form.ssl, mode: '' } })).toBeUndefined();
    expect(() => ssl({ ...form, ssl: { ...form.ssl, mode: '', key: 'KEY' } })).toThrow('Choose an SSL mode for the SSL certificate settings');
    // A kind without SSL settings keeps what it had.
    const ms = { connection_info: { connection_string: 'Server=a' } };
    expect(writeForm('mssql', readForm('mssql', ms, undefined), ms, undefined).configuration).toEqual(ms);
  });

  it('writes BigQuery limits at the top level and no connection_info', () => {
    const bq = { service_account: { from_env: 'SA' }, project_id: 'p', datasets: ['d'], retry_limit: 5 };
    const form = readForm('bigquery', bq, undefined);
    expect(form.numbers).toEqual({ global_select_limit: '', retry_base_delay: '', retry_limit: '5' });
    const out = writeForm('bigquery', { ...form, numbers: { ...form.numbers, global_select_limit: '500' } }, bq, undefined);
    expect(out.configuration).toEqual({ ...bq, global_select_limit: 500 });
  });
});
