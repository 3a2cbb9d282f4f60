/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Cross-source (`to_source`) relationships between a PostgreSQL source and an
 * MSSQL source whose server cannot be reached, through the metadata API:
 * stored and exported both ways, refused when their own side's columns do
 * not exist, the relationship to or from the unreachable source reported with
 * the source's own inconsistency, and dropped. Execution both ways: the
 * plans in test/unit/backends/mssql/cross-source.test.ts, and against a real
 * SQL Server the gated test/integration/backends/mssql-live.test.ts.
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

const toMs = {
  name: 'ms_albums',
  definition: { to_source: { source: 'ms', table: { schema: 'dbo', name: 'albums' }, relationship_type: 'array', field_mapping: { id: 'artist_id' } } },
};
const toPg = {
  name: 'pg_author',
  definition: {
    to_source: { source: 'default', table: { schema: 'public', name: 'authors' }, relationship_type: 'object', field_mapping: { artist_id: 'id' } },
  },
};

/** The inconsistency of a relationship whose other side is on the unreachable source. */
const sourceGone = {
  definition: toMs,
  name: 'remote_relationship ms_albums in table authors in source default',
  reason: 'Inconsistent object: source "ms" does not exist or is inconsistent',
  type: 'remote_relationship',
};
const tableGone = {
  definition: toPg,
  name: 'remote_relationship pg_author in table albums in source ms',
  reason: 'Inconsistent object: table "albums" is not tracked or is inconsistent',
  type: 'remote_relationship',
};
const msDown = (): unknown => ({
  definition: 'ms',
  name: 'source ms',
  type: 'source',
  reason: expect.stringMatching(new RegExp(`^Inconsistent object: could not connect to source "ms": Failed to connect to 127\\.0\\.0\\.1:${closedPort}`)),
});

describe('cross-source relationships between PostgreSQL and an unreachable MSSQL source', () => {
  it('replace_metadata keeps both directions as inconsistent with the source, and export_metadata gives them back exactly', async () => {
    const doc = await f.exported();
    const pg = { ...doc.sources[0], tables: [{ table: { schema: 'public', name: 'authors' }, remote_relationships: [toMs] }] };
    const ms = {
      name: 'ms',
      kind: 'mssql',
      configuration: { connection_info: { connection_string: connectionString() } },
      tables: [{ table: { schema: 'dbo', name: 'albums' }, remote_relationships: [toPg] }],
    };
    const r = await f.md('replace_metadata', { allow_inconsistent_metadata: true, metadata: { ...doc, sources: [pg, ms] } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ is_consistent: false, inconsistent_objects: [msDown(), sourceGone, tableGone] });
    const exported = await f.exported();
    expect(exported.sources.find((s: any) => s.name === 'default').tables).toEqual(pg.tables);
    expect(exported.sources.find((s: any) => s.name === 'ms')).toEqual(ms);
    // The PostgreSQL source is served, without the field of the relationship it cannot join.
    expect((await f.engine.graphql('{ authors(order_by: {id: asc}) { id } }')).body).toEqual({ data: { authors: [{ id: 1 }, { id: 2 }] } });
    expect((await f.engine.graphql('{ authors { id ms_albums { id } } }')).body).toEqual({
      errors: [
        {
          message: "field 'ms_albums' not found in type: 'authors'",
          extensions: { path: '$.selectionSet.authors.selectionSet.ms_albums', code: 'validation-failed' },
        },
      ],
    });
  });

  it('pg_ and mssql_create_remote_relationship refuse a relationship to or from the unreachable source, storing nothing', async () => {
    const before = await f.exported();
    const pgWay = await f.md('pg_create_remote_relationship', { table: 'authors', ...toMs, name: 'again' });
    expect(pgWay.status).toBe(400);
    expect(pgWay.body).toEqual({
      code: 'invalid-configuration',
      path: '$.args',
      error: sourceGone.reason,
      internal: [{ ...sourceGone, definition: { ...toMs, name: 'again' }, name: 'remote_relationship again in table authors in source default' }],
    });
    const msWay = await f.md('mssql_create_remote_relationship', { source: 'ms', table: 'albums', ...toPg, name: 'again' });
    expect(msWay.status).toBe(400);
    expect(msWay.body).toEqual({
      code: 'invalid-configuration',
      path: '$.args',
      error: tableGone.reason,
      internal: [{ ...tableGone, definition: { ...toPg, name: 'again' }, name: 'remote_relationship again in table albums in source ms' }],
    });
    expect(await f.exported()).toEqual(before);
  });

  it('pg_ and mssql_delete_remote_relationship drop them; only the source stays inconsistent', async () => {
    expect((await f.md('pg_delete_remote_relationship', { table: 'authors', name: 'ms_albums' })).body).toEqual({ message: 'success' });
    expect((await f.md('mssql_delete_remote_relationship', { source: 'ms', table: 'albums', name: 'pg_author' })).body).toEqual({ message: 'success' });
    expect((await f.md('get_inconsistent_metadata')).body).toEqual({ is_consistent: false, inconsistent_objects: [msDown()] });
    const sources = (await f.exported()).sources;
    expect(sources.map((s: any) => s.tables)).toEqual([[{ table: { schema: 'public', name: 'authors' } }], [{ table: { schema: 'dbo', name: 'albums' } }]]);
  });
});
