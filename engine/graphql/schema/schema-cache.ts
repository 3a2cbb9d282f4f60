/**
 * Role schemas memoized per (catalog version, role view): a role view is a
 * role, or a role with its backend-only mutation permissions (sessions with
 * `backendOnly`, auth/session.ts), which has its own compiled permissions
 * and never shares them with the plain role. A new catalog version
 * drops every schema of older versions at once. Each role gets its own
 * compiled permissions (role-access.ts); roles with the same fingerprint
 * (role-fingerprint.ts) share one GraphQLSchema, and roles that only write
 * differently share the table types: see Note [Shared role types] in
 * role-access.ts.
 *
 * Note [Shared table types]
 * Roles that read differently still read most tables alike: the admin
 * reads one table no role may read, a role sees one column fewer of one
 * table. A table's types (table-types.ts) depend on its read shape and on
 * the types of the tables its relationships and computed fields lead to,
 * so a new SchemaTypes takes from an earlier one the types of every table
 * it reads alike there: equal `tableLabels` (role-fingerprint.ts), and
 * every table they lead to taken too (`sameTypeTables`, the greatest such
 * set). Tables whose types reach a table read differently are made anew,
 * so a type never shows a column or relationship the role does not read:
 * the printed schema of every role equals its unshared build
 * (test/unit/graphql/schema-sharing.test.ts). Every table's types come from
 * the oldest SchemaTypes that made them, so two SchemaTypes never hand one
 * schema two types of one name; column types, `order_by` and `<fn>_args`
 * come from one LeafTypes per catalog version for the same reason.
 *
 * Note [Types across catalog versions]
 * A new catalog version does not start from nothing: when everything table
 * types read outside their own tables is unchanged (`sameSurroundings`), the
 * cache keeps its LeafTypes and a new SchemaTypes takes, besides the types
 * of this version's SchemaTypes, those of the previous version's, by the rule
 * of Note [Shared table types]: the catalog keeps an unchanged table's
 * TableInfo object (Note [Incremental catalog] in
 * catalog/stages/catalog-sources.ts), so equal labels on the same TableInfo
 * mean equal types, and a table whose types reach a changed one is made
 * anew. Tracking one table at 2,000 then makes that table's types and the
 * root fields; a change to a table everything reaches (a relationship to a
 * table in the middle of a chain) still makes the types of all that reach
 * it. Descriptors of reused types keep pointing at the views of the role
 * that made them in an older version; to-ir only reads their shape and maps
 * them to the requesting role's views by TableInfo (Note [Shared role
 * types] in role-access.ts), which an unchanged table shares. The previous
 * version's types are copied into the new SchemaTypes (`adopted`), never
 * owned, so no chain of SchemaTypes forms; the previous version's registry
 * is let go once the admin and every role have their schema. The old views
 * the descriptors hold stay alive as long as a type made with them is in
 * use, so after MAX_GENERATIONS versions in a row one version builds
 * afresh, which bounds what old versions keep. With owners instead of
 * copies, the heap grew by 7.5 MiB with each table tracked at 2,000 tables
 * (`node --expose-gc test/bench/track-profile.ts 2000 10 10`); with
 * copies it stays 198 MiB (189 MiB before any reuse).
 * What settled it, `node test/bench/track-profile.ts 2000 10 10` on this
 * checkout and the one before, run side by side (CPU ms per table tracked,
 * medians): the admin schema 1,250 → 400, every role's 750 → 420, the call
 * itself 300 → 240. The 9th change in a row builds afresh (1,000–1,400).
 *
 * Note [A schema build never escapes]
 * Building a role's schema runs graphql-js constructors and validation over
 * names and shapes that come from the database and metadata; the catalog
 * checks every name it knows of (Note [Names from the database] in
 * catalog/stages/tables.ts), but a throw that got through once took every
 * engine process down: warming runs in a macrotask, where an exception is
 * uncaught. So `get` turns any failure into an `unexpected` EngineError for
 * that request (the cause in `internal`, shown to admins), remembers it for
 * the catalog version so a broken role does not rebuild on every request,
 * and `warm` reports failures to `onBuildError` (logged by the caller)
 * instead of throwing. The process stays up and every other role keeps its
 * schema. A schema that builds but breaks a rule graphql-js checks only in
 * `validateSchema` fails each request's `validate` (the result is kept on
 * the schema) the same way; validating at build instead doubled the build
 * of a 6,000-table schema (test/unit/graphql/deep-schema.test.ts, 3.7 s to
 * 6.7 s) for roles that may never send a request.
 *
 * Note [What the builds promote]
 * The engine's RSS the moment every role has answered after a
 * replace_metadata holds, besides the live schemas, what the builds put in
 * the old generation and let go since V8's last full collection (none
 * comes within the warm-up's last second or so: the old generation stays
 * under its limit). Found with V8's sampling heap profiler
 * (`test/bench/schema-memory.ts --heap-prof`, by site with
 * `alloc-sites.ts`; its "promoted" profile overstates: ~5% of objects that
 * die young stay in it) and settled by counting (v8.GCProfiler: what young
 * collections promote, and the old generation's growth between
 * collections, which is what V8 allocates there directly): about as much
 * went in directly as was promoted. The direct part: hidden classes of
 * configuration maps keyed by per-table names (Note [Configurations in
 * dictionaries] in lean-types.ts) and large objects (past 128 KiB) that a
 * growing structure of the collecting walk replaced (Note [Walk marks] in
 * collect-types.ts). The type map of each schema and the root types'
 * field maps still grow that way.
 * Measured 2026-11-29 00:50 UTC, load 2-3, 6540b48 against this change,
 * alternated twice, `NODE_ENV=production node --max-semi-space-size=16
 * --expose-gc test/bench/schema-memory.ts 2000 10 --burst` in each
 * checkout: old generation allocated by the builds of the admin and the
 * 10 roles 205/209 → 167/168 MiB (promoted 118/120 → 101/102, directly
 * 87/89 → 65/66); heap kept 142.2 → 140.5 MiB; builds CPU 2,041/2,067 →
 * 1,627/1,638 ms. In the engine (`node test/bench/rss-variants.ts --rounds 2
 * --settle 2000 --heap before=<6540b48> after=<this>`, 00:46, load 3-4): RSS
 * at replace_metadata → every role answered 414/402 → 379/381 MiB, the old
 * space 229/215 → 195/198 MiB and large objects 46/44 → 35/38 MiB;
 * engine CPU 2,324/2,400 → 2,185/2,365 ms.
 * With Note [Field defaults on a prototype] (lean-types.ts) and views
 * without empty parts (table-view.ts) too, the heap every schema keeps is
 * 142.2 → 131.1 MiB, and `node test/bench/run.ts --only-scale
 * --engine-root <checkout>`, 6540b48 and this alternated (00:51-01:04 UTC,
 * load 1-3, two rounds before the last two changes and two after; RSS in
 * MiB, CPU in ms): RSS the moment every role answered after
 * replace_metadata 420/416/419/408 → 381/371/373/362, after a restart
 * 371/407/379/408 → 387/382/366/376, 20 s later 314/312/320/315 →
 * 315/309/304/299; engine CPU replace → all roles 2,396/2,569/2,249/2,239
 * → 2,239/2,241/2,110/2,136, restart → all roles 3,060/3,015/2,936/2,948 →
 * 2,501/2,549/2,553/2,425. At 5,000 tables × 11 roles (`--scale-tables
 * 5000 --scale-roles 11`, one run each, 01:05-01:11): RSS at the answer
 * 728 → 667, after a restart 851 → 667; engine CPU replace → all roles
 * 5,393 → 4,418, restart → all roles 5,635 → 4,950.
 * With field maps of column-keyed configurations in fast mode too
 * (`fieldMapLike` in lean-types.ts) the heap kept is 121.1 MiB, and the
 * same bench (01:20-01:28 UTC, load 3-5, alternated twice; 5,000 × 11
 * once): RSS at the answer 428/403 → 369/353, after a restart 366/366 →
 * 357/359, 20 s later 321/317 → 299/292; engine CPU replace → all roles
 * 2,388/2,375 → 2,433/2,363 (the replace call itself, not the builds,
 * is most of it under this load), restart → all roles 3,096/3,511 →
 * 2,425/2,686; track → all roles 546/500 → 608/350 ms wall. 5,000 × 11:
 * RSS at the answer 801 → 658, after a restart 736 → 652; engine CPU
 * replace → all roles 5,786 → 4,875, restart → all roles 6,569 → 5,181.
 * What moved: the old generation now reaches V8's limit later, so the
 * full collection that came within the first build comes after it. In
 * `NODE_ENV=production node --max-semi-space-size=16
 * test/bench/track-profile.ts 2000 10 3`, which has no idle collector, it
 * lands in the first track (01:38 UTC: the first build 2,241 → 1,734 ms
 * CPU, then the first track's call 95/106 → 353/384 ms, the later tracks
 * unchanged or lower); in the engine, Note [Collecting after a burst]
 * (idle-gc.ts) takes it once the warm-up is over, before the scale bench's
 * track (pg_track_table answer 66-95 ms engine CPU on both sides).
 */
