/**
 * ir.Select / ir.AggregateSelect → T-SQL JSON text expressions (Note [MSSQL JSON] in json.ts).
 *
 * Note [MSSQL select shape]
 * As on PostgreSQL (Note [Select shape] in postgres/translate/select.ts), a
 * select reads its rows in an inner derived table that filters, sorts and
 * limits base-table rows and projects only the columns the outer level
 * needs; the outer level builds the JSON from those rows, so nested
 * relationship subqueries run only for the rows kept:
 *
 *   ISNULL((SELECT [_1].[id] AS [id], JSON_QUERY(<tracks>) AS [tracks]
 *           FROM (SELECT [_0].[id] FROM [dbo].[albums] AS [_0] WHERE <permission AND where>
 *                 ORDER BY [_0].[id] ASC OFFSET 0 ROWS FETCH NEXT @p1 ROWS ONLY) AS [_1]
 *           ORDER BY [_1].[id] ASC FOR JSON PATH, INCLUDE_NULL_VALUES), N'[]')
 *
 * T-SQL allows ORDER BY in a derived table only with TOP or OFFSET, and
 * keeps no order through one, so the inner level sorts only to limit
 * (`OFFSET ... FETCH`, `ORDER BY (SELECT NULL)` when the request gives no
 * order) and the outer FOR JSON SELECT sorts again. Relationships and
 * aggregates are correlated scalar subqueries in the outer SELECT list.
 * A permission's limit and the request's both bound FETCH (the smaller one:
 * `(SELECT MIN(v) FROM (VALUES (@a), (@b)))`, which needs no LEAST, absent
 * before SQL Server 2022).
 */
import type * as ir from '../../../ir/index.ts';
import { ident, join, param, qualified, raw, seq, sql, stringLiteral, type Fragment } from '../../sql/fragment.ts';
import { conjunction, translateBoolExp, translateJoin } from './bool-exp.ts';
import { columnOf, unsupported, type AliasCounter } from './context.ts';
import { FOR_JSON_ARRAY, FOR_JSON_OBJECT, jsonArrayOf, jsonColumns, jsonQuery, type JsonColumn } from './json.ts';
import { aggregateCall, orderList, sortKeys, translateOrderTarget } from './order-by.ts';

/** A select nested under a row of `outer`, joined by `mapping`. */
export interface Correlation {
  readonly outer: string;
  readonly mapping: ir.ColumnMapping;
}

/** The translated FROM item of a select. */
interface TranslatedSource {
  /** `(SELECT ...) AS [alias]`. */
  readonly from: Fragment;
  readonly alias: string;
  /** Sort keys over `alias` (empty: unordered). */
  readonly order: readonly Fragment[];
}

const ROW_COUNT = { dbType: 'bigint', list: false } as const;

/** A column of the row source as the role sees it: null where its redaction condition fails (inherited roles). */
function cell(src: ir.RowSource, column: string, inner: string, aliases: AliasCounter): Fragment {
  const cond = src.redact?.get(column);
  if (cond === undefined) return columnOf(inner, column);
  return sql`(CASE WHEN ${translateBoolExp(cond, inner, aliases)} THEN ${columnOf(inner, column)} END)`;
}

function rowCount(src: ir.RowSource): Fragment | null {
  const cap = src.limitCap === null ? null : param({ kind: 'const', value: src.limitCap }, null, ROW_COUNT);
  const limit = src.limit === null ? null : param(src.limit, null, ROW_COUNT);
  if (limit !== null && cap !== null) return sql`(SELECT MIN([v]) FROM (VALUES (${limit}), (${cap})) AS [_l]([v]))`;
  return limit ?? cap;
}

