/**
 * What one role may read of each table: the columns, the permission filter as
 * IR, the limit cap, whether aggregates are allowed, and the relationships
 * whose target it may read. Built with the role's schema.
 */
import type * as ir from '../../ir/index.ts';
import type { Catalog, ColumnInfo, RelationshipInfo, SourceInfo, TableInfo } from '../../catalog/types.ts';
import { tableKey } from '../../catalog/types.ts';
import { isTrue } from '../../ir/bool-exp.ts';
import { toIrPermissionFilter } from '../to-ir/permission-bool-exp.ts';
import { tableTypeNames, type TableTypeNames } from './names.ts';

/** A relationship the role may follow. */
export interface RelationshipView {
  readonly info: RelationshipInfo;
  readonly target: TableView;
}

/** One table as one role sees it. */
export interface TableView {
  readonly source: SourceInfo;
  readonly info: TableInfo;
  readonly names: TableTypeNames;
  /** Selectable columns, in database order. */
  readonly columns: readonly ColumnInfo[];
  readonly columnByField: ReadonlyMap<string, ColumnInfo>;
  /** The row filter; null when every row is readable. */
  readonly filter: ir.BoolExp | null;
  readonly limitCap: number | null;
  readonly allowAggregations: boolean;
  /** Filled once every view of the role exists (relationships may be cyclic). */
  readonly relationships: RelationshipView[];
}

/** Every table the role may read, keyed by `source\0schema.name`. */
export function buildTableViews(catalog: Catalog, role: string, isAdmin: boolean): Map<string, TableView> {
  const views = new Map<string, TableView>();
  for (const source of catalog.sources.values()) {
    for (const info of source.tables.values()) {
      const view = isAdmin ? adminView(source, info) : roleView(source, info, role);
      if (view !== null) views.set(`${source.name}\0${tableKey(info.name)}`, view);
    }
  }
  for (const view of views.values()) {
    for (const rel of view.info.relationships) {
      const target = views.get(`${view.source.name}\0${tableKey(rel.target)}`);
      if (target !== undefined) view.relationships.push({ info: rel, target });
    }
  }
  return views;
}

function makeView(
  source: SourceInfo,
  info: TableInfo,
  columns: readonly ColumnInfo[],
  filter: ir.BoolExp | null,
  limitCap: number | null,
  allowAggregations: boolean,
): TableView {
  return {
    source,
    info,
    names: tableTypeNames(info.gqlName),
    columns,
    columnByField: new Map(columns.map((c) => [c.gqlName, c])),
    filter,
    limitCap,
    allowAggregations,
    relationships: [],
  };
}

function adminView(source: SourceInfo, info: TableInfo): TableView {
  return makeView(source, info, info.columns, null, null, true);
}

function roleView(source: SourceInfo, info: TableInfo, role: string): TableView | null {
  const perm = info.permissions.get(role)?.select ?? null;
  if (perm === null) return null;
  const allowed = new Set(perm.columns);
  const columns = info.columns.filter((c) => allowed.has(c.name));
  // An object type needs a field; a permission granting no column grants nothing.
  if (columns.length === 0) return null;
  const filter = toIrPermissionFilter(perm.filter, info, source);
  return makeView(source, info, columns, isTrue(filter) ? null : filter, perm.limit, perm.allowAggregations);
}
