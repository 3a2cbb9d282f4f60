/**
 * What one role may write in each table: the insertable and updatable
 * columns, `set` presets, filters and checks as IR, and the relationships it
 * may insert through. Compiled once per (catalog version, role) into a
 * RoleAccess (role-access.ts).
 * The admin role may write whatever the database allows (view mutability).
 *
 * TODO(#4): the permission language grows there; this file only reads what
 * the catalog resolved (columns, check, filter, set) and folds it into IR.
 */
import type * as ir from '../../ir/index.ts';
import { sessionVariableOf } from '../../auth/headers.ts';
import type { ColumnInfo, RelationshipInfo, SourceInfo, TableInfo, TablePermissions } from '../../catalog/types.ts';
import { tableKey } from '../../catalog/types.ts';
import { sameData } from '../../catalog/intern.ts';
import { isTrue } from '../../ir/bool-exp.ts';
import { toIrPermissionFilter } from '../to-ir/permission-bool-exp.ts';
import { valueEncoding } from './scalars.ts';
import type { MutationTypeNames } from './names.ts';
import { sourceMutationTypeNames } from './type-customization.ts';
import type { TableView } from './table-view.ts';

/** What the role may insert. */
export interface InsertView {
  /** Columns the input may give (permitted, not preset, not generated). */
  readonly columns: readonly ColumnInfo[];
  readonly presets: ir.Presets | null;
  readonly check: ir.BoolExp | null;
}

/** What the role may update. */
export interface UpdateView {
  readonly columns: readonly ColumnInfo[];
  readonly presets: ir.Presets | null;
  readonly filter: ir.BoolExp | null;
  readonly check: ir.BoolExp | null;
}

/** What the role may delete. */
export interface DeleteView {
  readonly filter: ir.BoolExp | null;
}

/** A relationship the role may insert through (its target is insertable). */
export interface InsertRelationshipView {
  readonly info: RelationshipInfo;
  readonly target: MutationView;
}

/** One table as one role may write it. */
export interface MutationView {
  readonly source: SourceInfo;
  readonly info: TableInfo;
  readonly names: MutationTypeNames;
  /** The role's read view (returning, `_one`, `_by_pk`, `where`); null without select permission. */
  readonly select: TableView | null;
  readonly insert: InsertView | null;
  readonly update: UpdateView | null;
  readonly delete: DeleteView | null;
  /** Filled once every view of the role exists (relationships may be cyclic). */
  readonly insertRelationships: InsertRelationshipView[];
}

/**
 * Mutation type names per table: the same for every role, so made once per catalog table,
 * and kept across catalog versions while the source's customization reads
 * the same (a new version has new SourceInfo objects: keyed by them, every
 * table's names were made again after each metadata change).
 */
const typeNames = new WeakMap<TableInfo, { readonly customization: SourceInfo['customization']; readonly names: MutationTypeNames }>();

function namesOf(source: SourceInfo, info: TableInfo): MutationTypeNames {
  const known = typeNames.get(info);
  if (known !== undefined && (known.customization === source.customization || sameData(known.customization, source.customization))) return known.names;
  const names = sourceMutationTypeNames(info.gqlName, source.customization);
  typeNames.set(info, { customization: source.customization, names });
  return names;
}

function filterOf(exp: Readonly<Record<string, unknown>> | null, info: TableInfo, source: SourceInfo): ir.BoolExp | null {
  if (exp === null) return null;
  const f = toIrPermissionFilter(exp, info, source);
  return isTrue(f) ? null : f;
}

/**
 * v2 compat: a preset string naming `x-engine-*` or v2's `x-hasura-*` (any case) is a session variable
 * (Note [v2 session names]); for a JSON column its text is the JSON document (Note [JSON session values]).
 */