/** The inner derived table of Note [MSSQL select shape]; `needed` (columns the outer level reads) may grow with sort keys. */
function translateRowSource(src: ir.RowSource, needed: string[], correlation: Correlation | null, aliases: AliasCounter): TranslatedSource {
  if (src.function !== undefined) throw unsupported('a function');
  if (src.distinctOn.length > 0) throw unsupported('distinct_on');
  const inner = aliases.fresh();
  const outer = aliases.fresh();
  const computed: Fragment[] = [];
  const innerKeys: Fragment[] = [];
  const outerKeys: Fragment[] = [];
  src.orderBy.forEach((o) => {
    if (o.target.kind === 'column') {
      if (!needed.includes(o.target.column)) needed.push(o.target.column);
      innerKeys.push(...sortKeys(cell(src, o.target.column, inner, aliases), o));
      outerKeys.push(...sortKeys(columnOf(outer, o.target.column), o));
      return;
    }
    const name = `__o${computed.length}`;
    computed.push(sql`${translateOrderTarget(o.target, inner, aliases)} AS ${ident(name)}`);
    // T-SQL's ORDER BY names an output column only bare, not inside the CASE of a nulls order: repeat the key.
    innerKeys.push(...sortKeys(translateOrderTarget(o.target, inner, aliases), o));
    outerKeys.push(...sortKeys(columnOf(outer, name), o));
  });
  const projection = [...needed.map((c) => sql`${cell(src, c, inner, aliases)} AS ${ident(c)}`), ...computed];
  const conds: Fragment[] = correlation === null ? [] : translateJoin(correlation.mapping, correlation.outer, inner);
  if (src.where !== null) conds.push(translateBoolExp(src.where, inner, aliases));
  const parts: Fragment[] = [
    sql`(SELECT `,
    projection.length === 0 ? raw('1 AS [__one]') : join(projection, ', '),
    sql` FROM ${qualified(src.table.schema, src.table.name)} AS ${ident(inner)}`,
  ];
  if (conds.length > 0) parts.push(sql` WHERE ${conjunction(conds)}`);
  const count = rowCount(src);
  if (count !== null || src.offset !== null) {
    parts.push(sql` ORDER BY ${innerKeys.length > 0 ? orderList(innerKeys) : raw('(SELECT NULL)')}`);
    parts.push(sql` OFFSET ${src.offset === null ? raw('0') : param(src.offset, null, ROW_COUNT)} ROWS`);
    if (count !== null) parts.push(sql` FETCH NEXT ${count} ROWS ONLY`);
  }
  parts.push(sql`) AS ${ident(outer)}`);
  return { from: seq(parts), alias: outer, order: outerKeys };
}

/** Columns of the current row that `fields` read (values and join keys). */
function columnsRead(fields: readonly ir.Field[], into: string[]): string[] {
  const add = (c: string): void => {
    if (!into.includes(c)) into.push(c);
  };
  for (const f of fields) {
    if (f.kind === 'column') add(f.column);
    else if (f.kind === 'object-relationship' || f.kind === 'array-relationship' || f.kind === 'array-aggregate') for (const [local] of f.mapping) add(local);
  }
  return into;
}

/** A stringified value (stringify-numeric-types): exact for the integer and decimal types it applies to. */
function asText(v: Fragment): Fragment {
  return sql`CONVERT(NVARCHAR(MAX), ${v})`;
}

/** The JSON columns of one row named `alias`, in selection order (also the rows a mutation returns). */
export function rowColumns(fields: readonly ir.Field[], alias: string, aliases: AliasCounter): JsonColumn[] {
  return fields.map((f) => {
    switch (f.kind) {
      case 'column': {
        if (f.path !== undefined) throw unsupported('a JSON path argument');
        const c = columnOf(alias, f.column);
        return { key: f.alias, value: f.asText ? asText(c) : c };
      }
      case 'typename':
        return { key: f.alias, value: stringLiteral(f.typename) };
      case 'remote-join':
        // Filled in after the statement ran (execute/remote-join.ts); the key keeps the field's place.
        return { key: f.alias, value: raw('NULL') };
      case 'object-relationship':
      case 'array-relationship':
        return { key: f.alias, value: jsonQuery(translateSelect(f.select, { outer: alias, mapping: f.mapping }, aliases)) };
      case 'array-aggregate':
        return { key: f.alias, value: jsonQuery(translateAggregate(f.select, { outer: alias, mapping: f.mapping }, aliases)) };
      case 'computed-scalar':
      case 'computed-rows':
        throw unsupported('a computed field');
      case 'array-connection':
      case 'node-id':
        throw unsupported('Relay');
    }
  });
}

