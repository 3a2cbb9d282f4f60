/**
 * Note [MSSQL mutations]
 * A mutation root field is one T-SQL batch, one request (sp_executesql with
 * typed parameters), in the operation's transaction:
 *
 *   SET NOCOUNT ON;
 *   SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS [__ord], CAST(N'' AS NVARCHAR(10)) AS [__action]
 *     INTO [#written] FROM [dbo].[t] AS [_t] UNION ALL SELECT TOP (0) ... ;
 *   <MERGE | UPDATE | DELETE> ... OUTPUT INSERTED.*, <ordinal>, <action> INTO [#written];
 *   IF EXISTS (SELECT 1 FROM [#written] AS [_c] WHERE <check does not hold>)
 *     BEGIN THROW 50001, N'check constraint of an insert permission has failed', 1; END;
 *   SELECT (<the field's JSON, read from [#written]>) AS [data];
 *
 * - `[#written]` holds the written rows as OUTPUT gives them (PostgreSQL's
 *   RETURNING): a temporary table of the table's own columns, made by SELECT
 *   INTO so the batch needs no column types; the UNION ALL keeps SELECT INTO
 *   from copying an IDENTITY property (OUTPUT could not write the column).
 *   It lives as long as the batch (sp_executesql's scope), so the fields of
 *   one transaction never see each other's.
 * - OUTPUT always writes INTO a table: SQL Server refuses a bare OUTPUT on a
 *   table with triggers.
 * - Inserts are MERGE statements, also without `if_matched` (`ON (1 = 0)`):
 *   only MERGE's OUTPUT may read the source row, which gives each written row
 *   its input ordinal (`returning` keeps the input order) and, in an upsert,
 *   `$action` tells inserted rows (insert check) from updated ones (update
 *   check). v2 compat: its MSSQL upserts (`if_matched`) are MERGE too;
 *   `WITH (HOLDLOCK)` makes one atomic against concurrent inserts.
 * - Input rows and `_set`/`_inc` objects are one JSON parameter each (Note
 *   [Mutation inputs as JSON] in ir/mutation.ts), read with `OPENJSON ...
 *   WITH (column type path)`: text for numbers, dates and GUIDs (SQL Server
 *   converts text to the column's type on assignment, exactly), BIT and
 *   VARBINARY where text does not convert (scalars.ts, jsonReadType).
 * - Permission checks run on `[#written]` after the write: THROW (error
 *   50001, our message) aborts the batch and, under XACT_ABORT
 *   (connection.ts), rolls the whole transaction back; errors.ts maps it to
 *   v2's `permission-error`.
 * - Nested inserts are not offered (capabilities.nestedInserts; v2's MSSQL
 *   has none either).
 */
import type * as ir from '../../../ir/index.ts';
import { ident, join, qualified, raw, sql, stringLiteral, type Fragment } from '../../sql/fragment.ts';
import { translateBoolExp } from './bool-exp.ts';
import { columnOf, type AliasCounter } from './context.ts';
import { FOR_JSON_ARRAY, FOR_JSON_OBJECT, jsonArrayOf, jsonColumns, jsonQuery } from './json.ts';
import { rowColumns } from './select.ts';

/** The temporary table of the written rows. */
export const WRITTEN = '#written';
/** Its column with the input ordinal of a row (0 when there is no input order). */
export const ORD = '__ord';
/** Its column with MERGE's `$action` (`INSERT`, `UPDATE`, `DELETE`). */
export const ACTION = '__action';

/** The error number of an assertion's THROW (errors.ts maps it back). */
export const ASSERTION_ERROR = 50001;

/** `SELECT TOP (0) ... INTO [#written]`: the written rows' table, shaped like `table`. */
export function createWritten(table: ir.QualifiedName): Fragment {
  const t = qualified(table.schema, table.name);
  return sql`SELECT TOP (0) [_t].*, CAST(0 AS BIGINT) AS ${ident(ORD)}, CAST(N'' AS NVARCHAR(10)) AS ${ident(ACTION)} INTO ${ident(WRITTEN)} FROM ${t} AS [_t] UNION ALL SELECT TOP (0) [_t].*, CAST(0 AS BIGINT), CAST(N'' AS NVARCHAR(10)) FROM ${t} AS [_t];`;
}

/** A permission check on the written rows (of one `$action` when given): THROW when a row fails it. */
export function assertion(check: ir.BoolExp, action: 'INSERT' | 'UPDATE' | null, message: string, aliases: AliasCounter): Fragment {
  const row = aliases.fresh();
  const holds = sql`(CASE WHEN ${translateBoolExp(check, row, aliases)} THEN 1 ELSE 0 END = 1)`;
  const which = action === null ? raw('') : sql`${columnOf(row, ACTION)} = ${stringLiteral(action)} AND `;
  return sql`IF EXISTS (SELECT 1 FROM ${ident(WRITTEN)} AS ${ident(row)} WHERE ${which}NOT ${holds}) BEGIN THROW ${raw(String(ASSERTION_ERROR))}, ${stringLiteral(message)}, 1; END;`;
}

/** The written rows a role may read (its select filter), as `FROM ... WHERE ...` over alias `row`. */
function readable(filter: ir.BoolExp | null, row: string, aliases: AliasCounter): Fragment {
  const where = filter === null ? raw('') : sql` WHERE ${translateBoolExp(filter, row, aliases)}`;
  return sql` FROM ${ident(WRITTEN)} AS ${ident(row)}${where}`;
}

/** The final SELECT of a mutation batch: the field's JSON, built from `[#written]`. */
export function outputSelect(output: ir.MutationOutput, aliases: AliasCounter): Fragment {
  if (output.kind === 'row') {
    const row = aliases.fresh();
    const cols = jsonColumns(rowColumns(output.fields, row, aliases));
    return sql`SELECT (SELECT TOP (1) ${cols}${readable(output.filter, row, aliases)} ORDER BY ${columnOf(row, ORD)}${FOR_JSON_OBJECT}) AS [data];`;
  }
  const columns = output.fields.map((f) => {
    switch (f.kind) {
      case 'affected-rows':
        // Every written row counts, also those the role may not read back (v2).
        return { key: f.alias, value: sql`(SELECT COUNT(*) FROM ${ident(WRITTEN)})` };
      case 'typename':
        return { key: f.alias, value: stringLiteral(f.typename) };
      case 'returning': {
        const row = aliases.fresh();
        const cols = jsonColumns(rowColumns(f.fields, row, aliases));
        return {
          key: f.alias,
          value: jsonQuery(jsonArrayOf(sql`SELECT ${cols}${readable(output.filter, row, aliases)} ORDER BY ${columnOf(row, ORD)}${FOR_JSON_ARRAY}`)),
        };
      }
    }
  });
  return sql`SELECT (SELECT ${jsonColumns(columns)}${FOR_JSON_OBJECT}) AS [data];`;
}

/** The statements of a batch, one per line of the text sent (one request). */
export function batch(statements: readonly Fragment[]): Fragment {
  return join([raw('SET NOCOUNT ON;'), ...statements], ' ');
}
