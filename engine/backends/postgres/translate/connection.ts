/**
 * ir.ConnectionSelect and ir.NodeIdField → Postgres (Relay, `/v1beta1/relay`).
 *
 * Note [Relay connections]
 * A connection is one scalar subquery of the request's single statement,
 * built as v2 builds it, in four steps of a WITH:
 *
 *   (WITH "_b" AS (SELECT "_d".*, row_number() OVER (ORDER BY "_d"."__k0" …) AS "__rn"
 *                  FROM (SELECT <columns>, <sort keys> AS "__k<i>" FROM <table> AS "_i"
 *                        WHERE <join AND permission AND where>) AS "_d"),
 *         "_s" AS (SELECT "_b".* FROM "_b", (SELECT $1::json AS "c") AS "_c" WHERE "c" IS NULL OR <past the cursor>),
 *         "_f" AS (SELECT * FROM "_s" ORDER BY "__rn" LIMIT $2)            -- first; last: the last $2
 *    SELECT json_build_object('edges', (SELECT coalesce(json_agg(<edge> ORDER BY "__rn"), '[]') FROM "_f" …),
 *                             'pageInfo', json_build_object('hasNextPage', EXISTS (… "_b" after the page's last row) …)))
 *
 * "_b" numbers every row the role may read in the connection's order (the
 * client's order_by, then the primary key columns it lacks, so positions and
 * cursors are unique); "_s" keeps the rows past the `after` (before the
 * `before`) cursor, comparing the sort keys lexicographically with the values
 * read out of the cursor's JSON text, each cast to its key's type; "_f" is the
 * page. As in v2, hasNextPage / hasPreviousPage tell whether "_b" has rows
 * after / before the page, whatever the cursor (so a page after a cursor has
 * a previous page), and a cursor is base64 of `json_build_object` text of the
 * row's keys by order_by field name (Note [Relay ids and cursors] in
 * ir/relay-id.ts). The permission's row limit caps "_b", as v2 applies it to
 * the base rows. The cursor and the page size are parameters: every page of a
 * connection runs the same plan.
 */
import type * as ir from '../../../ir/index.ts';
import { ident, join, param, raw, sql, stringLiteral, type Fragment } from '../../sql/fragment.ts';
import { jsonObject, type JsonPair } from '../json.ts';
import { conjunction, translateBoolExp, translateJoin } from './bool-exp.ts';
import { columnOf, type AliasCounter } from './context.ts';
import { orderList, sortKey, translateOrderTarget } from './order-by.ts';
import type { InnerProjection } from './computed-field.ts';
import { columnsRead, fromItem, projectColumn, typenameValue, type Correlation } from './row-parts.ts';

/**
 * What a connection asks of select.ts for its nodes: their fields recurse
 * into relationships, aggregates and connections, so select.ts passes these
 * in rather than connection.ts importing them (no module cycle).
 */
export interface RowTranslator {
  /** The key/value pairs of a row (select.ts `rowPairs`). */
  readonly rowPairs: (
    fields: readonly ir.Field[],
    alias: string,
    aliases: AliasCounter,
    computed: ReadonlyMap<ir.Field, string>,
    joins: Fragment[] | null,
  ) => JsonPair[];
  /** Inner projections for the computed fields among `fields` (select.ts `computedProjections`). */
  readonly computedProjections: (fields: readonly ir.Field[], aliases: AliasCounter) => { extras: InnerProjection[]; names: Map<ir.Field, string> };
}

/** `base64(text)` without the line breaks PostgreSQL's encoder puts every 76 characters (v2 strips them too). */
function base64(text: Fragment): Fragment {
  return sql`translate(encode(convert_to(${text}, 'UTF8'), 'base64'), E'\\n', '')`;
}

/** The Relay id of the row named `row` (Note [Relay ids and cursors]). */
export function nodeIdValue(f: ir.NodeIdField, row: string): Fragment {
  const items = [raw('1'), stringLiteral(f.schema), stringLiteral(f.table), ...f.columns.map((c) => columnOf(row, c))];
  return base64(sql`json_build_array(${join(items, ', ')})::text`);
}

