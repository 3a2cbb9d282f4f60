/**
 * ir.Select / ir.AggregateSelect → GoogleSQL whose value TO_JSON_STRING turns
 * into the field's JSON.
 *
 * Note [BigQuery select shape]
 * A select reads its rows in an inner subquery that filters, sorts and
 * limits the table's rows (`SELECT _0.*` plus computed sort keys `__o<n>`);
 * the outer level builds one STRUCT per row, named by the GraphQL aliases:
 *
 *   ARRAY(SELECT AS STRUCT CAST(`_1`.`id` AS STRING) AS `id`, ... ,
 *           ARRAY(SELECT AS STRUCT ... WHERE `_2`.`author_id` = `_1`.`id` ...) AS `articles`
 *         FROM (SELECT `_0`.* FROM `shop`.`authors` AS `_0` WHERE ... ORDER BY ... LIMIT @p1) AS `_1`
 *         ORDER BY `_1`.`id` ASC NULLS LAST LIMIT @global_select_limit)
 *
 * An array is `ARRAY(SELECT AS STRUCT ...)` (`[]` for no rows, the order of
 * its ORDER BY), one row `(SELECT AS STRUCT ... LIMIT 1)` (NULL for none),
 * relationships correlated subqueries, aggregates `(SELECT AS STRUCT
 * COUNT(*) AS count, STRUCT(SUM(...) AS ...) AS sum FROM (...))`. The whole
 * answer is one STRUCT given to TO_JSON_STRING (compile.ts). BigQuery takes
 * a LIMIT only as a literal or parameter, so a variable `limit` under a
 * permission's cap is two nested LIMITs, and OFFSET without a LIMIT takes the
 * largest one. Root lists and array relationships are capped by the
 * source's `global_select_limit` (Note [BigQuery jobs] in ../connection.ts),
 * after the user's limit and offset, as v2's fromSelectRows does; an
 * aggregate's `nodes` are not (v2's fromSelectAggregate). Not capped: a list
 * whose variable `limit` is under a permission's cap (its outer LIMIT is the
 * cap; v2 would take the smallest of the three).
 *
 * A table-returning computed field (Note [Computed fields by argument mapping]
 * in catalog/stages/computed-fields.ts) reads its rows from the function
 * called on the row's columns by name, as v2's fromComputedFieldSelect:
 * `UNNEST(ARRAY(SELECT _f FROM ds.fn(arg => _1.col, other => @p) AS _f))`
 * (packed and unpacked because BigQuery refuses a LIMIT right after a
 * function in FROM), then filtered, sorted and limited as a table's rows.
 * v2 packs with `SELECT AS STRUCT *`; selecting the row alias is the same
 * ARRAY<STRUCT> in GoogleSQL, and the emulator, which fails on the star
 * (Note [BigQuery emulator]), takes it.
 */
import type * as ir from '../../../ir/index.ts';
import { ident, join, param, raw, sql, stringLiteral, type Fragment } from '../../sql/fragment.ts';
import { GLOBAL_SELECT_LIMIT } from '../connection.ts';
import { isStringNumeric, canonicalType } from '../scalars.ts';
import { conjunction, translateBoolExp, translateJoin } from './bool-exp.ts';
import { columnOf, tableOf, unsupported, type Ctx } from './context.ts';
import { AGGREGATE_FUNCTIONS, orderList, sortKey, translateOrderTarget } from './order-by.ts';

/** The rows a select reads, joined to the row they hang from. */
export interface Correlation {
  readonly outer: string;
  readonly mapping: ir.ColumnMapping;
}

interface RowSource {
  readonly from: Fragment;
  readonly alias: string;
  /** Sort keys over `alias`, or null when unordered. */
  readonly order: Fragment | null;
  /** A permission cap the outer level must apply (the user's limit was a variable). */
  readonly outerLimit: number | null;
}

const MAX_INT64 = '9223372036854775807';

function constLimit(p: ir.ParamSource): number | null {
  return p.kind === 'const' && typeof p.value === 'number' ? p.value : null;
}

/** The rows of a computed field's function called on the row `row`. */
interface ComputedRows {
  readonly call: ir.ComputedFieldCall;
  readonly row: string;
}

function computedRows(c: ComputedRows, ctx: Ctx): Fragment {
  const mapping = c.call.argumentMapping;
  if (mapping === undefined) throw unsupported('computed fields taking the row');
  const args = [
    ...Object.entries(mapping).map(([arg, column]) => sql`${ident(arg)} => ${columnOf(c.row, column)}`),
    ...c.call.args.map((a) => {
      const dbType = c.call.argTypes?.[a.name];
      return sql`${ident(a.name)} => ${param(a.value, null, dbType === undefined ? null : { dbType, list: false })}`;
    }),
  ];
  const f = ctx.fresh();
  return sql`UNNEST(ARRAY(SELECT ${ident(f)} FROM ${tableOf(c.call.function)}(${join(args, ', ')}) AS ${ident(f)}))`;
}

