/** GraphQL names of a tracked table's root fields and types (v2's default naming, with its customizations). */
import type { TableEntry } from './metadata-state.tsx';
import { graphqlTableName } from './source-kinds.ts';

export interface TableNames {
  readonly type: string;
  readonly select: string;
  readonly aggregate: string;
  readonly insert: string;
  readonly update: string;
  readonly delete: string;
}

/** `kind`: the kind of the table's source (Note [Table names per source kind]). */
export function tableNames(entry: TableEntry, kind: string): TableNames {
  const base = entry.configuration?.custom_name ?? graphqlTableName(kind, entry.table);
  const custom = entry.configuration?.custom_root_fields ?? {};
  const pick = (key: string, fallback: string): string => {
    const v = custom[key as keyof typeof custom];
    return typeof v === 'string' ? v : (v?.name ?? fallback);
  };
  return {
    type: base,
    select: pick('select', base),
    aggregate: pick('select_aggregate', `${base}_aggregate`),
    insert: pick('insert', `insert_${base}`),
    update: pick('update', `update_${base}`),
    delete: pick('delete', `delete_${base}`),
  };
}

/** A GraphQL field name is quoted nowhere: only names that GraphQL allows are used as is. */
export function isGraphqlName(name: string): boolean {
  return /^[_A-Za-z][_0-9A-Za-z]*$/.test(name);
}

/** The GraphQL field name of a column: its custom name (`column_config`, or the older `custom_column_names`), else the column's name. */
export function columnFieldName(entry: TableEntry, column: string): string {
  const c = entry.configuration;
  return c?.column_config?.[column]?.custom_name ?? c?.custom_column_names?.[column] ?? column;
}
