/* eslint-disable @typescript-eslint/no-explicit-any -- API answers are JSON, asserted structurally */
/**
 * Randomized: many generated permission filters (operators, aliases,
 * combinators, relationships, `_exists`, column comparisons, session and
 * array session variables), each the select filter of its own role. What the
 * role reads through the engine must equal the rows an independently
 * rendered SQL WHERE admits, for several generated session values each.
 * Inherited roles (unions of two generated roles) are checked against an
 * oracle in plain TypeScript over the same rows: which parent admits a row
 * comes from the rendered SQL, and from there the oracle builds the cells the
 * role sees and evaluates generated `order_by` and `distinct_on` through the
 * object relationship, filters through both relationships, aggregates and their use as sort
 * keys through the array relationship (issue 12.6: none may read a hidden cell).
 * Set PERM_SEED to replay a run; the seed is in every failure message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPermissionFixture, type PermissionFixture } from '../../support/permission-schema.ts';

const SEED = Number(process.env['PERM_SEED'] ?? Date.now() % 1_000_000);
const FILTERS = 80;
const SESSIONS_PER_FILTER = 3;

/** mulberry32: a small seeded PRNG, so a failing run can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = prng(SEED);
const int = (n: number): number => Math.floor(rand() * n);
const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
const maybe = (p = 0.5): boolean => rand() < p;

const COLORS = ['red', 'green', 'blue', 'Red', 'teal'];
const KEYS = ['k1', 'k2', 'k3'];

/** Session values one evaluation uses. */
interface Session {
  readonly v1: number;
  readonly v2: number;
  readonly arr: readonly number[];
  readonly color: string;
  readonly keys: readonly string[];
  /** Arrays are sent as a Postgres literal or as JSON. */
  readonly pgLiteral: boolean;
}

function randomSession(): Session {
  const arr = [...new Set(Array.from({ length: 1 + int(4) }, () => int(10)))];
  const keys = [...new Set(Array.from({ length: 1 + int(2) }, () => pick(KEYS)))];
  return { v1: int(10), v2: int(10), arr, color: pick(COLORS), keys, pgLiteral: maybe() };
}

function headers(s: Session): Record<string, string> {
  const list = (xs: readonly (string | number)[]): string => (s.pgLiteral ? `{${xs.join(',')}}` : JSON.stringify(xs));
  return {
    'x-engine-v1': String(s.v1),
    'X-Engine-V2': String(s.v2),
    'x-engine-arr': list(s.arr),
    'x-engine-color': s.color,
    'x-engine-keys': list(s.keys),
  };
}

/** A generated filter: its permission JSON and its SQL over a row alias, given session values. */
interface Gen {
  readonly json: Record<string, unknown>;
  sql(row: string, s: Session): string;
}

const q = (v: string): string => `'${v.replace(/'/g, "''")}'`;
/** A session variable name as the filter spells it (any case). */
const sv = (name: string): string => pick([`x-engine-${name}`, `X-Engine-${name.toUpperCase()}`, `X-ENGINE-${name}`]);

function intLeaf(col: string): Gen {
  const ops: Array<[string, string]> = [
    ['_eq', '='],
    ['_neq', '<>'],
    ['_ne', '<>'],
    ['$neq', '<>'],
    ['_gt', '>'],
    ['_gte', '>='],
    ['_lt', '<'],
    ['_lte', '<='],
  ];
  const r = int(10);
  if (r === 0) {
    const isNull = maybe();
    return { json: { [col]: { _is_null: isNull } }, sql: (row) => `${row}.${col} IS ${isNull ? '' : 'NOT '}NULL` };
  }
  if (r <= 2) {
    const neg = maybe();
    const op = neg ? '_nin' : '_in';
    if (maybe()) {
      return { json: { [col]: { [op]: sv('arr') } }, sql: (row, s) => `${neg ? 'NOT ' : ''}(${row}.${col} = ANY(ARRAY[${s.arr.join(',')}]::int[]))` };
    }
    const list = [...new Set([int(10), int(10), int(10)])];
    return { json: { [col]: { [op]: list } }, sql: (row) => `${neg ? 'NOT ' : ''}(${row}.${col} = ANY(ARRAY[${list.join(',')}]::int[]))` };
  }
  const [op, sqlOp] = pick(ops);
  if (maybe(0.4)) {
    const name = pick(['v1', 'v2'] as const);
    const json = op === '_eq' && maybe() ? { [col]: sv(name) } : { [col]: { [op]: sv(name) } };
    return { json, sql: (row, s) => `${row}.${col} ${sqlOp} ${s[name]}` };
  }
  const v = int(10);
  const json = op === '_eq' && maybe() ? { [col]: v } : { [col]: { [op === '_eq' && maybe() ? '$eq' : op]: v } };
  return { json, sql: (row) => `${row}.${col} ${sqlOp} ${v}` };
}