import type { Catalog, TableInfo } from '../../catalog/types.ts';
import type { RemoteSchemaInfo } from '../../remote/types.ts';
import { sameData } from '../../catalog/intern.ts';
import { EngineError, ErrorCode } from '../../errors/engine-error.ts';
import { buildRoleSchema, buildSchemaOf, type RoleSchema, type SchemaOptions, type SharedSchema } from './build-schema.ts';
import { buildRoleAccess, type RoleAccess } from './role-access.ts';
import type { TypeCollection } from './collect-types.ts';
import { readFingerprint, roleFingerprint, rulesFingerprint, sameTypeTables, tableLabels } from './role-fingerprint.ts';
import { ROOT_FIELD_CONTRIBUTORS } from './root-fields.ts';
import { roleRemoteViews } from './remote-root-fields.ts';
import { LeafTypes, SchemaTypes, type SharedTypesOptions, type TableTypes } from './table-types.ts';
import type { GraphQLSchema } from 'graphql';
import type { MutationCarry } from './mutation-root.ts';
import type { MutationTypes } from './mutation-types.ts';

/** Table types by the role's remote views key, then by read fingerprint. */
type TypesByRead = Map<string, Map<string, { readonly types: SchemaTypes; readonly labels: ReadonlyMap<TableInfo, string> }>>;

