/**
 * What one role may do, compiled once per (catalog version, role): its read
 * views (columns, row filter, limit cap, redaction) and write views (columns,
 * presets, filters, checks) of every table, as IR. The role's GraphQLSchema
 * may be shared with other roles (see Note [Shared role types]); the
 * permission data used to build IR always comes from here, keyed by the
 * catalog's TableInfo of the table a descriptor names.
 *
 * Note [Shared role types]
 * A role's schema depends only on the *shape* of its permissions: which
 * tables it sees, their columns (with the nullability redaction gives them),
 * computed fields, aggregations, relationships to visible tables, the
 * columns it may insert and update (preset columns hidden), which of
 * insert/update/delete it has, which functions it may call, and which
 * object relationships over NOT NULL foreign keys are non-null (those whose
 * target it reads unfiltered: `isAlwaysPresent` in table-view.ts, the one
 * place a filter shows). Row filters, limits, checks and preset values never
 * show in the schema. So roles with the same shape (role-fingerprint.ts) share one
 * GraphQLSchema, types and root fields included, and the descriptors in
 * field `extensions` point at the views of whichever role built it. They
 * are used for shape only: to-ir maps each descriptor's view to the
 * requesting role's own view (`readViewOf`/`writeViewOf`) before reading a
 * filter, limit, redaction, preset or check. Twenty roles that differ only
 * in filters therefore cost one schema plus twenty small RoleAccess maps
 * (one, when their rules are identical).
 * Roles that read alike but write differently (other insert or update
 * columns, no delete..., or the admin and roles reading everything
 * unfiltered) get separate schemas that share the table types
 * (`<t>`, `<t>_bool_exp`, aggregates: most of a schema) through one
 * SchemaTypes per read fingerprint; only their mutation types and roots are
 * their own. Roles that read differently share the types of the tables
 * they read alike (and whose types reach no table read differently): Note
 * [Shared table types] in schema-cache.ts.
 * Under graphql-default naming each schema is renamed into new types
 * (naming-convention.ts), so only whole-schema sharing applies there.
 */
import type { Catalog, TableInfo } from '../../catalog/types.ts';
import { buildMutationViews, type MutationView } from './mutation-view.ts';
import { buildAggregateOnlyViews, buildTableViews, type TableView } from './table-view.ts';

/**
 * The compiled permissions of one role in one catalog version; roles with
 * identical rules (rulesFingerprint in role-fingerprint.ts) share one.
 */
export interface RoleAccess {
  readonly isAdmin: boolean;
  /** Compiled with the role's backend-only mutation permissions (auth/session.ts `backendOnly`). */
  readonly backendOnly: boolean;
  readonly catalogVersion: number;
  /** Read views keyed by `source\0schema.name` (as {@link buildTableViews}), in catalog order. */
  readonly tables: ReadonlyMap<string, TableView>;
  /** Write views keyed like `tables`. */
  readonly mutations: ReadonlyMap<string, MutationView>;
  /** The same read views keyed by the catalog's table object, for lookups from descriptors. */
  readonly readByInfo: ReadonlyMap<TableInfo, TableView>;
  readonly writeByInfo: ReadonlyMap<TableInfo, MutationView>;
  /** Tables the role may only count (Note [Aggregate-only tables] in table-view.ts): in none of the maps above. */
  readonly aggregateOnly: ReadonlyMap<TableInfo, TableView>;
}

/**
 * Compiles the views of `role` in `catalog` (admin sees and writes
 * everything); `backendOnly` adds the role's backend-only insert, update and
 * delete permissions (select permissions have none).
 */
export function buildRoleAccess(catalog: Catalog, role: string, isAdmin: boolean, backendOnly = false): RoleAccess {
  const tables = buildTableViews(catalog, role, isAdmin);
  const mutations = buildMutationViews(catalog.sources.values(), role, isAdmin, tables, backendOnly);
  return {
    isAdmin,
    backendOnly: backendOnly && !isAdmin,
    catalogVersion: catalog.version,
    tables,
    mutations,
    readByInfo: new Map([...tables.values()].map((v) => [v.info, v])),
    writeByInfo: new Map([...mutations.values()].map((v) => [v.info, v])),
    aggregateOnly: buildAggregateOnlyViews(catalog, role, isAdmin),
  };
}

function missing(table: TableInfo): Error {
  // A shared schema only holds tables every role of its shape can see, so this is an engine bug.
  return new Error(`the requesting role has no view of table "${table.name.name}" its schema shows`);
}

/** The role's own read view of the table `shape` (a view from a possibly shared schema) shows. */
export function readViewOf(access: RoleAccess, shape: TableView): TableView {
  const v = access.readByInfo.get(shape.info) ?? access.aggregateOnly.get(shape.info);
  if (v === undefined) throw missing(shape.info);
  return v;
}

/** The role's own write view of the table `shape` shows. */
export function writeViewOf(access: RoleAccess, shape: MutationView): MutationView {
  const v = access.writeByInfo.get(shape.info);
  if (v === undefined) throw missing(shape.info);
  return v;
}
