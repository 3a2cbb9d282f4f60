/**
 * ir.Update / ir.Delete → the data-modifying CTE of one statement:
 *
 *   "_w" AS (UPDATE "s"."t" AS "_0"
 *            SET "name" = "_1"."name", "n" = "_0"."n" + "_2"."n", ...
 *            FROM jsonb_populate_record(NULL::"s"."t", $1) AS "_1", ...
 *            WHERE <permission filter AND where> RETURNING "_0".*)
 *
 * Each operator argument (`_set`, `_inc`, ...) is one JSON parameter (Note
 * [Mutation inputs as JSON] in ir/mutation.ts); jsonb_populate_record gives
 * its values the columns' types, so the database validates them.
 */
import type * as ir from '../../../ir/index.ts';
import { ident, join, param, qualified, raw, sql, stringLiteral, type Fragment } from '../../sql/fragment.ts';
import { translateBoolExp } from './bool-exp.ts';
import { columnOf, type AliasCounter } from './context.ts';
import type { Assertion } from './insert.ts';

/** The name of the CTE holding the written rows. */
export const WRITTEN = '_w';

/** A translated update or delete. */
export interface TranslatedWrite {
  readonly cte: Fragment;
  readonly assertions: readonly Assertion[];
}

/** A JSON object keyed by GraphQL names, made a row of the table (keys renamed to column names when they differ). */
function record(table: ir.QualifiedName, json: Fragment, columns: readonly ir.InputColumn[]): Fragment {
  const renamed = columns.some((c) => c.key !== c.column);
  const body = renamed
    ? sql`jsonb_build_object(${join(
        columns.map((c) => sql`${stringLiteral(c.column)}, ${json} -> ${stringLiteral(c.key)}`),
        ', ',
      )})`
    : json;
  return sql`jsonb_populate_record(NULL::${qualified(table.schema, table.name)}, ${body})`;
}

/** `column = <new value>` for one column of one operator. */
function assignment(op: ir.UpdateOp, c: ir.InputColumn, row: string, arg: string, json: string): Fragment {
  const cur = columnOf(row, c.column);
  const v = columnOf(arg, c.column);
  const key = stringLiteral(c.key);
  const j = columnOf(json, 'j');
  switch (op.kind) {
    case 'set':
      return v;
    case 'inc':
      return sql`${cur} + ${v}`;
    case 'mul':
      return sql`${cur} * ${v}`;
    case 'default':
      return raw('DEFAULT');
    case 'append':
      return sql`${cur} || ${v}`;
    case 'prepend':
      return sql`${v} || ${cur}`;
    case 'delete_key':
      return sql`${cur} - (${j} ->> ${key})`;
    case 'delete_elem':
      return sql`${cur} - (${j} ->> ${key})::int`;
    case 'delete_at_path':
      return sql`${cur} #- ARRAY(SELECT jsonb_array_elements_text(${j} -> ${key}))`;
  }
}

function typed(op: ir.UpdateOp): boolean {
  return op.kind === 'set' || op.kind === 'inc' || op.kind === 'mul' || op.kind === 'append' || op.kind === 'prepend';
}

/** The UPDATE CTE of `u`. */
export function translateUpdate(u: ir.Update, aliases: AliasCounter): TranslatedWrite {
  const row = aliases.fresh();
  const table = qualified(u.table.schema, u.table.name);
  const sets: Fragment[] = [];
  const froms: Fragment[] = [];
  for (const op of u.ops) {
    if (op.kind === 'default') {
      for (const c of op.columns) sets.push(sql`${ident(c.column)} = DEFAULT`);
      continue;
    }
    const json = aliases.fresh();
    froms.push(sql`(SELECT ${param(op.value, 'jsonb')} AS "j") AS ${ident(json)}`);
    const arg = typed(op) ? aliases.fresh() : json;
    if (typed(op)) froms.push(sql`${record(u.table, columnOf(json, 'j'), op.columns)} AS ${ident(arg)}`);
    for (const c of op.columns) sets.push(sql`${ident(c.column)} = ${assignment(op, c, row, arg, json)}`);
  }
  if (u.presets !== null) {
    const p = aliases.fresh();
    froms.push(sql`jsonb_populate_record(NULL::${table}, ${param(u.presets.value, 'jsonb')}) AS ${ident(p)}`);
    for (const c of u.presets.columns) sets.push(sql`${ident(c)} = ${columnOf(p, c)}`);
  }
  const cte = sql`${ident(WRITTEN)} AS (UPDATE ${table} AS ${ident(row)} SET ${join(sets, ', ')}${froms.length === 0 ? raw('') : sql` FROM ${join(froms, ', ')}`} WHERE ${translateBoolExp(u.where, row, aliases)} RETURNING ${ident(row)}.*)`;
  const assertions: Assertion[] = [];
  if (u.check !== null) {
    const a = aliases.fresh();
    assertions.push({
      failed: sql`EXISTS (SELECT 1 FROM ${ident(WRITTEN)} AS ${ident(a)} WHERE (${translateBoolExp(u.check, a, aliases)}) IS NOT TRUE)`,
      code: 'permission-error',
      message: 'check constraint of an update permission has failed',
    });
  }
  return { cte, assertions };
}

/** The DELETE CTE of `d`. */
export function translateDelete(d: ir.Delete, aliases: AliasCounter): TranslatedWrite {
  const row = aliases.fresh();
  const where = translateBoolExp(d.where, row, aliases);
  const cte = sql`${ident(WRITTEN)} AS (DELETE FROM ${qualified(d.table.schema, d.table.name)} AS ${ident(row)} WHERE ${where} RETURNING ${ident(row)}.*)`;
  return { cte, assertions: [] };
}

/** `(SELECT count(*) FROM "_w")`. */
export const writtenCount: Fragment = sql`(SELECT count(*) FROM ${ident(WRITTEN)})`;