/** A cursor's keys as nested JSON objects, by path, in key order. */
type CursorTree = Map<string, CursorTree | Fragment>;

function cursorJson(keys: readonly ir.CursorKey[], row: string): Fragment {
  const root: CursorTree = new Map();
  for (const k of keys) {
    let node = root;
    k.path.forEach((p, i) => {
      if (i === k.path.length - 1) {
        node.set(p, columnOf(row, keyName(k.index)));
        return;
      }
      const next = node.get(p);
      if (next instanceof Map) node = next;
      else {
        const made: CursorTree = new Map();
        node.set(p, made);
        node = made;
      }
    });
  }
  const build = (t: CursorTree): Fragment => jsonObject([...t].map(([key, v]) => ({ key, value: v instanceof Map ? build(v) : v })));
  return sql`${build(root)}::text`;
}

const keyName = (i: number): string => `__k${i}`;
const ROW_NUMBER = '__rn';
const CURSOR_COLUMN = 'c';

/** The value of a cursor key in the cursor's JSON (`"_c"."c"`), typed like the key. */
function cursorValue(k: ir.CursorKey, cursor: string): Fragment {
  const path = stringLiteral(`{${k.path.map((p) => `"${p.replace(/["\\]/g, (m) => `\\${m}`)}"`).join(',')}}`);
  if (k.dbType === null) return sql`(${columnOf(cursor, CURSOR_COLUMN)}::jsonb #> ${path})`;
  return sql`(${columnOf(cursor, CURSOR_COLUMN)} #>> ${path})::${raw(quoteType(k.dbType))}`;
}

/** A type name from the catalog as a cast target (`"mood"`, `int4`, `public."My Type"`, arrays). */
function quoteType(dbType: string): string {
  if (/^[a-z_][a-z0-9_ ]*(\[\])?$/.test(dbType)) return dbType;
  return dbType
    .split('.')
    .map((p) => `"${p.replace(/"/g, '""')}"`)
    .join('.');
}

/** The key `i`'s value in row `row`, comparable with the cursor's. */
function keyValue(k: ir.CursorKey, row: string): Fragment {
  const v = columnOf(row, keyName(k.index));
  return k.dbType === null ? sql`to_jsonb(${v})` : v;
}

/**
 * Rows of `row` past (after) or before the cursor: v2's lexicographic split
 * over the keys, each compared where nulls sort (v2 compares with `>`/`<`
 * only, so a row whose key is null is never past a cursor; Engine keeps it).
 */
function splitCondition(s: ir.ConnectionSelect, split: ir.ConnectionSplit, row: string, cursor: string): Fragment {
  const ors: Fragment[] = [];
  s.cursor.forEach((k, i) => {
    const o = s.from.orderBy[k.index];
    const after = split.kind === 'after';
    const asc = o === undefined || o.direction === 'asc';
    const op = after === asc ? '>' : '<';
    // Whether nulls lie in the direction the split moves (after, nulls last; before, nulls first).
    const nullsAhead = after === (o === undefined || o.nulls === 'last');
    const key = keyValue(k, row);
    const value = cursorValue(k, cursor);
    const eqs = s.cursor.slice(0, i).map((p) => sql`${keyValue(p, row)} IS NOT DISTINCT FROM ${cursorValue(p, cursor)}`);
    const beyond = nullsAhead
      ? sql`(${value} IS NOT NULL AND (${key} IS NULL OR ${key} ${raw(op)} ${value}))`
      : sql`((${value} IS NULL AND ${key} IS NOT NULL) OR ${key} ${raw(op)} ${value})`;
    ors.push(conjunction([...eqs, beyond]));
  });
  return ors.length === 0 ? raw('false') : sql`(${join(ors, ' OR ')})`;
}

