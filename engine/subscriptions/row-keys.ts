/**
 * Which rows of a table a live query's groups read, where its IR says so by
 * equalities: the part of Note [Row-level refetch] (live-queries.ts) that
 * reads the plan. Dialect-neutral: values are compared by the backend's
 * `keyText`.
 */
import type * as ir from '../ir/index.ts';
import type { ParamSource } from '../ir/value.ts';
import type { TableName } from '../backends/backend.ts';

/** `column = <parameter>` holding for every row a root field reads. */
export interface KeyColumn {
  readonly column: string;
  /** The column's database type (how a bound value is compared with the row's). */
  readonly dbType: string;
  /** Index into {@link RowKeys.sources}. */
  readonly param: number;
}

/** How the groups of a cohort select the rows of the tables they read, where every read of a table is keyed. */
export interface RowKeys {
  /** The values compared with rows, bound per subscriber like the statement's own. */
  readonly sources: readonly ParamSource[];
  /** Table key (tableKey) → one entry per root field reading it: the equalities its rows satisfy. */
  readonly tables: ReadonlyMap<string, readonly (readonly KeyColumn[])[]>;
  /** The key columns per table (what the change feed must report). */
  readonly columns: ReadonlyMap<string, readonly string[]>;
}

/** The key of a table in maps: `[schema, name]` as JSON. */
export const tableKey = (t: TableName): string => JSON.stringify([t.schema, t.name]);

/** Deeper than any IR a query can make: past it the walk gives up (no keys). */
const MAX_DEPTH = 500;

/**
 * Counts every table-name-shaped object under `node` (relationship targets,
 * row sources, `_exists` tables): each is a read of that table. Every
 * reference counts, shared objects included. False when the tree is too deep.
 */