function rowSource(src: ir.RowSource, correlation: Correlation | null, ctx: Ctx, fromCall?: ComputedRows): RowSource {
  const inner = ctx.fresh();
  const outer = ctx.fresh();
  const computed: Fragment[] = [];
  const innerKeys: Fragment[] = [];
  const outerKeys: Fragment[] = [];
  const redacted = (column: string, row: string): Fragment => {
    const vis = src.redact?.get(column);
    const c = columnOf(row, column);
    return vis === undefined ? c : sql`(CASE WHEN ${translateBoolExp(vis, row, ctx)} THEN ${c} END)`;
  };
  src.orderBy.forEach((o) => {
    if (o.target.kind === 'column' && o.target.visible === undefined) {
      innerKeys.push(sortKey(redacted(o.target.column, inner), o));
      outerKeys.push(sortKey(redacted(o.target.column, outer), o));
      return;
    }
    const name = `__o${computed.length}`;
    computed.push(sql`${translateOrderTarget(o.target, inner, ctx)} AS ${ident(name)}`);
    innerKeys.push(sortKey(ident(name), o));
    outerKeys.push(sortKey(columnOf(outer, name), o));
  });
  if (src.distinctOn.length > 0) throw unsupported('distinct_on');
  if (src.function !== undefined) throw unsupported('functions');
  const conds = correlation === null ? [] : translateJoin(correlation.mapping, correlation.outer, inner);
  if (src.where !== null) conds.push(translateBoolExp(src.where, inner, ctx));
  const rows = fromCall === undefined ? tableOf(src.table) : computedRows(fromCall, ctx);
  const parts: Fragment[] = [sql`(SELECT ${join([sql`${ident(inner)}.*`, ...computed], ', ')} FROM ${rows} AS ${ident(inner)}`];
  if (conds.length > 0) parts.push(sql` WHERE ${conjunction(conds)}`);
  let limit: Fragment | null = null;
  let outerLimit: number | null = null;
  const userConst = src.limit === null ? null : constLimit(src.limit);
  if (src.limit !== null && src.limitCap !== null && userConst === null) {
    limit = param(src.limit, null, { dbType: 'INT64', list: false });
    outerLimit = src.limitCap;
  } else if (src.limit !== null || src.limitCap !== null) {
    const n = userConst !== null && src.limitCap !== null ? Math.min(userConst, src.limitCap) : (userConst ?? src.limitCap);
    limit =
      n !== null
        ? param({ kind: 'const', value: n }, null, { dbType: 'INT64', list: false })
        : param(src.limit as ir.ParamSource, null, { dbType: 'INT64', list: false });
  }
  if (limit === null && src.offset !== null) limit = raw(MAX_INT64);
  if (limit !== null && innerKeys.length > 0) parts.push(sql` ORDER BY ${orderList(innerKeys)}`);
  if (limit !== null) parts.push(sql` LIMIT ${limit}`);
  if (src.offset !== null) parts.push(sql` OFFSET ${param(src.offset, null, { dbType: 'INT64', list: false })}`);
  parts.push(sql`) AS ${ident(outer)}`);
  return { from: join(parts, ''), alias: outer, order: outerKeys.length === 0 ? null : orderList(outerKeys), outerLimit };
}

/** A value typed as v2 answers it (Note [BigQuery output typing] in ../scalars.ts). */
function typed(value: Fragment, dbType: string | null, asText: boolean): Fragment {
  return asText || (dbType !== null && isStringNumeric(dbType)) ? sql`CAST(${value} AS STRING)` : value;
}

function typenameValue(name: string): Fragment {
  return stringLiteral(name);
}

/** `value AS alias` items of one row named `row` of `table`. */
function rowItems(fields: readonly ir.Field[], src: ir.RowSource, row: string, ctx: Ctx): Fragment[] {
  return fields.map((f) => {
    const as = (v: Fragment): Fragment => sql`${v} AS ${ident(f.alias)}`;
    switch (f.kind) {
      case 'column': {
        if (f.path !== undefined) throw unsupported('the path argument');
        const vis = src.redact?.get(f.column);
        const c = columnOf(row, f.column);
        const v = vis === undefined ? c : sql`(CASE WHEN ${translateBoolExp(vis, row, ctx)} THEN ${c} END)`;
        return as(typed(v, ctx.columnType(src.table, f.column), f.asText));
      }
      case 'typename':
        return as(typenameValue(f.typename));
      case 'remote-join':
        return as(raw('NULL'));
      case 'object-relationship':
      case 'array-relationship':
        return as(translateSelect(f.select, { outer: row, mapping: f.mapping }, ctx, true));
      case 'array-aggregate':
        return as(translateAggregate(f.select, { outer: row, mapping: f.mapping }, ctx));
      case 'computed-rows':
        // v2 caps a computed field's rows by global_select_limit too.
        return as(translateSelect(f.select, null, ctx, true, { call: f.call, row }));
      case 'computed-scalar':
        throw unsupported('scalar computed fields');
      case 'array-connection':
      case 'node-id':
        throw unsupported('Relay');
    }
  });
}

