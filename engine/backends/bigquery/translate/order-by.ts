/** ir.OrderBy → GoogleSQL sort keys over one row alias. */
import type * as ir from '../../../ir/index.ts';
import { ident, join, raw, sql, type Fragment } from '../../sql/fragment.ts';
import { conjunction, translateBoolExp, translateJoin } from './bool-exp.ts';
import { columnOf, tableOf, unsupported, type Ctx } from './context.ts';

/** GoogleSQL's name of each aggregate function. */
export const AGGREGATE_FUNCTIONS: Readonly<Record<ir.AggregateOp, string>> = {
  sum: 'SUM',
  avg: 'AVG',
  max: 'MAX',
  min: 'MIN',
  stddev: 'STDDEV',
  stddev_pop: 'STDDEV_POP',
  stddev_samp: 'STDDEV_SAMP',
  var_pop: 'VAR_POP',
  var_samp: 'VAR_SAMP',
  variance: 'VARIANCE',
};

/** A cell as an inherited role sees it: null where `visible` fails. */
export function visibleValue(value: Fragment, visible: ir.BoolExp | undefined, row: string, ctx: Ctx): Fragment {
  return visible === undefined ? value : sql`(CASE WHEN ${translateBoolExp(visible, row, ctx)} THEN ${value} END)`;
}

function aggregateOf(a: ir.AggregateKey, inner: string, ctx: Ctx): Fragment {
  return a.kind === 'count' ? raw('COUNT(*)') : sql`${raw(AGGREGATE_FUNCTIONS[a.op])}(${visibleValue(columnOf(inner, a.column), a.visible, inner, ctx)})`;
}

/** The value a sort key reads, for rows named `row`. */
export function translateOrderTarget(t: ir.OrderTarget, row: string, ctx: Ctx): Fragment {
  switch (t.kind) {
    case 'column':
      return visibleValue(columnOf(row, t.column), t.visible, row, ctx);
    case 'object-relationship': {
      const inner = ctx.fresh();
      const conds = translateJoin(t.mapping, row, inner);
      if (t.keyVisible !== undefined) conds.push(translateBoolExp(t.keyVisible, row, ctx));
      if (t.filter !== null) conds.push(translateBoolExp(t.filter, inner, ctx));
      return sql`(SELECT ${translateOrderTarget(t.key, inner, ctx)} FROM ${tableOf(t.target)} AS ${ident(inner)} WHERE ${conjunction(conds)} LIMIT 1)`;
    }
    case 'array-aggregate': {
      const inner = ctx.fresh();
      const conds = translateJoin(t.mapping, row, inner);
      if (t.keyVisible !== undefined) conds.push(translateBoolExp(t.keyVisible, row, ctx));
      if (t.filter !== null) conds.push(translateBoolExp(t.filter, inner, ctx));
      return sql`(SELECT ${aggregateOf(t.aggregate, inner, ctx)} FROM ${tableOf(t.target)} AS ${ident(inner)} WHERE ${conjunction(conds)})`;
    }
    case 'computed-field':
    case 'computed-aggregate':
      throw unsupported('computed fields');
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
