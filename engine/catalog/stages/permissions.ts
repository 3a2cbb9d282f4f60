/**
 * Stage "permissions": select/insert/update/delete permissions → the role's
 * TablePermissions. Columns `*` are expanded; boolean expressions are kept as
 * JSON but every column, relationship and `_exists` table they name is checked,
 * so a permission on a missing column is inconsistent rather than broken.
 */
import type { PermissionColumns, TableMetadata, TableNameInput } from '../../model/document.ts';
import { literalProblem } from '../permission-literals.ts';
import {
  COLUMN_OPERATORS,
  connective,
  JSON_OPERATORS,
  LIST_OPERATORS,
  operatorHint,
  permissionOperator,
  type PermissionOperator,
} from '../permission-operators.ts';
import type {
  ColumnInfo,
  ComputedFieldInfo,
  DeletePermissionInfo,
  InsertPermissionInfo,
  PermissionBoolExp,
  QualifiedName,
  RelationshipInfo,
  SelectPermissionInfo,
  UpdatePermissionInfo,
} from '../types.ts';
import type { PermissionKind } from '../object-id.ts';
import { scalarComputedColumn } from './computed-fields.ts';
import type { TableDraft } from './tables.ts';

/** A table with its resolved relationships, as permission checking sees it. */
export interface PermissionTable {
  readonly draft: TableDraft;
  readonly relationships: ReadonlyMap<string, RelationshipInfo>;
  /** The table's consistent computed fields (scalar ones may be compared like columns). */
  readonly computedFields?: readonly ComputedFieldInfo[];
}

/** Finds a consistent table of the same source. */
export type PermissionLookup = (name: QualifiedName) => PermissionTable | undefined;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The deepest boolean expression a permission may hold (each `_and`/`_or`
 * element, `_not`, `_exists` and relationship is a level). See Note [Depth
 * bounds] in graphql/to-ir/depth.ts: filters nested 5,000 deep overflowed the
 * stack here and answered 500.
 */
export const MAX_PERMISSION_DEPTH = 100;

/** Operators whose operand is one value of the column (Note [Permission literals]). */
const VALUE_OPERATORS: ReadonlySet<PermissionOperator> = new Set(['eq', 'neq', 'gt', 'gte', 'lt', 'lte']);

/** Why the operators applied to `column` do not fit it, or null; `path` locates `spec` in the permission. */
function checkColumnExp(column: ColumnInfo, spec: unknown, table: PermissionTable, path: string, root: PermissionTable): string | null {
  // A non-object is bare `column: value` equality.
  if (!isObject(spec)) {
    const bad = literalProblem(column, spec, table.draft.scalar);
    return bad === null ? null : `${bad} (at ${path})`;
  }
  const isJson = table.draft.scalar(column.dbType).json;
  for (const [key, value] of Object.entries(spec)) {
    const op = permissionOperator(key);
    if (op === undefined) return `"${key}" is not a known operator (on column "${column.name}")${operatorHint(key)}`;
    // Arrays also have @> and <@; the key operators are jsonb-only.
    const containment = op === 'contains' || op === 'contained_in';
    if (JSON_OPERATORS.has(op) && !isJson && !(containment && column.elementType !== null)) {
      return `operator "${key}" is not defined for column "${column.name}" of type ${column.dbType}`;
    }
    if (op === 'is_null' && typeof value !== 'boolean') return `"${key}" on column "${column.name}" expects a boolean`;
    if (LIST_OPERATORS.has(op) && !Array.isArray(value) && typeof value !== 'string') {
      return `"${key}" on column "${column.name}" expects a list or a session variable`;
    }
    if (VALUE_OPERATORS.has(op)) {
      const bad = literalProblem(column, value, table.draft.scalar);
      if (bad !== null) return `${bad} (at ${path}.${key})`;
    }
    if ((op === 'in' || op === 'nin') && Array.isArray(value)) {
      for (const [i, item] of value.entries()) {
        const bad = literalProblem(column, item, table.draft.scalar);
        if (bad !== null) return `${bad} (at ${path}.${key}[${i}])`;
      }
    }
    if (COLUMN_OPERATORS.has(op)) {
      const ref = comparedColumn(value);
      const of = ref?.root === true ? root : table;
      if (ref === null || !of.draft.columns.some((c) => c.name === ref.column)) {
        return `"${key}" on column "${column.name}" expects the name of a column of the same table, or ["$", column] of the table the permission is on`;
      }
    }
  }
  return null;
}

