/** GraphQL names of a tracked table's root fields and types (v2's default naming, with its customizations). */
import type { TableEntry } from './metadata-state.tsx';

export interface TableNames {
  readonly type: string;
  readonly select: string;
  readonly aggregate: string;
  readonly insert: string;
  readonly update: string;
  readonly delete: string;
}

export function tableNames(entry: TableEntry): TableNames {
  const t = entry.table;
  const base = entry.configuration?.custom_name ?? (t.schema === 'public' ? t.name : `${t.schema}_${t.name}`);
  const custom = entry.configuration?.custom_root_fields ?? {};
  const pick = (key: string, fallback: string): string => {
    const v = custom[key];
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
