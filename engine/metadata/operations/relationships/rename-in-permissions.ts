/**
 * v2 compat: renaming a relationship also renames it where permissions use it
 * (in `filter`/`check` boolean expressions, at any depth through other
 * relationships and `_exists`), so the rename does not break them.
 */
import type { Catalog, QualifiedName } from '../../../catalog/types.ts';
import { tableKey } from '../../../catalog/types.ts';
import type { TableNaming } from '../../../backends/backend.ts';
import { sameTable, type TableMetadata, type TableNameInput } from '../../../model/document.ts';

/** What is renamed: relationship `from` of `table` becomes `to`. */
export interface RelationshipRename {
  readonly source: string;
  readonly table: QualifiedName;
  readonly from: string;
  readonly to: string;
  /** How the source's backend names tables (`_exists`' `_table`). */
  readonly naming: TableNaming;
}

const LISTS = new Set(['_and', '$and', '_or', '$or']);
const NOTS = new Set(['_not', '$not', 'not']);
const EXISTS = new Set(['_exists', '$exists']);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function rewrite(exp: unknown, at: QualifiedName, r: RelationshipRename, catalog: Catalog): unknown {
  if (!isObject(exp)) return exp;
  const tables = catalog.sources.get(r.source)?.tables;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(exp)) {
    if (LISTS.has(k) && Array.isArray(v)) {
      out[k] = v.map((e) => rewrite(e, at, r, catalog));
    } else if (NOTS.has(k)) {
      out[k] = rewrite(v, at, r, catalog);
    } else if (EXISTS.has(k) && isObject(v) && v['_table'] !== undefined) {
      out[k] = { ...v, _where: rewrite(v['_where'], r.naming.parse(v['_table'] as TableNameInput), r, catalog) };
    } else {
      const rel = tables?.get(tableKey(at))?.relationships.find((x) => x.name === k);
      const key = k === r.from && sameTable(at, r.table) ? r.to : k;
      out[key] = rel === undefined ? v : rewrite(v, rel.target, r, catalog);
    }
  }
  return out;
}

function rewritePermission<P extends object>(p: P, at: QualifiedName, r: RelationshipRename, catalog: Catalog): P {
  const out = { ...p } as Record<string, unknown>;
  for (const key of ['filter', 'check']) {
    if (isObject(out[key])) out[key] = rewrite(out[key], at, r, catalog);
  }
  return out as P;
}

/** The table entry with the rename applied to its permissions' boolean expressions. */
export function renameInPermissions(t: TableMetadata, r: RelationshipRename, catalog: Catalog): TableMetadata {
  const at = t.table;
  const each = <P extends object>(list: ReadonlyArray<{ role: string; permission: P; comment?: string | null }>) =>
    list.map((e) => ({ ...e, permission: rewritePermission(e.permission, at, r, catalog) }));
  return {
    ...t,
    select_permissions: each(t.select_permissions),
    insert_permissions: each(t.insert_permissions),
    update_permissions: each(t.update_permissions),
    delete_permissions: each(t.delete_permissions),
  };
}