/**
 * Catalog versions in a row whose schemas may take table types from the
 * version before; then one builds every type afresh, which lets go of the
 * older versions' role views the reused types' descriptors hold (Note
 * [Types across catalog versions]).
 */
const MAX_GENERATIONS = 8;

/**
 * Whether the table types of `before` may serve `after`: everything they
 * read outside the tables themselves is the same. A table's types read its
 * TableInfo (kept by the catalog while unchanged: Note [Incremental catalog]
 * in catalog/stages/catalog-sources.ts) and, through the role view, its
 * source: the connection and backend (capabilities), the server version, the customization
 * (type names), enum tables (enum types live in LeafTypes, by name),
 * functions (`<fn>_args` inputs in LeafTypes, computed fields), remote and
 * cross-source relationships (kept per source, not per table), and remote
 * schemas.
 */
function sameSurroundings(before: Catalog, after: Catalog): boolean {
  if (before.sources.size !== after.sources.size || !sameData(before.remoteSchemas, after.remoteSchemas)) return false;
  for (const remote of after.remoteSchemas?.values() ?? []) if (remote.typeRelationships !== undefined) return false;
  const olds = [...before.sources.values()];
  let i = 0;
  for (const s of after.sources.values()) {
    const o = olds[i];
    i += 1;
    if (o === undefined || o.name !== s.name || o.kind !== s.kind || o.backend !== s.backend || o.connection !== s.connection) return false;
    // The compile target is made anew with each build (it reads the introspection); types read none of it.
    if (o.target?.serverVersion !== s.target?.serverVersion) return false;
    if (!sameData(o.customization, s.customization) || !sameData(o.functions, s.functions)) return false;
    if (!sameData(o.remoteRelationships, s.remoteRelationships) || !sameData(o.sourceRelationships, s.sourceRelationships)) return false;
    if (!sameEnumTables(o.tables, s.tables) || !sameEnumTables(s.tables, o.tables)) return false;
  }
  return true;
}

/** Whether every enum table of `a` is the very same table in `b`. */
function sameEnumTables(a: ReadonlyMap<string, TableInfo>, b: ReadonlyMap<string, TableInfo>): boolean {
  for (const [key, t] of a) if (t.enumValues !== null && b.get(key) !== t) return false;
  return true;
}

/** The key of the admin's schema in the maps of SchemaCache. */
const ADMIN_KEY = '\0admin';

