/**
 * A permission boolean expression (metadata JSON) → ir.BoolExp. Built once per
 * (catalog version, table, expression) when a role's schema is built, never
 * per request; roles whose permissions are equal share the catalog's interned
 * expression object and therefore the IR built from it (see {@link toIrPermissionFilter}).
 *
 * v2 compat: besides the GraphQL operator names this accepts the aliases of
 * the permission JSON (catalog/permission-operators.ts) and bare
 * `column: value` equality (docs/compat.md). A string value naming
 * `x-engine-*` or v2's `x-hasura-*` (any case) is a session variable and becomes a session
 * parameter slot; with a list operator it is an array session variable (a
 * JSON array or a Postgres array literal, decoded at bind time). Anything not
 * understood denies (false) rather than widening access; the catalog reports
 * such permissions as inconsistent before they get here.
 */
import type * as ir from '../../ir/index.ts';
import { sessionVariableOf } from '../../auth/headers.ts';
import { scalarComputedColumn } from '../../catalog/stages/computed-fields.ts';
import type { ColumnInfo, ComputedFieldInfo, SourceInfo, TableInfo } from '../../catalog/types.ts';
import { tableKey } from '../../catalog/types.ts';
import { backendOf } from '../../backends/registry.ts';
import { valueEncoding } from '../schema/scalars.ts';
import { COLUMN_OPERATORS, connective, LIST_OPERATORS, permissionOperator, type PermissionOperator } from '../../catalog/permission-operators.ts';
import { andAll } from '../../ir/bool-exp.ts';
import { comparedColumn } from '../../catalog/stages/permissions.ts';

const DENY: ir.BoolExp = { kind: 'or', items: [] };

