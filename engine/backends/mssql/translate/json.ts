/**
 * Note [MSSQL JSON]
 * SQL Server builds every response's JSON itself, as PostgreSQL does, with
 * `FOR JSON PATH`: a SELECT whose column aliases are the JSON keys becomes the
 * text of an array of objects (one per row), or of one object with
 * `WITHOUT_ARRAY_WRAPPER`. `INCLUDE_NULL_VALUES` keeps null fields (v2 and
 * GraphQL answer `"field": null`; FOR JSON drops them by default).
 *
 * - A list of rows: `ISNULL((SELECT ... FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')`
 *   (FOR JSON over no rows is NULL, GraphQL wants `[]`).
 * - One row (by_pk, object relationships): `(SELECT TOP (1) ... FOR JSON PATH,
 *   INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER)`, NULL when there is none.
 * - A nested value (relationships, aggregates, root fields) is JSON text in
 *   a column of the enclosing FOR JSON SELECT: it goes through `JSON_QUERY(...)`,
 *   which marks text as JSON so it is embedded, not escaped as a string
 *   (a FOR JSON subquery is marked by itself, but ISNULL's result is not).
 * - Objects nested inside one row (an aggregate's `{aggregate: {count, sum:
 *   {x}}}`) use FOR JSON PATH's dotted aliases, `AS [aggregate.sum.x]`: one
 *   SELECT computes every aggregate, and adjacent aliases sharing a prefix
 *   become one object. GraphQL names have no dots, so keys never split.
 * - Values are encoded by SQL Server: numbers and decimals as JSON numbers,
 *   `bit` as true/false, dates as ISO 8601 strings, GUIDs as strings,
 *   binary as base64.
 *
 * The whole answer is one statement: `SELECT (SELECT JSON_QUERY(<field>) AS
 * [alias], ... FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER) AS
 * [data]`. Wrapping the outermost FOR JSON in a scalar subquery makes it one
 * nvarchar(max) value in one row: at the top level SQL Server streams FOR
 * JSON text in rows of about 2033 characters, which the connection would
 * have to concatenate (it does anyway: connection.ts, for any statement).
 */
import { join, raw, sql, type Fragment } from '../../sql/fragment.ts';

/** `FOR JSON PATH` options of a list of rows. */
export const FOR_JSON_ARRAY = raw(' FOR JSON PATH, INCLUDE_NULL_VALUES');
/** `FOR JSON PATH` options of one row. */
export const FOR_JSON_OBJECT = raw(' FOR JSON PATH, INCLUDE_NULL_VALUES, WITHOUT_ARRAY_WRAPPER');

/** JSON text embedded as JSON (not as a string) in an enclosing FOR JSON. */
export function jsonQuery(json: Fragment): Fragment {
  return sql`JSON_QUERY(${json})`;
}

/** A list of rows as JSON text, `[]` when there are none. */
export function jsonArrayOf(forJsonSelect: Fragment): Fragment {
  return sql`ISNULL((${forJsonSelect}), N'[]')`;
}

/** One key/value pair of a FOR JSON row: `value AS [key]` (a dotted key nests). */
export interface JsonColumn {
  readonly key: string;
  readonly value: Fragment;
}

/** The SELECT list of a FOR JSON row. */
export function jsonColumns(columns: readonly JsonColumn[]): Fragment {
  return join(
    columns.map((c) => sql`${c.value} AS ${{ kind: 'ident', name: c.key }}`),
    ', ',
  );
}
