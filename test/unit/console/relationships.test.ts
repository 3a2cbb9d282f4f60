/**
 * The console's relationship suggestions from foreign keys: what is offered,
 * under which name, and what is not offered again once it exists.
 */
import { describe, expect, it } from 'vitest';
import { suggestRelationships } from '../../../engine/console/src/pages/data/relationships.ts';
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

  it('names a composite key relationship after the referenced table, singular, and the array one plural', () => {
    const s = suggestRelationships(db(fk('order_line', ['order_no', 'region'], 'orders', ['no', 'region'])), source(t('order_line'), t('orders')));
    expect(s.map(({ kind, table, name }) => `${kind} ${table.name}.${name}`)).toEqual(['object order_line.order', 'array orders.order_lines']);
    expect(s[0]).toMatchObject({ using: { foreign_key_constraint_on: ['order_no', 'region'] } });
  });

  it('names a single-column key after the table too, not the column (v2: `user_id` to `people` is `person`)', () => {
    const s = suggestRelationships(db(fk('posts', ['user_id'], 'people')), source(t('posts'), t('people')));
    expect(s.map((x) => x.name)).toEqual(['person', 'posts']);
  });

  it('falls back to <name>By<Columns>, then numbers, when the name is a column or relationship', () => {
    const info: DbInfo = {
      ...db(
        fk('address', ['region_country', 'region_code'], 'regions', ['country', 'code']),
        fk('address', ['ship_country', 'ship_code'], 'regions', ['country', 'code']),
      ),
      tables: [
        { schema: 'public', name: 'address', kind: 'table', columns: [{ name: 'region', type: 'text', nullable: true, hasDefault: false }], primaryKey: [] },
      ],
    };
    const tables = source(
      t('address', { object_relationships: [{ name: 'regionByShipCountryShipCode', using: { manual_configuration: {} } }] }),
      t('regions', { array_relationships: [{ name: 'addresses', using: { manual_configuration: {} } }] }),
    );
    expect(suggestRelationships(info, tables).map(({ kind, table, name }) => `${kind} ${table.name}.${name}`)).toEqual([
      'object address.regionByRegionCountryRegionCode',
      'array regions.addressesByRegionCountryRegionCode',
      'object address.regionByShipCountryShipCode1',
      'array regions.addressesByShipCountryShipCode',
    ]);
  });
});
