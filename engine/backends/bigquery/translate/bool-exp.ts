/** ir.BoolExp → a GoogleSQL boolean expression over one row alias. */
import type * as ir from '../../../ir/index.ts';
import { AGGREGATE_VALUE, isTrue } from '../../../ir/bool-exp.ts';
import { ident, join, param, raw, sql, type Fragment } from '../../sql/fragment.ts';
import { canonicalType } from '../scalars.ts';
import { columnOf, tableOf, unsupported, type Ctx } from './context.ts';

const INFIX: Partial<Record<ir.CompareOp, string>> = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=', like: 'LIKE', nlike: 'NOT LIKE' };

function columnExpr(row: string, ref: ir.ColumnRef): Fragment {
  if (ref.computed !== undefined) throw unsupported('computed fields');
  const c = columnOf(row, ref.column);
  return ref.cast === null ? c : sql`CAST(${c} AS ${raw(canonicalType(ref.cast))})`;
}

/** `inner.remote = outer.local` conditions joining related rows. */
export function translateJoin(mapping: ir.ColumnMapping, outer: string, inner: string): Fragment[] {
  return mapping.map(([local, remote]) => sql`${columnOf(inner, remote)} = ${columnOf(outer, local)}`);
}

/** `(a AND b ...)`, `TRUE` for none. */
export function conjunction(parts: readonly Fragment[]): Fragment {
  if (parts.length === 0) return raw('TRUE');
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  return sql`(${join(parts, ' AND ')})`;
}

function compare(e: Extract<ir.BoolExp, { kind: 'compare' }>, row: string): Fragment {
  const left = columnExpr(row, e.left);
  const dbType = e.left.cast ?? e.dbType;
  const one = (): Fragment => param(e.right, null, { dbType, list: false });
  switch (e.op) {
    case 'in':
      return sql`(${left} IN UNNEST(${param(e.right, null, { dbType, list: true })}))`;
    case 'nin':
      return sql`(${left} NOT IN UNNEST(${param(e.right, null, { dbType, list: true })}))`;
    case 'ilike':
      return sql`(LOWER(${left}) LIKE LOWER(${one()}))`;
    case 'nilike':
      return sql`(LOWER(${left}) NOT LIKE LOWER(${one()}))`;
    case 'regex':
      return sql`REGEXP_CONTAINS(${left}, ${one()})`;
    case 'nregex':
      return sql`(NOT REGEXP_CONTAINS(${left}, ${one()}))`;
    case 'iregex':
      return sql`REGEXP_CONTAINS(${left}, CONCAT('(?i)', ${one()}))`;
    case 'niregex':
      return sql`(NOT REGEXP_CONTAINS(${left}, CONCAT('(?i)', ${one()})))`;
    default: {
      const op = INFIX[e.op];
      if (op === undefined) throw unsupported(`the _${e.op} operator`);
      return sql`(${left} ${raw(op)} ${one()})`;
    }
  }
}

/** Translates `e` for rows named `row`; `root` is the row `["$", column]` references read. */
export function translateBoolExp(e: ir.BoolExp, row: string, ctx: Ctx, root: string = row): Fragment {
  const sub = (x: ir.BoolExp, r: string): Fragment => translateBoolExp(x, r, ctx, root);
  switch (e.kind) {
    case 'permission-root':
      return translateBoolExp(e.item, row, ctx, row);
    case 'and':
      return conjunction(e.items.map((i) => sub(i, row)));
    case 'or':
      if (e.items.length === 0) return raw('FALSE');
      return sql`(${join(
        e.items.map((i) => sub(i, row)),
        ' OR ',
      )})`;
    case 'not':
      return sql`(NOT ${sub(e.item, row)})`;
    case 'is-null':
      return sql`(${columnExpr(row, e.left)} ${raw(e.isNull ? 'IS NULL' : 'IS NOT NULL')})`;
    case 'compare':
      return compare(e, row);
    case 'compare-columns': {
      const op = INFIX[e.op] ?? '=';
      return sql`(${columnExpr(row, e.left)} ${raw(op)} ${columnExpr(e.rightRoot === true ? root : row, e.right)})`;
    }
    case 'relationship': {
      const inner = ctx.fresh();
      const conds = [...translateJoin(e.mapping, row, inner), sub(e.where, inner)];
      return sql`EXISTS (SELECT 1 FROM ${tableOf(e.target)} AS ${ident(inner)} WHERE ${conjunction(conds)})`;
    }
    case 'exists': {
      const inner = ctx.fresh();
      return sql`EXISTS (SELECT 1 FROM ${tableOf(e.target)} AS ${ident(inner)} WHERE ${sub(e.where, inner)})`;
    }
    case 'aggregate': {
      const inner = ctx.fresh();
      const agg = ctx.fresh();
      const conds = translateJoin(e.mapping, row, inner);
      if (!isTrue(e.where)) conds.push(sub(e.where, inner));
      const cols = e.aggregate.columns.map((c) => columnOf(inner, c));
      const arg = cols.length === 1 && cols[0] !== undefined ? cols[0] : sql`TO_JSON_STRING(STRUCT(${join(cols, ', ')}))`;
      const value =
        e.aggregate.fn === 'count'
          ? cols.length === 0
            ? raw('COUNT(*)')
            : e.aggregate.distinct
              ? sql`COUNT(DISTINCT ${arg})`
              : sql`COUNT(${arg})`
          : sql`${raw(e.aggregate.fn === 'bool_and' ? 'LOGICAL_AND' : 'LOGICAL_OR')}(${arg})`;
      const rows = sql`(SELECT ${value} AS ${ident(AGGREGATE_VALUE)} FROM ${tableOf(e.target)} AS ${ident(inner)} WHERE ${conjunction(conds)})`;
      return sql`EXISTS (SELECT 1 FROM ${rows} AS ${ident(agg)} WHERE ${sub(e.predicate, agg)})`;
    }
    case 'holds':
      return sql`COALESCE(${sub(e.item, row)}, FALSE)`;
    case 'computed-rows':
      throw unsupported('computed fields');
    case 'in-arrays':
      throw unsupported('_in on array columns');
  }
}
