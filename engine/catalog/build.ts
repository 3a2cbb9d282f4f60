/**
 * Builds a catalog snapshot from a metadata document and the prepared sources
 * (see prepared.ts): an ordered list of stage calls (stages/), see Note
 * [Catalog stages].
 *
 * Note [Catalog stages]
 * Each stage is a function of the document and the outputs of earlier
 * stages, passed explicitly, and returns `{output, inconsistencies}`
 * (stages/stage.ts): what it resolved, and the objects it left out with why.
 * The build concatenates the lists in stage order, which is the order
 * get_inconsistent_metadata reports them in. Hasura v3's metadata-resolve
 * is built the same way (a `resolve` per stage over the outputs before it).
 * Dependency pruning falls out of the order: a relationship to an
 * inconsistent table, or a permission through an inconsistent relationship,
 * does not resolve and is reported in turn; no stage records dependency
 * edges (catalog/dependencies.ts diffs two builds instead).
 * One value is threaded rather than returned anew: the NameRegistry the
 * tables stage creates, which computed fields and functions claim in after it
 * (GraphQL names are global, so claims happen in stage order). Copying it per
 * stage would copy ~25 names per table for nothing.
 * The last stage, actions (actions/resolve.ts), resolves the custom types
 * and actions against the consistent tables and claims their names after
 * the tables' and functions'.
 * The catalog version comes from the caller (catalog/version.ts), not from a
 * module-global counter, so a build depends on its arguments only.
 * Per-source outputs are keyed by the `ResolvedSource` objects of the sources
 * stage. The staging costs nothing measurable: a build of 2,000 chained tables
 * × 10 roles (synthetic document, CPU time, median of 20 builds, three
 * alternating runs on the shared machine) took 231/237/256 ms with the
 * single-function build and 217/224/238 ms staged; the catalog's heap in
 * test/bench/schema-memory.ts 2000 10 stayed 36.8 MiB.
 */
import { resolveActions } from '../actions/resolve.ts';
import { introspectionDisabledRoles, type MetadataDocument } from '../model/document.ts';
import { sameData } from './intern.ts';
import { CatalogMemo } from './memo.ts';
import type { PreparedSources } from './prepared.ts';
import { assembleSources } from './stages/catalog-sources.ts';
import { resolveComputedFields } from './stages/computed-fields.ts';
import { resolveEventTriggers } from './stages/event-triggers.ts';
import { resolveCronTriggers } from './stages/cron-triggers.ts';
import { resolveFunctions } from './stages/functions.ts';
import { resolveInheritedRoles, rolesOf, type InheritedRolePlan } from './stages/inherited-roles.ts';
import type { StageResult } from './stages/stage.ts';
import { resolveRelationships } from './stages/relationships.ts';
import { resolveRemoteSchemas } from './stages/remote-schemas.ts';
import { resolveRemoteRelationships } from './stages/remote-relationships.ts';
import { resolveRemoteSchemaRelationships } from './stages/remote-schema-relationships.ts';
import type { PreparedRemoteSchemas } from '../remote/remote-preparer.ts';
import { remoteSchemaEntries } from '../remote/definition.ts';
import { resolveSources } from './stages/sources.ts';
import { resolveTablePermissions } from './stages/table-permissions.ts';
import { linkEnumTables, resolveTables } from './stages/tracked-tables.ts';
import { resolveQueryCollections } from './stages/query-collections.ts';
import type { Catalog, QueryChecker } from './types.ts';
import type { CatalogStamp } from './version.ts';

/**
 * Builds the catalog of `doc`, numbered by `stamp`. Pure and synchronous: all database reads happen before.
 * `checkQueries` validates stored queries against the admin schema (stages/query-collections.ts); without it only their syntax is checked.
 * `remotes`: the remote schemas as prepared (remote/remote-preparer.ts).
 * `previous`: the catalog this one replaces, whose unchanged tables it keeps (Note [Incremental catalog] in stages/catalog-sources.ts).
 */