/**
 * v2 compat: the operand of `_ceq` and friends: a column of the same table (`"col"` or `["col"]`), or
 * `["$", "col"]`, a column of the table the permission is on (the root), also from a related table.
 */
export function comparedColumn(value: unknown): { readonly column: string; readonly root: boolean } | null {
  if (typeof value === 'string') return { column: value, root: false };
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return null;
  if (value.length === 1) return { column: value[0] as string, root: false };
  if (value.length === 2 && value[0] === '$') return { column: value[1] as string, root: true };
  return null;
}

/**
 * Returns why `exp` does not fit `table`, or null when every name in it
 * resolves and every literal fits its column; `path` (`filter`, `check`)
 * locates `exp` in the permission for the message.
 */
export function checkBoolExp(
  exp: unknown,
  table: PermissionTable,
  lookup: PermissionLookup,
  path = '$',
  depth = 0,
  /** The table the permission is on (`["$", column]` operands). */
  root: PermissionTable = table,
): string | null {
  if (depth > MAX_PERMISSION_DEPTH) return `the boolean expression is nested more than ${MAX_PERMISSION_DEPTH} levels deep (at ${path})`;
  if (!isObject(exp)) return 'a boolean expression must be an object';
  const naming = table.draft.naming;
  for (const [key, value] of Object.entries(exp)) {
    const conn = connective(key);
    const at = `${path}.${key}`;
    if (conn === 'and' || conn === 'or') {
      if (!Array.isArray(value)) return `"${key}" expects a list of boolean expressions`;
      for (const [i, e] of value.entries()) {
        const r = checkBoolExp(e, table, lookup, `${at}[${i}]`, depth + 1, root);
        if (r !== null) return r;
      }
    } else if (conn === 'not') {
      const r = checkBoolExp(value, table, lookup, at, depth + 1, root);
      if (r !== null) return r;
    } else if (conn === 'exists') {
      if (!isObject(value) || value['_table'] === undefined) return `"${key}" expects {_table, _where}`;
      const target = naming.parse(value['_table'] as TableNameInput);
      const t = lookup(target);
      if (t === undefined) return `table "${naming.format(target)}" used in "${key}" is not tracked or is inconsistent`;
      const r = checkBoolExp(value['_where'] ?? {}, t, lookup, `${at}._where`, depth + 1, root);
      if (r !== null) return r;
    } else {
      const column = table.draft.columns.find((c) => c.name === key) ?? scalarComputedColumn(table.computedFields, key)?.column;
      if (column !== undefined) {
        const r = checkColumnExp(column, value, table, at, root);
        if (r !== null) return r;
        continue;
      }
      const rel = table.relationships.get(key);
      if (rel === undefined) {
        return `"${key}" is not a column or relationship of table "${naming.format(table.draft.entry.table)}"`;
      }
      const target = lookup(rel.target);
      if (target === undefined) return `table "${naming.format(rel.target)}" of relationship "${key}" is inconsistent`;
      const r = checkBoolExp(value, target, lookup, at, depth + 1, root);
      if (r !== null) return r;
    }
  }
  return null;
}

function expandColumns(cols: PermissionColumns | undefined, table: TableDraft): string[] | string {
  if (cols === undefined || cols === '*') return table.columns.map((c) => c.name);
  const known = new Set(table.columns.map((c) => c.name));
  const missing = cols.filter((c) => !known.has(c));
  if (missing.length > 0) {
    return `the following columns are not found in table "${table.naming.format(table.entry.table)}": ${missing.map((c) => `"${c}"`).join(', ')}`;
  }
  return [...cols];
}

function checkSet(set: Readonly<Record<string, unknown>> | undefined, table: TableDraft): string | null {
  const known = new Set(table.columns.map((c) => c.name));
  const missing = Object.keys(set ?? {}).filter((c) => !known.has(c));
  return missing.length > 0 ? `"set" names columns that do not exist: ${missing.map((c) => `"${c}"`).join(', ')}` : null;
}