/** A select as JSON text: an array (`many`, never null) or an object or NULL (`one`). */
export function translateSelect(s: ir.Select, correlation: Correlation | null, aliases: AliasCounter): Fragment {
  const needed = columnsRead(s.fields, []);
  const src = translateRowSource(s.from, needed, correlation, aliases);
  const columns = jsonColumns(rowColumns(s.fields, src.alias, aliases));
  const order = src.order.length === 0 ? raw('') : sql` ORDER BY ${orderList(src.order)}`;
  if (s.cardinality === 'one') return sql`(SELECT TOP (1) ${columns} FROM ${src.from}${order}${FOR_JSON_OBJECT})`;
  return jsonArrayOf(sql`SELECT ${columns} FROM ${src.from}${order}${FOR_JSON_ARRAY}`);
}

/** COUNT of one or more columns (several: rows whose every one is non-null, PostgreSQL's count((a, b))). */
function countOf(columns: readonly Fragment[], distinct: boolean): Fragment {
  const first = columns[0];
  if (first === undefined) return raw('COUNT(*)');
  if (columns.length === 1) return distinct ? sql`COUNT(DISTINCT ${first})` : sql`COUNT(${first})`;
  if (distinct) throw unsupported('a distinct count of several columns');
  return sql`COUNT(CASE WHEN ${join(
    columns.map((c) => sql`${c} IS NOT NULL`),
    ' AND ',
  )} THEN 1 END)`;
}

/**
 * An aggregate select as JSON text of one object. Aggregates are computed in
 * one SELECT over the rows (dotted aliases nest them: Note [MSSQL JSON]);
 * `nodes` is a select of its own over the same row source, with the
 * permission's limit, which aggregates ignore (Note [Permission limit and
 * aggregates] in postgres/translate/select.ts).
 */
export function translateAggregate(s: ir.AggregateSelect, correlation: Correlation | null, aliases: AliasCounter): Fragment {
  const needed: string[] = [];
  for (const f of s.fields) {
    if (f.kind !== 'aggregate') continue;
    for (const op of f.fields) {
      if (op.kind === 'count') for (const c of op.columns) if (!needed.includes(c)) needed.push(c);
      if (op.kind === 'op') for (const c of op.columns) if (c.kind === 'column' && !needed.includes(c.column)) needed.push(c.column);
    }
  }
  const aggregated = s.fields.some((f) => f.kind === 'aggregate');
  const src = aggregated ? translateRowSource({ ...s.from, limitCap: null }, needed, correlation, aliases) : null;
  const columns: JsonColumn[] = [];
  for (const f of s.fields) {
    switch (f.kind) {
      case 'typename':
        columns.push({ key: f.alias, value: stringLiteral(f.typename) });
        break;
      case 'nodes':
        columns.push({ key: f.alias, value: jsonQuery(translateSelect({ from: s.from, fields: f.fields, cardinality: 'many' }, correlation, aliases)) });
        break;
      case 'aggregate': {
        const rows = src?.alias ?? '';
        for (const op of f.fields) {
          const key = `${f.alias}.${op.alias}`;
          if (op.kind === 'typename') columns.push({ key, value: stringLiteral(op.typename) });
          else if (op.kind === 'count')
            columns.push({
              key,
              value: countOf(
                op.columns.map((c) => columnOf(rows, c)),
                op.distinct,
              ),
            });
          else
            for (const c of op.columns) {
              if (c.kind === 'typename') {
                columns.push({ key: `${key}.${c.alias}`, value: stringLiteral(c.typename) });
                continue;
              }
              const v = aggregateCall(op.op, columnOf(rows, c.column));
              columns.push({ key: `${key}.${c.alias}`, value: c.asText ? asText(v) : v });
            }
        }
        break;
      }
    }
  }
  const from = src === null ? raw('') : sql` FROM ${src.from}`;
  return sql`(SELECT ${jsonColumns(columns)}${from}${FOR_JSON_OBJECT})`;
}
