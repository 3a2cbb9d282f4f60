/**
 * Stage "tables": a tracked table entry + its introspected relation → the
 * table's columns, names and enum values. Relationships and permissions come
 * in later stages.
 */
import type { ScalarInfo, TableNaming } from '../../backends/backend.ts';
import type { EnumTableRows, IntrospectedTable } from '../../backends/introspection.ts';
import type { CustomRootField, TableMetadata } from '../../model/document.ts';
import type { ColumnInfo, EnumValueInfo, TableRootFields } from '../types.ts';

/** A table resolved by this stage: TableInfo without relationships and permissions. */
export interface TableDraft {
  readonly source: string;
  readonly entry: TableMetadata;
  readonly introspected: IntrospectedTable;
  readonly gqlName: string;
  readonly rootFields: TableRootFields;
  readonly description: string | null;
  /** Columns; `enumTable` is filled in by the enum-links stage (a new draft). */
  readonly columns: readonly ColumnInfo[];
  readonly enumValues: readonly EnumValueInfo[] | null;
  /** How its source's backend describes a database type (later stages check literals with it). */
  readonly scalar: (dbType: string) => ScalarInfo;
  /** How its source's backend names tables (later stages parse and print table names with it). */
  readonly naming: TableNaming;
}

/** A GraphQL name (spec: Name). */
export const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/**
 * Whether `n` may name a type, field, argument or enum value of a generated
 * schema: a GraphQL name not starting with `__` (reserved for introspection;
 * graphql-js rejects the whole schema otherwise).
 *
 * Note [Names from the database]
 * Table, column, constraint and enum-value names come from the database,
 * where almost anything is a legal identifier; graphql-js throws on a
 * non-GraphQL name while a schema is built, and a throw while warming a
 * role's schema took the process down (issue 12: a `"t-pk"` primary key
 * crashed every engine on the metadata and again on restart). So every
 * database-derived name that becomes part of the schema is checked here, in
 * the catalog, and its table is inconsistent when one fails, with v2's
 * reason (`cannot include "x" in the GraphQL schema because it is not a
 * valid GraphQL identifier`): v2 also refuses such tables rather than
 * renaming the constraint or column. Columns can be renamed with
 * `custom_column_names`; constraints cannot (rename them in the database).
 * graphql/schema/schema-cache.ts still turns any other failure of a schema
 * build into a clean error for that role.
 */
export function isSchemaName(n: string): boolean {
  return GRAPHQL_NAME.test(n) && !n.startsWith('__');
}

/** v2's reason for a database name that cannot appear in the schema. */
export function notGraphqlIdentifier(n: string): string {
  return `cannot include "${n}" in the GraphQL schema because it is not a valid GraphQL identifier`;
}

function rootFieldName(f: CustomRootField | null | undefined): string | null {
  if (f === null || f === undefined) return null;
  if (typeof f === 'string') return f;
  return f.name ?? null;
}

/** v2 compat: default root field names of a table named `n`, then `custom_root_fields`. */
export function resolveRootFields(n: string, entry: TableMetadata): TableRootFields {
  const c = entry.configuration?.custom_root_fields ?? {};
  return {
    select: rootFieldName(c.select) ?? n,
    selectByPk: rootFieldName(c.select_by_pk) ?? `${n}_by_pk`,
    selectAggregate: rootFieldName(c.select_aggregate) ?? `${n}_aggregate`,
    insert: rootFieldName(c.insert) ?? `insert_${n}`,
    insertOne: rootFieldName(c.insert_one) ?? `insert_${n}_one`,
    update: rootFieldName(c.update) ?? `update_${n}`,
    updateByPk: rootFieldName(c.update_by_pk) ?? `update_${n}_by_pk`,
    updateMany: rootFieldName(c.update_many) ?? `update_${n}_many`,
    delete: rootFieldName(c.delete) ?? `delete_${n}`,
    deleteByPk: rootFieldName(c.delete_by_pk) ?? `delete_${n}_by_pk`,
  };
}

/** v2 compat: `custom_name`, else `identifier`, else the backend's GraphQL name of the table (`<schema>_` outside the default schema). */
export function tableGqlName(entry: TableMetadata, naming: TableNaming): string {
  const custom = entry.configuration?.custom_name ?? entry.configuration?.identifier;
  if (custom !== null && custom !== undefined && custom !== '') return custom;
  return naming.graphqlName(entry.table);
}

