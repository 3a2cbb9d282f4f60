/**
 * How v2's metadata API prints a PostgreSQL column type (`pg_get_table_info`'s
 * column `type`): v2 parses the catalog's type name into its PGScalarType and
 * prints that back (pgScalarTypeToText), so `int4` reads `integer`, `bool`
 * `boolean`, an array its element's text with `[]`, and a type it has no
 * constructor for (`bytea`, an enum, a domain) its catalog name.
 */
import type { IntrospectedColumn } from '../introspection.ts';

/** v2 compat: the catalog names v2 knows, printed as pgScalarTypeToText does. */
const V2_TYPE_TEXT: Readonly<Record<string, string>> = {
  int2: 'smallint',
  int4: 'integer',
  int8: 'bigint',
  float4: 'real',
  float8: 'float8',
  numeric: 'numeric',
  money: 'money',
  bool: 'boolean',
  bpchar: 'bpchar',
  varchar: 'varchar',
  text: 'text',
  citext: 'citext',
  date: 'date',
  timestamp: 'timestamp',
  timestamptz: 'timestamptz',
  timetz: 'timetz',
  json: 'json',
  jsonb: 'jsonb',
  geometry: 'geometry',
  geography: 'geography',
  raster: 'raster',
  uuid: 'uuid',
  ltree: 'ltree',
  lquery: 'lquery',
  ltxtquery: 'ltxtquery',
};

/** The text of a column's type as v2's metadata API prints it. */
export function postgresTypeText(column: Pick<IntrospectedColumn, 'dbType' | 'elementType'>): string {
  if (column.elementType !== null) return `${V2_TYPE_TEXT[column.elementType] ?? column.elementType}[]`;
  return V2_TYPE_TEXT[column.dbType] ?? column.dbType;
}
