/**
 * The JSON a mutation field answers, built over the rows it wrote: a
 * `<t>_mutation_response` object or one row object. Rows come from a CTE of
 * the statement (RETURNING rows) or, after a nested insert, from the table
 * itself in a second statement (see Note [Nested insert shape] in insert.ts).
 */
import type * as ir from '../../../ir/index.ts';
import { ident, raw, sql, type Fragment } from '../../sql/fragment.ts';
import { jsonArrayAgg, jsonObject, type JsonPair } from '../json.ts';
import { translateBoolExp } from './bool-exp.ts';
import { columnOf, type AliasCounter } from './context.ts';
import { typenameValue } from './row-parts.ts';
import { rowJson } from './select.ts';

/** Where the written rows are read from when building the output. */
export interface WrittenRows {
  /** `FROM` item yielding the rows, aliased `alias` (columns of the table). */
  readonly from: (alias: string) => Fragment;
  /** Sort key over `alias` giving the input order, or null. */
  readonly order: ((alias: string) => Fragment) | null;
  /** The affected_rows value. */
  readonly count: Fragment;
}

function rowsQuery(out: ir.MutationOutput, fields: readonly ir.Field[], rows: WrittenRows, aliases: AliasCounter, one: boolean): Fragment {
  const a = aliases.fresh();
  const where = out.filter === null ? raw('') : sql` WHERE ${translateBoolExp(out.filter, a, aliases)}`;
  const order = rows.order === null ? null : rows.order(a);
  const row = rowJson(fields, a, aliases);
  if (one) {
    const by = order === null ? raw('') : sql` ORDER BY ${order}`;
    return sql`(SELECT ${row} FROM ${rows.from(a)}${where}${by} LIMIT 1)`;
  }
  return sql`(SELECT ${jsonArrayAgg(row, order)} FROM ${rows.from(a)}${where})`;
}

/** The output JSON expression of a mutation over `rows`. */
export function translateMutationOutput(out: ir.MutationOutput, rows: WrittenRows, aliases: AliasCounter): Fragment {
  if (out.kind === 'row') return rowsQuery(out, out.fields, rows, aliases, true);
  const pairs: JsonPair[] = out.fields.map((f) => {
    switch (f.kind) {
      case 'affected-rows':
        return { key: f.alias, value: rows.count };
      case 'typename':
        return { key: f.alias, value: typenameValue(f.typename) };
      case 'returning':
        return { key: f.alias, value: rowsQuery(out, f.fields, rows, aliases, false) };
    }
  });
  return jsonObject(pairs);
}

/** Rows of a CTE named `cte`, optionally in the order of its `__ord` column. */
export function cteRows(cte: string, count: Fragment, ordered: boolean): WrittenRows {
  return {
    from: (alias) => sql`${ident(cte)} AS ${ident(alias)}`,
    order: ordered ? (alias) => columnOf(alias, '__ord') : null,
    count,
  };
}

/** True when the output reads a relationship of a returned row. */
export function outputFollowsRelationships(out: ir.MutationOutput): boolean {
  const fields = out.kind === 'row' ? out.fields : out.fields.flatMap((f) => (f.kind === 'returning' ? f.fields : []));
  return fields.some((f) => f.kind !== 'column' && f.kind !== 'typename');
}
