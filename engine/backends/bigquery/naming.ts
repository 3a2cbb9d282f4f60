/**
 * BigQuery table naming (v2's BigQuery `TableName`): a table is `{dataset,
 * name}` (the dataset is the IR's schema), there is no default dataset, and
 * GraphQL names always carry the dataset (`shop_authors`).
 */
import type { TableName, TableNaming, WireTableName } from '../backend.ts';

/** The naming of BigQuery sources. */
export const bigqueryNaming: TableNaming = {
  // v2 compat: DEFAULT_SCHEMA.bigquery in model/document.ts; a bare name has no dataset.
  defaultSchema: '',
  parse: (t: WireTableName): TableName => (typeof t === 'string' ? { schema: '', name: t } : { schema: t.dataset ?? t.schema ?? '', name: t.name }),
  format: (t) => (t.schema === '' ? t.name : `${t.schema}.${t.name}`),
  graphqlName: (t) => (t.schema === '' ? t.name : `${t.schema}_${t.name}`),
  toWire: (t) => ({ dataset: t.schema, name: t.name }),
};