/** The memo of role schemas. */
export class SchemaCache {
  #version = -1;
  #byRole = new Map<string, RoleSchema>();
  /** The previous catalog version's #byRole while its types may serve: their collections are replayed (Note [Collection replayed across versions] in collect-types.ts). */
  #previousByRole = new Map<string, RoleSchema>();
  readonly #byFingerprint = new Map<string, SharedSchema>();
  /**
   * Table types by the role's remote views (roleRemoteViews' key) and read
   * fingerprint: roles that read alike and see every remote alike share them
   * even when they write differently.
   */
  #typesByRead: TypesByRead = new Map();
  /**
   * The previous catalog version's #typesByRead, when its table types may
   * serve this version's: Note [Types across catalog versions].
   */
  #previous: TypesByRead | null = null;
  /** The catalog of #version (for comparing what table types read outside their tables). */
  #catalog: Catalog | null = null;
  /** The collection of the first schema built over each SchemaTypes of this version (see #build). */
  #collections = new WeakMap<SchemaTypes, TypeCollection>();
  /** Catalog versions in a row that took table types from the one before. */
  #generations = 0;
  /** The mutation types of each role's schema (by the key of `get`), of this version and of the previous one. */
  #mutations = new Map<string, MutationTypes>();
  #previousMutations = new Map<string, MutationTypes>();
  /** The types every SchemaTypes of this catalog version shares. */
  #leaves: LeafTypes;
  /** Compiled permissions by rules fingerprint. */
  readonly #byRules = new Map<string, RoleAccess>();
  /** Roles whose schema failed to build in this catalog version: see Note [A schema build never escapes]. */
  readonly #failed = new Map<string, EngineError>();
  readonly #options: SchemaOptions;
  readonly #onBuildError: (role: string, error: EngineError) => void;

  constructor(options: SchemaOptions = {}, onBuildError: (role: string, error: EngineError) => void = () => {}) {
    this.#options = options;
    this.#onBuildError = onBuildError;
    this.#leaves = new LeafTypes(options.relay === true, options.relayHideUnselectableKeys === true);
  }

  /**
   * The schema of `role` in `catalog`, built on first use; `backendOnly`
   * (ignored for admin) gives the role's backend-only view.
   */
  get(catalog: Catalog, role: string, isAdmin: boolean, backendOnly = false): RoleSchema {
    const key = isAdmin ? ADMIN_KEY : backendOnly ? `\0backend\0${role}` : role;
    if (catalog.version === this.#version) {
      const failed = this.#failed.get(key);
      if (failed !== undefined) throw failed;
    }
    try {
      return this.#get(catalog, role, isAdmin, backendOnly, key);
    } catch (e) {
      const err = buildError(role, e);
      if (catalog.version === this.#version) {
        this.#failed.set(key, err);
        this.#onBuildError(role, err);
      }
      throw err;
    }
  }

