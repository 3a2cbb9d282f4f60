/**
 * What one role may read of each table: the columns, the permission filter as
 * IR, the limit cap, whether aggregates are allowed, and the relationships
 * whose target it may read. Compiled once per (catalog version, role) into
 * a RoleAccess (role-access.ts).
 */
import type * as ir from '../../ir/index.ts';
import type { Catalog, ColumnInfo, ComputedFieldInfo, RelationshipInfo, SourceInfo, SourceRelationshipInfo, TableInfo } from '../../catalog/types.ts';
import { tableKey } from '../../catalog/types.ts';
import { sameData } from '../../catalog/intern.ts';
import { isTrue } from '../../ir/bool-exp.ts';
import { toIrPermissionFilter } from '../to-ir/permission-bool-exp.ts';
import type { TableTypeNames } from './names.ts';
import { sourceTableTypeNames } from './type-customization.ts';

/** A relationship the role may follow. */
export interface RelationshipView {
  readonly info: RelationshipInfo;
  readonly target: TableView;
}

/** A `to_source` relationship (to a table of another source) the role may follow: it reads the target and the join columns. */
export interface SourceRelationshipView {
  readonly info: SourceRelationshipInfo;
  readonly target: TableView;
}

/** One table as one role sees it. */
export interface TableView {
  readonly source: SourceInfo;
  readonly info: TableInfo;
  readonly names: TableTypeNames;
  /** Selectable columns, in database order. */
  readonly columns: readonly ColumnInfo[];
  /** The row filter; null when every row is readable. */
  readonly filter: ir.BoolExp | null;
  readonly limitCap: number | null;
  readonly allowAggregations: boolean;
  /** Inherited roles: per column, the rows whose cell is visible (see ir.RowSource.redact); null when every cell is. */
  readonly redact: ReadonlyMap<string, ir.BoolExp> | null;
  /** Filled once every view of the role exists (relationships may be cyclic). */
  readonly relationships: RelationshipView[];
  /** Computed fields the role may select (all for admin; select permission `computed_fields` otherwise). */
  readonly computedFields?: readonly ComputedFieldInfo[];
  /** For table-returning computed fields the role may follow: the returned table's view, by field name. */
  readonly computedTargets?: Map<string, TableView>;
  /** Cross-source relationships the role may follow (filled with `relationships`). */
  readonly sourceRelationships?: SourceRelationshipView[];
}

/**
 * v2 compat: an object relationship over this table's own foreign key with
 * non-null columns always finds its row, so it is non-null; unless the role's
 * filter on the target could hide that row. The one place a filter shows in
 * the schema: role-fingerprint.ts records the result, not the filter.
 */
export function isAlwaysPresent(view: TableView, rel: RelationshipView): boolean {
  if (rel.info.kind !== 'object' || !rel.info.viaLocalForeignKey || rel.target.filter !== null) return false;
  return rel.info.columnMapping.every(([local]) => view.info.columns.find((c) => c.name === local)?.nullable === false);
}

/** Every table the role may read, keyed by `source\0schema.name`. */
/**
 * A view's parts made only when it has some: an empty Map and array per
 * view and role were 3.4 MiB of the heap at 2,000 tables × 10 roles (Note
 * [What the builds promote] in schema-cache.ts).
 */
type Lazy = { computedTargets?: Map<string, TableView>; sourceRelationships?: SourceRelationshipView[] };

export function buildTableViews(catalog: Catalog, role: string, isAdmin: boolean): Map<string, TableView> {
  const views = new Map<string, TableView>();
  for (const source of catalog.sources.values()) {
    for (const info of source.tables.values()) {
      const view = isAdmin ? adminView(source, info) : roleView(source, info, role);
      if (view !== null) views.set(`${source.name}\0${tableKey(info.name)}`, view);
    }
  }
  for (const view of views.values()) {
    const lazy = view as Lazy;
    for (const cf of view.computedFields ?? []) {
      if (cf.returns.kind !== 'table') continue;
      const target = views.get(`${view.source.name}\0${tableKey(cf.returns.table)}`);
      if (target !== undefined) (lazy.computedTargets ??= new Map()).set(cf.name, target);
    }
    for (const rel of view.info.relationships) {
      const target = views.get(`${view.source.name}\0${tableKey(rel.target)}`);
      if (target !== undefined) view.relationships.push({ info: rel, target });
    }
    // v2 compat: a role without select on the target table, or on a join column, does not see the field.
    for (const rel of view.source.sourceRelationships?.get(tableKey(view.info.name)) ?? []) {
      const target = views.get(`${rel.targetSource}\0${tableKey(rel.target.name)}`);
      if (target === undefined || !rel.columnMapping.every(([c]) => view.columns.some((col) => col.name === c))) continue;
      (lazy.sourceRelationships ??= []).push({ info: rel, target });
    }
  }
  return views;
}

