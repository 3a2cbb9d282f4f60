/**
 * ir.Select / ir.AggregateSelect → Postgres.
 *
 * Note [Select shape]
 * Every select reads its rows in an inner subquery that filters, sorts,
 * de-duplicates and limits base-table rows and projects only the columns the
 * outer level needs (plus computed sort keys as `__o<n>`). The outer level
 * builds the JSON from those rows only, so nested relationship subqueries run
 * for kept rows and never for rows a LIMIT drops:
 *
 *   (SELECT coalesce(json_agg("_2" ORDER BY "_1"."id" ASC NULLS LAST), '[]'::json)
 *      FROM (SELECT "_0"."id", ... FROM "public"."albums" AS "_0"
 *            WHERE <permission AND where> ORDER BY ... LIMIT $1) AS "_1",
 *           LATERAL (SELECT "_1"."id" AS "id", ...) AS "_2")
 *
 * where "_2" is the row as a record named by its JSON keys (Note [Row records]).
 *
 * Array relationships and aggregates are correlated scalar subqueries inside
 * that record (Postgres runs them as SubPlans, one index probe per outer row),
 * object relationships LEFT JOIN LATERAL items between the row source and the
 * record (Note [Object relationships as joins]); either way with the join
 * condition in the inner WHERE. json_agg repeats the ORDER BY because an
 * aggregate is not bound to keep its input order; Postgres 16+ sees the input
 * is already sorted and skips the second sort.
 *
 * Note [Inner ORDER BY]
 * The inner subquery sorts only when something there needs the order (LIMIT,
 * OFFSET, DISTINCT ON), or the outer level reads rows in order without a
 * json_agg ORDER BY (the first row of a `one` select; float sums and averages,
 * whose last digits depend on the order rows are added in). Otherwise
 * json_agg's ORDER BY alone orders the array: the subquery without ORDER BY is
 * pulled up into the outer level, so the planner sees the row source and its
 * object-relationship joins as one join and sorts once above it, which lets
 * it Memoize those joins (AlbumsArtistTracksGenre: tracks of an album with
 * their genre and media type, PG exec -30%).
 */
import type * as ir from '../../../ir/index.ts';
import { ident, join, param, raw, seq, sql, type Fragment } from '../../sql/fragment.ts';
import { jsonArrayAgg, jsonObject, type JsonPair } from '../json.ts';
import { conjunction, translateBoolExp, translateJoin } from './bool-exp.ts';
import { translateComputedCall, type InnerProjection } from './computed-field.ts';
import { columnOf, type AliasCounter } from './context.ts';
import { nodeIdValue, translateConnection, type RowTranslator } from './connection.ts';
import { orderList, sortKey, translateOrderTarget } from './order-by.ts';
import { columnsRead, fromItem, projectColumn, typenameValue, type Correlation } from './row-parts.ts';

/** The translated FROM item of a select. */
interface TranslatedSource {
  readonly from: Fragment;
  /** Alias of the projected rows. */
  readonly alias: string;
  /** Sort keys over `alias` for json_agg, or null when unordered. */
  readonly order: Fragment | null;
}

function distinctCovered(src: ir.RowSource): boolean {
  const lead = src.orderBy.slice(0, src.distinctOn.length);
  if (lead.length < src.distinctOn.length) return false;
  const cols = new Set(lead.map((o) => (o.target.kind === 'column' ? o.target.column : null)));
  return src.distinctOn.every((c) => cols.has(c));
}

function limitClause(src: ir.RowSource): Fragment | null {
  if (src.limit !== null && src.limitCap !== null) {
    // Both operands are parameters, so LEAST needs their type spelled out.
    return sql` LIMIT LEAST(${param(src.limit, 'bigint')}, ${param({ kind: 'const', value: src.limitCap }, 'bigint')})`;
  }
  if (src.limit !== null) return sql` LIMIT ${param(src.limit)}`;
  if (src.limitCap !== null) return sql` LIMIT ${param({ kind: 'const', value: src.limitCap })}`;
  return null;
}

/**
 * A column as ORDER BY / DISTINCT ON of the inner subquery see it. A redacted
 * one must not reveal its hidden values, so it names the projected (redacted)
 * output column, which a bare name in those clauses refers to first.
 */