function textLeaf(): Gen {
  switch (int(5)) {
    case 0: {
      const v = pick(COLORS);
      return { json: maybe() ? { c: v } : { c: { _eq: v } }, sql: (row) => `${row}.c = ${q(v)}` };
    }
    case 1:
      return { json: { c: { _eq: sv('color') } }, sql: (row, s) => `${row}.c = ${q(s.color)}` };
    case 2: {
      const [op, sqlOp, pat] = pick([
        ['_like', 'LIKE', 'r%'],
        ['_ilike', 'ILIKE', 'r%'],
        ['_nlike', 'NOT LIKE', '%e%'],
        ['_nilike', 'NOT ILIKE', '%E%'],
        ['_regex', '~', '^[rg]'],
        ['_iregex', '~*', 'N$'],
      ] as const);
      return { json: { c: { [op]: pat } }, sql: (row) => `${row}.c ${sqlOp} ${q(pat)}` };
    }
    case 3: {
      const list = [pick(COLORS), pick(COLORS)];
      return { json: { c: { _in: list } }, sql: (row) => `${row}.c IN (${list.map(q).join(', ')})` };
    }
    default:
      return { json: { c: { _is_null: true } }, sql: (row) => `${row}.c IS NULL` };
  }
}

function otherLeaf(): Gen {
  switch (int(6)) {
    case 0: {
      const v = maybe();
      return { json: maybe() ? { d: v } : { d: { _eq: v } }, sql: (row) => `${row}.d = ${v}` };
    }
    case 1: {
      const k = pick(KEYS);
      return { json: { tags: { _has_key: k } }, sql: (row) => `${row}.tags ? ${q(k)}` };
    }
    case 2: {
      const k = pick(KEYS);
      return { json: { tags: { _contains: { [k]: 1 } } }, sql: (row) => `${row}.tags @> ${q(JSON.stringify({ [k]: 1 }))}::jsonb` };
    }
    case 3: {
      const all = maybe();
      const op = all ? pick(['_has_keys_all', '_has_all_keys']) : pick(['_has_keys_any', '_has_any_keys']);
      if (maybe())
        return { json: { tags: { [op]: sv('keys') } }, sql: (row, s) => `${row}.tags ${all ? '?&' : '?|'} ARRAY[${s.keys.map(q).join(',')}]::text[]` };
      const ks = [pick(KEYS), pick(KEYS)];
      return { json: { tags: { [op]: ks } }, sql: (row) => `${row}.tags ${all ? '?&' : '?|'} ARRAY[${ks.map(q).join(',')}]::text[]` };
    }
    case 4: {
      const [op, sqlOp] = pick([
        ['_ceq', '='],
        ['_cneq', '<>'],
        ['_cgt', '>'],
        ['_clte', '<='],
      ] as const);
      return { json: { a: { [op]: 'b' } }, sql: (row) => `${row}.a ${sqlOp} ${row}.b` };
    }
    default: {
      const inner = intLeaf('p');
      const key = pick(['_exists', '$exists']);
      return {
        json: { [key]: { _table: pick(['parents', { schema: 'public', name: 'parents' }]), _where: inner.json } },
        sql: (_row, s) => `EXISTS (SELECT 1 FROM parents x WHERE ${inner.sql('x', s)})`,
      };
    }
  }
}

