/** A synthetic source of chained tables for catalog tests: no database, no connection. */
import type { IntrospectedTable, SourceIntrospection } from '../../engine/backends/introspection.ts';
import type { SourceConnection } from '../../engine/backends/backend.ts';
import type { PreparedSources } from '../../engine/catalog/prepared.ts';
import { emptyTable, EMPTY_DOCUMENT, type MetadataDocument, type TableMetadata } from '../../engine/model/document.ts';

const connection: SourceConnection = {
  kind: 'postgres',
  queryJsonText: async () => null,
  transactionJsonText: async () => [],
  close: async () => {},
};

export function table(name: string, fkTo: string | null): IntrospectedTable {
  return {
    name: { schema: 'public', name },
    oid: 1,
    kind: 'table',
    comment: null,
    columns: ['id', 'parent_id', 'a', 'b', 'c', 'd', 'e', 'f'].map((c, i) => ({
      name: c,
      position: i + 1,
      dbType: c === 'id' || c === 'parent_id' ? 'int4' : 'text',
      elementType: null,
      typeCategory: 'base',
      enumLabels: null,
      nullable: c !== 'id',
      hasDefault: c === 'id',
      isGenerated: false,
      comment: null,
    })),
    primaryKey: { name: `${name}_pkey`, columns: ['id'] },
    uniqueConstraints: [],
    foreignKeys: fkTo === null ? [] : [{ name: `${name}_fk`, target: { schema: 'public', name: fkTo }, columnMapping: [['parent_id', 'id']] }],
    mutability: { insertable: true, updatable: true, deletable: true },
  };
}

/**
 * `n` tables t0..t(n-1), each (but the first) with a foreign key to the one before, tracked with
 * `parent`/`children` relationships and a select permission of role `user` through `parent`.
 */
export function fixture(n: number): { doc: MetadataDocument; prepared: PreparedSources } {
  const intro = new Map<string, IntrospectedTable>();
  const tables: TableMetadata[] = [];
  for (let i = 0; i < n; i++) {
    const name = `t${i}`;
    intro.set(`public.${name}`, table(name, i === 0 ? null : `t${i - 1}`));
    tables.push({
      ...emptyTable({ schema: 'public', name }),
      object_relationships: i === 0 ? [] : [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }],
      array_relationships: i === n - 1 ? [] : [{ name: 'children', using: { foreign_key_constraint_on: { table: `t${i + 1}`, columns: ['parent_id'] } } }],
      select_permissions: [{ role: 'user', permission: { columns: '*', filter: { parent: { a: { _eq: 'X-Engine-User-Id' } } } } }],
    });
  }
  // The first table has no `parent` relationship, so its permission goes through `children` instead.
  tables[0] = { ...tables[0]!, select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: {} } }] };
  const introspection: SourceIntrospection = { tables: intro, fingerprint: 'x', ddlStamp: 'x' };
  const doc: MetadataDocument = {
    ...EMPTY_DOCUMENT,
    sources: [{ name: 'default', kind: 'postgres', tables, functions: [], configuration: { connection_info: { database_url: 'x' } } }],
  };
  const prepared: PreparedSources = new Map([['default', { ok: true, name: 'default', configKey: 'k', connection, introspection, enumRows: new Map() }]]);
  return { doc, prepared };
}