function presetsOf(set: Readonly<Record<string, unknown>>, info: TableInfo, source: SourceInfo): ir.Presets | null {
  const entries = Object.entries(set);
  if (entries.length === 0) return null;
  const fields = entries.map(([column, v]): readonly [string, ir.JsonDoc] => {
    const session = sessionVariableOf(v);
    if (session === null) return [column, { kind: 'const', value: v }];
    const c = info.columns.find((x) => x.name === column);
    const json = c !== undefined && c.elementType === null && valueEncoding(source, c.dbType) === 'json';
    return [column, json ? { kind: 'session', name: session, json: true } : { kind: 'session', name: session }];
  });
  return { columns: entries.map(([c]) => c), value: { kind: 'json-doc', doc: { kind: 'object', fields } } };
}

function writable(info: TableInfo, names: readonly string[] | null, presets: ir.Presets | null): ColumnInfo[] {
  const preset = new Set(presets?.columns ?? []);
  const allowed = names === null ? null : new Set(names);
  return info.columns.filter((c) => !c.isGenerated && !preset.has(c.name) && (allowed === null || allowed.has(c.name)));
}

function adminView(source: SourceInfo, info: TableInfo, select: TableView | null): MutationView {
  const m = info.mutability;
  const all = writable(info, null, null);
  return {
    source,
    info,
    names: namesOf(source, info),
    select,
    insert: m.insertable ? { columns: all, presets: null, check: null } : null,
    update: m.updatable ? { columns: all, presets: null, filter: null, check: null } : null,
    delete: m.deletable ? { filter: null } : null,
    insertRelationships: [],
  };
}

/**
 * The permissions of `role` on `info` for a request with or without
 * backend-only permissions (auth/session.ts `backendOnly`; catalog
 * `backendOnlyPermissions`).
 */
export function rolePermissions(info: TableInfo, role: string, backendOnly: boolean): TablePermissions | undefined {
  return (backendOnly ? info.backendOnlyPermissions?.get(role) : undefined) ?? info.permissions.get(role);
}

function roleView(source: SourceInfo, info: TableInfo, role: string, backendOnly: boolean, select: TableView | null): MutationView | null {
  const perms = rolePermissions(info, role, backendOnly);
  const m = info.mutability;
  let insert: InsertView | null = null;
  let update: UpdateView | null = null;
  let del: DeleteView | null = null;
  if (perms?.insert != null && m.insertable) {
    const presets = presetsOf(perms.insert.set, info, source);
    insert = { columns: writable(info, perms.insert.columns, presets), presets, check: filterOf(perms.insert.check, info, source) };
  }
  if (perms?.update != null && m.updatable) {
    const presets = presetsOf(perms.update.set, info, source);
    update = {
      columns: writable(info, perms.update.columns, presets),
      presets,
      filter: filterOf(perms.update.filter, info, source),
      check: filterOf(perms.update.check, info, source),
    };
  }
  if (perms?.delete != null && m.deletable) del = { filter: filterOf(perms.delete.filter, info, source) };
  if (insert === null && update === null && del === null) return null;
  return { source, info, names: namesOf(source, info), select, insert, update, delete: del, insertRelationships: [] };
}

/**
 * Every table the role may write, keyed like {@link buildTableViews}
 * (`source\0schema.name`); `reads` are the role's read views; `backendOnly`
 * adds the role's backend-only permissions ({@link rolePermissions}).
 */
export function buildMutationViews(
  sources: Iterable<SourceInfo>,
  role: string,
  isAdmin: boolean,
  reads: ReadonlyMap<string, TableView>,
  backendOnly = false,
): Map<string, MutationView> {
  const views = new Map<string, MutationView>();
  for (const source of sources) {
    for (const info of source.tables.values()) {
      const key = `${source.name}\0${tableKey(info.name)}`;
      const select = reads.get(key) ?? null;
      const view = isAdmin ? adminView(source, info, select) : roleView(source, info, role, backendOnly, select);
      if (view !== null) views.set(key, view);
    }
  }
  for (const view of views.values()) {
    if (view.insert === null) continue;
    for (const rel of view.info.relationships) {
      const target = views.get(`${view.source.name}\0${tableKey(rel.target)}`);
      if (target?.insert != null) view.insertRelationships.push({ info: rel, target });
    }
  }
  return views;
}