function keyColumn(src: ir.RowSource, column: string, inner: string, needed: string[]): Fragment {
  if (src.redact?.get(column) === undefined) return columnOf(inner, column);
  if (!needed.includes(column)) needed.push(column);
  return ident(column);
}

/**
 * The inner subquery of Note [Select shape]. `needed` lists the columns the
 * outer level reads; it may grow here with plain-column sort keys.
 * `rowOrderMatters`: the outer level reads the rows in order (beyond a
 * json_agg ORDER BY), see Note [Inner ORDER BY].
 */
function translateRowSource(
  src: ir.RowSource,
  needed: string[],
  correlation: Correlation | null,
  aliases: AliasCounter,
  extras: readonly InnerProjection[],
  from: Fragment | null,
  rowOrderMatters: boolean,
): TranslatedSource {
  const inner = aliases.fresh();
  const outer = aliases.fresh();
  const computed: Fragment[] = [];
  const innerKeys: Fragment[] = [];
  const outerKeys: Fragment[] = [];
  src.orderBy.forEach((o) => {
    if (o.target.kind === 'column') {
      if (!needed.includes(o.target.column)) needed.push(o.target.column);
      innerKeys.push(sortKey(keyColumn(src, o.target.column, inner, needed), o));
      outerKeys.push(sortKey(columnOf(outer, o.target.column), o));
      return;
    }
    const name = `__o${computed.length}`;
    const expr = translateOrderTarget(o.target, inner, aliases);
    computed.push(sql`${expr} AS ${ident(name)}`);
    // ORDER BY may name an output column; this avoids repeating the subquery.
    innerKeys.push(sortKey(ident(name), o));
    outerKeys.push(sortKey(columnOf(outer, name), o));
  });
  let distinct: Fragment | null = null;
  if (src.distinctOn.length > 0) {
    distinct = sql`DISTINCT ON (${join(
      src.distinctOn.map((c) => keyColumn(src, c, inner, needed)),
      ', ',
    )}) `;
    if (!distinctCovered(src)) {
      // Postgres requires the DISTINCT ON expressions to lead the ORDER BY.
      const lead = src.distinctOn.map((c) => sql`${keyColumn(src, c, inner, needed)} ASC NULLS LAST`);
      innerKeys.unshift(...lead);
      if (outerKeys.length === 0) {
        for (const c of src.distinctOn) {
          if (!needed.includes(c)) needed.push(c);
          outerKeys.push(sql`${columnOf(outer, c)} ASC NULLS LAST`);
        }
      }
    }
  }
  const projection = [
    ...needed.map((c) => projectColumn(src, c, inner, aliases)),
    ...computed,
    ...extras.map((e) => sql`${e.expr(inner)} AS ${ident(e.name)}`),
  ];
  const conds: Fragment[] = correlation === null ? [] : translateJoin(correlation.mapping, correlation.outer, inner);
  if (src.where !== null) conds.push(translateBoolExp(src.where, inner, aliases));
  const parts: Fragment[] = [
    sql`(SELECT `,
    distinct ?? raw(''),
    projection.length === 0 ? raw('1 AS "__one"') : join(projection, ', '),
    sql` FROM ${from ?? fromItem(src)} AS ${ident(inner)}`,
  ];
  if (conds.length > 0) parts.push(sql` WHERE ${conjunction(conds)}`);
  const limit = limitClause(src);
  const sortInside = rowOrderMatters || limit !== null || src.offset !== null || distinct !== null;
  if (innerKeys.length > 0 && sortInside) parts.push(sql` ORDER BY ${orderList(innerKeys)}`);
  if (limit !== null) parts.push(limit);
  if (src.offset !== null) parts.push(sql` OFFSET ${param(src.offset)}`);
  parts.push(sql`) AS ${ident(outer)}`);
  return { from: seq(parts), alias: outer, order: outerKeys.length === 0 ? null : orderList(outerKeys) };
}

