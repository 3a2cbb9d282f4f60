/**
 * The console's relationship suggestions from foreign keys: what is offered,
 * under which name, and what is not offered again once it exists.
 */
import { describe, expect, it } from 'vitest';
import { suggestRelationships } from '../../../engine/console/src/pages/relationships.ts';
import type { DbForeignKey, DbInfo } from '../../../engine/console/src/introspect.ts';
import type { SourceEntry, TableEntry } from '../../../engine/console/src/metadata-state.tsx';

const fk = (table: string, columns: string[], ref: string, refColumns: string[] = ['id']): DbForeignKey => ({
  name: `${table}_fk`,
  schema: 'public',
  table,
  columns,
  ref_schema: 'public',
  ref_table: ref,
  ref_columns: refColumns,
});

const db = (...foreignKeys: DbForeignKey[]): DbInfo => ({ tables: [], foreignKeys, functions: [] });
const source = (...tables: TableEntry[]): SourceEntry => ({ name: 'default', kind: 'postgres', tables });
const t = (name: string, extra: Partial<TableEntry> = {}): TableEntry => ({ table: { schema: 'public', name }, ...extra });

describe('suggestRelationships', () => {
  it('offers an object relationship named after the column and an array relationship named after the table', () => {
    const s = suggestRelationships(db(fk('articles', ['author_id'], 'authors')), source(t('articles'), t('authors')));
    expect(s.map(({ kind, table, name, using }) => ({ kind, table: table.name, name, using }))).toEqual([
      { kind: 'object', table: 'articles', name: 'author', using: { foreign_key_constraint_on: 'author_id' } },
      {
        kind: 'array',
        table: 'authors',
        name: 'articles',
        using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'articles' }, columns: ['author_id'] } },
      },
    ]);
  });

  it('offers nothing when a table is untracked', () => {
    expect(suggestRelationships(db(fk('articles', ['author_id'], 'authors')), source(t('articles')))).toEqual([]);
  });

  it('does not offer a relationship that exists under any name', () => {
    const tables = source(
      t('articles', { object_relationships: [{ name: 'writer', using: { foreign_key_constraint_on: ['author_id'] } }] }),
      t('authors', { array_relationships: [{ name: 'posts', using: { foreign_key_constraint_on: { table: 'articles', column: 'author_id' } } }] }),
    );
    expect(suggestRelationships(db(fk('articles', ['author_id'], 'authors')), tables)).toEqual([]);
  });

  it('uses the referenced table for composite keys and avoids names already taken', () => {
    const tables = source(t('lines', { object_relationships: [{ name: 'orders', using: { manual_configuration: {} } }] }), t('orders'));
    const s = suggestRelationships(db(fk('lines', ['order_no', 'region'], 'orders', ['no', 'region'])), tables);
    expect(s[0]).toMatchObject({ kind: 'object', name: 'orders_by_order_no_region', using: { foreign_key_constraint_on: ['order_no', 'region'] } });
    expect(s[1]).toMatchObject({ kind: 'array', table: { name: 'orders' }, name: 'lines' });
  });
});
