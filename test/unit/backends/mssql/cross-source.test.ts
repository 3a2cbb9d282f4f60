/**
 * Cross-source (`to_source`) relationships between a PostgreSQL and an MSSQL
 * source, without a SQL Server (the gated live suite runs them on one:
 * test/integration/backends/mssql-live.test.ts): the catalog built from the
 * golden fixture's PostgreSQL and MSSQL introspections as two sources, a
 * request planned through the real pipeline, and the join statement each
 * direction runs on its target (Note [Remote joins] in
 * engine/execute/remote-join.ts): the MSSQL one read by a real T-SQL parser,
 * the parent keys bound as ONE typed list parameter read by OPENJSON, never
 * as SQL text.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSession } from '../../../../engine/auth/session.ts';
import type { SourceIntrospection } from '../../../../engine/backends/introspection.ts';
import { buildCatalog } from '../../../../engine/catalog/build.ts';
import type { PreparedSources } from '../../../../engine/catalog/prepared.ts';
import type { Catalog, SourceKind } from '../../../../engine/catalog/types.ts';
import { tediousParameter } from '../../../../engine/backends/mssql/connection.ts';
import { canonicalKey, canonicalRowKey } from '../../../../engine/execute/join-keys.ts';
import { bindStatement } from '../../../../engine/execute/bind-statement.ts';
import type { Plan } from '../../../../engine/execute/plan.ts';
import type { StepJoin } from '../../../../engine/execute/remote-join.ts';
import { SchemaCache } from '../../../../engine/graphql/schema/schema-cache.ts';
import { normalizeDocument } from '../../../../engine/model/document.ts';
import { readRecording, unusedConnection, type Recording } from '../../../support/recorded-catalog.ts';
import { planRequest } from '../../../support/request-pipeline.ts';
import { parseTsql, sqlglotPython } from '../../../support/sqlglot.ts';

const fixture = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../../golden/fixture');

function introspection(recording: Recording): SourceIntrospection {
  return { tables: new Map(recording.tables), functions: new Map(recording.functions), fingerprint: 'recorded', ddlStamp: 'recorded' };
}

/** `default` (PostgreSQL) albums → `ms` (MSSQL) artists, and `ms` artists → `default` albums. */
function crossSourceCatalog(toMs: Record<string, string> = { artist_id: 'id' }, toPg: Record<string, string> = { id: 'artist_id' }): Catalog {
  const toSource = (source: string, table: object, type: string, mapping: Record<string, string>) => ({
    to_source: { source, table, relationship_type: type, field_mapping: mapping },
  });
  const doc = normalizeDocument({
    version: 3,
    sources: [
      {
        name: 'default',
        kind: 'postgres',
        configuration: { connection_info: { database_url: 'postgres://unused/db' } },
        tables: [
          {
            table: { schema: 'public', name: 'albums' },
            remote_relationships: [{ name: 'ms_artist', definition: toSource('ms', { schema: 'dbo', name: 'artists' }, 'object', toMs) }],
            select_permissions: [{ role: 'user', permission: { columns: ['id', 'title', 'artist_id'], filter: {} } }],
          },
        ],
      },
      {
        name: 'ms',
        kind: 'mssql',
        configuration: { connection_info: { connection_string: 'Server=127.0.0.1,1;Database=music;Uid=sa;Pwd=x' } },
        tables: [
          {
            table: { schema: 'dbo', name: 'artists' },
            configuration: { custom_name: 'ms_artists' },
            remote_relationships: [{ name: 'pg_albums', definition: toSource('default', { schema: 'public', name: 'albums' }, 'array', toPg) }],
            select_permissions: [{ role: 'user', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Engine-User-Id' } } } }],
          },
        ],
      },
    ],
  } as Record<string, unknown>);
  const prepared = (name: string, kind: SourceKind, file: string) => {
    const recording = readRecording(path.join(fixture, file));
    return {
      ok: true as const,
      name,
      configKey: 'recorded',
      connection: unusedConnection(kind),
      introspection: introspection(recording),
      enumRows: new Map(recording.enumRows),
    };
  };
  const sources: PreparedSources = new Map([
    ['default', prepared('default', 'postgres', 'introspection.json')],
    ['ms', prepared('ms', 'mssql', 'introspection.mssql.json')],
  ]);
  return buildCatalog(doc, sources, { version: 1, resourceVersion: 1 });
}

const catalog = crossSourceCatalog();

/** The one table join of the plan's single step. */
function joinOf(plan: Plan): Extract<StepJoin, { kind: 'table' }> {
  expect(plan.steps).toHaveLength(1);
  const joins = plan.steps[0]?.joins ?? [];
  expect(joins).toHaveLength(1);
  const j = joins[0];
  if (j?.kind !== 'table') throw new Error('no table join');
  return j;
}

describe('cross-source relationships between PostgreSQL and MSSQL', () => {
  it('the catalog holds both relationships (no inconsistency)', () => {
    expect(catalog.inconsistencies).toEqual([]);
  });

  it('PostgreSQL → MSSQL: the parents read on PostgreSQL, ONE T-SQL statement for their keys as a typed list parameter', async () => {
    const plan = planRequest(new SchemaCache(), catalog, { query: '{ albums(order_by: {id: asc}) { id ms_artist { id name } } }', role: 'user' });
    expect(plan.steps[0]).toMatchObject({ kind: 'read', source: 'default' });
    const j = joinOf(plan);
    expect(j.source).toBe('ms');
    expect(j.connection.kind).toBe('mssql');
    const { join } = j.joins[0] ?? { join: undefined };
    expect(join?.keyTypes).toEqual(['int32']);
    const text = j.sql.text;
    const keyVar = join?.keyVariables[0] as string;
    const bound = bindStatement(j.sql, { [keyVar]: ['3', '1', '2'] }, buildSession('user', { 'x-engine-user-id': '1' }));
    // What tedious is given: the permission's session value as an int, the parents' keys as ONE JSON text.
    const sent = bound.values.map((v, i) => tediousParameter(bound.types?.[i] ?? null, v));
    expect(sent.map((p) => [p.type.name, p.value])).toEqual([
      ['Int', '1'],
      ['NVarChar', '["3","1","2"]'],
    ]);
    expect(bound.types).toEqual([
      { dbType: 'int', list: false },
      { dbType: 'int', list: true },
    ]);
    // The parents' keys are the last parameter, read by OPENJSON and compared to the int column.
    expect(text).toContain(`[_0].[id] IN (SELECT [value] FROM OPENJSON(@p2))`);
    expect(text).not.toContain('3');
    // The key column comes back as text, compared to the parents' keys by type (Note [Join keys by type]).
    expect(text).toContain('CONVERT(NVARCHAR(MAX), [_1].[id]) AS [__key0]');
    const py = await sqlglotPython();
    if ('skip' in py) {
      console.log(`[mssql] parser check skipped: ${py.skip}`);
      return;
    }
    expect(await parseTsql(py.python, [text])).toEqual([null]);
  });

  it('MSSQL → PostgreSQL: the parents read on MSSQL (their keys as text), ONE PostgreSQL statement for their keys', async () => {
    const plan = planRequest(new SchemaCache(), catalog, {
      query: '{ ms_artists { id pg_albums(order_by: {id: asc}, limit: 2) { id title } } }',
      role: 'user',
      variables: {},
    });
    const parent = plan.steps[0];
    if (parent?.kind !== 'read') throw new Error('no read step');
    expect(parent.source).toBe('ms');
    // The parent's hidden join key is selected by the T-SQL read.
    expect(parent.sql.text).toContain('__engine_join_id');
    const j = joinOf(plan);
    expect(j.source).toBe('default');
    expect(j.connection.kind).toBe('postgres');
    expect(j.joins[0]?.join.keyTypes).toEqual(['int32']);
    expect(parent.sql.text).toContain('[_1].[id] AS [__engine_join_id]');
    expect(j.sql.text).toContain('"_0"."artist_id" = ANY($1)');
    const py = await sqlglotPython();
    if ('skip' in py) {
      console.log(`[mssql] parser check skipped: ${py.skip}`);
      return;
    }
    expect(await parseTsql(py.python, [parent.sql.text])).toEqual([null]);
  });

  it('a mapping names columns that exist on both sides, checked against each source’s own introspection', () => {
    const reasons = (toMs: Record<string, string>, toPg: Record<string, string>): Array<[string | undefined, string]> =>
      crossSourceCatalog(toMs, toPg).inconsistencies.map((o) => [o.name, o.reason]);
    expect(reasons({ nope: 'id' }, { nope: 'artist_id' })).toEqual([
      ['remote_relationship ms_artist in table albums in source default', 'Inconsistent object: column "nope" does not exist in table "albums"'],
      ['remote_relationship pg_albums in table artists in source ms', 'Inconsistent object: column "nope" does not exist in table "artists"'],
    ]);
    expect(reasons({ artist_id: 'nope' }, { id: 'nope' })).toEqual([
      [
        'remote_relationship ms_artist in table albums in source default',
        'Inconsistent object: column "nope" does not exist in table "artists" of source "ms"',
      ],
      [
        'remote_relationship pg_albums in table artists in source ms',
        'Inconsistent object: column "nope" does not exist in table "albums" of source "default"',
      ],
    ]);
  });

  it('an MSSQL bit key column read back as text (`1`/`0`) matches the PostgreSQL parents’ booleans', () => {
    // The T-SQL key field is CONVERT(NVARCHAR(MAX), [bit]); PostgreSQL's parents carry true/false, or t/f as text.
    expect(canonicalRowKey('1', 'boolean')).toBe(canonicalKey(true, 'boolean'));
    expect(canonicalRowKey('0', 'boolean')).toBe(canonicalKey('f', 'boolean'));
    expect(canonicalRowKey('2', 'boolean')).toBeNull();
  });
});