/** A column value, as text when stringified; at a JSON path when given (Note [JSON path argument]). */
function columnValue(alias: string, column: string, asText: boolean, path?: ir.ParamSource): Fragment {
  const c = path === undefined ? columnOf(alias, column) : sql`(${columnOf(alias, column)} #> coalesce(${param(path, 'text[]')}, '{}'))`;
  return asText ? sql`(${c})::text` : c;
}

/**
 * The key/value pairs of one row named `alias`, in selection order. With
 * `joins`, object relationships become LEFT JOIN LATERAL items pushed there
 * (Note [Object relationships as joins]); without, scalar subqueries.
 */
export function rowPairs(
  fields: readonly ir.Field[],
  alias: string,
  aliases: AliasCounter,
  computed: ReadonlyMap<ir.Field, string>,
  joins: Fragment[] | null,
): JsonPair[] {
  return fields.map((f) => {
    switch (f.kind) {
      case 'computed-scalar':
      case 'computed-rows': {
        const name = computed.get(f);
        // Without an inner projection (rows a mutation returns), `alias` is a row of the table itself.
        return { key: f.alias, value: name === undefined ? computedValue(f, alias, aliases) : columnOf(alias, name) };
      }
      case 'column':
        return { key: f.alias, value: columnValue(alias, f.column, f.asText, f.path) };
      case 'typename':
        return { key: f.alias, value: typenameValue(f.typename) };
      case 'remote-join':
        // Filled in after the statement ran (execute/remote-join.ts); the key keeps the field's place.
        return { key: f.alias, value: raw('NULL') };
      case 'object-relationship': {
        const correlation = { outer: alias, mapping: f.mapping };
        if (joins === null) return { key: f.alias, value: translateSelect(f.select, correlation, aliases) };
        const j = aliases.fresh();
        const query = selectQuery(f.select, correlation, aliases, null, OBJECT_COLUMN);
        joins.push(sql` LEFT JOIN LATERAL ${query} AS ${ident(j)} ON true`);
        return { key: f.alias, value: columnOf(j, OBJECT_COLUMN) };
      }
      case 'array-relationship':
        return { key: f.alias, value: translateSelect(f.select, { outer: alias, mapping: f.mapping }, aliases) };
      case 'array-aggregate':
        return { key: f.alias, value: translateAggregate(f.select, { outer: alias, mapping: f.mapping }, aliases) };
      case 'array-connection':
        return { key: f.alias, value: translateConnectionSelect(f.select, { outer: alias, mapping: f.mapping }, aliases) };
      case 'node-id':
        return { key: f.alias, value: nodeIdValue(f, alias) };
    }
  });
}

/** The JSON object of one row named `alias` (also used for the rows a mutation returns). */
export function rowJson(fields: readonly ir.Field[], alias: string, aliases: AliasCounter, computed: ReadonlyMap<ir.Field, string> = new Map()): Fragment {
  return jsonObject(rowPairs(fields, alias, aliases, computed, null));
}

/** The output column of an object relationship's LEFT JOIN LATERAL. */
const OBJECT_COLUMN = 'o';

/**
 * Note [Object relationships as joins]
 * An object relationship of the rows being built is a LEFT JOIN LATERAL of
 * the row source rather than a scalar subquery in the row:
 *
 *   FROM (<inner>) AS "_5"
 *     LEFT JOIN LATERAL (SELECT row_to_json(...) AS "o" FROM ... WHERE "_7"."id" = "_5"."genre_id" LIMIT 1) AS "_6" ON true,
 *     LATERAL (SELECT ..., "_6"."o" AS "genre") AS "_9"
 *
 * Same rows (LIMIT 1 keeps at most one, LEFT keeps the row when there is
 * none, as the scalar subquery's null), same probe per row, but a
 * parameterized nested loop may get a Memoize node: rows sharing a key
 * (tracks of one genre or media type, albums of one artist) reuse the
 * object instead of looking it up again, which a SubPlan never does.
 */

/** A GraphQL name PostgreSQL keeps whole as a column name (NAMEDATALEN - 1 = 63 bytes). */
const RECORD_KEY = /^[_A-Za-z][_0-9A-Za-z]{0,62}$/;
/** Columns a row may have (MaxTupleAttributeNumber is 1664; leave room). */
const MAX_RECORD_COLUMNS = 1600;

