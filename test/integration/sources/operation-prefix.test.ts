/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * The operation prefix picks the backend, and a prefixed operation on a
 * source of another kind is refused with v2's answer (Note [Operation prefix
 * and source kind] in engine/metadata/registry.ts); `pg_add_source` writes a
 * postgres source whose configuration the postgres backend checks. An `mssql`
 * source is made with replace_metadata (no SQL Server here: inconsistent, kept
 * with allow_inconsistent_metadata); `citus_` is a prefix without a backend.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type MetadataFixture } from '../../support/metadata-schema.ts';

let f: MetadataFixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(async () => {
  await f.close();
});

/** v2's answer to an operation of `expected`'s prefix on a source of `kind` (askSourceInfo). */
function mismatch(source: string, kind: string, expected: string, path = '$.args'): unknown {
  return {
    code: 'not-exists',
    path,
    error: `source with name "${source}" has backend type "${kind}" which does not match the expected type ${expected}`,
  };
}

describe('operation prefix and source kind', () => {
  it('refuses mssql_ and bigquery_ operations on a postgres source with v2 answer, before "not supported"', async () => {
    const before = await f.exported();
    const track = await f.md('mssql_track_table', { table: 'authors' });
    expect(track.status).toBe(400);
    expect(track.body).toEqual(mismatch('default', 'postgres', 'mssql'));
    const perm = await f.md('mssql_create_select_permission', {
      source: 'default',
      table: 'authors',
      role: 'reader',
      permission: { columns: '*', filter: {} },
    });
    expect(perm.body).toEqual(mismatch('default', 'postgres', 'mssql'));
    expect((await f.md('bigquery_track_table', { source: 'default', table: { dataset: 'd', name: 'authors' } })).body).toEqual(
      mismatch('default', 'postgres', 'bigquery'),
    );
    expect((await f.md('citus_track_function', { function: 'f' })).body).toEqual(mismatch('default', 'postgres', 'citus'));
    // Inside a bulk the path is the item's.
    const bulk = await f.md('bulk', [{ type: 'mssql_untrack_table', args: { table: 'authors' } }]);
    expect(bulk.body).toEqual(mismatch('default', 'postgres', 'mssql', '$.args[0].args'));
    expect(await f.exported()).toEqual(before);
  });

  it('answers "not supported" for a prefix without a backend when the source is not of another kind', async () => {
    const none = await f.md('citus_track_table', { source: 'elsewhere', table: 'x' });
    expect(none.body).toMatchObject({ code: 'not-supported', error: 'the citus backend is not supported yet' });
    expect((await f.md('citus_add_source', { name: 'cs', configuration: {} })).body).toMatchObject({ code: 'not-supported' });
  });

  it('refuses pg_ operations on a source of another kind, and drops it with any prefix', async () => {
    const doc = await f.exported();
    const ms = { name: 'ms', kind: 'mssql', tables: [], configuration: { connection_info: { connection_string: 'Driver=x' } } };
    const replaced = await f.md('replace_metadata', { allow_inconsistent_metadata: true, metadata: { ...doc, sources: [...doc.sources, ms] } });
    expect(replaced.status).toBe(200);
    expect((await f.md('pg_track_table', { source: 'ms', table: 'authors' })).body).toEqual(mismatch('ms', 'mssql', 'postgres'));
    expect((await f.md('pg_get_event_logs', { source: 'ms', name: 't' })).body).toEqual(mismatch('ms', 'mssql', 'postgres'));
    // The legacy /v1/query names are postgres' (v2 runs them as pg_ operations).
    expect((await f.q1('track_table', { source: 'ms', table: 'authors' })).body).toEqual(mismatch('ms', 'mssql', 'postgres'));
    // An mssql operation on the mssql source: its kind matches, and the mssql backend writes it.
    expect((await f.md('mssql_track_table', { source: 'ms', table: 'authors' })).body).toEqual({ message: 'success' });
    expect((await f.md('mssql_untrack_table', { source: 'ms', table: 'authors' })).body).toEqual({ message: 'success' });
    // A postgres configuration given to the mssql source: refused, not written into it.
    const replace = await f.md('pg_add_source', { name: 'ms', replace_configuration: true, configuration: { connection_info: { database_url: f.db.url } } });
    expect(replace.body).toEqual(mismatch('ms', 'mssql', 'postgres'));
    expect((await f.exported()).sources.find((s: any) => s.name === 'ms').configuration).toEqual(ms.configuration);
    // v2's drop_source is backend-neutral: any prefix drops a source of any kind.
    expect((await f.md('pg_drop_source', { name: 'ms' })).body).toEqual({ message: 'success' });
    expect(await f.exported()).toEqual(doc);
  });
});

describe('pg_add_source', () => {
  it('writes a postgres source, its configuration checked by the postgres backend', async () => {
    const add = await f.md('pg_add_source', { name: 'second', configuration: { connection_info: { database_url: f.db.url } } });
    expect(add.body).toEqual({ message: 'success' });
    const second = (await f.exported()).sources.find((s: any) => s.name === 'second');
    expect(second).toMatchObject({ name: 'second', kind: 'postgres', configuration: { connection_info: { database_url: f.db.url } } });
    // The same answers as before the schema moved to the backend.
    const badUrl = await f.md('pg_add_source', { name: 'third', configuration: { connection_info: { database_url: 42 } } });
    expect(badUrl.body).toEqual({
      code: 'parse-failed',
      path: '$.args.configuration.connection_info.database_url',
      error: 'expected String or Object, encountered Number',
    });
    const typo = await f.md('pg_add_source', {
      name: 'third',
      configuration: { connection_info: { database_url: 'x', pool_settings: { max_conections: 2 } } },
    });
    expect(typo.body).toEqual({
      code: 'parse-failed',
      path: '$.args.configuration.connection_info.pool_settings.max_conections',
      error: 'unexpected key "max_conections"; did you mean "max_connections"?',
    });
    const doc = await f.exported();
    const bad = { ...doc, sources: [...doc.sources, { name: 'third', kind: 'pg', tables: [], configuration: { connection_info: {} } }] };
    expect((await f.md('replace_metadata', { metadata: bad })).body).toEqual({
      code: 'parse-failed',
      path: '$.args.metadata.sources[2].configuration.connection_info',
      error: 'key "database_url" not found',
    });
    expect((await f.md('pg_drop_source', { name: 'second' })).body).toEqual({ message: 'success' });
  });
});
