/** ir.OrderBy → sort-key expressions over one row alias. */
import type * as ir from '../../../ir/index.ts';
import { ident, join, qualified, raw, sql, type Fragment } from '../../sql/fragment.ts';
import { conjunction, translateBoolExp, translateJoin } from './bool-exp.ts';
import { translateComputedCall } from './computed-field.ts';
import { columnOf, type AliasCounter } from './context.ts';

/** A cell of `row` as an inherited role sees it: null where `visible` fails (Note [Cells a sort key reads]). */
function visibleValue(value: Fragment, visible: ir.BoolExp | undefined, row: string, aliases: AliasCounter): Fragment {
  if (visible === undefined) return value;
  return sql`(CASE WHEN ${translateBoolExp(visible, row, aliases)} THEN ${value} END)`;
}

/** `count(*)` or `op(column)` over rows named `inner`. */
function aggregateOf(a: ir.AggregateKey, inner: string, aliases: AliasCounter): Fragment {
  return a.kind === 'count' ? raw('count(*)') : sql`${raw(a.op)}(${visibleValue(columnOf(inner, a.column), a.visible, inner, aliases)})`;
}

/** The value a sort key reads, for rows named `row`. */
export function translateOrderTarget(t: ir.OrderTarget, row: string, aliases: AliasCounter): Fragment {
  switch (t.kind) {
    case 'column':
      return visibleValue(columnOf(row, t.column), t.visible, row, aliases);
    case 'computed-field':
      return visibleValue(translateComputedCall(t.call, row), t.visible, row, aliases);
    case 'object-relationship': {
      const inner = aliases.fresh();
      const conds = translateJoin(t.mapping, row, inner);
      if (t.keyVisible !== undefined) conds.push(translateBoolExp(t.keyVisible, row, aliases));
      if (t.filter !== null) conds.push(translateBoolExp(t.filter, inner, aliases));
      const key = translateOrderTarget(t.key, inner, aliases);
      return sql`(SELECT ${key} FROM ${qualified(t.target.schema, t.target.name)} AS ${ident(inner)} WHERE ${conjunction(conds)} LIMIT 1)`;
    }
    case 'computed-aggregate': {
      const inner = aliases.fresh();
      const rows = sql`${translateComputedCall(t.call, row)} AS ${ident(inner)}`;
      const agg = aggregateOf(t.aggregate, inner, aliases);
      if (t.filter === null) return sql`(SELECT ${agg} FROM ${rows})`;
      return sql`(SELECT ${agg} FROM ${rows} WHERE ${translateBoolExp(t.filter, inner, aliases)})`;
    }
    case 'array-aggregate': {
      const inner = aliases.fresh();
      const conds = translateJoin(t.mapping, row, inner);
      if (t.keyVisible !== undefined) conds.push(translateBoolExp(t.keyVisible, row, aliases));
      if (t.filter !== null) conds.push(translateBoolExp(t.filter, inner, aliases));
      const agg = aggregateOf(t.aggregate, inner, aliases);
      return sql`(SELECT ${agg} FROM ${qualified(t.target.schema, t.target.name)} AS ${ident(inner)} WHERE ${conjunction(conds)})`;
    }
  }
}

/** `expr ASC NULLS LAST` etc. */
export function sortKey(expr: Fragment, o: ir.OrderBy): Fragment {
  return sql`${expr} ${raw(o.direction === 'asc' ? 'ASC' : 'DESC')} ${raw(o.nulls === 'first' ? 'NULLS FIRST' : 'NULLS LAST')}`;
}

/** A comma-separated ORDER BY list. */
export function orderList(keys: readonly Fragment[]): Fragment {
  return join(keys, ', ');
}