/**
 * Rows of a select as an ARRAY of STRUCTs, or one STRUCT (`one`); `capped`: under `global_select_limit`
 * (v2's fromSelectRows: root lists and array relationships, not an aggregate's nodes).
 */
export function translateSelect(s: ir.Select, correlation: Correlation | null, ctx: Ctx, capped: boolean, computed?: ComputedRows): Fragment {
  const src = rowSource(s.from, correlation, ctx, computed);
  const items = rowItems(s.fields, s.from, src.alias, ctx);
  const body = sql`SELECT AS STRUCT ${join(items, ', ')} FROM ${src.from}`;
  const order = src.order === null ? raw('') : sql` ORDER BY ${src.order}`;
  if (s.cardinality === 'one') return sql`(${body}${order} LIMIT 1)`;
  let limit: Fragment = raw('');
  if (src.outerLimit !== null) limit = sql` LIMIT ${param({ kind: 'const', value: src.outerLimit }, null, { dbType: 'INT64', list: false })}`;
  else if (capped) limit = raw(` LIMIT @${GLOBAL_SELECT_LIMIT}`);
  return sql`ARRAY(${body}${order}${limit})`;
}

/** The result type of an aggregate function over a column of `dbType` (GoogleSQL's rules). */
function aggregateType(op: ir.AggregateOp, dbType: string | null): string | null {
  if (dbType === null) return null;
  const t = canonicalType(dbType);
  if (op === 'sum' || op === 'max' || op === 'min') return t;
  if (op === 'avg') return t === 'INT64' ? 'FLOAT64' : t;
  return 'FLOAT64';
}

function aggregateItems(op: ir.AggregateOpField, src: ir.RowSource, row: string, ctx: Ctx): Fragment {
  switch (op.kind) {
    case 'typename':
      return sql`${typenameValue(op.typename)} AS ${ident(op.alias)}`;
    case 'count': {
      const cols = op.columns.map((c) => columnOf(row, c));
      let v: Fragment;
      if (cols.length === 0) v = raw('COUNT(*)');
      else if (cols.length === 1 && cols[0] !== undefined) v = op.distinct ? sql`COUNT(DISTINCT ${cols[0]})` : sql`COUNT(${cols[0]})`;
      else {
        const all = conjunction(cols.map((c) => sql`${c} IS NOT NULL`));
        v = op.distinct ? sql`COUNT(DISTINCT IF(${all}, TO_JSON_STRING(STRUCT(${join(cols, ', ')})), NULL))` : sql`COUNTIF(${all})`;
      }
      return sql`${typed(v, 'INT64', false)} AS ${ident(op.alias)}`;
    }
    case 'op': {
      const fn = raw(AGGREGATE_FUNCTIONS[op.op]);
      const inner = op.columns.map((c) =>
        c.kind === 'typename'
          ? sql`${typenameValue(c.typename)} AS ${ident(c.alias)}`
          : sql`${typed(sql`${fn}(${columnOf(row, c.column)})`, aggregateType(op.op, ctx.columnType(src.table, c.column)), c.asText)} AS ${ident(c.alias)}`,
      );
      return sql`STRUCT(${join(inner, ', ')}) AS ${ident(op.alias)}`;
    }
  }
}

/** An aggregate select as one STRUCT. */
export function translateAggregate(s: ir.AggregateSelect, correlation: Correlation | null, ctx: Ctx): Fragment {
  const items = s.fields.map((f) => {
    switch (f.kind) {
      case 'typename':
        return sql`${typenameValue(f.typename)} AS ${ident(f.alias)}`;
      case 'aggregate': {
        const src = rowSource(s.from, correlation, ctx);
        const ops = f.fields.map((op) => aggregateItems(op, s.from, src.alias, ctx));
        // A LIMIT under a cap (src.outerLimit) needs the rows capped before they are aggregated.
        const rows =
          src.outerLimit === null
            ? src.from
            : sql`(SELECT * FROM ${src.from}${src.order === null ? raw('') : sql` ORDER BY ${src.order}`} LIMIT ${param({ kind: 'const', value: src.outerLimit }, null, { dbType: 'INT64', list: false })}) AS ${ident(src.alias)}`;
        return sql`(SELECT AS STRUCT ${join(ops, ', ')} FROM ${rows}) AS ${ident(f.alias)}`;
      }
      case 'nodes': {
        const nodes = translateSelect({ from: s.from, fields: f.fields, cardinality: 'many' }, correlation, ctx, false);
        return sql`${nodes} AS ${ident(f.alias)}`;
      }
    }
  });
  return sql`STRUCT(${join(items, ', ')})`;
}
