/**
 * A source's backend names its tables (Note [Source naming] in
 * engine/catalog/source-naming.ts): a source whose backend's default schema
 * is `dbo` reads bare names in `dbo` and prints `dbo` tables bare, in the
 * catalog (GraphQL names, relationship targets, inconsistency names and
 * reasons) and in metadata operations (through the registry's source lookup).
 */
import { describe, expect, it } from 'vitest';
import type { Backend, SourceConnection } from '../../../engine/backends/backend.ts';
import type { IntrospectedTable, SourceIntrospection } from '../../../engine/backends/introspection.ts';
import { schemaNaming } from '../../../engine/backends/naming.ts';
import { backendFor } from '../../../engine/backends/registry.ts';
import { buildCatalog } from '../../../engine/catalog/build.ts';
import type { PreparedSources } from '../../../engine/catalog/prepared.ts';
import { isEngineError } from '../../../engine/errors/engine-error.ts';
import { emptyTable, EMPTY_DOCUMENT, type MetadataDocument } from '../../../engine/model/document.ts';
import type { Edit, MetadataCall, RunContext } from '../../../engine/metadata/operation.ts';
import { resolveOperation } from '../../../engine/metadata/registry.ts';

/** The postgres backend, but naming tables as MSSQL does (bare names are in `dbo`). */
const dboBackend: Backend = { ...backendFor('postgres'), naming: schemaNaming('dbo') };

const connection: SourceConnection = { kind: 'postgres', queryJsonText: async () => null, transactionJsonText: async () => [], close: async () => {} };

function table(schema: string, name: string): IntrospectedTable {
  return {
    name: { schema, name },
    oid: 1,
    kind: 'table',
    comment: null,
    columns: ['id', 'author_id'].map((c, i) => ({
      name: c,
      position: i + 1,
      dbType: 'int4',
      elementType: null,
      typeCategory: 'base',
      enumLabels: null,
      nullable: c !== 'id',
      hasDefault: false,
      isGenerated: false,
      comment: null,
    })),
    primaryKey: { name: `${name}_pkey`, columns: ['id'] },
    uniqueConstraints: [],
    foreignKeys: [],
    mutability: { insertable: true, updatable: true, deletable: true },
  };
}

function fixture(): { doc: MetadataDocument; prepared: PreparedSources } {
  const tables = [table('dbo', 'authors'), table('dbo', 'books'), table('sales', 'orders')];
  const introspection: SourceIntrospection = { tables: new Map(tables.map((t) => [`${t.name.schema}.${t.name.name}`, t])), fingerprint: 'x', ddlStamp: 'x' };
  const doc: MetadataDocument = {
    ...EMPTY_DOCUMENT,
    sources: [
      {
        name: 'default',
        kind: 'postgres',
        tables: [
          {
            ...emptyTable({ schema: 'dbo', name: 'authors' }),
            // A bare remote table: `dbo.books` for this source.
            array_relationships: [{ name: 'books', using: { manual_configuration: { remote_table: 'books', column_mapping: { id: 'author_id' } } } }],
          },
          emptyTable({ schema: 'dbo', name: 'books' }),
          emptyTable({ schema: 'sales', name: 'orders' }),
          emptyTable({ schema: 'dbo', name: 'missing' }),
        ],
        functions: [],
        configuration: { connection_info: { database_url: 'x' } },
      },
    ],
  };
  const prepared: PreparedSources = new Map([
    ['default', { ok: true, name: 'default', configKey: 'k', connection, introspection, enumRows: new Map(), backend: dboBackend }],
  ]);
  return { doc, prepared };
}

describe("a source's backend names its tables", () => {
  it('in the catalog: GraphQL names, relationship targets, inconsistency names and reasons', () => {
    const { doc, prepared } = fixture();
    const c = buildCatalog(doc, prepared, { version: 3, resourceVersion: 1 });
    const src = c.sources.get('default');
    expect(src?.backend).toBe(dboBackend);
    expect(src?.tables.get('dbo.authors')?.gqlName).toBe('authors');
    expect(src?.tables.get('sales.orders')?.gqlName).toBe('sales_orders');
    expect(src?.tables.get('dbo.authors')?.relationships.map((r) => r.target)).toEqual([{ schema: 'dbo', name: 'books' }]);
    expect(c.inconsistencies.map((o) => [o.name, o.reason])).toEqual([
      ['table missing in source default', 'Inconsistent object: no such table/view exists in source: "missing"'],
    ]);
  });

  it('in metadata operations: a bare name is in dbo, and dbo tables print bare', async () => {
    const { doc, prepared } = fixture();
    const state = { doc, prepared, catalog: buildCatalog(doc, prepared, { version: 3, resourceVersion: 1 }), resourceVersion: 1, remotes: new Map() };
    const edits: Edit[] = [];
    const ctx = {
      api: 'metadata',
      state,
      commitEdit: async (e: Edit) => {
        edits.push(e);
        return state;
      },
    } as unknown as RunContext;
    const call = (type: string, args: unknown): MetadataCall => ({ type, args, version: undefined, path: '$', legacy: false });

    await resolveOperation('metadata', call('pg_untrack_table', { table: 'missing' })).run(ctx, call('pg_untrack_table', { table: 'missing' }));
    expect(edits[0]?.doc.sources[0]?.tables.map((t) => `${t.table.schema}.${t.table.name}`)).toEqual(['dbo.authors', 'dbo.books', 'sales.orders']);

    const again = call('pg_track_table', { table: 'authors' });
    const e = await resolveOperation('metadata', again)
      .run(ctx, again)
      .catch((x: unknown) => x);
    expect(isEngineError(e) && e.message).toBe('view/table already tracked: "authors"');

    const perm = call('pg_create_select_permission', { table: { schema: 'sales', name: 'orders' }, role: 'user', permission: { columns: ['id'], filter: {} } });
    await resolveOperation('metadata', perm).run(ctx, perm);
    expect(edits[1]?.touched).toEqual([
      { kind: 'permission', source: 'default', table: { schema: 'sales', name: 'orders' }, role: 'user', permission: 'select' },
    ]);
    const twice = await resolveOperation('metadata', perm)
      .run({ ...ctx, state: { ...state, doc: edits[1]!.doc } } as RunContext, perm)
      .catch((x: unknown) => x);
    expect(isEngineError(twice) && twice.message).toBe('select permission already defined on table "sales.orders" with role "user"');
  });
});