/** One row as a record whose column names are its JSON keys (Note [Row records]). */
interface RowRecord {
  /** `, LATERAL (SELECT <value> AS "<key>", ...) AS "_n"`, to append after the row source. */
  readonly lateral: Fragment;
  /** `"_n"`, the record. */
  readonly ref: Fragment;
}

/**
 * Note [Row records]
 * A row's JSON object is built by PostgreSQL's own record-to-JSON conversion
 * rather than json_build_object: the row source gets a column-less LATERAL
 * subquery naming each value by its key,
 *
 *   FROM (<inner>) AS "_1", LATERAL (SELECT "_1"."id" AS "id", (...) AS "artist") AS "_2"
 *
 * and `json_agg("_2")` / `row_to_json("_2")` turn that record into the object.
 * The planner pulls the subquery up into a ROW(...) expression (no extra
 * scan), and converting a record costs about 40% less per row than
 * json_build_object's variadic call (same value encoding: both go through
 * datum_to_json). The text is more compact (`{"id":1}`, and json_agg puts
 * `\n ` between records); the JSON is the same. Keys that are not plain
 * GraphQL names of at most 63 bytes fall back to json_build_object (null here).
 */
function rowRecord(pairs: readonly JsonPair[], aliases: AliasCounter): RowRecord | null {
  if (pairs.length === 0 || pairs.length > MAX_RECORD_COLUMNS) return null;
  const keys = new Set<string>();
  for (const p of pairs) {
    if (!RECORD_KEY.test(p.key) || keys.has(p.key)) return null;
    keys.add(p.key);
  }
  const r = aliases.fresh();
  const columns = pairs.map((p) => sql`${p.value} AS ${ident(p.key)}`);
  return { lateral: sql`, LATERAL (SELECT ${join(columns, ', ')}) AS ${ident(r)}`, ref: ident(r) };
}

/** The value of a computed field for rows named `row` (which must have the table's row type). */
function computedValue(f: ir.ComputedScalarField | ir.ComputedRowsField, row: string, aliases: AliasCounter): Fragment {
  if (f.kind === 'computed-scalar') {
    const call = translateComputedCall(f.call, row);
    // Inherited roles: null where no parent granting it admits the row (Note [Inherited computed fields]).
    const v = f.visible === undefined ? call : sql`(CASE WHEN ${translateBoolExp(f.visible, row, aliases)} THEN ${call} END)`;
    return f.asText ? sql`(${v})::text` : v;
  }
  // The rows come from the call on `row`: no join condition, the call is the FROM item.
  return translateSelect(f.select, null, aliases, translateComputedCall(f.call, row));
}

/** Inner projections (`__c<n>`) for the computed fields among `fields`, and the name each got. */
export function computedProjections(fields: readonly ir.Field[], aliases: AliasCounter): { extras: InnerProjection[]; names: Map<ir.Field, string> } {
  const extras: InnerProjection[] = [];
  const names = new Map<ir.Field, string>();
  for (const f of fields) {
    if (f.kind !== 'computed-scalar' && f.kind !== 'computed-rows') continue;
    const name = `__c${extras.length}`;
    names.set(f, name);
    extras.push({ name, expr: (inner) => computedValue(f, inner, aliases) });
  }
  return { extras, names };
}

/** What connection.ts builds its nodes' rows with (RowTranslator). */
const ROWS: RowTranslator = { rowPairs, computedProjections };

/** A connection as a scalar subquery yielding its JSON object (Note [Relay connections] in connection.ts). */
export function translateConnectionSelect(s: ir.ConnectionSelect, correlation: Correlation | null, aliases: AliasCounter): Fragment {
  return translateConnection(s, correlation, aliases, ROWS);
}

/** A select as a scalar subquery yielding a JSON array (`many`) or object/null (`one`). */
export function translateSelect(s: ir.Select, correlation: Correlation | null, aliases: AliasCounter, from: Fragment | null = null): Fragment {
  return selectQuery(s, correlation, aliases, from, null);
}