let depthCounter = 0;
function gen(depth: number): Gen {
  const r = int(depth >= 3 ? 6 : 10);
  if (r <= 1) return intLeaf('a');
  if (r === 2) return intLeaf('b');
  if (r === 3) return textLeaf();
  if (r <= 5) return otherLeaf();
  depthCounter += 1;
  if (r === 6) {
    const inner = gen(depth + 1);
    return { json: { [pick(['_not', '$not'])]: inner.json }, sql: (row, s) => `NOT (${inner.sql(row, s)})` };
  }
  if (r === 7) {
    // Object relationship: the related parents row satisfies a parents filter.
    const inner = parentGen(depth + 1);
    return {
      json: { parent: inner.json },
      sql: (row, s) => `EXISTS (SELECT 1 FROM parents p${depth} WHERE p${depth}.id = ${row}.parent_id AND (${inner.sql(`p${depth}`, s)}))`,
    };
  }
  const items = Array.from({ length: 1 + int(3) }, () => gen(depth + 1));
  const and = r === 8;
  const key = and ? pick(['_and', '$and']) : pick(['_or', '$or']);
  return {
    json: { [key]: items.map((i) => i.json) },
    sql: (row, s) => `(${items.map((i) => `(${i.sql(row, s)})`).join(and ? ' AND ' : ' OR ')})`,
  };
}

/** A filter over parents (p int, q text, and back to items through the array relationship `items`). */
function parentGen(depth: number): Gen {
  const r = int(4);
  if (r <= 1) return intLeaf('p');
  if (r === 2) {
    const v = pick(['x', 'y', 'z']);
    return { json: { q: v }, sql: (row) => `${row}.q = ${q(v)}` };
  }
  const inner = depth > 2 ? intLeaf('a') : gen(depth + 1);
  // Array relationship: some related row satisfies the inner expression.
  return {
    json: { items: inner.json },
    sql: (row, s) => `EXISTS (SELECT 1 FROM items c${depth} WHERE c${depth}.parent_id = ${row}.id AND (${inner.sql(`c${depth}`, s)}))`,
  };
}

/** A select filter of a role on parents (its own rows, not through items). */
function parentPermGen(): Gen {
  switch (int(4)) {
    case 0:
      return { json: {}, sql: () => 'true' };
    case 1: {
      const v = pick(['x', 'y', 'z']);
      return { json: { q: { _neq: v } }, sql: (row) => `${row}.q <> ${q(v)}` };
    }
    default:
      return intLeaf('p');
  }
}

function rowsSql(): string {
  const r2 = prng(12345);
  const i2 = (n: number): number => Math.floor(r2() * n);
  const parents = Array.from({ length: 8 }, (_, i) => `(${i + 1}, ${i2(4) === 0 ? 'NULL' : i2(10)}, ${q(['x', 'y', 'z'][i2(3)]!)})`);
  const items = Array.from({ length: 60 }, (_, i) => {
    const nul = (v: string): string => (i2(6) === 0 ? 'NULL' : v);
    const tags: Record<string, number> = {};
    for (const k of KEYS) if (i2(2) === 0) tags[k] = i2(2);
    return `(${i + 1}, ${nul(String(i2(10)))}, ${nul(String(i2(10)))}, ${nul(q(COLORS[i2(COLORS.length)]!))}, ${nul(String(i2(2) === 0))}, ${nul(q(JSON.stringify(tags)))}, ${nul(String(1 + i2(8)))})`;
  });
  return `
CREATE TABLE parents (id int PRIMARY KEY, p int, q text);
CREATE TABLE items (id int PRIMARY KEY, a int, b int, c text, d boolean, tags jsonb, parent_id int REFERENCES parents(id));
INSERT INTO parents VALUES ${parents.join(', ')};
INSERT INTO items VALUES ${items.join(', ')};
`;
}