export function buildCatalog(
  doc: MetadataDocument,
  prepared: PreparedSources,
  stamp: CatalogStamp,
  checkQueries?: QueryChecker,
  remotes: PreparedRemoteSchemas = new Map(),
  previous?: Catalog,
): Catalog {
  const before = previous === undefined ? undefined : memos.get(previous.sources);
  const memo = new CatalogMemo(before?.memo ?? null);
  const sources = resolveSources(doc, prepared);
  const tables = resolveTables(sources.output, memo);
  const linked = linkEnumTables(tables.output.tables, memo);
  const relationships = resolveRelationships(linked, memo);
  const computedFields = resolveComputedFields(linked, relationships.output, tables.output.names);
  // The same plan object while the inherited roles are equal: permissions are memoized on it.
  const roles = before !== undefined && sameData(before.inheritedRoles, doc.inherited_roles) ? before.roles : resolveInheritedRoles(doc.inherited_roles);
  const permissions = resolveTablePermissions(
    {
      tables: linked,
      relationships: relationships.output,
      computedFields: computedFields.output,
      roles: roles.output,
    },
    memo,
  );
  const assembled = assembleSources(
    {
      tables: linked,
      relationships: relationships.output,
      computedFields: computedFields.output,
      permissions: permissions.output,
      previous: previous?.sources,
    },
    memo,
  );
  const functions = resolveFunctions(sources.output, assembled, tables.output.names, roles.output);
  const eventTriggers = resolveEventTriggers(doc, functions.output);
  const remoteSchemas = resolveRemoteSchemas(doc, remotes, tables.output.names);
  const remoteTypeRelationships = resolveRemoteSchemaRelationships(doc, remoteSchemas.output, eventTriggers.output);
  const remoteRelationships = resolveRemoteRelationships(doc, eventTriggers.output, remoteTypeRelationships.output);
  const actions = resolveActions(doc, functions.output, tables.output.names);
  const cronTriggers = resolveCronTriggers(doc);
  const disabledIntrospection = introspectionDisabledRoles(doc);
  const built: Catalog = {
    version: stamp.version,
    resourceVersion: stamp.resourceVersion,
    sources: remoteRelationships.output,
    roles: withRemoteRoles(rolesOf(doc), doc),
    inconsistencies: [
      ...sources.inconsistencies,
      ...tables.inconsistencies,
      ...relationships.inconsistencies,
      ...computedFields.inconsistencies,
      ...roles.inconsistencies,
      ...permissions.inconsistencies,
      ...functions.inconsistencies,
      ...eventTriggers.inconsistencies,
      ...remoteSchemas.inconsistencies,
      ...remoteTypeRelationships.inconsistencies,
      ...remoteRelationships.inconsistencies,
      ...actions.inconsistencies,
      ...cronTriggers.inconsistencies,
    ],
    cronTriggers: cronTriggers.output,
    ...(remoteTypeRelationships.output.size === 0 ? {} : { remoteSchemas: remoteTypeRelationships.output }),
    ...(doc.api_limits === undefined ? {} : { apiLimits: doc.api_limits }),
    ...(disabledIntrospection.length === 0 ? {} : { introspectionDisabled: new Set(disabledIntrospection) }),
    ...(actions.output.actions.size === 0 && actions.output.customTypes.objects.size === 0 ? {} : { actions: actions.output }),
  };
  // Last: stored queries are validated against the schema of everything above.
  const collections = resolveQueryCollections(doc, checkQueries === undefined ? null : checkQueries(built));
  const catalog =
    collections.output === undefined
      ? built
      : { ...built, queryCollections: collections.output, inconsistencies: [...built.inconsistencies, ...collections.inconsistencies] };
  memo.seal();
  memos.set(catalog.sources, { memo, inheritedRoles: doc.inherited_roles, roles });
  return catalog;
}

/**
 * What a build leaves for the next one that names its catalog as `previous` (Note [Catalog memo] in memo.ts),
 * keyed by the catalog's `sources`, which copies of the catalog (a new resource_version) share.
 */
const memos = new WeakMap<
  Catalog['sources'],
  { memo: CatalogMemo; inheritedRoles: MetadataDocument['inherited_roles']; roles: StageResult<InheritedRolePlan> }
>();

/** `roles` plus the roles of remote schema permissions, sorted. */
function withRemoteRoles(roles: string[], doc: MetadataDocument): string[] {
  const more = remoteSchemaEntries(doc.remote_schemas).flatMap((r) => (r.permissions ?? []).map((p) => p.role));
  if (more.every((r) => roles.includes(r) || r === 'admin')) return roles;
  return [...new Set([...roles, ...more])].filter((r) => r !== 'admin').sort();
}
