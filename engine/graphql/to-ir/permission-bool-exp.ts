/**
 * A permission boolean expression (metadata JSON) → ir.BoolExp. Built once per
 * (catalog version, role, table) with the role's schema, never per request.
 *
 * v2 compat: besides the GraphQL operator names this accepts the aliases of
 * the permission JSON (`$and $or $not $exists $eq $ne $neq ...`, `_ne`,
 * `_has_any_keys`, `_has_all_keys`) and bare `column: value` equality
 * (shared/design/compat.md). A string value naming `x-engine-*` (any case) is
 * a session variable and becomes a session parameter slot. Anything not
 * understood denies (false) rather than widening access; the catalog reports
 * such permissions as inconsistent before they get here.
 */
import type * as ir from '../../ir/index.ts';
import type { ColumnInfo, SourceInfo, TableInfo } from '../../catalog/types.ts';
import { tableKey } from '../../catalog/types.ts';
import { andAll } from '../../ir/bool-exp.ts';

const DENY: ir.BoolExp = { kind: 'or', items: [] };

const OPERATORS: Readonly<Record<string, ir.CompareOp | 'is_null'>> = {
  eq: 'eq', ne: 'neq', neq: 'neq', gt: 'gt', gte: 'gte', lt: 'lt', lte: 'lte', in: 'in', nin: 'nin',
  is_null: 'is_null', like: 'like', nlike: 'nlike', ilike: 'ilike', nilike: 'nilike',
  similar: 'similar', nsimilar: 'nsimilar', regex: 'regex', nregex: 'nregex', iregex: 'iregex', niregex: 'niregex',
  contains: 'contains', contained_in: 'contained_in', has_key: 'has_key',
  has_keys_any: 'has_keys_any', has_any_keys: 'has_keys_any', has_keys_all: 'has_keys_all', has_all_keys: 'has_keys_all',
};

const LIST_OPS = new Set<string>(['in', 'nin', 'has_keys_any', 'has_keys_all']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `_and`/`$and` → `and`; other keys unchanged. */
function bareKey(k: string): string {
  return k.startsWith('_') || k.startsWith('$') ? k.slice(1) : k;
}

function sessionName(v: unknown): string | null {
  return typeof v === 'string' && /^x-engine-/i.test(v) ? v.toLowerCase() : null;
}

function operand(op: ir.CompareOp, v: unknown, column: ColumnInfo): ir.ParamSource {
  const json = column.dbType === 'jsonb' || column.dbType === 'json';
  const list = LIST_OPS.has(op);
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

function columnExp(column: ColumnInfo, spec: unknown): ir.BoolExp {
  const ref: ir.ColumnRef = { column: column.name, cast: null };
  if (!isObject(spec)) return { kind: 'compare', left: ref, op: 'eq', right: operand('eq', spec, column), dbType: column.dbType };
  const parts: ir.BoolExp[] = [];
  for (const [k, v] of Object.entries(spec)) {
    const op = OPERATORS[bareKey(k)];
    if (op === undefined) return DENY;
    if (op === 'is_null') parts.push({ kind: 'is-null', left: ref, isNull: v === true });
    else parts.push({ kind: 'compare', left: ref, op, right: operand(op, v, column), dbType: column.dbType });
  }
  return andAll(parts);
}

/** Converts a permission filter on `table` to IR. */
export function toIrPermissionFilter(exp: unknown, table: TableInfo, source: SourceInfo): ir.BoolExp {
  if (!isObject(exp)) return DENY;
  const parts: ir.BoolExp[] = [];
  for (const [key, value] of Object.entries(exp)) {
    const k = bareKey(key);
    if ((key.startsWith('_') || key.startsWith('$')) && ['and', 'or', 'not', 'exists'].includes(k)) {
      if (k === 'and' || k === 'or') {
        const items = Array.isArray(value) ? value.map((v) => toIrPermissionFilter(v, table, source)) : [DENY];
        parts.push(k === 'and' ? andAll(items) : { kind: 'or', items });
      } else if (k === 'not') {
        parts.push({ kind: 'not', item: toIrPermissionFilter(value, table, source) });
      } else {
        parts.push(existsExp(value, source));
      }
      continue;
    }
    const column = table.columns.find((c) => c.name === key);
    if (column !== undefined) {
      parts.push(columnExp(column, value));
      continue;
    }
    const rel = table.relationships.find((r) => r.name === key);
    const target = rel === undefined ? undefined : source.tables.get(tableKey(rel.target));
    if (rel === undefined || target === undefined) return DENY;
    parts.push({ kind: 'relationship', target: rel.target, mapping: rel.columnMapping, where: toIrPermissionFilter(value, target, source) });
  }
  return andAll(parts);
}

function existsExp(value: unknown, source: SourceInfo): ir.BoolExp {
  if (!isObject(value)) return DENY;
  const t = value['_table'];
  const name = typeof t === 'string' ? { schema: 'public', name: t } : isObject(t) && typeof t['name'] === 'string'
    ? { schema: typeof t['schema'] === 'string' ? t['schema'] : 'public', name: t['name'] }
    : null;
  const target = name === null ? undefined : source.tables.get(tableKey(name));
  if (name === null || target === undefined) return DENY;
  return { kind: 'exists', target: name, where: toIrPermissionFilter(value['_where'] ?? {}, target, source) };
}
