/**
 * ir.BoolExp → a T-SQL predicate over one row alias. v2 compat: MSSQL has
 * the equality, comparison, `_in`/`_nin` and `_like`/`_nlike` operators (no
 * `_ilike`, `_similar`, `_regex` or JSON operators); T-SQL has no boolean
 * literals, so true and false are `(1 = 1)` and `(1 = 0)`.
 */
import type * as ir from '../../../ir/index.ts';
import { AGGREGATE_VALUE, isTrue } from '../../../ir/bool-exp.ts';
import { ident, join, param, qualified, raw, sql, type Fragment } from '../../sql/fragment.ts';
import { columnOf, unsupported, type AliasCounter } from './context.ts';

/** Infix operators SQL Server has. */
const INFIX: Partial<Record<ir.CompareOp, string>> = {
  eq: '=',
  neq: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  like: 'LIKE',
  nlike: 'NOT LIKE',
};

export const TRUE_SQL = raw('(1 = 1)');
const FALSE_SQL = raw('(1 = 0)');

/** A type a cast names (`_cast`, text comparisons of keys), written out with a length where T-SQL's default would cut. */
export function castType(dbType: string): Fragment {
  switch (dbType) {
    case 'nvarchar':
    case 'varchar':
    case 'varbinary':
      return raw(`${dbType.toUpperCase()}(MAX)`);
    default:
      return ident(dbType);
  }
}

function columnExpr(row: string, ref: ir.ColumnRef): Fragment {
  if (ref.computed !== undefined) throw unsupported('a computed field');
  const c = columnOf(row, ref.column);
  return ref.cast === null ? c : sql`CAST(${c} AS ${castType(ref.cast)})`;
}

/** `local = remote` conditions joining `outer` rows to `inner` rows. */
export function translateJoin(mapping: ir.ColumnMapping, outer: string, inner: string): Fragment[] {
  return mapping.map(([local, remote]) => sql`${columnOf(inner, remote)} = ${columnOf(outer, local)}`);
}

/** `a AND b AND ...`, or true for none. */
export function conjunction(parts: readonly Fragment[]): Fragment {
  if (parts.length === 0) return TRUE_SQL;
  if (parts.length === 1 && parts[0] !== undefined) return parts[0];
  return sql`(${join(parts, ' AND ')})`;
}

/**
 * `_in`/`_nin`: the list is ONE parameter, JSON text of the values (the
 * connection sends a list-typed parameter so), read by OPENJSON: a plan
 * serves lists of any length, and nothing is spliced. Its `value` column is
 * text, which SQL Server converts to the column's type for the comparison.
 */
function inList(left: Fragment, op: 'in' | 'nin', right: ir.ParamSource, dbType: string): Fragment {
  const list = sql`(SELECT [value] FROM OPENJSON(${param(right, null, { dbType, list: true })}))`;
  return op === 'in' ? sql`(${left} IN ${list})` : sql`(${left} NOT IN ${list})`;
}

/** The T-SQL aggregate of an aggregate predicate (`bool_and`: every row true; bit has no MIN, tinyint does). */
function predicateAggregate(e: ir.BoolExp & { kind: 'aggregate' }, inner: string): Fragment {
  const { columns, distinct, fn } = e.aggregate;
  const cols = columns.map((c) => columnOf(inner, c));
  const first = cols[0];
  if (fn === 'bool_and' || fn === 'bool_or') {
    if (first === undefined) throw unsupported(`${fn} without a column`);
    return sql`CAST(${raw(fn === 'bool_and' ? 'MIN' : 'MAX')}(CAST(${first} AS TINYINT)) AS BIT)`;
  }
  if (first === undefined) return raw('COUNT(*)');
  if (cols.length === 1) return distinct ? sql`COUNT(DISTINCT ${first})` : sql`COUNT(${first})`;
  if (distinct) throw unsupported('a distinct count of several columns');
  // COUNT of a row counts rows whose every column is non-null (PostgreSQL's count((a, b))).
  return sql`COUNT(CASE WHEN ${join(
    cols.map((c) => sql`${c} IS NOT NULL`),
    ' AND ',
  )} THEN 1 END)`;
}

/**
 * Translates `e` for rows named `row`. `root`: the row a permission
 * expression started on, which its `["$", column]` references read.
 */
export function translateBoolExp(e: ir.BoolExp, row: string, aliases: AliasCounter, root: string = row): Fragment {
  const sub = (x: ir.BoolExp, r: string): Fragment => translateBoolExp(x, r, aliases, root);
  switch (e.kind) {
    case 'permission-root':
      return translateBoolExp(e.item, row, aliases, row);
    case 'and':
      return conjunction(e.items.map((i) => sub(i, row)));
    case 'or':
      if (e.items.length === 0) return FALSE_SQL;
      return sql`(${join(
        e.items.map((i) => sub(i, row)),
        ' OR ',
      )})`;
    case 'not':
      return sql`(NOT ${sub(e.item, row)})`;
    case 'is-null':
      return sql`(${columnExpr(row, e.left)} ${raw(e.isNull ? 'IS NULL' : 'IS NOT NULL')})`;
    case 'compare': {
      const left = columnExpr(row, e.left);
      const dbType = e.left.cast ?? e.dbType;
      if (e.op === 'in' || e.op === 'nin') return inList(left, e.op, e.right, dbType);
      const op = INFIX[e.op];
      if (op === undefined) throw unsupported(`the _${e.op} operator`);
      return sql`(${left} ${raw(op)} ${param(e.right, null, { dbType, list: false })})`;
    }
    case 'in-arrays':
      throw unsupported('an array column');
    case 'compare-columns': {
      const op = INFIX[e.op] ?? '=';
      return sql`(${columnExpr(row, e.left)} ${raw(op)} ${columnExpr(e.rightRoot === true ? root : row, e.right)})`;
    }
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
      const rows = sql`(SELECT ${predicateAggregate(e, inner)} AS ${ident(AGGREGATE_VALUE)} FROM ${qualified(e.target.schema, e.target.name)} AS ${ident(inner)} WHERE ${conjunction(conds)})`;
      return sql`EXISTS (SELECT 1 FROM ${rows} AS ${ident(agg)} WHERE ${sub(e.predicate, agg)})`;
    }
    case 'computed-rows':
      throw unsupported('a computed field');
    case 'holds':
      // T-SQL has no IS TRUE: unknown must read as false, also under an enclosing NOT.
      return sql`(CASE WHEN ${sub(e.item, row)} THEN 1 ELSE 0 END = 1)`;
    case 'exists': {
      const inner = aliases.fresh();
      return sql`EXISTS (SELECT 1 FROM ${qualified(e.target.schema, e.target.name)} AS ${ident(inner)} WHERE ${sub(e.where, inner)})`;
    }
  }
}