let f: PermissionFixture;
const filters: Gen[] = [];
/** Readable columns of items besides id, per generated role. */
const columns: string[][] = [];
/** Select filter and readable columns besides id of parents, per generated role. */
const parentFilters: Gen[] = [];
const parentColumns: string[][] = [];
const INHERITED = 20;
const INHERITED_SESSIONS = 3;
/** Inherited role k = union of roles parents[k]. */
const parents: Array<[number, number]> = [];
beforeAll(async () => {
  f = await startPermissionFixture(rowsSql());
  const t = await f.md('bulk', [
    { type: 'pg_track_table', args: { table: 'parents' } },
    { type: 'pg_track_table', args: { table: 'items' } },
    { type: 'pg_create_object_relationship', args: { table: 'items', name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } } },
    {
      type: 'pg_create_array_relationship',
      args: { table: 'parents', name: 'items', using: { foreign_key_constraint_on: { table: 'items', columns: ['parent_id'] } } },
    },
  ]);
  if (t.status !== 200) throw new Error(t.text);
  for (let i = 0; i < FILTERS; i++) {
    filters.push(gen(0));
    columns.push(['a', 'b', 'c', 'parent_id'].filter(() => maybe()));
    parentFilters.push(parentPermGen());
    parentColumns.push(['p', 'q'].filter(() => maybe(0.7)));
  }
  for (let k = 0; k < INHERITED; k++) parents.push([int(FILTERS), int(FILTERS)]);
  const doc = (await f.md('export_metadata')).body;
  const items = doc.sources[0].tables.find((x: any) => x.table.name === 'items');
  items.select_permissions = filters.map((g, i) => ({
    role: `rnd${i}`,
    permission: { columns: ['id', ...columns[i]!], filter: g.json, allow_aggregations: true },
  }));
  const parentsTable = doc.sources[0].tables.find((x: any) => x.table.name === 'parents');
  parentsTable.select_permissions = parentFilters.map((g, i) => ({
    role: `rnd${i}`,
    permission: { columns: ['id', ...parentColumns[i]!], filter: g.json, allow_aggregations: true },
  }));
  doc.inherited_roles = parents.map(([x, y], k) => ({ role_name: `inh${k}`, role_set: [...new Set([`rnd${x}`, `rnd${y}`])] }));
  const r = await f.md('replace_metadata', doc);
  if (r.status !== 200) throw new Error(`seed ${SEED}: ${r.text}`);
});
afterAll(async () => {
  await f?.close();
});

// ---- Oracle of inherited roles' ordering, distinct_on, relationship filters and aggregates (plain TypeScript) ----

type Cell = number | string | boolean | null;
type Row = Record<string, Cell>;
type Dir = 'asc' | 'desc' | 'asc_nulls_first' | 'asc_nulls_last' | 'desc_nulls_first' | 'desc_nulls_last';
const DIRS: readonly Dir[] = ['asc', 'desc', 'asc_nulls_first', 'asc_nulls_last', 'desc_nulls_first', 'desc_nulls_last'];

/** Compares two cells as `order_by: dir` does (v2: asc puts nulls last, desc first). Only ints and x/y/z text are sorted. */
function cmpCell(a: Cell, b: Cell, dir: Dir): number {
  const desc = dir.startsWith('desc');
  const nullsFirst = dir.endsWith('nulls_first') || dir === 'desc';
  if (a === null || b === null) {
    if (a === b) return 0;
    return (a === null) === nullsFirst ? -1 : 1;
  }
  const c = a < b ? -1 : a > b ? 1 : 0;
  return desc ? -c : c;
}

/** What one inherited role (the union of two generated roles) sees, for one session. */
interface RoleView {
  /** Visible items rows (id order), hidden cells null. */
  readonly items: Row[];
  /** Visible parents rows (id order), hidden cells null. */
  readonly parents: Row[];
  readonly itemCols: ReadonlySet<string>;
  readonly parentCols: ReadonlySet<string>;
  /** The parent a visible item is related to, as the role sees it (null when none). */
  parentOf(item: Row): Row | null;
  /** The visible items related to a visible parent. */
  childrenOf(parent: Row): Row[];
}