  #get(catalog: Catalog, role: string, isAdmin: boolean, backendOnly: boolean, key: string): RoleSchema {
    if (catalog.version !== this.#version) {
      // Requests still holding an older snapshot get a fresh, uncached build.
      if (catalog.version < this.#version) return buildRoleSchema(catalog, role, isAdmin, this.#options, backendOnly);
      this.#failed.clear();
      this.#byFingerprint.clear();
      this.#byRules.clear();
      const reuse = this.#catalog !== null && this.#generations < MAX_GENERATIONS && sameSurroundings(this.#catalog, catalog);
      this.#previousByRole = reuse ? this.#byRole : new Map();
      this.#byRole = new Map();
      this.#previous = reuse ? this.#typesByRead : null;
      this.#previousMutations = reuse ? this.#mutations : new Map();
      this.#mutations = new Map();
      this.#typesByRead = new Map();
      this.#collections = new WeakMap();
      if (reuse) {
        this.#generations += 1;
      } else {
        this.#generations = 0;
        this.#leaves = new LeafTypes(this.#options.relay === true, this.#options.relayHideUnselectableKeys === true);
      }
      this.#catalog = catalog;
      this.#version = catalog.version;
    }
    let s = this.#byRole.get(key);
    if (s === undefined) {
      const carry: MutationCarry = { previous: this.#previousMutations.get(key) ?? null, made: null };
      const previous = this.#previousByRole.get(key)?.collection;
      const { access, shared } = isAdmin ? this.#admin(catalog, role, carry, previous) : this.#compiled(catalog, role, backendOnly, carry, previous);
      if (shared.mutationTypes !== undefined) this.#mutations.set(key, shared.mutationTypes);
      s = { ...shared, role, catalogVersion: catalog.version, access };
      this.#byRole.set(key, s);
      // Once the admin and every role have their schema, the previous version has nothing more to give: let it go.
      if (this.#previous !== null && this.#byRole.has(ADMIN_KEY) && catalog.roles.every((r) => this.#byRole.has(r))) {
        this.#previous = null;
        this.#previousMutations = new Map();
        this.#previousByRole = new Map();
      }
    }
    return s;
  }

  #admin(
    catalog: Catalog,
    role: string,
    carry: MutationCarry,
    previous: TypeCollection | undefined,
  ): { readonly access: RoleAccess; readonly shared: SharedSchema } {
    const access = buildRoleAccess(catalog, role, true);
    // Roles that read everything unfiltered read like the admin: they share its table types.
    return { access, shared: this.#build(catalog, role, access, carry, previous) };
  }

  /**
   * The schema of `access` over the table types of the roles that read like
   * it, replaying the collection of `previous` (the role's schema of the
   * previous version) or else of the first schema built over those types in
   * this version (the admin's for roles that read everything alike): Note
   * [Collection replayed across versions] in collect-types.ts.
   */
  #build(catalog: Catalog, role: string, access: RoleAccess, carry: MutationCarry, previous: TypeCollection | undefined): SharedSchema {
    const types = this.#typesOf(catalog, role, access);
    const shared = buildSchemaOf(catalog, role, access, this.#options, types, carry, previous ?? this.#collections.get(types));
    if (!this.#collections.has(types)) this.#collections.set(types, shared.collection);
    return shared;
  }

  /**
   * The table types of the roles that read like `access`; a new SchemaTypes
   * takes the types of tables it reads like an earlier one from there.
   */
  #typesOf(catalog: Catalog, role: string, access: RoleAccess): SchemaTypes {
    // Remote relationship fields show the role's view of their remote (Note [Remote joins in a role's view] in
    // remote/role-join.ts): roles that see a remote differently make and share their types apart.
    const remoteViews = roleRemoteViews(catalog, role, access.isAdmin, this.#options.remoteSchemaPermissions === true);
    let registry = this.#typesByRead.get(remoteViews.key);
    if (registry === undefined) {
      registry = new Map();
      this.#typesByRead.set(remoteViews.key, registry);
    }
    const read = readFingerprint(access);
    const known = registry.get(read);
    if (known !== undefined) return known.types;
    // Oldest first: every table's types then come from the first SchemaTypes that made them. The previous
    // catalog version's are older than this one's (Note [Types across catalog versions]).
    const made = this.#newTypes(catalog, access, remoteViews.view, [...(this.#previous?.get(remoteViews.key)?.values() ?? [])], [...registry.values()]);
    registry.set(read, made);
    return made.types;
  }

  /**
   * A SchemaTypes for the views of `access`, taking the types of tables it
   * reads alike from `before` (of the previous catalog version: the types
   * they made, copied) and from `now` (of this version, oldest first: as
   * owners, which may make them on demand).
   */
  #newTypes(
    catalog: Catalog,
    access: RoleAccess,
    remoteView: SharedTypesOptions['remoteView'],
    before: ReadonlyArray<{ readonly types: SchemaTypes; readonly labels: ReadonlyMap<TableInfo, string> }>,
    now: ReadonlyArray<{ readonly types: SchemaTypes; readonly labels: ReadonlyMap<TableInfo, string> }>,
  ): { readonly types: SchemaTypes; readonly labels: ReadonlyMap<TableInfo, string> } {
    const labels = tableLabels(access);
    const owners = new Map<TableInfo, SchemaTypes>();
    // Remote type relationships lead from remote types to table types, which sameTypeTables does not follow:
    // with any, every SchemaTypes makes all its types (Note [Remote type relationships in role schemas]).
    const remotes = catalog.remoteSchemas ?? new Map<string, RemoteSchemaInfo>();
    const shareable = ![...remotes.values()].some((r) => r.typeRelationships !== undefined);
    // The previous version's types are copied, not owned: owning would keep each version's SchemaTypes (and its
    // role's views) alive through the next one's, a chain as long as the changes.
    const adopted = new Map<TableInfo, TableTypes>();
    for (const other of shareable ? before : []) {
      for (const info of sameTypeTables(access.readByInfo, labels, other.labels)) {
        const t = adopted.has(info) ? undefined : other.types.made(info);
        if (t !== undefined) adopted.set(info, t);
      }
    }
    for (const other of shareable ? now : []) {
      for (const info of sameTypeTables(access.readByInfo, labels, other.labels)) {
        if (!owners.has(info) && !adopted.has(info)) owners.set(info, other.types.ownerOf(info));
      }
    }
    const options = { leaves: this.#leaves, views: access.readByInfo, owners, adopted, remotes };
    return { types: new SchemaTypes(remoteView === undefined ? options : { ...options, remoteView }), labels };
  }

  /**
   * The admin schema of `catalog`, a catalog built but not installed (a
   * metadata call's, whose stored queries rest/query-check.ts validates
   * against it), made with the types of the installed version where they
   * serve (Note [Types across catalog versions]) and kept nowhere, so the
   * cache stays on the version requests use: Note [Checking stored queries]
   * in rest/query-check.ts.
   */
  candidateAdmin(catalog: Catalog): GraphQLSchema {
    const installed = this.#catalog;
    if (installed === null || catalog.version <= this.#version || !sameSurroundings(installed, catalog)) {
      return buildRoleSchema(catalog, 'admin', true, this.#options).schema;
    }
    const access = buildRoleAccess(catalog, 'admin', true);
    const remoteViews = roleRemoteViews(catalog, 'admin', true, this.#options.remoteSchemaPermissions === true);
    const installedTypes = [...(this.#typesByRead.get(remoteViews.key)?.values() ?? [])];
    const { types } = this.#newTypes(catalog, access, remoteViews.view, installedTypes, []);
    const carry: MutationCarry = { previous: this.#mutations.get(ADMIN_KEY) ?? null, made: null };
    return buildSchemaOf(catalog, 'admin', access, this.#options, types, carry, this.#byRole.get(ADMIN_KEY)?.collection).schema;
  }

  /**
   * The compiled permissions of a non-admin role, shared by roles with
   * identical rules, and its schema, shared by roles of equal shape. The
   * shape is taken per role, not per rules: a root-field contributor may read
   * the role name (function permissions do), so equal rules alone do not make
   * equal schemas (Note [Root-field contributors] in root-fields.ts).
   */
  #compiled(
    catalog: Catalog,
    role: string,
    backendOnly: boolean,
    carry: MutationCarry,
    previous: TypeCollection | undefined,
  ): { readonly access: RoleAccess; readonly shared: SharedSchema } {
    // The flag is part of the key even when the rules read alike: RoleAccess records it.
    const rules = `${backendOnly ? 'b' : 'n'}${rulesFingerprint(catalog, role, backendOnly)}`;
    let access = this.#byRules.get(rules);
    if (access === undefined) {
      access = buildRoleAccess(catalog, role, false, backendOnly);
      this.#byRules.set(rules, access);
    }
    const fingerprint = roleFingerprint(catalog, role, access, this.#options.contributors ?? ROOT_FIELD_CONTRIBUTORS);
    let shared = this.#byFingerprint.get(fingerprint);
    if (shared === undefined) {
      shared = this.#build(catalog, role, access, carry, previous);
      this.#byFingerprint.set(fingerprint, shared);
    }
    return { access, shared };
  }

  /**
   * Builds the schemas of the admin and of every role of `catalog` ahead of
   * requests, one role per macrotask so requests interleave, stopping once a
   * newer catalog has been seen. Called when metadata changes, so the first
   * request of a role does not pay for its schema (and permission IR).
   */
  warm(catalog: Catalog): void {
    const roles: Array<readonly [string, boolean]> = [['admin', true], ...catalog.roles.map((r) => [r, false] as const)];
    const step = (i: number): void => {
      const next = roles[i];
      if (next === undefined || this.#version > catalog.version) return;
      try {
        this.get(catalog, next[0], next[1]);
      } catch {
        // Reported through onBuildError by `get`; the next request of that role answers the error.
      }
      // Unref'd: warming never keeps a shutting-down process alive.
      setImmediate(() => step(i + 1)).unref();
    };
    setImmediate(() => step(0)).unref();
  }
}

/** The error a request gets when its role's schema cannot be built. */
function buildError(role: string, e: unknown): EngineError {
  const cause = e instanceof Error ? e.message : String(e);
  return new EngineError(ErrorCode.Unexpected, `the GraphQL schema of role "${role}" could not be built`, { internal: { error: cause }, cause: e });
}