function resolveEnumValues(
  t: IntrospectedTable,
  rows: EnumTableRows | string | undefined,
  scalar: (dbType: string) => ScalarInfo,
): { values: EnumValueInfo[] } | { reason: string } {
  const name = `"${t.name.name}"`;
  const pk = t.primaryKey?.columns ?? [];
  if (pk.length !== 1) {
    return { reason: `the table ${name} cannot be used as an enum because its primary key does not consist of a single column` };
  }
  const pkCol = t.columns.find((c) => c.name === pk[0]);
  if (pkCol === undefined || !scalar(pkCol.dbType).textual) {
    return { reason: `the table ${name} cannot be used as an enum because its primary key column is not of type text` };
  }
  const others = t.columns.filter((c) => c.name !== pkCol.name);
  if (others.length > 1) {
    return {
      reason: `the table ${name} cannot be used as an enum because it has more than one column besides the primary key (at most one comment column is allowed)`,
    };
  }
  const comment = others[0];
  if (comment !== undefined && !scalar(comment.dbType).textual) {
    return { reason: `the table ${name} cannot be used as an enum because its comment column is not of type text` };
  }
  if (typeof rows === 'string') return { reason: `the rows of enum table ${name} could not be read: ${rows}` };
  if (rows === undefined || rows.length === 0) {
    return { reason: `the table ${name} cannot be used as an enum because it has no rows` };
  }
  const bad = rows.filter((r) => !isSchemaName(r.value) || ['true', 'false', 'null'].includes(r.value));
  if (bad.length > 0) {
    const list = bad.map((r) => `"${r.value}"`).join(', ');
    return { reason: `the table ${name} cannot be used as an enum because these values are not valid GraphQL enum names: ${list}` };
  }
  return { values: rows.map((r) => ({ value: r.value, comment: r.comment })) };
}

/** The enum table's value and comment columns, for reading its rows. */
export function enumColumns(t: IntrospectedTable): { valueColumn: string; commentColumn: string | null } | null {
  const pk = t.primaryKey?.columns ?? [];
  const value = pk[0];
  if (pk.length !== 1 || value === undefined) return null;
  const others = t.columns.filter((c) => c.name !== value);
  return { valueColumn: value, commentColumn: others.length === 1 ? (others[0]?.name ?? null) : null };
}

/** Resolves one tracked table, or says why it is inconsistent. */
export function resolveTable(
  source: string,
  entry: TableMetadata,
  t: IntrospectedTable,
  enumRows: EnumTableRows | string | undefined,
  scalar: (dbType: string) => ScalarInfo,
  naming: TableNaming,
): TableDraft | { reason: string } {
  const gqlName = tableGqlName(entry, naming);
  if (!isSchemaName(gqlName)) {
    return { reason: `the table name "${gqlName}" is not a valid GraphQL name; set a custom_name for it` };
  }
  const config = entry.configuration ?? {};
  const customNames = new Map<string, string>(Object.entries(config.custom_column_names ?? {}));
  for (const [col, cc] of Object.entries(config.column_config ?? {})) {
    if (cc.custom_name !== undefined) customNames.set(col, cc.custom_name);
  }
  const known = new Set(t.columns.map((c) => c.name));
  const missing = [...customNames.keys(), ...Object.keys(config.column_config ?? {})].filter((c) => !known.has(c));
  if (missing.length > 0) {
    const list = [...new Set(missing)].map((c) => `"${c}"`).join(', ');
    return { reason: `the following columns are not found in table "${t.name.name}": ${list}` };
  }
  const badNames = [...customNames.values()].filter((n) => !isSchemaName(n));
  if (badNames.length > 0) return { reason: `custom column name "${badNames[0] ?? ''}" is not a valid GraphQL name` };
  const columns: ColumnInfo[] = t.columns.map((c) => ({
    name: c.name,
    gqlName: customNames.get(c.name) ?? c.name,
    dbType: c.dbType,
    elementType: c.elementType,
    typeCategory: c.typeCategory,
    enumLabels: c.enumLabels,
    nullable: c.nullable,
    hasDefault: c.hasDefault,
    isGenerated: c.isGenerated,
    description: config.column_config?.[c.name]?.comment ?? c.comment,
    enumTable: null,
  }));
  const badColumn = columns.find((c) => !isSchemaName(c.gqlName));
  if (badColumn !== undefined) return { reason: notGraphqlIdentifier(badColumn.gqlName) };
  // The `<t>_constraint` enum of on_conflict names every primary key and unique constraint.
  const constraints = [...(t.primaryKey === null ? [] : [t.primaryKey]), ...t.uniqueConstraints];
  const badConstraint = constraints.find((k) => !isSchemaName(k.name));
  if (badConstraint !== undefined) return { reason: notGraphqlIdentifier(badConstraint.name) };
  const seen = new Map<string, string>();
  for (const c of columns) {
    const other = seen.get(c.gqlName);
    if (other !== undefined) {
      return { reason: `the columns "${other}" and "${c.name}" of table "${t.name.name}" both have the GraphQL name "${c.gqlName}"` };
    }
    seen.set(c.gqlName, c.name);
  }
  const rootFields = resolveRootFields(gqlName, entry);
  const badRoot = Object.values(rootFields).find((n) => !isSchemaName(n));
  if (badRoot !== undefined) return { reason: `the root field name "${badRoot}" is not a valid GraphQL name` };
  let enumValues: EnumValueInfo[] | null = null;
  if (entry.is_enum === true) {
    const r = resolveEnumValues(t, enumRows, scalar);
    if ('reason' in r) return r;
    enumValues = r.values;
  }
  return {
    source,
    entry,
    introspected: t,
    gqlName,
    rootFields,
    description: config.comment ?? t.comment,
    columns,
    enumValues,
    scalar,
    naming,
  };
}
