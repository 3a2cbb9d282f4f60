/**
 * A source's configuration and table names belong to its backend
 * (Backend.configuration, Backend.naming): the postgres backend's schema
 * answers bad configurations as the document schema did before it moved
 * (same code, message and path), resolves `{from_env}` through the
 * environment it is given, and names tables in `public`.
 */
import { describe, expect, it } from 'vitest';
import { backendFor, configurationSchemas } from '../../../engine/backends/registry.ts';
import { schemaNaming } from '../../../engine/backends/naming.ts';
import { engineDocumentSchemas } from '../../../engine/metadata/document-schemas.ts';
import { addSourceArgs } from '../../../engine/model/schemas/args.ts';
import { sourceEntrySchema } from '../../../engine/model/schemas/document.ts';
import { DEFAULT_SCHEMA, SCHEMA_KEY } from '../../../engine/model/document.ts';
import { assertValid, type JsonSchema } from '../../../engine/model/schemas/validate.ts';

const pg = backendFor('postgres');

function answer(schema: JsonSchema, value: unknown, path: string): unknown {
  try {
    assertValid(schema, value, path);
    return 'valid';
  } catch (e) {
    const err = e as { code: string; message: string; path: string };
    return { code: err.code, message: err.message, path: err.path };
  }
}

/** Bad configurations and the answers the engine gave before the schema moved to the backend (under `$.args.configuration`). */
const BAD: ReadonlyArray<readonly [unknown, string, string]> = [
  [{}, 'key "connection_info" not found', ''],
  [{ connection_info: {} }, 'key "database_url" not found', '.connection_info'],
  [{ connection_info: { database_url: 42 } }, 'expected String or Object, encountered Number', '.connection_info.database_url'],
  [
    { connection_info: { database_url: { from_envs: 'X' } } },
    'unexpected key "from_envs"; did you mean "from_env"?',
    '.connection_info.database_url.from_envs',
  ],
  [{ connection_info: { database_url: 'x', pool_settings: { max_connections: 0 } } }, 'must be >= 1', '.connection_info.pool_settings.max_connections'],
  [
    { connection_info: { database_url: 'x', isolation_level: 'nope' } },
    'expected one of "read-committed", "repeatable-read", "serializable", encountered "nope"',
    '.connection_info.isolation_level',
  ],
  [{ connection_info: { database_url: 'x' }, extra: 1 }, 'unexpected key "extra"', '.extra'],
  ['str', 'expected Object, encountered String', ''],
];