/** The parenthesized query of {@link translateSelect}; its one value is named `column` when given. */
function selectQuery(s: ir.Select, correlation: Correlation | null, aliases: AliasCounter, from: Fragment | null, column: string | null): Fragment {
  const needed = columnsRead(s.fields, []);
  const { extras, names } = computedProjections(s.fields, aliases);
  const src = translateRowSource(s.from, needed, correlation, aliases, extras, from, s.cardinality === 'one');
  const joins: Fragment[] = [];
  const pairs = rowPairs(s.fields, src.alias, aliases, names, joins);
  const rec = rowRecord(pairs, aliases);
  const rows = seq([src.from, ...joins, rec?.lateral ?? raw('')]);
  const as = column === null ? raw('') : sql` AS ${ident(column)}`;
  if (s.cardinality === 'one') {
    const row = rec === null ? jsonObject(pairs) : sql`row_to_json(${rec.ref})`;
    return sql`(SELECT ${row}${as} FROM ${rows} LIMIT 1)`;
  }
  return sql`(SELECT ${jsonArrayAgg(rec === null ? jsonObject(pairs) : rec.ref, src.order)}${as} FROM ${rows})`;
}

/** An aggregate's answer before it becomes JSON: values and objects of them, keys in selection order. */
type AggregateTree =
  | { readonly kind: 'value'; readonly value: Fragment }
  | { readonly kind: 'object'; readonly pairs: ReadonlyArray<{ readonly key: string; readonly node: AggregateTree }> };

const leaf = (value: Fragment): AggregateTree => ({ kind: 'value', value });

function aggregateExpr(f: ir.AggregateOpField, alias: string): AggregateTree {
  switch (f.kind) {
    case 'typename':
      return leaf(typenameValue(f.typename));
    case 'count': {
      if (f.columns.length === 0) return leaf(raw('count(*)'));
      const cols = f.columns.map((c) => columnOf(alias, c));
      const arg = cols.length === 1 && cols[0] !== undefined ? cols[0] : sql`(${join(cols, ', ')})`;
      return leaf(f.distinct ? sql`count(DISTINCT ${arg})` : sql`count(${arg})`);
    }
    case 'op':
      return {
        kind: 'object',
        pairs: f.columns.map((c) => {
          if (c.kind === 'typename') return { key: c.alias, node: leaf(typenameValue(c.typename)) };
          const v = sql`${raw(f.op)}(${columnOf(alias, c.column)})`;
          return { key: c.alias, node: leaf(c.asText ? sql`(${v})::text` : v) };
        }),
      };
  }
}

/** The tree as a json_build_object expression. */
function treeJson(t: AggregateTree): Fragment {
  return t.kind === 'value' ? t.value : jsonObject(t.pairs.map((p) => ({ key: p.key, value: treeJson(p.node) })));
}

/** Whether every object of the tree can be a record (Note [Row records]). */
function treeRecordable(t: AggregateTree): boolean {
  if (t.kind === 'value') return true;
  if (t.pairs.length === 0 || t.pairs.length > MAX_RECORD_COLUMNS) return false;
  const keys = new Set<string>();
  for (const p of t.pairs) {
    if (!RECORD_KEY.test(p.key) || keys.has(p.key) || !treeRecordable(p.node)) return false;
    keys.add(p.key);
  }
  return true;
}

