/**
 * Table naming of databases whose tables live in schemas (a backend's
 * {@link TableNaming}): a bare name is in the default schema, which messages
 * and GraphQL names leave out. Pure; the postgres backend uses it with
 * `public` (an MSSQL backend would with `dbo`).
 */
import type { TableName, TableNaming, WireTableName } from './backend.ts';

/** The naming of a database with schemas and `defaultSchema` as the default one. */
export function schemaNaming(defaultSchema: string): TableNaming {
  return {
    defaultSchema,
    parse: (t: WireTableName): TableName =>
      typeof t === 'string' ? { schema: defaultSchema, name: t } : { schema: t.schema ?? t.dataset ?? defaultSchema, name: t.name },
    format: (t) => (t.schema === defaultSchema ? t.name : `${t.schema}.${t.name}`),
    graphqlName: (t) => (t.schema === defaultSchema ? t.name : `${t.schema}_${t.name}`),
    toWire: (t) => ({ schema: t.schema, name: t.name }),
  };
}