/**
 * Note [Aggregate-only tables]
 * v2 compat: a select permission granting no column but `allow_aggregations` still gives the role
 * `<t>_aggregate { aggregate { count } }`. graphql-js refuses an object type without fields, so
 * such a table has no read view (no `<t>` type, root field or relationship to it): it gets a view
 * of its own here, with no columns, that only aggregate-fields.ts serves (`count` without
 * `columns`, `where` with the combinators alone, `limit`, `offset`).
 */
export function buildAggregateOnlyViews(catalog: Catalog, role: string, isAdmin: boolean): Map<TableInfo, TableView> {
  const out = new Map<TableInfo, TableView>();
  if (isAdmin) return out;
  for (const source of catalog.sources.values()) {
    for (const info of source.tables.values()) {
      const perm = info.permissions.get(role)?.select ?? null;
      if (perm === null || !perm.allowAggregations || info.columns.some((c) => perm.columns.includes(c.name))) continue;
      const filter = toIrPermissionFilter(perm.filter, info, source);
      out.set(info, makeView(source, info, [], isTrue(filter) ? null : filter, perm.limit, true, null, NO_COMPUTED_FIELDS));
    }
  }
  return out;
}

/**
 * Type names per table: the same for every role, so made once per catalog table,
 * and kept across catalog versions while the source's customization reads
 * the same (a new version has new SourceInfo objects: keyed by them, every
 * table's names were made again after each metadata change).
 */
const typeNames = new WeakMap<TableInfo, { readonly customization: SourceInfo['customization']; readonly names: TableTypeNames }>();

function namesOf(source: SourceInfo, info: TableInfo): TableTypeNames {
  const known = typeNames.get(info);
  if (known !== undefined && (known.customization === source.customization || sameData(known.customization, source.customization))) return known.names;
  const names = sourceTableTypeNames(info.gqlName, source.customization);
  typeNames.set(info, { customization: source.customization, names });
  return names;
}

function makeView(
  source: SourceInfo,
  info: TableInfo,
  columns: readonly ColumnInfo[],
  filter: ir.BoolExp | null,
  limitCap: number | null,
  allowAggregations: boolean,
  redact: ReadonlyMap<string, ir.BoolExp> | null = null,
  computedFields: readonly ComputedFieldInfo[] = NO_COMPUTED_FIELDS,
): TableView {
  return {
    source,
    info,
    names: namesOf(source, info),
    columns,
    filter,
    limitCap,
    allowAggregations,
    redact,
    relationships: [],
    computedFields,
  };
}

const NO_COMPUTED_FIELDS: readonly ComputedFieldInfo[] = Object.freeze([]);

function adminView(source: SourceInfo, info: TableInfo): TableView {
  return makeView(source, info, info.columns, null, null, true, null, info.computedFields ?? NO_COMPUTED_FIELDS);
}

function roleView(source: SourceInfo, info: TableInfo, role: string): TableView | null {
  const perm = info.permissions.get(role)?.select ?? null;
  if (perm === null) return null;
  const allowed = new Set(perm.columns);
  // Every role granting every column shares the catalog's array (one per role and table otherwise).
  const columns = info.columns.every((c) => allowed.has(c.name)) ? info.columns : info.columns.filter((c) => allowed.has(c.name));
  // An object type needs a field; a permission granting no column grants nothing.
  if (columns.length === 0) return null;
  const filter = toIrPermissionFilter(perm.filter, info, source);
  let redact: Map<string, ir.BoolExp> | null = null;
  for (const [column, exp] of perm.columnFilters ?? []) {
    redact ??= new Map();
    // Note [Two-valued visibility]: a parent's filter may be unknown (null) for a row, e.g. `score > 5` where
    // score is null. Under `_not`, `NOT (unknown AND cmp)` is unknown when cmp holds and true when it fails, so
    // a row would appear exactly when the hidden cell fails a comparison. Visibility is therefore `IS TRUE`.
    redact.set(column, { kind: 'holds', item: toIrPermissionFilter(exp, info, source) });
  }
  // A cell an inherited role may not see reads as null, so its field must be nullable.
  const shown = redact === null ? columns : columns.map((c) => (redact.has(c.name) && !c.nullable ? { ...c, nullable: true } : c));
  const computed = info.computedFields ?? NO_COMPUTED_FIELDS;
  const computedFields = computed.length === 0 ? NO_COMPUTED_FIELDS : computed.filter((c) => perm.computedFields?.includes(c.name) === true);
  return makeView(source, info, shown, isTrue(filter) ? null : filter, perm.limit, perm.allowAggregations, redact, computedFields);
}
