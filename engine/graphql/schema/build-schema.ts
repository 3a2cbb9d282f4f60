/**
 * The GraphQL schema of one role, built from a catalog snapshot: the root
 * fields of every root-field contributor (tables, functions; Note [Root-field
 * contributors] in root-fields.ts) on `query_root`, `mutation_root` and
 * `subscription_root` (the query fields plus `<t>_stream`; served over the
 * WebSocket of server/ws/). A role that may write nothing gets no mutation type.
 */
import {
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigMap,
  type GraphQLInterfaceType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import type { Catalog } from '../../catalog/types.ts';
import { schemaOf, type TypeCollection } from './collect-types.ts';
import { servesLiveQueries } from './capabilities.ts';
import { descriptorOf, withDescriptor, type RootFieldDescriptor } from './descriptors.ts';
import { markGenerated, nonNull } from './lean-types.ts';
import { rootType } from './root-types.ts';
import { namespaceRootFields } from './namespace.ts';
import { renameSchema, type NamingConvention } from './naming-convention.ts';
import { MUTATION_ROOT, NO_QUERIES_FIELD, NO_QUERIES_MESSAGE, QUERY_ROOT, SUBSCRIPTION_ROOT } from './names.ts';
import { buildRoleAccess, type RoleAccess } from './role-access.ts';
import type { RootFieldContributor, RootFieldInput, ServedRoot } from './root-field-contributor.ts';
import { ROOT_FIELD_CONTRIBUTORS } from './root-fields.ts';
import type { MutationCarry } from './mutation-root.ts';
import type { MutationTypes } from './mutation-types.ts';
import { roleRemoteViews } from './remote-root-fields.ts';
import { LeafTypes, SchemaTypes } from './table-types.ts';
import { relayQueryRootFields } from './relay-types.ts';
import { functionConnectionFields } from './function-fields.ts';

/** Settings that shape every role's schema. */
export interface SchemaOptions {
  /** ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS (default true); see function-fields.ts. */
  readonly inferFunctionPermissions?: boolean;
  /** ENGINE_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS (default false); see remote-root-fields.ts. */
  readonly remoteSchemaPermissions?: boolean;
  /** The root-field contributors, in schema order (default ROOT_FIELD_CONTRIBUTORS). */
  readonly contributors?: readonly RootFieldContributor[];
  /** The Relay schema of `/v1beta1/relay` (Note [Relay schema] in relay-types.ts). */
  readonly relay?: boolean;
  /** Relay: no node id for a role that cannot select the whole primary key (Note [Relay ids of unselectable keys] in relay-types.ts). */
  readonly relayHideUnselectableKeys?: boolean;
}

/** Root fields and their names in order (listing the keys of an object of thousands of fields costs a sort each time). */
interface Contributed {
  readonly fields: GraphQLFieldConfigMap<unknown, unknown>;
  readonly names: readonly string[];
  /** Whether every contributor of a field is a generated one (Note [Which types are validated] in collect-types.ts). */
  readonly generated: boolean;
}

/**
 * The root fields every contributor adds to `root`, in contributor order;
 * read only (the one contributor with fields gives its own object: copying
 * thousands of fields was a tenth of an admin schema's build).
 */
function contributedFields(contributors: readonly RootFieldContributor[], input: RootFieldInput, root: ServedRoot): Contributed {
  const parts: Contributed[] = [];
  for (const c of contributors) {
    const fields = c.rootFields(input, root);
    const names = Object.keys(fields);
    if (names.length > 0) parts.push({ fields, names, generated: c.generated === true });
  }
  if (parts.length === 1) return parts[0] as Contributed;
  const fields = Object.assign({}, ...parts.map((p) => p.fields)) as GraphQLFieldConfigMap<unknown, unknown>;
  return { fields, names: Object.keys(fields), generated: parts.every((p) => p.generated) };
}

/** Whether `b` holds exactly the fields of `a`, the very same objects. */
function sameFields(a: GraphQLFieldConfigMap<unknown, unknown>, b: GraphQLFieldConfigMap<unknown, unknown>): boolean {
  const names = Object.keys(a);
  return names.length === Object.keys(b).length && names.every((n) => a[n] === b[n]);
}

/** A schema as built for some role; shared by the roles of equal shape (Note [Shared role types] in role-access.ts). */
export interface SharedSchema {
  /** The client-facing schema (renamed under the graphql-default convention). */
  readonly schema: GraphQLSchema;
  /** Set under the graphql-default naming convention: see Note [Renamed schema] in naming-convention.ts. */
  readonly naming?: NamingConvention;
  /** The mutation types it was built with, for the next catalog version's (Note [Types across catalog versions] in schema-cache.ts). */
  readonly mutationTypes?: MutationTypes;
  /** Its types as collected, for the next catalog version's collection: Note [Collection replayed across versions] in collect-types.ts. */
  readonly collection: TypeCollection;
}

/** A role's schema plus the role's own compiled permissions, which to-ir reads. */
export interface RoleSchema extends SharedSchema {
  readonly role: string;
  readonly catalogVersion: number;
  readonly access: RoleAccess;
}

/** Builds the schema `role` sees in `catalog` (admin sees every table), unshared; `backendOnly` as in buildRoleAccess. */
export function buildRoleSchema(catalog: Catalog, role: string, isAdmin: boolean, options: SchemaOptions = {}, backendOnly = false): RoleSchema {
  const access = buildRoleAccess(catalog, role, isAdmin, backendOnly);
  return { ...buildSchemaOf(catalog, role, access, options), role, catalogVersion: catalog.version, access };
}

/**
 * Builds the schema of the views in `access`. Only their shape is read (see
 * Note [Shared role types] in role-access.ts), so the result serves every
 * role whose fingerprint equals this one's. `types` may already hold the
 * table types of a role with the same read fingerprint; `previous` is the
 * collection of the role's schema in the previous catalog version (Note
 * [Collection replayed across versions] in collect-types.ts).
 */
export function buildSchemaOf(
  catalog: Catalog,
  role: string,
  access: RoleAccess,
  options: SchemaOptions = {},
  types: SchemaTypes = new SchemaTypes({
    leaves: new LeafTypes(options.relay === true, options.relayHideUnselectableKeys === true),
    views: new Map(),
    owners: new Map(),
    remoteView: roleRemoteViews(catalog, role, access.isAdmin, options.remoteSchemaPermissions === true).view,
    ...(catalog.remoteSchemas === undefined ? {} : { remotes: catalog.remoteSchemas }),
  }),
  mutationCarry?: MutationCarry,
  previous?: TypeCollection,
): SharedSchema {
  const contributors = options.contributors ?? ROOT_FIELD_CONTRIBUTORS;
  const input: RootFieldInput = {
    catalog,
    role,
    access,
    types,
    inferFunctionPermissions: options.inferFunctionPermissions ?? true,
    remoteSchemaPermissions: options.remoteSchemaPermissions === true,
    ...(mutationCarry === undefined ? {} : { mutationCarry }),
  };
  if (types.relay !== null) return relaySchema(input, contributors, types.relay.node, previous);
  const queryPart = contributedFields(contributors, input, 'query');
  let { fields, names } = queryPart;
  const { generated } = queryPart;
  if (names.length === 0) {
    fields = {
      [NO_QUERIES_FIELD]: {
        type: nonNull(GraphQLString),
        extensions: withDescriptor<RootFieldDescriptor>({ kind: 'static', json: JSON.stringify(NO_QUERIES_MESSAGE) }),
      },
    };
    names = [NO_QUERIES_FIELD];
  }
  // Namespaces are looked for only where a source has one (thousands of root fields otherwise copied for nothing).
  const namespaced = [...catalog.sources.values()].some((s) => s.customization?.namespace != null);
  const namespacedFields = (
    f: GraphQLFieldConfigMap<unknown, unknown>,
    root: 'query' | 'mutation' | 'subscription',
  ): GraphQLFieldConfigMap<unknown, unknown> => (namespaced ? namespaceRootFields(f, root) : f);
  const queryFields = namespacedFields(fields, 'query');
  // Root types of generated fields only are trusted as generated types are (not under namespaces, whose names are chosen).
  const trusted = <T extends GraphQLObjectType | undefined>(t: T, fromGenerated: boolean): T =>
    t !== undefined && fromGenerated && !namespaced ? markGenerated(t) : t;
  const query = trusted(rootType(QUERY_ROOT, queryFields, undefined, namespaced ? undefined : names), generated);
  // subscription_root: the query fields (live queries) plus the contributors' own (`<t>_stream`).
  const streams = contributedFields(contributors, input, 'subscription');
  const queryOnly = new Set<string>();
  for (const c of contributors) for (const name of c.queryOnly?.(input) ?? []) queryOnly.add(name);
  const live: GraphQLFieldConfigMap<unknown, unknown> = {};
  const liveNames: string[] = [];
  let allLive = true;
  // A table's or function's fields are live queries only where its source's backend serves them (Backend.liveQueries).
  const serves = new Map<string, boolean>();
  for (const s of catalog.sources.values()) serves.set(s.name, servesLiveQueries(s));
  for (const name of names) {
    const f = fields[name] as GraphQLFieldConfig<unknown, unknown>;
    const d = descriptorOf<RootFieldDescriptor>(f.extensions);
    const source = d !== undefined && 'table' in d ? d.table.source : undefined;
    if ((queryOnly.size > 0 && queryOnly.has(name)) || (source !== undefined && !(serves.get(source.name) ?? servesLiveQueries(source)))) {
      allLive = false;
    } else {
      live[name] = f;
      liveNames.push(name);
    }
  }
  for (const name of streams.names) {
    // A stream field of a live field's name takes its place, as a spread would.
    if (live[name] === undefined) liveNames.push(name);
    live[name] = streams.fields[name] as GraphQLFieldConfig<unknown, unknown>;
  }
  const subscriptionFields = namespacedFields(live, 'subscription');
  // Without namespaces or streams (whose types differ per root) subscription_root shows query_root's very fields (Note [Shared fields]).
  const same = namespaced ? sameFields(queryFields, subscriptionFields) : allLive && streams.names.length === 0;
  // A role whose query fields are all remote ones (not live queries) may have no subscription field: then no subscription_root.
  const subscription =
    (namespaced ? Object.keys(subscriptionFields).length : liveNames.length) === 0
      ? undefined
      : trusted(rootType(SUBSCRIPTION_ROOT, subscriptionFields, same ? query : undefined, namespaced ? undefined : liveNames), generated && streams.generated);
  const writes = contributedFields(contributors, input, 'mutation');
  const mutation =
    writes.names.length === 0
      ? undefined
      : trusted(rootType(MUTATION_ROOT, namespacedFields(writes.fields, 'mutation'), undefined, namespaced ? undefined : writes.names), writes.generated);
  // Not `new GraphQLSchema`: see Note [Flat type collection] in collect-types.ts.
  const collection = schemaOf(query, mutation, subscription, previous);
  const { schema } = collection;
  const sources = [...catalog.sources.values()];
  const made = mutationCarry?.made ?? null;
  if (sources.length > 0 && sources.every((s) => s.customization?.namingConvention === 'graphql-default')) {
    const naming = renameSchema(schema);
    return { schema: naming.renamed, naming, collection, ...(made === null ? {} : { mutationTypes: made }) };
  }
  return made === null ? { schema, collection } : { schema, collection, mutationTypes: made };
}

/**
 * A Relay schema (Note [Relay schema] in relay-types.ts): `node` and the
 * connections on query_root, the contributors' mutations, no subscriptions.
 */
function relaySchema(
  input: RootFieldInput,
  contributors: readonly RootFieldContributor[],
  node: GraphQLInterfaceType,
  previous: TypeCollection | undefined,
): SharedSchema {
  const access = { role: input.role, isAdmin: input.access.isAdmin, inferFunctionPermissions: input.inferFunctionPermissions };
  const functions = functionConnectionFields(input.catalog, input.access.tables, input.types, access);
  const query = rootType(QUERY_ROOT, namespaceRootFields(relayQueryRootFields(input.access.tables.values(), input.types, node, functions), 'query'));
  // v2's Relay schema holds the database's and actions' mutations, not remote schemas'.
  const writes = contributedFields(
    contributors.filter((c) => c.name !== 'remote schemas'),
    input,
    'mutation',
  );
  const mutation = writes.names.length === 0 ? undefined : rootType(MUTATION_ROOT, namespaceRootFields(writes.fields, 'mutation'));
  const collection = schemaOf(query, mutation, undefined, previous);
  return { schema: collection.schema, collection };
}