/** Column comparison operators → the comparison they make. */
const COLUMN_COMPARE: Readonly<Partial<Record<PermissionOperator, ir.ColumnCompareOp>>> = {
  ceq: 'eq',
  cneq: 'neq',
  cgt: 'gt',
  cgte: 'gte',
  clt: 'lt',
  clte: 'lte',
};

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The session variable `v` names (`x-engine-*`, or v2's `x-hasura-*`: Note [v2 session names]), canonical. */
function sessionName(v: unknown): string | null {
  return sessionVariableOf(v);
}

function operand(op: ir.CompareOp, v: unknown, column: ColumnInfo, source: SourceInfo): ir.ParamSource {
  const json = valueEncoding(source, column.dbType) === 'json';
  const list = LIST_OPERATORS.has(op);
  const session = sessionName(v);
  if (session !== null) {
    return { kind: 'session', name: session, encoding: list ? 'session-array' : json && op !== 'has_key' ? 'json' : 'plain' };
  }
  if (list && Array.isArray(v)) {
    const items = v.map((x): ir.ParamSource => {
      const s = sessionName(x);
      if (s !== null) return { kind: 'session', name: s, encoding: 'plain' };
      return { kind: 'const', value: json && (op === 'in' || op === 'nin') ? JSON.stringify(x) : x };
    });
    if (items.every((i) => i.kind === 'const')) return { kind: 'const', value: items.map((i) => (i.kind === 'const' ? i.value : null)) };
    return { kind: 'list', items };
  }
  if (json && op !== 'has_key') return { kind: 'const', value: JSON.stringify(v) };
  return { kind: 'const', value: v };
}

/** Points the comparisons `columnExp` made for a computed field at the field's function call on the row. */
function onComputedField(e: ir.BoolExp, cf: ComputedFieldInfo): ir.BoolExp {
  const session: ir.ParamSource = { kind: 'session-object' };
  const args = cf.sessionArgument === null ? [] : [{ name: cf.sessionArgument, value: session }];
  const computed: ir.ComputedFieldCall = { function: cf.function, tableArgument: cf.tableArgument, args };
  switch (e.kind) {
    case 'and':
      return { kind: 'and', items: e.items.map((i) => onComputedField(i, cf)) };
    case 'compare':
    case 'is-null':
    case 'compare-columns':
      return e.left.column === cf.name ? { ...e, left: { ...e.left, computed } } : e;
    default:
      return e;
  }
}

/** The table a permission is on, for its `["$", column]` operands; `used` is set when one is met. */
interface Root {
  readonly table: TableInfo;
  used: boolean;
}

function columnExp(column: ColumnInfo, spec: unknown, table: TableInfo, source: SourceInfo, root: Root): ir.BoolExp {
  const ref: ir.ColumnRef = { column: column.name, cast: null };
  if (!isObject(spec)) return { kind: 'compare', left: ref, op: 'eq', right: operand('eq', spec, column, source), dbType: column.dbType };
  const parts: ir.BoolExp[] = [];
  for (const [k, v] of Object.entries(spec)) {
    const op = permissionOperator(k);
    if (op === undefined) return DENY;
    if (op === 'is_null') {
      parts.push({ kind: 'is-null', left: ref, isNull: v === true });
    } else if (COLUMN_OPERATORS.has(op)) {
      const operand = comparedColumn(v);
      const other = operand === null ? undefined : (operand.root ? root.table : table).columns.find((c) => c.name === operand.column);
      const cmp = COLUMN_COMPARE[op];
      if (operand === null || other === undefined || cmp === undefined) return DENY;
      if (operand.root) root.used = true;
      parts.push({ kind: 'compare-columns', left: ref, op: cmp, right: { column: other.name, cast: null }, ...(operand.root ? { rightRoot: true } : {}) });
    } else {
      const cmp = op as ir.CompareOp;
      parts.push({ kind: 'compare', left: ref, op: cmp, right: operand(cmp, v, column, source), dbType: column.dbType });
    }
  }
  return andAll(parts);
}

function convert(exp: unknown, table: TableInfo, source: SourceInfo, root: Root): ir.BoolExp {
  if (!isObject(exp)) return DENY;
  const parts: ir.BoolExp[] = [];
  for (const [key, value] of Object.entries(exp)) {
    const conn = connective(key);
    if (conn === 'and' || conn === 'or') {
      const items = Array.isArray(value) ? value.map((v) => convert(v, table, source, root)) : [DENY];
      parts.push(conn === 'and' ? andAll(items) : { kind: 'or', items });
      continue;
    }
    if (conn === 'not') {
      parts.push({ kind: 'not', item: convert(value, table, source, root) });
      continue;
    }
    if (conn === 'exists') {
      parts.push(existsExp(value, source, root));
      continue;
    }
    const column = table.columns.find((c) => c.name === key);
    if (column !== undefined) {
      parts.push(columnExp(column, value, table, source, root));
      continue;
    }
    const computed = scalarComputedColumn(table.computedFields, key);
    if (computed !== null) {
      parts.push(onComputedField(columnExp(computed.column, value, table, source, root), computed.field));
      continue;
    }
    const rel = table.relationships.find((r) => r.name === key);
    const target = rel === undefined ? undefined : source.tables.get(tableKey(rel.target));
    if (rel === undefined || target === undefined) return DENY;
    // An array relationship holds when some related row satisfies the inner expression.
    parts.push({ kind: 'relationship', target: rel.target, mapping: rel.columnMapping, where: convert(value, target, source, root) });
  }
  return andAll(parts);
}

function existsExp(value: unknown, source: SourceInfo, root: Root): ir.BoolExp {
  if (!isObject(value)) return DENY;
  const t = value['_table'];
  const naming = backendOf(source).naming;
  const name =
    typeof t === 'string'
      ? naming.parse(t)
      : isObject(t) && typeof t['name'] === 'string'
        ? naming.parse({ name: t['name'], ...(typeof t['schema'] === 'string' ? { schema: t['schema'] } : {}) })
        : null;
  const target = name === null ? undefined : source.tables.get(tableKey(name));
  if (name === null || target === undefined) return DENY;
  return { kind: 'exists', target: name, where: convert(value['_where'] ?? {}, target, source, root) };
}

/**
 * IR already built per source, table and expression object. Keyed weakly by
 * the catalog's SourceInfo, so a new catalog version starts afresh and old
 * entries go with their snapshot: an unchanged table keeps its TableInfo
 * across versions (Note [Incremental catalog] in catalog/stages/catalog-sources.ts)
 * while the tables its filter reaches through relationships may have changed.
 */
const built = new WeakMap<SourceInfo, WeakMap<TableInfo, WeakMap<object, ir.BoolExp>>>();

/** Converts a permission filter on `table` to IR (memoized per table and expression object). */
export function toIrPermissionFilter(exp: unknown, table: TableInfo, source: SourceInfo): ir.BoolExp {
  if (!isObject(exp)) return DENY;
  let perSource = built.get(source);
  if (perSource === undefined) {
    perSource = new WeakMap();
    built.set(source, perSource);
  }
  let perTable = perSource.get(table);
  if (perTable === undefined) {
    perTable = new WeakMap();
    perSource.set(table, perTable);
  }
  let out = perTable.get(exp);
  if (out === undefined) {
    const root: Root = { table, used: false };
    out = convert(exp, table, source, root);
    // `["$", column]` operands read the row the permission is applied to, wherever it is embedded.
    if (root.used) out = { kind: 'permission-root', item: out };
    perTable.set(exp, out);
  }
  return out;
}