/**
 * Note [Aggregate records]
 * A nested aggregate (one per parent row) is built as a record too:
 *
 *   (SELECT row_to_json("_a") FROM (SELECT count(*) AS "__a0", sum(...) AS "__a1" FROM ...) AS "_g",
 *      LATERAL (SELECT "_x" AS "aggregate" FROM (SELECT "_g"."__a0" AS "count", "_y" AS "sum"
 *               FROM (SELECT "_g"."__a1" AS "milliseconds") AS "_y") AS "_x") AS "_a")
 *
 * The aggregates are computed in "_g", nested objects are FROM items the
 * planner pulls up into nested ROW(...) expressions, and one row_to_json
 * replaces a json_build_object per object level (ArtistAggregates, count and
 * sum of each album's tracks: PG exec -8%). It costs a planning level, which
 * a root aggregate (computed once) does not earn back, so roots keep
 * json_build_object.
 * Re-measured (issue 35, 2026-11-28, chinook ArtistAggregates as admin, the
 * PostgreSQL backend's own CPU per execution of the named prepared statement,
 * 10 × 40 executions alternated, median): this shape 0.91-0.99 ms; one
 * json_build_object per aggregate object +5-7%; without the `1 AS "__one"`
 * subquery under count(*) -2% and text concatenation cast to json -3%, both
 * within the spread of runs, so the shape stays. PostGraphile's own statement
 * (text arrays; then without the sum) cost 0.79 ms and this shape without the
 * sum 0.84 ms; since 2026-11-29 the bench asks PostGraphile the same question
 * with @graphile/pg-aggregates (its PG CPU per request 799 µs against Engine's
 * 864 in one quick run): PostgreSQL's work per request is nearly the same for both peers, and the
 * cell's Engine/PostGraphile ratio comes from PostGraphile's Node CPU
 * (~1,000 µs against Engine's ~160-250 µs), not from the statement.
 * Re-measure with `node test/bench/sql-cost.ts --datasets chinook --ops
 * ArtistAggregates --roles admin --variants <dir of hand-written variants>`.
 * Again on 2026-11-29 (`pgbench -n -M prepared -c 1 -T 8` on the bench's
 * chinook database, variants alternated, ms per statement): this shape
 * 0.80-0.84; json_build_object for the aggregate objects only 0.94-0.95; text
 * concatenation for them 0.83; the count and the three albums from one scan
 * (row_number() with FILTER) 0.81/0.91 against 0.84/0.91; json_agg without
 * its ORDER BY 0.84/0.85 against 0.86/0.86; PostGraphile's statement
 * 0.74-0.76. The time goes to index scans and heap fetches (perf: buffer
 * locks, tuple deforming, B-tree compares; JSON functions a few % each).
 * The engine's own CPU on this cell is no longer what keeps it under 2.5×
 * PostGraphile (issue 35, 2026-11-28, after Note [Request statements in
 * callbacks] in connection.ts; four `npm run bench -- --quick --skip-scale`
 * runs at load 11-16, CPU µs per request, server + PostgreSQL): Engine
 * 157-210 + 956-1,119, the bare raw-SQL peer 135-190 + 951-964, PostGraphile
 * 1,127-1,861 + 870-1,164. The engine is 20-60 µs above a bare node:http + pg
 * server doing the same statement (in process, `node
 * test/bench/request-path.ts`: 75-77 against 53-70 µs), and its profile under
 * load (`--cpu-prof`) is led by what the raw peer does too: pg's parser, the
 * UTF-8 decode of the 21 KB result and the socket write of the answer. With the machine
 * CPU-bound, requests/s go as 1 / (server + PostgreSQL CPU), so even an
 * engine costing nothing would raise the cell by ~1.17× (2.16-2.33× → ~2.5-2.7×
 * of the quiet-machine figures): what is left is PostgreSQL's ~0.95 ms, which
 * the shapes above did not cut.
 */
function treeRecordSelect(t: AggregateTree & { kind: 'object' }, g: string, hoisted: Fragment[], aliases: AliasCounter): Fragment {
  const columns: Fragment[] = [];
  const from: Fragment[] = [];
  for (const p of t.pairs) {
    if (p.node.kind === 'value') {
      const name = `__a${hoisted.length}`;
      hoisted.push(sql`${p.node.value} AS ${ident(name)}`);
      columns.push(sql`${columnOf(g, name)} AS ${ident(p.key)}`);
    } else {
      const x = aliases.fresh();
      from.push(sql`(${treeRecordSelect(p.node, g, hoisted, aliases)}) AS ${ident(x)}`);
      columns.push(sql`${ident(x)} AS ${ident(p.key)}`);
    }
  }
  return sql`SELECT ${join(columns, ', ')}${from.length === 0 ? raw('') : sql` FROM ${join(from, ', ')}`}`;
}

/*
 * Note [Permission limit and aggregates]
 * A select permission's `limit` caps the rows a role reads, not the rows its
 * aggregates are computed over (v2, since its fix of #1837: the cap applies to
 * `nodes` only; a request's own `limit` applies to both). When a capped
 * aggregate select reads `nodes` and aggregates, the two are computed from
 * two row sources (capped and uncapped) and their keys put back in request
 * order; with only one of the two, one source suffices.
 */
