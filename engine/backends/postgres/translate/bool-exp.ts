/** ir.BoolExp → a Postgres boolean expression over one row alias. */
import type * as ir from '../../../ir/index.ts';
import { AGGREGATE_VALUE, isTrue } from '../../../ir/bool-exp.ts';
import { ident, join, param, qualified, raw, sql, type Fragment } from '../../sql/fragment.ts';
import { isJsonType } from '../scalars.ts';
import { translateComputedCall } from './computed-field.ts';
import { columnOf, type AliasCounter } from './context.ts';

/** Infix operators of each comparison (`in`/`nin` are handled apart). */
const INFIX: Record<Exclude<ir.CompareOp, 'in' | 'nin'>, string> = {
  eq: '=',
  neq: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  like: 'LIKE',
  nlike: 'NOT LIKE',
  ilike: 'ILIKE',
  nilike: 'NOT ILIKE',
  similar: 'SIMILAR TO',
  nsimilar: 'NOT SIMILAR TO',
  regex: '~',
  nregex: '!~',
  iregex: '~*',
  niregex: '!~*',
  contains: '@>',
  contained_in: '<@',
  has_key: '?',
  has_keys_any: '?|',
  has_keys_all: '?&',
};

/** The cast a value needs so Postgres picks the right operator. */
function valueCast(op: ir.CompareOp, dbType: string): string | null {
  switch (op) {
    case 'has_key':
      return 'text';
    case 'has_keys_any':
    case 'has_keys_all':
      return 'text[]';
    default:
      return isJsonType(dbType) ? 'jsonb' : null;
  }
}

function columnExpr(row: string, ref: ir.ColumnRef, dbType: string | null): Fragment {
  const c = ref.computed === undefined ? columnOf(row, ref.column) : translateComputedCall(ref.computed, row);
  if (ref.cast !== null) return sql`(${c})::${raw(ref.cast)}`;
  // json has no comparison operators of its own; compare as jsonb.
  if (dbType === 'json') return sql`(${c})::jsonb`;
  return c;
}

/** `local = remote` conditions joining `outer` rows to `inner` rows. */
export function translateJoin(mapping: ir.ColumnMapping, outer: string, inner: string): Fragment[] {
  return mapping.map(([local, remote]) => sql`${columnOf(inner, remote)} = ${columnOf(outer, local)}`);
}

/** `a AND b AND ...`, or `true` for none. */
export function conjunction(parts: readonly Fragment[]): Fragment {
  if (parts.length === 0) return raw('true');
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  return sql`(${join(parts, ' AND ')})`;
}

/**
 * Translates `e` for rows named `row`. `root`: the row a permission expression started on, which
 * its `["$", column]` references read (set by `permission-root`).
 */