/** A connection as a scalar subquery yielding its JSON object (Note [Relay connections]). */
export function translateConnection(s: ir.ConnectionSelect, correlation: Correlation | null, aliases: AliasCounter, rows: RowTranslator): Fragment {
  const src = s.from;
  const nodes = s.fields.flatMap((f) => (f.kind === 'edges' ? f.fields.flatMap((e) => (e.kind === 'node' ? e.fields : [])) : []));
  const needed = columnsRead(nodes, []);
  const { extras, names } = rows.computedProjections(nodes, aliases);
  const inner = aliases.fresh();
  const d = aliases.fresh();
  // A redacted column sorts by what the role sees of it (Note [Cells a sort key reads]).
  const keys = src.orderBy.map((o) =>
    o.target.kind === 'column' && src.redact?.has(o.target.column) === true
      ? unnamed(src, o.target.column, inner, aliases)
      : translateOrderTarget(o.target, inner, aliases),
  );
  for (const c of src.distinctOn) if (src.redact?.has(c) === true && !needed.includes(c)) needed.push(c);
  const projection = [
    ...needed.map((c) => projectColumn(src, c, inner, aliases)),
    ...keys.map((k, i) => sql`${k} AS ${ident(keyName(i))}`),
    ...extras.map((e) => sql`${e.expr(inner)} AS ${ident(e.name)}`),
  ];
  const conds: Fragment[] = correlation === null ? [] : translateJoin(correlation.mapping, correlation.outer, inner);
  if (src.where !== null) conds.push(translateBoolExp(src.where, inner, aliases));
  const keyOrder = (alias: string | null): Fragment =>
    orderList(src.orderBy.map((o, i) => sortKey(alias === null ? ident(keyName(i)) : columnOf(alias, keyName(i)), o)));
  const parts: Fragment[] = [sql`SELECT `];
  if (src.distinctOn.length > 0) {
    parts.push(
      sql`DISTINCT ON (${join(
        src.distinctOn.map((c) => (src.redact?.has(c) === true ? ident(c) : columnOf(inner, c))),
        ', ',
      )}) `,
    );
  }
  parts.push(join(projection, ', '), sql` FROM ${fromItem(src)} AS ${ident(inner)}`);
  if (conds.length > 0) parts.push(sql` WHERE ${conjunction(conds)}`);
  if (src.distinctOn.length > 0 || src.limitCap !== null) {
    // DISTINCT ON keeps each group's first row in this order; the role's row limit keeps the first rows.
    const lead = src.distinctOn.map((c) => sql`${src.redact?.has(c) === true ? ident(c) : columnOf(inner, c)} ASC NULLS LAST`);
    parts.push(sql` ORDER BY ${orderList([...lead, keyOrder(null)])}`);
  }
  if (src.limitCap !== null) parts.push(sql` LIMIT ${param({ kind: 'const', value: src.limitCap })}`);
  const b = aliases.fresh();
  const ctes: Fragment[] = [
    sql`${ident(b)} AS (SELECT ${ident(d)}.*, row_number() OVER (ORDER BY ${keyOrder(d)}) AS ${ident(ROW_NUMBER)} FROM (${join(parts, '')}) AS ${ident(d)})`,
  ];
  let last = b;
  if (s.split !== null) {
    const sp = aliases.fresh();
    const c = aliases.fresh();
    const row = aliases.fresh();
    ctes.push(
      sql`${ident(sp)} AS (SELECT ${ident(row)}.* FROM ${ident(b)} AS ${ident(row)}, (SELECT ${param(s.split.cursor, 'json')} AS ${ident(CURSOR_COLUMN)}) AS ${ident(c)} WHERE (${columnOf(c, CURSOR_COLUMN)} IS NULL OR ${splitCondition(s, s.split, row, c)}))`,
    );
    last = sp;
  }
  if (s.slice !== null) {
    const sl = aliases.fresh();
    const rn = ident(ROW_NUMBER);
    const page =
      s.slice.kind === 'first'
        ? sql`SELECT * FROM ${ident(last)} ORDER BY ${rn} LIMIT ${param(s.slice.count)}`
        : sql`SELECT * FROM (SELECT * FROM ${ident(last)} ORDER BY ${rn} DESC LIMIT ${param(s.slice.count)}) AS ${ident(aliases.fresh())}`;
    ctes.push(sql`${ident(sl)} AS (${page})`);
    last = sl;
  }
  const pairs: JsonPair[] = s.fields.map((f) => {
    switch (f.kind) {
      case 'typename':
        return { key: f.alias, value: typenameValue(f.typename) };
      case 'edges':
        return { key: f.alias, value: edgesJson(f.fields, s, last, names, aliases, rows) };
      case 'page-info':
        return { key: f.alias, value: pageInfoJson(f.fields, s, b, last, aliases) };
    }
  });
  return sql`(WITH ${join(ctes, ', ')} SELECT ${jsonObject(pairs)})`;
}

