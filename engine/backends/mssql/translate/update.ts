/**
 * ir.Update / ir.Delete → the statement writing into `[#written]` (Note
 * [MSSQL mutations] in written.ts):
 *
 *   UPDATE [_0] SET [name] = [_1].[name], [n] = [_0].[n] + [_2].[n]
 *   OUTPUT INSERTED.*, CAST(0 AS BIGINT), N'UPDATE' INTO [#written]
 *   FROM [dbo].[t] AS [_0] CROSS APPLY OPENJSON(@p1) WITH (...) AS [_1] CROSS APPLY OPENJSON(@p2) WITH (...) AS [_2]
 *   WHERE <permission filter AND where>;
 *
 * v2 compat: MSSQL updates have `_set` and `_inc` (the JSON operators are
 * PostgreSQL's).
 */
import type * as ir from '../../../ir/index.ts';
import type { CompileTarget } from '../../backend.ts';
import { ident, join, param, qualified, raw, sql, stringLiteral, type Fragment } from '../../sql/fragment.ts';
import { translateBoolExp } from './bool-exp.ts';
import { columnOf, unsupported, type AliasCounter } from './context.ts';
import { openJsonRow } from './insert.ts';
import { assertion, WRITTEN } from './written.ts';

const JSON_TEXT = { dbType: 'nvarchar', list: false } as const;

function assignment(op: ir.UpdateOp, c: ir.InputColumn, row: string, arg: string): Fragment {
  const cur = columnOf(row, c.column);
  const v = columnOf(arg, c.column);
  switch (op.kind) {
    case 'set':
      return v;
    case 'inc':
      return sql`${cur} + ${v}`;
    case 'mul':
      return sql`${cur} * ${v}`;
    case 'default':
      return raw('DEFAULT');
    default:
      throw unsupported(`the _${op.kind} update operator`);
  }
}

/** The statements of an update: the write, then the update permission's check. */
export function translateUpdate(u: ir.Update, target: CompileTarget, aliases: AliasCounter): Fragment[] {
  const row = aliases.fresh();
  const from: Fragment[] = [sql`${qualified(u.table.schema, u.table.name)} AS ${ident(row)}`];
  const sets = new Map<string, Fragment>();
  for (const op of u.ops) {
    if (op.kind === 'default') {
      for (const c of op.columns) sets.set(c.column, raw('DEFAULT'));
      continue;
    }
    const arg = aliases.fresh();
    from.push(sql`CROSS APPLY ${openJsonRow(param(op.value, null, JSON_TEXT), op.columns, u.table, target)} AS ${ident(arg)}`);
    for (const c of op.columns) sets.set(c.column, assignment(op, c, row, arg));
  }
  if (u.presets !== null) {
    // Presets win over the request's operators.
    const arg = aliases.fresh();
    const cols = u.presets.columns.map((c) => ({ column: c, key: c }));
    from.push(sql`CROSS APPLY ${openJsonRow(param(u.presets.value, null, JSON_TEXT), cols, u.table, target)} AS ${ident(arg)}`);
    for (const c of u.presets.columns) sets.set(c, columnOf(arg, c));
  }
  const where = translateBoolExp(u.where, row, aliases);
  const write =
    sets.size === 0
      ? // Nothing to set: the matching rows are the answer, unchanged.
        sql`INSERT INTO ${ident(WRITTEN)} SELECT ${ident(row)}.*, CAST(0 AS BIGINT), ${stringLiteral('UPDATE')} FROM ${join(from, ' ')} WHERE ${where};`
      : sql`UPDATE ${ident(row)} SET ${join(
          [...sets].map(([c, v]) => sql`${ident(c)} = ${v}`),
          ', ',
        )} OUTPUT INSERTED.*, CAST(0 AS BIGINT), ${stringLiteral('UPDATE')} INTO ${ident(WRITTEN)} FROM ${join(from, ' ')} WHERE ${where};`;
  const out = [write];
  if (u.check !== null) out.push(assertion(u.check, null, 'check constraint of an update permission has failed', aliases));
  return out;
}

/** The statement of a delete. */
export function translateDelete(d: ir.Delete, aliases: AliasCounter): Fragment[] {
  const row = aliases.fresh();
  const where = translateBoolExp(d.where, row, aliases);
  return [
    sql`DELETE ${ident(row)} OUTPUT DELETED.*, CAST(0 AS BIGINT), ${stringLiteral('DELETE')} INTO ${ident(WRITTEN)} FROM ${qualified(d.table.schema, d.table.name)} AS ${ident(row)} WHERE ${where};`,
  ];
}
