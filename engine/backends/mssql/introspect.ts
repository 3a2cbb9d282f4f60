/**
 * Introspection of an MSSQL source: one catalog query (sys.* views, built
 * into JSON by the server with FOR JSON) for every user table and view with
 * its columns, primary key, unique constraints and foreign keys.
 */
import { createHash } from 'node:crypto';
import type { EnumTableQuery, EnumTableRows, IntrospectedTable, SourceIntrospection } from '../introspection.ts';
import { compileFragment, ident, qualified, raw, sql } from '../sql/fragment.ts';
import { MSSQL_DIALECT } from './dialect.ts';

/** The catalog query: `[{schema, name, object_id, kind, columns: [...], pk: [...], uniques: [...], fks: [...]}]`. */
export const INTROSPECTION_SQL = `SELECT (SELECT s.name AS [schema], o.name AS [name], o.object_id AS [object_id], o.type AS [kind],
  CAST(ep.value AS NVARCHAR(MAX)) AS [comment],
  (SELECT c.name AS [name], c.column_id AS [position], t.name AS [type], c.is_nullable AS [nullable],
          CAST(CASE WHEN c.default_object_id <> 0 OR c.is_identity = 1 OR c.is_computed = 1 OR t.name IN ('timestamp', 'rowversion') THEN 1 ELSE 0 END AS BIT) AS [has_default],
          CAST(CASE WHEN c.is_computed = 1 OR t.name IN ('timestamp', 'rowversion') THEN 1 ELSE 0 END AS BIT) AS [generated],
          c.is_identity AS [identity], OBJECT_DEFINITION(c.default_object_id) AS [default_sql]
     FROM sys.columns AS c JOIN sys.types AS t ON t.user_type_id = c.user_type_id
    WHERE c.object_id = o.object_id ORDER BY c.column_id FOR JSON PATH) AS [columns],
  (SELECT i.name AS [name], i.is_primary_key AS [primary],
          (SELECT col.name AS [c] FROM sys.index_columns AS ic JOIN sys.columns AS col ON col.object_id = ic.object_id AND col.column_id = ic.column_id
            WHERE ic.object_id = i.object_id AND ic.index_id = i.index_id AND ic.is_included_column = 0 ORDER BY ic.key_ordinal FOR JSON PATH) AS [columns]
     FROM sys.indexes AS i WHERE i.object_id = o.object_id AND (i.is_primary_key = 1 OR i.is_unique_constraint = 1) FOR JSON PATH) AS [keys],
  (SELECT f.name AS [name], rs.name AS [target_schema], ro.name AS [target_name],
          (SELECT pc.name AS [local], rc.name AS [remote] FROM sys.foreign_key_columns AS fkc
             JOIN sys.columns AS pc ON pc.object_id = fkc.parent_object_id AND pc.column_id = fkc.parent_column_id
             JOIN sys.columns AS rc ON rc.object_id = fkc.referenced_object_id AND rc.column_id = fkc.referenced_column_id
            WHERE fkc.constraint_object_id = f.object_id ORDER BY fkc.constraint_column_id FOR JSON PATH) AS [mapping]
     FROM sys.foreign_keys AS f JOIN sys.objects AS ro ON ro.object_id = f.referenced_object_id JOIN sys.schemas AS rs ON rs.schema_id = ro.schema_id
    WHERE f.parent_object_id = o.object_id FOR JSON PATH) AS [fks]
FROM sys.objects AS o JOIN sys.schemas AS s ON s.schema_id = o.schema_id
LEFT JOIN sys.extended_properties AS ep ON ep.major_id = o.object_id AND ep.minor_id = 0 AND ep.class = 1 AND ep.name = 'MS_Description'
WHERE o.type IN ('U', 'V') AND o.is_ms_shipped = 0
ORDER BY s.name, o.name FOR JSON PATH, INCLUDE_NULL_VALUES) AS [data]`;

interface RawTable {
  readonly schema: string;
  readonly name: string;
  readonly object_id: number;
  readonly kind: string;
  readonly comment: string | null;
  readonly columns?: ReadonlyArray<{
    name: string;
    position: number;
    type: string;
    nullable: boolean;
    has_default: boolean;
    generated: boolean;
    identity: boolean;
    default_sql?: string | null;
  }>;
  readonly keys?: ReadonlyArray<{ name: string; primary: boolean; columns?: ReadonlyArray<{ c: string }> }>;
  readonly fks?: ReadonlyArray<{ name: string; target_schema: string; target_name: string; mapping?: ReadonlyArray<{ local: string; remote: string }> }>;
}

/** The introspection of the catalog query's JSON answer. */
export function introspectionOf(json: string | null): SourceIntrospection {
  const raw = (json === null ? [] : JSON.parse(json)) as RawTable[];
  const tables = new Map<string, IntrospectedTable>();
  for (const t of raw) {
    const keys = t.keys ?? [];
    const pk = keys.find((k) => k.primary);
    const view = t.kind.trim() === 'V';
    tables.set(`${t.schema}.${t.name}`, {
      name: { schema: t.schema, name: t.name },
      oid: t.object_id,
      kind: view ? 'view' : 'table',
      comment: t.comment,
      columns: (t.columns ?? []).map((c) => ({
        name: c.name,
        position: c.position,
        dbType: c.type,
        elementType: null,
        typeCategory: 'base',
        enumLabels: null,
        nullable: c.nullable,
        hasDefault: c.has_default,
        isGenerated: c.generated,
        comment: null,
        defaultSql: c.default_sql ?? null,
        identity: c.identity ? 'always' : null,
      })),
      primaryKey: pk === undefined ? null : { name: pk.name, columns: (pk.columns ?? []).map((c) => c.c) },
      uniqueConstraints: keys.filter((k) => !k.primary).map((k) => ({ name: k.name, columns: (k.columns ?? []).map((c) => c.c) })),
      foreignKeys: (t.fks ?? []).map((f) => ({
        name: f.name,
        target: { schema: f.target_schema, name: f.target_name },
        columnMapping: (f.mapping ?? []).map((m) => [m.local, m.remote] as const),
      })),
      // Views are writable when SQL Server can map them to one base table; it says so only when a write is tried.
      mutability: { insertable: true, updatable: true, deletable: true },
    });
  }
  const fingerprint = createHash('sha256')
    .update(json ?? '')
    .digest('hex');
  return { tables, fingerprint, ddlStamp: fingerprint };
}

/**
 * The statement reading one enum table's values (v2 compat: its MSSQL enum
 * tables): value and comment as text, in value order, as a JSON array.
 */
export function enumRowsSql(q: EnumTableQuery): string {
  const comment = q.commentColumn === null ? raw('NULL') : sql`CAST(${ident(q.commentColumn)} AS NVARCHAR(MAX))`;
  return compileFragment(
    sql`SELECT (SELECT CAST(${ident(q.valueColumn)} AS NVARCHAR(MAX)) AS [value], ${comment} AS [comment] FROM ${qualified(q.table.schema, q.table.name)} ORDER BY ${ident(q.valueColumn)} FOR JSON PATH, INCLUDE_NULL_VALUES) AS [data]`,
    MSSQL_DIALECT,
  ).text;
}

/** The rows of {@link enumRowsSql}'s answer. */
export function enumRowsOf(json: string | null): EnumTableRows {
  return (json === null ? [] : JSON.parse(json)) as EnumTableRows;
}