function countTables(node: unknown, counts: Map<string, number>, depth: number): boolean {
  if (depth > MAX_DEPTH) return false;
  if (Array.isArray(node)) {
    for (const x of node) if (!countTables(x, counts, depth + 1)) return false;
    return true;
  }
  if (node === null || typeof node !== 'object') return true;
  if (node instanceof Map) {
    for (const v of node.values()) if (!countTables(v, counts, depth + 1)) return false;
    return true;
  }
  const o = node as Record<string, unknown>;
  if (typeof o['schema'] === 'string' && typeof o['name'] === 'string') {
    const k = tableKey({ schema: o['schema'], name: o['name'] });
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  for (const v of Object.values(o)) if (!countTables(v, counts, depth + 1)) return false;
  return true;
}

/** The `column = value` conjuncts of `e` (a comparison of a plain column with a bound value). */
function equalities(e: ir.BoolExp | null, sources: ParamSource[], out: KeyColumn[]): void {
  if (e === null) return;
  switch (e.kind) {
    case 'and':
      for (const i of e.items) equalities(i, sources, out);
      return;
    // Where `holds(x)` or a permission root over x is true, x is.
    case 'holds':
    case 'permission-root':
      equalities(e.item, sources, out);
      return;
    case 'compare': {
      if (e.op !== 'eq' || e.left.cast !== null || e.left.computed !== undefined) return;
      const r = e.right;
      const plain = r.kind === 'const' || ((r.kind === 'variable' || r.kind === 'session') && r.encoding === 'plain');
      if (!plain) return;
      let param = sources.indexOf(r);
      if (param === -1) param = sources.push(r) - 1;
      out.push({ column: e.left.column, dbType: e.dbType, param });
      return;
    }
    default:
      return;
  }
}

/** Root reads of database tables (namespaces flattened): their row source, or null for a kind not keyed. */
function rootSources(fields: readonly ir.OperationField[], out: (ir.RowSource | null)[]): void {
  for (const f of fields) {
    switch (f.kind) {
      case 'select':
        out.push(f.stream === undefined ? f.select.from : null);
        break;
      case 'aggregate':
        out.push(f.select.from);
        break;
      case 'namespace':
        rootSources(f.fields, out);
        break;
      default:
        break;
    }
  }
}

/**
 * The row keys of a live query's root fields, or null when no table is
 * keyed. A table is keyed when every read of it in the IR is a root field
 * whose filter (permission and `where`, conjoined) holds at least one
 * `column = value`: a row that satisfies none of a group's equalities, before
 * or after a write, cannot be in that group's result.
 */
export function rowKeys(fields: readonly ir.OperationField[]): RowKeys | null {
  const counts = new Map<string, number>();
  if (!countTables(fields, counts, 0)) return null;
  const roots: (ir.RowSource | null)[] = [];
  rootSources(fields, roots);
  const sources: ParamSource[] = [];
  const reads = new Map<string, KeyColumn[][]>();
  const unkeyed = new Set<string>();
  for (const from of roots) {
    if (from === null) continue;
    const k = tableKey(from.table);
    const keys: KeyColumn[] = [];
    if (from.function === undefined) equalities(from.where, sources, keys);
    if (keys.length === 0) {
      unkeyed.add(k);
      continue;
    }
    let list = reads.get(k);
    if (list === undefined) {
      list = [];
      reads.set(k, list);
    }
    list.push(keys);
  }
  const tables = new Map<string, readonly (readonly KeyColumn[])[]>();
  const columns = new Map<string, readonly string[]>();
  for (const [k, list] of reads) {
    // Read elsewhere too (a relationship, an `_exists`, a root field without equalities): any change may matter to any group.
    if (unkeyed.has(k) || counts.get(k) !== list.length) continue;
    tables.set(k, list);
    columns.set(k, [...new Set(list.flatMap((keys) => keys.map((c) => c.column)))].sort());
  }
  return tables.size === 0 ? null : { sources, tables, columns };
}

/** Changed rows as the change feed reports them (backend.ts ChangedRows). */
export interface RowsOfChange {
  readonly columns: readonly string[];
  readonly rows: readonly (readonly (string | null)[])[];
}

/** Per change: each reported column's values (a group's value not among them rules the row set out at once). */
const valueSets = new WeakMap<RowsOfChange, Map<number, Set<string | null>>>();

function valuesOf(change: RowsOfChange, col: number): Set<string | null> {
  let sets = valueSets.get(change);
  if (sets === undefined) {
    sets = new Map();
    valueSets.set(change, sets);
  }
  let set = sets.get(col);
  if (set === undefined) {
    set = new Set(change.rows.map((r) => r[col] ?? null));
    sets.set(col, set);
  }
  return set;
}

/**
 * Whether a group may read one of the changed rows: `text` gives the text of
 * the group's value for a key column (null: not comparable, matches anything).
 * Cost per group: a set lookup per key column, rows compared one by one only
 * when a read has several key columns that all occur.
 */
export function mayRead(reads: readonly (readonly KeyColumn[])[], text: (c: KeyColumn) => string | null, change: RowsOfChange): boolean {
  for (const keys of reads) {
    const at = keys.map((c) => change.columns.indexOf(c.column));
    const want = keys.map(text);
    let known = 0;
    let possible = true;
    for (let i = 0; i < keys.length && possible; i++) {
      const w = want[i] ?? null;
      const col = at[i] ?? -1;
      // A column the feed did not report, or a value that cannot be compared: any row may match.
      if (w === null || col === -1) continue;
      known++;
      // SQL: NULL = x is never true, and a group's value is never null here.
      possible = valuesOf(change, col).has(w);
    }
    if (!possible) continue;
    if (known <= 1) return true;
    for (const row of change.rows) {
      let all = true;
      for (let i = 0; i < keys.length && all; i++) {
        const w = want[i] ?? null;
        const col = at[i] ?? -1;
        if (w === null || col === -1) continue;
        all = row[col] === w;
      }
      if (all) return true;
    }
  }
  return false;
}
