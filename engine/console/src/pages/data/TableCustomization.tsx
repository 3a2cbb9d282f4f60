/**
 * A tracked table's GraphQL customization (Data page, "Customization" tab):
 * its custom type name, the names of its root fields, and each column's
 * custom field name, saved with `pg_set_table_customization`. The rest of the
 * configuration (comments, column comments) is kept; column names given in
 * the older `custom_column_names` move to `column_config`.
 */
import { useState } from 'react';
import { metadata as callMetadata } from '../../api.ts';
import { Status, useAction } from '../../components.tsx';
import type { DbTable } from '../../introspect.ts';
import { tableKey, useMetadata, type TableEntry } from '../../metadata-state.tsx';
import { columnFieldName, isGraphqlName, tableNames } from '../../naming.ts';
import { graphqlTableName, operationPrefix } from '../../source-kinds.ts';

const ROOT_FIELDS = [
  'select',
  'select_by_pk',
  'select_aggregate',
  'select_stream',
  'insert',
  'insert_one',
  'update',
  'update_by_pk',
  'update_many',
  'delete',
  'delete_by_pk',
] as const;

function rootName(v: string | { name?: string | null } | null | undefined): string {
  return typeof v === 'string' ? v : (v?.name ?? '');
}

export function TableCustomization({
  source,
  kind,
  entry,
  dbTable,
  onChange,
}: {
  source: string;
  /** The source's kind: the default GraphQL name depends on it (Note [Table names per source kind]). */
  kind: string;
  entry: TableEntry;
  dbTable: DbTable;
  onChange: () => Promise<void>;
}) {
  const { refresh } = useMetadata();
  const config = entry.configuration ?? {};
  const [customName, setCustomName] = useState(config.custom_name ?? '');
  const [roots, setRoots] = useState<Record<string, string>>(Object.fromEntries(ROOT_FIELDS.map((k) => [k, rootName(config.custom_root_fields?.[k])])));
  const [columns, setColumns] = useState<Record<string, string>>(
    Object.fromEntries(dbTable.columns.map((c) => [c.name, columnFieldName(entry, c.name) === c.name ? '' : columnFieldName(entry, c.name)])),
  );
  const [status, run] = useAction();
  const defaults = tableNames({ ...entry, configuration: { ...config, custom_name: customName.trim() || undefined, custom_root_fields: {} } }, kind);
  const placeholder: Record<string, string> = {
    select: defaults.select,
    select_by_pk: `${defaults.type}_by_pk`,
    select_aggregate: defaults.aggregate,
    select_stream: `${defaults.type}_stream`,
    insert: defaults.insert,
    insert_one: `insert_${defaults.type}_one`,
    update: defaults.update,
    update_by_pk: `update_${defaults.type}_by_pk`,
    update_many: `update_${defaults.type}_many`,
    delete: defaults.delete,
    delete_by_pk: `delete_${defaults.type}_by_pk`,
  };
  const save = () =>
    void run('Saving…', `Saved the customization of ${tableKey(entry.table)}`, async () => {
      const check = (name: string, what: string) => {
        if (name !== '' && !isGraphqlName(name)) throw new Error(`${what} "${name}" is not a GraphQL name`);
      };
      check(customName.trim(), 'The custom name');
      const custom_root_fields: Record<string, unknown> = {};
      for (const k of ROOT_FIELDS) {
        const v = (roots[k] ?? '').trim();
        check(v, `The ${k} root field name`);
        const before = config.custom_root_fields?.[k];
        // A root field's comment, when it has one, is kept.
        if (v !== '') custom_root_fields[k] = typeof before === 'object' && before !== null ? { ...before, name: v } : v;
        else if (typeof before === 'object' && before !== null && 'comment' in before) custom_root_fields[k] = { ...before, name: null };
      }
      const column_config: Record<string, Record<string, unknown>> = {};
      for (const c of dbTable.columns) {
        const v = (columns[c.name] ?? '').trim();
        check(v, `The custom name of column ${c.name}`);
        const rest = { ...(config.column_config?.[c.name] ?? {}) } as Record<string, unknown>;
        delete rest['custom_name'];
        const next = v !== '' ? { ...rest, custom_name: v } : rest;
        if (Object.keys(next).length > 0) column_config[c.name] = next;
      }
      const configuration: Record<string, unknown> = { ...config, custom_root_fields, column_config };
      delete configuration['custom_column_names'];
      if (customName.trim() !== '') configuration['custom_name'] = customName.trim();
      else delete configuration['custom_name'];
      await callMetadata(`${operationPrefix(kind)}_set_table_customization`, { source, table: entry.table, configuration });
      await refresh();
      await onChange();
    });
  return (
    <form
      aria-label={`Customization of ${tableKey(entry.table)}`}
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <p className="muted">Names in the GraphQL API; empty fields keep the default shown.</p>
      <div className="row">
        <label htmlFor="tc-name">Custom GraphQL name</label>
        <input id="tc-name" placeholder={graphqlTableName(kind, entry.table)} value={customName} onChange={(e) => setCustomName(e.target.value)} />
      </div>
      <fieldset>
        <legend>Root fields</legend>
        <div className="customization-grid">
          {ROOT_FIELDS.map((k) => (
            <div className="field" key={k}>
              <label htmlFor={`tc-root-${k}`}>{k}</label>
              <input id={`tc-root-${k}`} placeholder={placeholder[k]} value={roots[k] ?? ''} onChange={(e) => setRoots({ ...roots, [k]: e.target.value })} />
            </div>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend>Column field names</legend>
        <div className="customization-grid">
          {dbTable.columns.map((c) => (
            <div className="field" key={c.name}>
              <label htmlFor={`tc-col-${c.name}`}>Field name of column {c.name}</label>
              <input
                id={`tc-col-${c.name}`}
                placeholder={isGraphqlName(c.name) ? c.name : 'needs a GraphQL name'}
                value={columns[c.name] ?? ''}
                onChange={(e) => setColumns({ ...columns, [c.name]: e.target.value })}
              />
            </div>
          ))}
        </div>
      </fieldset>
      <Status value={status} />
      <button type="submit" className="btn primary">
        Save customization
      </button>
    </form>
  );
}
