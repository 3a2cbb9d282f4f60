/**
 * Table names per source kind in the console (Note [Table names per source
 * kind]): a bare name is in the kind's default schema (`public`, `dbo`;
 * BigQuery has none), and GraphQL names leave only that schema out.
 */
import { describe, expect, it } from 'vitest';
import { graphqlTableName, operationPrefix, qualifiedName, wireTable } from '../../../engine/console/src/source-kinds.ts';
import { tableNames } from '../../../engine/console/src/naming.ts';
import { targetOf } from '../../../engine/console/src/inconsistency.ts';
import { suggestRelationships } from '../../../engine/console/src/pages/data/relationships.ts';
import { tableKey, type QualifiedTable, type SourceEntry } from '../../../engine/console/src/metadata-state.tsx';

describe('table names per source kind', () => {
  it('reads a bare name in the default schema of the kind, and BigQuery datasets as schemas', () => {
    expect(qualifiedName('postgres', 'authors')).toEqual({ schema: 'public', name: 'authors' });
    expect(qualifiedName('mssql', 'authors')).toEqual({ schema: 'dbo', name: 'authors' });
    expect(qualifiedName('mssql', { name: 'authors' })).toEqual({ schema: 'dbo', name: 'authors' });
    expect(qualifiedName('bigquery', { dataset: 'shop', name: 'authors' })).toEqual({ schema: 'shop', name: 'authors' });
    expect(qualifiedName('mssql', 42)).toBeNull();
  });

  it("names root fields without the kind's default schema only", () => {
    expect(graphqlTableName('postgres', { schema: 'public', name: 'authors' })).toBe('authors');
    expect(graphqlTableName('postgres', { schema: 'dbo', name: 'authors' })).toBe('dbo_authors');
    expect(graphqlTableName('mssql', { schema: 'dbo', name: 'authors' })).toBe('authors');
    expect(graphqlTableName('mssql', { schema: 'public', name: 'authors' })).toBe('public_authors');
    expect(graphqlTableName('bigquery', { schema: 'shop', name: 'authors' })).toBe('shop_authors');
    expect(tableNames({ table: { schema: 'dbo', name: 'orders' } }, 'mssql')).toMatchObject({ select: 'orders', insert: 'insert_orders' });
  });

  it("writes a table as the kind's operations take it, and keys BigQuery tables by dataset", () => {
    expect(wireTable('bigquery', { schema: 'shop', name: 'authors' })).toEqual({ dataset: 'shop', name: 'authors' });
    expect(wireTable('mssql', { schema: 'dbo', name: 'authors' })).toEqual({ schema: 'dbo', name: 'authors' });
    expect(tableKey({ dataset: 'shop', name: 'authors' } as unknown as QualifiedTable)).toBe('shop.authors');
  });

  it('uses the prefix of the kind for metadata operations', () => {
    expect(['postgres', 'mssql', 'bigquery'].map(operationPrefix)).toEqual(['pg', 'mssql', 'bigquery']);
  });

  it("places an inconsistency on a bare table name in its source's default schema", () => {
    const kinds: Record<string, string> = { default: 'postgres', sales: 'mssql' };
    const kindOf = (s: string) => kinds[s];
    const o = { type: 'table', name: 'table orders in source sales', definition: 'orders', reason: 'gone' };
    expect(targetOf(o, kindOf).table).toBe('dbo.orders');
    const p = { type: 'select_permission', name: 'permission orders.user.select in source default', definition: { role: 'user' }, reason: 'bad' };
    expect(targetOf(p, kindOf).table).toBe('public.orders');
  });

  it('knows an array relationship over a bare table name in an MSSQL source', () => {
    const source: SourceEntry = {
      name: 'sales',
      kind: 'mssql',
      tables: [
        { table: { schema: 'dbo', name: 'orders' }, object_relationships: [{ name: 'customer', using: { foreign_key_constraint_on: 'customer_id' } }] },
        {
          table: { schema: 'dbo', name: 'customers' },
          array_relationships: [{ name: 'orders', using: { foreign_key_constraint_on: { table: 'orders', columns: ['customer_id'] } } }],
        },
      ],
    };
    const fk = { name: 'fk', schema: 'dbo', table: 'orders', columns: ['customer_id'], ref_schema: 'dbo', ref_table: 'customers', ref_columns: ['id'] };
    expect(suggestRelationships({ tables: [], foreignKeys: [fk], functions: [] }, source)).toEqual([]);
  });
});