describe('postgres configuration', () => {
  it('answers bad configurations of pg_add_source and of the document as before', () => {
    const args = addSourceArgs(pg.configuration.schema);
    for (const [configuration, message, at] of BAD) {
      expect(answer(args, { name: 's', configuration }, '$.args')).toEqual({ code: 'parse-failed', message, path: `$.args.configuration${at}` });
      // A source without kind, `pg` or `postgres` is checked with the postgres backend's schema.
      for (const kind of [{}, { kind: 'pg' }, { kind: 'postgres' }]) {
        const doc = { version: 3, sources: [{ name: 'default', ...kind, configuration }] };
        const expected = { code: 'parse-failed', message, path: `$.args.sources[0].configuration${at}` };
        expect(answer(engineDocumentSchemas.document, doc, '$.args')).toEqual(expected);
        expect(answer(engineDocumentSchemas.stored, doc, '$.args')).toEqual(expected);
      }
    }
    expect(
      answer(args, { name: 's', configuration: { connection_info: { database_url: { from_env: 'DB' }, pool_settings: { idle_timeout: 5 } } } }, '$.args'),
    ).toBe('valid');
  });

  it("checks an mssql source's configuration by the mssql backend's schema, and leaves any kind's to be any object for the controller", () => {
    expect(configurationSchemas().has('mssql')).toBe(true);
    const ms = { name: 'ms', kind: 'mssql', configuration: { connection_info: { connection_string: 'Driver=x' } } };
    expect(answer(engineDocumentSchemas.document, { version: 3, sources: [ms] }, '$')).toBe('valid');
    expect(answer(engineDocumentSchemas.document, { version: 3, sources: [{ ...ms, configuration: { connection_info: {} } }] }, '$')).toMatchObject({
      code: 'parse-failed',
      path: '$.sources[0].configuration.connection_info',
    });
    expect(answer(sourceEntrySchema, { name: 'default', configuration: { connection_info: {} } }, '$')).toBe('valid');
    expect(answer(sourceEntrySchema, { name: 'default', configuration: 'str' }, '$')).toEqual({
      code: 'parse-failed',
      message: 'expected Object, encountered String',
      path: '$.configuration',
    });
  });

  it('resolves database_url through the environment it is given; one key per URL and pool settings', () => {
    const env = (name: string): string | undefined => (name === 'DB' ? 'postgres://h/db' : undefined);
    const opts = { env, statementTimeoutMs: 0 };
    const inline = pg.configuration.resolve({ connection_info: { database_url: 'postgres://h/db' } }, opts);
    const fromEnv = pg.configuration.resolve({ connection_info: { database_url: { from_env: 'DB' } } }, opts);
    expect(inline).toMatchObject({ kind: 'postgres' });
    expect(fromEnv.key).toBe(inline.key);
    const pooled = pg.configuration.resolve({ connection_info: { database_url: 'postgres://h/db', pool_settings: { max_connections: 2 } } }, opts);
    expect(pooled.key).not.toBe(inline.key);
    const unset = pg.configuration.resolve({ connection_info: { database_url: { from_env: 'NOPE' } } }, opts);
    expect(unset).toMatchObject({ reason: 'environment variable "NOPE" is not set' });
    expect(pg.configuration.isDatabase({ connection_info: { database_url: { from_env: 'DB' } } }, 'postgres://h/db', env)).toBe(true);
    expect(pg.configuration.isDatabase({ connection_info: { database_url: 'postgres://h/other' } }, 'postgres://h/db', env)).toBe(false);
  });

  it('refuses to open a pool for a configuration another backend resolved', () => {
    expect(() => pg.connect({ kind: 'mssql', key: 'k' })).toThrow('a mssql configuration was given to the postgres backend');
  });
});

describe('table naming', () => {
  it('names postgres tables in public: parsed, printed and turned into GraphQL names as v2 does', () => {
    const n = pg.naming;
    expect(n.defaultSchema).toBe('public');
    expect(n.parse('author')).toEqual({ schema: 'public', name: 'author' });
    expect(n.parse({ name: 'author' })).toEqual({ schema: 'public', name: 'author' });
    expect(n.parse({ schema: 'shop', name: 'orders' })).toEqual({ schema: 'shop', name: 'orders' });
    expect(n.format({ schema: 'public', name: 'author' })).toBe('author');
    expect(n.format({ schema: 'shop', name: 'orders' })).toBe('shop.orders');
    expect(n.graphqlName({ schema: 'public', name: 'author' })).toBe('author');
    expect(n.graphqlName({ schema: 'shop', name: 'orders' })).toBe('shop_orders');
  });

  it('agrees with the per-kind default schema (what the console, the controller and the document read)', () => {
    for (const kind of configurationSchemas().keys()) expect(backendFor(kind).naming.defaultSchema).toBe(DEFAULT_SCHEMA[kind]);
  });

  it('prints names as JSON with the per-kind key of the wire document (BigQuery {dataset, name})', () => {
    const t = { schema: 'shop', name: 'authors' };
    for (const kind of configurationSchemas().keys()) expect(backendFor(kind).naming.toWire(t)).toEqual({ [SCHEMA_KEY[kind]]: 'shop', name: 'authors' });
    expect(backendFor('bigquery').naming.toWire(t)).toEqual({ dataset: 'shop', name: 'authors' });
  });

  it('takes the default schema of the database: dbo for a database whose default it is', () => {
    const dbo = schemaNaming('dbo');
    expect(dbo.parse('author')).toEqual({ schema: 'dbo', name: 'author' });
    expect(dbo.format({ schema: 'public', name: 'author' })).toBe('public.author');
    expect(dbo.graphqlName({ schema: 'dbo', name: 'author' })).toBe('author');
    // A dataset is the schema of a name that gives one.
    expect(dbo.parse({ dataset: 'sales', name: 'orders' })).toEqual({ schema: 'sales', name: 'orders' });
  });
});
