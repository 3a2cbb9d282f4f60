/**
 * What a kind of metadata object gives a role's schema: its root fields and
 * its part of the role fingerprint. See Note [Root-field contributors] in
 * root-fields.ts.
 */
import type { GraphQLFieldConfigMap } from 'graphql';
import type { Catalog } from '../../catalog/types.ts';
import type { MutationCarry } from './mutation-root.ts';
import type { RoleAccess } from './role-access.ts';
import type { SchemaTypes } from './table-types.ts';

/**
 * The root types a schema serves. For `subscription` a contributor answers
 * only the fields of its own that query_root lacks (`<t>_stream`): the query
 * fields are on subscription_root already (live queries).
 */
export type ServedRoot = 'query' | 'mutation' | 'subscription';

/** What a contributor reads to make a role's root fields. */
export interface RootFieldInput {
  readonly catalog: Catalog;
  readonly role: string;
  /** The role's compiled permissions; only their shape may be read (Note [Shared role types] in role-access.ts). */
  readonly access: RoleAccess;
  /** The table types, shared with other contributors and roles (Note [Shared table types] in schema-cache.ts). */
  readonly types: SchemaTypes;
  /** ENGINE_GRAPHQL_INFER_FUNCTION_PERMISSIONS. */
  readonly inferFunctionPermissions: boolean;
  /** ENGINE_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS (absent: false, as v2). */
  readonly remoteSchemaPermissions?: boolean;
  /** Mutation types of the previous catalog version to take (Note [Types across catalog versions] in schema-cache.ts). */
  readonly mutationCarry?: MutationCarry;
}

/** One kind of metadata object's part of a role schema. */
export interface RootFieldContributor {
  /** For errors and notes: `tables`, `functions`, later `remote schemas`, `actions`. */
  readonly name: string;
  /**
   * Set when its root fields are generated from the catalog's checked names
   * and types alone (tables, functions): a root type with only such fields
   * is trusted as generated types are (Note [Which types are validated] in
   * collect-types.ts).
   */
  readonly generated?: true;
  /** The fields this contributor adds to `root` for the role, in schema order (empty when none). */
  rootFields(input: RootFieldInput, root: ServedRoot): GraphQLFieldConfigMap<unknown, unknown>;
  /**
   * Everything of the role that `rootFields` depends on, as strings: roles
   * whose parts are equal for every contributor share one schema.
   */
  fingerprint(catalog: Catalog, role: string, access: RoleAccess): readonly string[];
  /**
   * Names of its query_root fields that subscription_root does not serve
   * (v2: synchronous query actions); none when absent.
   */
  queryOnly?(input: RootFieldInput): readonly string[];
}