async function roleView(x: number, y: number, s: Session): Promise<RoleView> {
  const adm = async (table: string, fx: string, fy: string): Promise<Array<Row & { __x: boolean; __y: boolean }>> =>
    (await f.db.sql(`SELECT t.*, coalesce((${fx}), false) AS __x, coalesce((${fy}), false) AS __y FROM ${table} t ORDER BY t.id`)).rows;
  const visible = (rows: Array<Row & { __x: boolean; __y: boolean }>, cx: readonly string[], cy: readonly string[]): Row[] =>
    rows
      .filter((r) => r.__x || r.__y)
      .map((r) => {
        const out: Row = { id: r.id as number };
        for (const c of new Set([...cx, ...cy])) out[c] = (cx.includes(c) && r.__x) || (cy.includes(c) && r.__y) ? r[c]! : null;
        return out;
      });
  const itemRows = await adm('items', filters[x]!.sql('t', s), filters[y]!.sql('t', s));
  const parentRows = await adm('parents', parentFilters[x]!.sql('t', s), parentFilters[y]!.sql('t', s));
  const items = visible(itemRows, columns[x]!, columns[y]!);
  const parents = visible(parentRows, parentColumns[x]!, parentColumns[y]!);
  const itemCols = new Set(['id', ...columns[x]!, ...columns[y]!]);
  const raw = new Map(itemRows.map((r) => [r.id, r]));
  // A join column no parent grants is not redacted (the relationship is readable as each parent reads it);
  // one some parent grants reads as the role sees the cell.
  const key = (item: Row): Cell => (itemCols.has('parent_id') ? item['parent_id']! : raw.get(item['id']!)!['parent_id']!);
  const byId = new Map(parents.map((p) => [p['id'], p]));
  return {
    items,
    parents,
    itemCols,
    parentCols: new Set(['id', ...parentColumns[x]!, ...parentColumns[y]!]),
    parentOf: (item) => (key(item) === null ? null : (byId.get(key(item)) ?? null)),
    childrenOf: (parent) => items.filter((i) => key(i) === parent['id']),
  };
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** A generated query over the inherited role and the answer the oracle expects. */
interface Probe {
  readonly query: string;
  readonly expected: unknown;
  readonly actual: (data: any) => unknown;
}

function probes(v: RoleView): Probe[] {
  const out: Probe[] = [];
  const pKeys = [...v.parentCols].filter((c) => c !== 'q' || maybe(0.5));
  const intItemCols = ['a', 'b', 'parent_id'].filter((c) => v.itemCols.has(c));
  const parentFields = [...v.parentCols].join(' ');
  const itemFields = [...v.itemCols].join(' ');

  // order_by through the object relationship, with the related row selected.
  {
    const k = pick(pKeys);
    const dir = pick(DIRS);
    const sorted = [...v.items].sort(
      (a, b) => cmpCell(v.parentOf(a)?.[k] ?? null, v.parentOf(b)?.[k] ?? null, dir) || (a['id'] as number) - (b['id'] as number),
    );
    out.push({
      query: `{ items(order_by: [{parent: {${k}: ${dir}}}, {id: asc}]) { ${itemFields} parent { ${parentFields} } } }`,
      expected: sorted.map((i) => ({ ...i, parent: v.parentOf(i) })),
      actual: (d) => d.items,
    });
  }
  // distinct_on a (possibly hidden) column, the relationship key breaking ties.
  if (intItemCols.length > 0) {
    const col = pick(intItemCols);
    const k = pick(pKeys);
    const dir = pick(DIRS);
    const sorted = [...v.items].sort(
      (a, b) =>
        cmpCell(a[col]!, b[col]!, 'asc') || cmpCell(v.parentOf(a)?.[k] ?? null, v.parentOf(b)?.[k] ?? null, dir) || (a['id'] as number) - (b['id'] as number),
    );
    const seen = new Set<Cell>();
    const kept = sorted.filter((i) => !seen.has(i[col]!) && seen.add(i[col]!) !== undefined);
    out.push({
      query: `{ items(distinct_on: [${col}], order_by: [{${col}: asc}, {parent: {${k}: ${dir}}}, {id: asc}]) { id ${col} } }`,
      expected: kept.map((i) => ({ id: i['id'], [col]: i[col] })),
      actual: (d) => d.items,
    });
  }
  // A filter through the object relationship (and its negation).
  {
    const k = pick([...v.parentCols].filter((c) => c !== 'q'));
    const n = int(10);
    const neg = maybe(0.3);
    const match = (i: Row): boolean => {
      const c = v.parentOf(i)?.[k] ?? null;
      return c !== null && (c as number) >= n;
    };
    const cond = `{parent: {${k}: {_gte: ${n}}}}`;
    out.push({
      query: `{ items(where: ${neg ? `{_not: ${cond}}` : cond}, order_by: {id: asc}) { id } }`,
      expected: v.items.filter((i) => match(i) !== neg).map((i) => ({ id: i['id'] })),
      actual: (d) => d.items,
    });
  }
  // A filter through the array relationship: some visible child matches on a visible cell.
  {
    const col = pick(['id', ...['a', 'b'].filter((c) => v.itemCols.has(c))]);
    const n = col === 'id' ? int(60) : int(10);
    out.push({
      query: `{ parents(where: {items: {${col}: {_gte: ${n}}}}, order_by: {id: asc}) { id } }`,
      expected: v.parents.filter((p) => v.childrenOf(p).some((i) => i[col] !== null && (i[col] as number) >= n)).map((p) => ({ id: p['id'] })),
      actual: (d) => d.parents,
    });
  }
  // The array relationship: nested rows, an aggregate of them, and that aggregate as a sort key.
  {
    const aggCols = ['a', 'b'].filter((c) => v.itemCols.has(c));
    const op = aggCols.length === 0 ? 'count' : pick(['count', 'max', 'min', 'sum']);
    const col = op === 'count' ? null : pick(aggCols);
    const dir = pick(DIRS);
    const agg = (p: Row): number | null => {
      const kids = v.childrenOf(p);
      if (col === null) return kids.length;
      const xs = kids.map((i) => i[col] as number | null).filter((x): x is number => x !== null);
      if (xs.length === 0) return null;
      return op === 'max' ? Math.max(...xs) : op === 'min' ? Math.min(...xs) : xs.reduce((a, b) => a + b, 0);
    };
    const sorted = [...v.parents].sort((a, b) => cmpCell(agg(a), agg(b), dir) || (a['id'] as number) - (b['id'] as number));
    const sel = col === null ? 'count' : `${op} { ${col} }`;
    const orderArg = col === null ? `{count: ${dir}}` : `{${op}: {${col}: ${dir}}}`;
    out.push({
      query: `{ parents(order_by: [{items_aggregate: ${orderArg}}, {id: asc}]) { id items(order_by: {id: asc}) { id } items_aggregate { aggregate { ${sel} } } } }`,
      expected: sorted.map((p) => ({ id: p['id'], items: v.childrenOf(p).map((i) => ({ id: i['id'] })), agg: agg(p) })),
      actual: (d) =>
        d.parents.map((p: any) => ({
          id: p.id,
          items: p.items,
          agg: num(col === null ? p.items_aggregate.aggregate.count : p.items_aggregate.aggregate[op][col]),
        })),
    });
  }
  // A root aggregate of cells, some hidden.
  {
    const fields = intItemCols.map((c) => `${c}_sum: sum { ${c} } ${c}_max: max { ${c} }`).join(' ');
    const sum = (c: string): number | null => {
      const xs = v.items.map((i) => i[c] as number | null).filter((x): x is number => x !== null);
      return xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0);
    };
    const max = (c: string): number | null => {
      const xs = v.items.map((i) => i[c] as number | null).filter((x): x is number => x !== null);
      return xs.length === 0 ? null : Math.max(...xs);
    };
    out.push({
      query: `{ items_aggregate { aggregate { count ${fields} } } }`,
      expected: {
        count: v.items.length,
        ...Object.fromEntries(
          intItemCols.flatMap((c) => [
            [`${c}_sum`, sum(c)],
            [`${c}_max`, max(c)],
          ]),
        ),
      },
      actual: (d) => {
        const a = d.items_aggregate.aggregate;
        return {
          count: a.count,
          ...Object.fromEntries(
            intItemCols.flatMap((c) => [
              [`${c}_sum`, num(a[`${c}_sum`][c])],
              [`${c}_max`, num(a[`${c}_max`][c])],
            ]),
          ),
        };
      },
    });
  }
  return out;
}

