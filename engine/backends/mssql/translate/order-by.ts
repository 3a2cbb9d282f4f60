/**
 * ir.OrderBy → T-SQL sort keys over one row alias. SQL Server has no NULLS
 * FIRST/LAST: it sorts nulls first ascending and last descending, so a key
 * asking otherwise is preceded by `CASE WHEN x IS NULL THEN 1 ELSE 0 END`.
 * v2 compat: its MSSQL `asc` is nulls first and `desc` nulls last (the IR
 * already says which).
 */
import type * as ir from '../../../ir/index.ts';
import { ident, join, qualified, raw, sql, type Fragment } from '../../sql/fragment.ts';
import { conjunction, translateBoolExp, translateJoin } from './bool-exp.ts';
import { columnOf, unsupported, type AliasCounter } from './context.ts';

/** A cell as an inherited role sees it: null where `visible` fails (Note [Cells a sort key reads] in ir/order-by.ts). */
function visibleValue(value: Fragment, visible: ir.BoolExp | undefined, row: string, aliases: AliasCounter): Fragment {
  if (visible === undefined) return value;
  return sql`(CASE WHEN ${translateBoolExp(visible, row, aliases)} THEN ${value} END)`;
}

/** The T-SQL name of an aggregate function (v2's MSSQL names), applied to `arg`. */
export function aggregateCall(op: ir.AggregateOp, arg: Fragment): Fragment {
  switch (op) {
    case 'sum':
      return sql`SUM(${arg})`;
    case 'avg':
      // AVG of integers is an integer in T-SQL; GraphQL's avg is a Float.
      return sql`AVG(CAST(${arg} AS FLOAT))`;
    case 'max':
      return sql`MAX(${arg})`;
    case 'min':
      return sql`MIN(${arg})`;
    case 'stddev':
    case 'stddev_samp':
      return sql`STDEV(${arg})`;
    case 'stddev_pop':
      return sql`STDEVP(${arg})`;
    case 'variance':
    case 'var_samp':
      return sql`VAR(${arg})`;
    case 'var_pop':
      return sql`VARP(${arg})`;
  }
}

function aggregateOf(a: ir.AggregateKey, inner: string, aliases: AliasCounter): Fragment {
  return a.kind === 'count' ? raw('COUNT(*)') : aggregateCall(a.op, visibleValue(columnOf(inner, a.column), a.visible, inner, aliases));
}

/** The value a sort key reads, for rows named `row`. */
export function translateOrderTarget(t: ir.OrderTarget, row: string, aliases: AliasCounter): Fragment {
  switch (t.kind) {
    case 'column':
      return visibleValue(columnOf(row, t.column), t.visible, row, aliases);
    case 'object-relationship': {
      const inner = aliases.fresh();
      const conds = translateJoin(t.mapping, row, inner);
      if (t.keyVisible !== undefined) conds.push(translateBoolExp(t.keyVisible, row, aliases));
      if (t.filter !== null) conds.push(translateBoolExp(t.filter, inner, aliases));
      const key = translateOrderTarget(t.key, inner, aliases);
      return sql`(SELECT TOP (1) ${key} FROM ${qualified(t.target.schema, t.target.name)} AS ${ident(inner)} WHERE ${conjunction(conds)})`;
    }
    case 'array-aggregate': {
      const inner = aliases.fresh();
      const conds = translateJoin(t.mapping, row, inner);
      if (t.keyVisible !== undefined) conds.push(translateBoolExp(t.keyVisible, row, aliases));
      if (t.filter !== null) conds.push(translateBoolExp(t.filter, inner, aliases));
      const agg = aggregateOf(t.aggregate, inner, aliases);
      return sql`(SELECT ${agg} FROM ${qualified(t.target.schema, t.target.name)} AS ${ident(inner)} WHERE ${conjunction(conds)})`;
    }
    case 'computed-field':
    case 'computed-aggregate':
      throw unsupported('a computed field');
  }
}

/** The sort keys of `expr` in `o`'s direction, nulls where `o` puts them. */
export function sortKeys(expr: Fragment, o: ir.OrderBy): Fragment[] {
  const dir = raw(o.direction === 'asc' ? 'ASC' : 'DESC');
  const nativeNulls = o.direction === 'asc' ? 'first' : 'last';
  if (o.nulls === nativeNulls) return [sql`${expr} ${dir}`];
  return [
    sql`(CASE WHEN ${expr} IS NULL THEN ${raw(o.nulls === 'first' ? '0' : '1')} ELSE ${raw(o.nulls === 'first' ? '1' : '0')} END) ASC`,
    sql`${expr} ${dir}`,
  ];
}

/** A comma-separated ORDER BY list. */
export function orderList(keys: readonly Fragment[]): Fragment {
  return join(keys, ', ');
}