/** A resolved permission of one kind. */
export type ResolvedPermission =
  | { readonly kind: 'select'; readonly info: SelectPermissionInfo }
  | { readonly kind: 'insert'; readonly info: InsertPermissionInfo }
  | { readonly kind: 'update'; readonly info: UpdatePermissionInfo }
  | { readonly kind: 'delete'; readonly info: DeletePermissionInfo };

/** One permission entry of a table with its kind, for resolution. */
export interface PermissionItem {
  readonly kind: PermissionKind;
  readonly role: string;
  readonly permission: Readonly<Record<string, unknown>>;
  readonly definition: unknown;
}

/** Every permission entry of a table entry, in kind order. */
export function permissionItems(source: string, entry: TableMetadata): PermissionItem[] {
  const out: PermissionItem[] = [];
  const add = (kind: PermissionKind, list: ReadonlyArray<{ role: string; permission: object; comment?: string | null }>): void => {
    for (const p of list) {
      out.push({
        kind,
        role: p.role,
        permission: p.permission as Readonly<Record<string, unknown>>,
        definition: { role: p.role, source, table: entry.table, permission: p.permission, comment: p.comment ?? null },
      });
    }
  };
  add('insert', entry.insert_permissions);
  add('select', entry.select_permissions);
  add('update', entry.update_permissions);
  add('delete', entry.delete_permissions);
  return out;
}

/** True for an insert, update or delete permission marked `backend_only` (build.ts: granted to backend requests only). */
export function isBackendOnly(item: PermissionItem): boolean {
  return item.kind !== 'select' && item.permission['backend_only'] === true;
}

/** Resolves one permission against its table, or says why it is inconsistent. */
export function resolvePermission(item: PermissionItem, table: PermissionTable, lookup: PermissionLookup): ResolvedPermission | { reason: string } {
  // The message prefix only when it is needed: most permissions resolve.
  const fail = (why: string): { reason: string } => ({
    reason: `in table "${table.draft.naming.format(table.draft.entry.table)}": in permission for role "${item.role}": ${why}`,
  });
  if (item.role === 'admin') return fail('cannot define a permission for the admin role');
  const p = item.permission;
  const exp = (key: string): PermissionBoolExp | string => {
    const v = p[key] ?? {};
    const r = checkBoolExp(v, table, lookup, key);
    return r ?? (v as PermissionBoolExp);
  };
  const draft = table.draft;
  switch (item.kind) {
    case 'select': {
      const columns = expandColumns(p['columns'] as PermissionColumns, draft);
      if (typeof columns === 'string') return fail(columns);
      const filter = exp('filter');
      if (typeof filter === 'string') return fail(filter);
      const limit = p['limit'];
      return {
        kind: 'select',
        info: { columns, filter, limit: typeof limit === 'number' ? limit : null, allowAggregations: p['allow_aggregations'] === true },
      };
    }
    case 'insert': {
      const columns = expandColumns(p['columns'] as PermissionColumns | undefined, draft);
      if (typeof columns === 'string') return fail(columns);
      const check = exp('check');
      if (typeof check === 'string') return fail(check);
      const set = (p['set'] ?? {}) as Record<string, unknown>;
      const bad = checkSet(set, draft);
      if (bad !== null) return fail(bad);
      return { kind: 'insert', info: { columns, check, set } };
    }
    case 'update': {
      const columns = expandColumns(p['columns'] as PermissionColumns, draft);
      if (typeof columns === 'string') return fail(columns);
      const filter = exp('filter');
      if (typeof filter === 'string') return fail(filter);
      let check: PermissionBoolExp | null = null;
      if (p['check'] !== undefined && p['check'] !== null) {
        const c = exp('check');
        if (typeof c === 'string') return fail(c);
        check = c;
      }
      const set = (p['set'] ?? {}) as Record<string, unknown>;
      const bad = checkSet(set, draft);
      if (bad !== null) return fail(bad);
      return { kind: 'update', info: { columns, filter, check, set } };
    }
    case 'delete': {
      const filter = exp('filter');
      if (typeof filter === 'string') return fail(filter);
      return { kind: 'delete', info: { filter } };
    }
  }
}