describe(`randomized permission filters (seed ${SEED})`, () => {
  it(`${FILTERS} filters × ${SESSIONS_PER_FILTER} sessions read exactly the rows SQL admits`, async () => {
    let nonTrivial = 0;
    for (let i = 0; i < FILTERS; i++) {
      const g = filters[i]!;
      for (let k = 0; k < SESSIONS_PER_FILTER; k++) {
        const s = randomSession();
        const where = g.sql('i', s);
        const expected = (await f.db.sql(`SELECT i.id FROM items i WHERE ${where} ORDER BY i.id`)).rows.map((r: any) => r.id);
        if (expected.length > 0 && expected.length < 60) nonTrivial += 1;
        const got = await f.as(`rnd${i}`, '{ items(order_by: {id: asc}) { id } }', headers(s));
        const context = `seed ${SEED}, filter ${i}: ${JSON.stringify(g.json)}\nsession ${JSON.stringify(headers(s))}\nSQL: ${where}`;
        expect(got.errors, context).toBeUndefined();
        expect(
          got.data.items.map((r: any) => r.id),
          context,
        ).toEqual(expected);
      }
    }
    // The generator must produce discriminating filters, not only all-or-nothing ones.
    expect(nonTrivial).toBeGreaterThan(FILTERS * SESSIONS_PER_FILTER * 0.3);
    expect(depthCounter).toBeGreaterThan(0);
  }, 120_000);

  it(`${INHERITED} inherited roles read the union of rows, each cell only where a parent granting it admits the row`, async () => {
    for (let k = 0; k < INHERITED; k++) {
      const [x, y] = parents[k]!;
      const s = randomSession();
      const fx = filters[x]!.sql('i', s);
      const fy = filters[y]!.sql('i', s);
      const cols = [...new Set([...columns[x]!, ...columns[y]!])];
      const cell = (c: string): string => {
        const admits = [columns[x]!.includes(c) ? `(${fx})` : null, columns[y]!.includes(c) ? `(${fy})` : null].filter((e) => e !== null);
        return `CASE WHEN ${admits.join(' OR ')} THEN i.${c} END AS ${c}`;
      };
      const select = ['i.id', ...cols.map(cell)].join(', ');
      const expected = (await f.db.sql(`SELECT ${select} FROM items i WHERE (${fx}) OR (${fy}) ORDER BY i.id`)).rows;
      const got = await f.as(`inh${k}`, `{ items(order_by: {id: asc}) { id ${cols.join(' ')} } }`, headers(s));
      const context = `seed ${SEED}, inherited ${k} = rnd${x} ∪ rnd${y}\n${JSON.stringify(filters[x]!.json)}\n${JSON.stringify(filters[y]!.json)}`;
      expect(got.errors, context).toBeUndefined();
      expect(got.data.items, context).toEqual(expected);
    }
  }, 120_000);

  it(`${INHERITED} inherited roles × ${INHERITED_SESSIONS} sessions: order_by, distinct_on, filters and aggregates through relationships see only visible cells`, async () => {
    let nonTrivial = 0;
    for (let k = 0; k < INHERITED; k++) {
      const [x, y] = parents[k]!;
      for (let n = 0; n < INHERITED_SESSIONS; n++) {
        const s = randomSession();
        const v = await roleView(x, y, s);
        if (v.items.some((i) => v.itemCols.has('parent_id') && i['parent_id'] === null && v.parentOf(i) === null)) nonTrivial += 1;
        for (const p of probes(v)) {
          const got = await f.as(`inh${k}`, p.query, headers(s));
          const context = `seed ${SEED}, inherited ${k} = rnd${x} ∪ rnd${y}, session ${JSON.stringify(headers(s))}\n${p.query}`;
          expect(got.errors, context).toBeUndefined();
          expect(p.actual(got.data), context).toEqual(p.expected);
        }
      }
    }
    // Some generated roles must hide join columns in some rows, or the hidden-cell paths go untested.
    expect(nonTrivial).toBeGreaterThan(0);
  }, 120_000);
});