function splitCapped(s: ir.AggregateSelect, correlation: Correlation | null, aliases: AliasCounter): Fragment | null {
  if (s.from.limitCap === null || !s.fields.some((f) => f.kind === 'aggregate')) return null;
  const uncapped: ir.RowSource = { ...s.from, limitCap: null };
  if (!s.fields.some((f) => f.kind === 'nodes')) return translateAggregate({ from: uncapped, fields: s.fields }, correlation, aliases);
  const counted = translateAggregate({ from: uncapped, fields: s.fields.filter((f) => f.kind !== 'nodes') }, correlation, aliases);
  const read = translateAggregate({ from: s.from, fields: s.fields.filter((f) => f.kind === 'nodes') }, correlation, aliases);
  const both = aliases.fresh();
  const pairs = s.fields.map((f) => ({
    key: f.alias,
    value: sql`${columnOf(both, f.kind === 'nodes' ? 'n' : 'a')} -> ${param({ kind: 'const', value: f.alias }, 'text')}`,
  }));
  return sql`(SELECT ${jsonObject(pairs)} FROM (SELECT ${counted} AS "a", ${read} AS "n") AS ${ident(both)})`;
}

/** An aggregate select as a scalar subquery yielding one JSON object. */
export function translateAggregate(s: ir.AggregateSelect, correlation: Correlation | null, aliases: AliasCounter): Fragment {
  const split = splitCapped(s, correlation, aliases);
  if (split !== null) return split;
  const needed: string[] = [];
  for (const f of s.fields) {
    if (f.kind === 'nodes') columnsRead(f.fields, needed);
    if (f.kind !== 'aggregate') continue;
    for (const op of f.fields) {
      if (op.kind === 'count') for (const c of op.columns) if (!needed.includes(c)) needed.push(c);
      if (op.kind === 'op') for (const c of op.columns) if (c.kind === 'column' && !needed.includes(c.column)) needed.push(c.column);
    }
  }
  const nodes = s.fields.flatMap((f) => (f.kind === 'nodes' ? f.fields : []));
  const { extras, names } = computedProjections(nodes, aliases);
  // Float sums and averages depend on the order rows are added in: keep it as it was.
  const ops = s.fields.some((f) => f.kind === 'aggregate' && f.fields.some((op) => op.kind === 'op'));
  const src = translateRowSource(s.from, needed, correlation, aliases, extras, null, ops);
  const joins: Fragment[] = [];
  const laterals: Fragment[] = [];
  const tree: AggregateTree = {
    kind: 'object',
    pairs: s.fields.map((f) => {
      switch (f.kind) {
        case 'typename':
          return { key: f.alias, node: leaf(typenameValue(f.typename)) };
        case 'aggregate':
          return { key: f.alias, node: { kind: 'object', pairs: f.fields.map((op) => ({ key: op.alias, node: aggregateExpr(op, src.alias) })) } };
        case 'nodes': {
          const row = rowPairs(f.fields, src.alias, aliases, names, joins);
          const rec = rowRecord(row, aliases);
          if (rec === null) return { key: f.alias, node: leaf(jsonArrayAgg(jsonObject(row), src.order)) };
          laterals.push(rec.lateral);
          return { key: f.alias, node: leaf(jsonArrayAgg(rec.ref, src.order)) };
        }
      }
    }),
  };
  const rows = seq([src.from, ...joins, ...laterals]);
  if (correlation === null || tree.kind !== 'object' || !treeRecordable(tree)) return sql`(SELECT ${treeJson(tree)} FROM ${rows})`;
  const g = aliases.fresh();
  const a = aliases.fresh();
  const hoisted: Fragment[] = [];
  const record = treeRecordSelect(tree, g, hoisted, aliases);
  return sql`(SELECT row_to_json(${ident(a)}) FROM (SELECT ${join(hoisted, ', ')} FROM ${rows}) AS ${ident(g)}, LATERAL (${record}) AS ${ident(a)})`;
}