export function translateBoolExp(e: ir.BoolExp, row: string, aliases: AliasCounter, root: string = row): Fragment {
  const sub = (x: ir.BoolExp, r: string): Fragment => translateBoolExp(x, r, aliases, root);
  switch (e.kind) {
    case 'permission-root':
      return translateBoolExp(e.item, row, aliases, row);
    case 'and':
      return conjunction(e.items.map((i) => sub(i, row)));
    case 'or':
      if (e.items.length === 0) return raw('false');
      return sql`(${join(
        e.items.map((i) => sub(i, row)),
        ' OR ',
      )})`;
    case 'not':
      return sql`(NOT ${sub(e.item, row)})`;
    case 'is-null':
      return sql`(${columnExpr(row, e.left, null)} ${raw(e.isNull ? 'IS NULL' : 'IS NOT NULL')})`;
    case 'compare': {
      const left = columnExpr(row, e.left, e.left.cast === null ? e.dbType : null);
      if (e.op === 'in' || e.op === 'nin') {
        const cast = isJsonType(e.dbType) && e.left.cast === null ? 'jsonb[]' : null;
        const v = param(e.right, cast, { dbType: e.left.cast ?? e.dbType, list: true });
        return e.op === 'in' ? sql`(${left} = ANY(${v}))` : sql`(${left} <> ALL(${v}))`;
      }
      const cast = e.left.cast === null ? valueCast(e.op, e.dbType) : null;
      const v = cast === null ? param(e.right, null, { dbType: e.left.cast ?? e.dbType, list: false }) : param(e.right, cast);
      return sql`(${left} ${raw(INFIX[e.op])} ${v})`;
    }
    case 'in-arrays': {
      // Note [Array _in]: the list of arrays is ONE jsonb parameter, unpacked by an uncorrelated
      // subquery: `= ANY (SELECT ...)` plans as a semi-join (index-usable), and `nin` is
      // `NOT (= ANY (SELECT ...))`, a hashed subplan (`<> ALL (SELECT ...)`, the same in three-valued
      // logic, is re-run for every row). Not `= ANY (ARRAY(...))`: an array of arrays is one 2-D
      // array of the elements.
      // Each array keeps its element order (WITH ORDINALITY), cast to the column's array type.
      const a = aliases.fresh();
      const el = aliases.fresh();
      const item = sql`ARRAY(SELECT ${ident(el)}.x FROM jsonb_array_elements_text(${ident(a)}.v) WITH ORDINALITY AS ${ident(el)}(x, n) ORDER BY ${ident(el)}.n)::${ident(e.dbType)}`;
      const arrays = sql`SELECT ${item} FROM jsonb_array_elements(${param(e.right, 'jsonb')}) AS ${ident(a)}(v)`;
      const left = columnExpr(row, e.left, null);
      const any = sql`(${left} = ANY (${arrays}))`;
      return e.op === 'in' ? any : sql`(NOT ${any})`;
    }
    case 'compare-columns':
      return sql`(${columnExpr(row, e.left, null)} ${raw(INFIX[e.op])} ${columnExpr(e.rightRoot === true ? root : row, e.right, null)})`;
    case 'relationship': {
      const inner = aliases.fresh();
      const conds = [...translateJoin(e.mapping, row, inner), sub(e.where, inner)];
      return sql`EXISTS (SELECT 1 FROM ${qualified(e.target.schema, e.target.name)} AS ${ident(inner)} WHERE ${conjunction(conds)})`;
    }
    case 'aggregate': {
      // The aggregate over the related rows is one row; the predicate reads its value as a column.
      const inner = aliases.fresh();
      const agg = aliases.fresh();
      const conds = translateJoin(e.mapping, row, inner);
      if (!isTrue(e.where)) conds.push(sub(e.where, inner));
      const { columns, distinct } = e.aggregate;
      const cols = columns.map((c) => columnOf(inner, c));
      const arg = cols.length === 1 && cols[0] !== undefined ? cols[0] : sql`(${join(cols, ', ')})`;
      const fn = raw(e.aggregate.fn);
      const value = cols.length === 0 ? raw('count(*)') : distinct ? sql`${fn}(DISTINCT ${arg})` : sql`${fn}(${arg})`;
      const rows = sql`(SELECT ${value} AS ${ident(AGGREGATE_VALUE)} FROM ${qualified(e.target.schema, e.target.name)} AS ${ident(inner)} WHERE ${conjunction(conds)})`;
      return sql`EXISTS (SELECT 1 FROM ${rows} AS ${ident(agg)} WHERE ${sub(e.predicate, agg)})`;
    }
    case 'computed-rows': {
      const inner = aliases.fresh();
      return sql`EXISTS (SELECT 1 FROM ${translateComputedCall(e.call, row)} AS ${ident(inner)} WHERE ${sub(e.where, inner)})`;
    }
    case 'holds':
      return sql`(${sub(e.item, row)}) IS TRUE`;
    case 'exists': {
      const inner = aliases.fresh();
      return sql`EXISTS (SELECT 1 FROM ${qualified(e.target.schema, e.target.name)} AS ${ident(inner)} WHERE ${sub(e.where, inner)})`;
    }
  }
}