/** A redacted sort column's value (CASE WHEN visible …) without the name projectColumn gives it. */
function unnamed(src: ir.RowSource, column: string, inner: string, aliases: AliasCounter): Fragment {
  const cond = src.redact?.get(column);
  if (cond === undefined) return columnOf(inner, column);
  return sql`(CASE WHEN ${translateBoolExp(cond, inner, aliases)} THEN ${columnOf(inner, column)} END)`;
}

/** `[{cursor, node}, …]` of the page's rows, in order. */
function edgesJson(
  fields: readonly ir.EdgeField[],
  s: ir.ConnectionSelect,
  page: string,
  names: ReadonlyMap<ir.Field, string>,
  aliases: AliasCounter,
  rows: RowTranslator,
): Fragment {
  const r = aliases.fresh();
  const joins: Fragment[] = [];
  const pairs: JsonPair[] = fields.map((e) => {
    switch (e.kind) {
      case 'typename':
        return { key: e.alias, value: typenameValue(e.typename) };
      case 'cursor':
        return { key: e.alias, value: base64(cursorJson(s.cursor, r)) };
      case 'node':
        return { key: e.alias, value: jsonObject(rows.rowPairs(e.fields, r, aliases, names, joins)) };
    }
  });
  return sql`(SELECT coalesce(json_agg(${jsonObject(pairs)} ORDER BY ${columnOf(r, ROW_NUMBER)}), '[]'::json) FROM ${ident(page)} AS ${ident(r)}${join(joins, '')})`;
}

/** `pageInfo`: whether the numbered rows go on past the page, and the page's first and last cursors. */
function pageInfoJson(fields: readonly ir.PageInfoField[], s: ir.ConnectionSelect, numbered: string, page: string, aliases: AliasCounter): Fragment {
  const rn = ident(ROW_NUMBER);
  const edgeCursor = (dir: 'ASC' | 'DESC'): Fragment => {
    const r = aliases.fresh();
    return sql`(SELECT ${base64(cursorJson(s.cursor, r))} FROM ${ident(page)} AS ${ident(r)} ORDER BY ${columnOf(r, ROW_NUMBER)} ${raw(dir)} LIMIT 1)`;
  };
  const pairs: JsonPair[] = fields.map((f) => {
    switch (f.kind) {
      case 'typename':
        return { key: f.alias, value: typenameValue(f.typename) };
      case 'has-next-page':
        return { key: f.alias, value: sql`EXISTS (SELECT 1 FROM ${ident(numbered)} WHERE ${rn} > (SELECT max(${rn}) FROM ${ident(page)}))` };
      case 'has-previous-page':
        return { key: f.alias, value: sql`EXISTS (SELECT 1 FROM ${ident(numbered)} WHERE ${rn} < (SELECT min(${rn}) FROM ${ident(page)}))` };
      case 'start-cursor':
        return { key: f.alias, value: edgeCursor('ASC') };
      case 'end-cursor':
        return { key: f.alias, value: edgeCursor('DESC') };
    }
  });
  return jsonObject(pairs);
}
