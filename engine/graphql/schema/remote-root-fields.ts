/**
 * The root fields remote schemas give a role (Note [Root-field contributors]
 * in root-fields.ts): every field of the query, mutation and subscription
 * roots of the role's view of each remote schema, or one
 * `root_fields_namespace` field holding them. subscription_root shows the
 * remote's subscription fields (served over graphql-ws:
 * subscriptions/remote-subscriptions.ts), never its query fields (they are
 * not live queries; v2 shows none either). The view: the whole (customized) schema for admin and, while
 * ENGINE_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS is off (v2's default), for
 * every role; with it on, a role sees a remote schema only through its
 * permission, and follows remote relationships into a remote only through
 * that view too (roleRemoteViews; Note [Remote joins in a role's view] in
 * remote/role-join.ts). The remote's own types are used as they are: the
 * catalog stage claimed their names (catalog/stages/remote-schemas.ts).
 */
import type { GraphQLFieldConfigMap, GraphQLObjectType } from 'graphql';
import type { Catalog } from '../../catalog/types.ts';
import { namespaceTypeName } from '../../catalog/stages/remote-schemas.ts';
import type { RemoteSchemaInfo, RemoteView } from '../../remote/types.ts';
import { withDescriptor, type RootFieldDescriptor } from './descriptors.ts';
import { nonNull, objectType } from './lean-types.ts';
import type { RootFieldContributor, RootFieldInput, ServedRoot } from './root-field-contributor.ts';

/** The view of `remote` that `role` sees, or null. */
export function remoteViewOf(remote: RemoteSchemaInfo, role: string, isAdmin: boolean, permissionsEnabled: boolean): RemoteView | null {
  if (isAdmin || !permissionsEnabled) return remote.full;
  return remote.roles.get(role) ?? null;
}

/** The remote schemas some relationship leads into (a table's remote relationship, a remote type's `to_remote_schema`). */
function joinTargets(catalog: Catalog): Set<string> {
  const out = new Set<string>();
  for (const source of catalog.sources.values()) for (const list of source.remoteRelationships?.values() ?? []) for (const rr of list) out.add(rr.remote.name);
  for (const remote of catalog.remoteSchemas?.values() ?? [])
    for (const list of remote.typeRelationships?.values() ?? []) for (const rel of list) if (rel.kind === 'to_remote_schema') out.add(rel.target);
  return out;
}

/**
 * The view of every remote schema `role` sees, as SchemaTypes takes it, and
 * a key equal for two roles whose views of the remotes that relationships
 * lead into are equal (`*`: every remote whole). Only those views shape
 * table types; a remote's own types are kept per view by SchemaTypes
 * (`remoteTypes`), so roles that see other remotes differently still share
 * their table types.
 */
export function roleRemoteViews(
  catalog: Catalog,
  role: string,
  isAdmin: boolean,
  permissionsEnabled: boolean,
): { readonly view: (remote: RemoteSchemaInfo) => RemoteView | null; readonly key: string } {
  if (isAdmin || !permissionsEnabled) return { view: (remote) => remote.full, key: '*' };
  const parts: string[] = [];
  for (const name of joinTargets(catalog)) parts.push(`${name}:${catalog.remoteSchemas?.get(name)?.roles.has(role) === true ? role : '-'}`);
  return { view: (remote) => remote.roles.get(role) ?? null, key: parts.join('\0') };
}

function fieldsOf(remote: RemoteSchemaInfo, view: RemoteView, root: GraphQLObjectType, operation: ServedRoot): GraphQLFieldConfigMap<unknown, unknown> {
  const out: GraphQLFieldConfigMap<unknown, unknown> = {};
  const extensions = withDescriptor<RootFieldDescriptor>({ kind: 'remote', remote, view, operation });
  for (const [name, config] of Object.entries(root.toConfig().fields)) out[name] = { ...config, resolve: undefined, extensions };
  return out;
}

function remoteRootFields(input: RootFieldInput, root: ServedRoot): GraphQLFieldConfigMap<unknown, unknown> {
  const out: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const remote of input.catalog.remoteSchemas?.values() ?? []) {
    const view = remoteViewOf(remote, input.role, input.access.isAdmin, input.remoteSchemaPermissions === true);
    if (view === null) continue;
    // The root's fields point at the remote's types as this schema shows them (remote-types.ts).
    const type = input.types.remoteTypes(remote, view).root(root);
    if (type === undefined) continue;
    const fields = fieldsOf(remote, view, type, root);
    if (Object.keys(fields).length === 0) continue;
    if (remote.namespace === null) {
      Object.assign(out, fields);
      continue;
    }
    out[remote.namespace] = {
      type: nonNull(objectType({ name: namespaceTypeName(remote.namespace, root), fields })),
      extensions: withDescriptor<RootFieldDescriptor>({ kind: 'remote-namespace', remote, view, operation: root }),
    };
  }
  return out;
}

/** The query_root fields of remote schemas: subscription_root does not serve them as live queries. */
function remoteQueryOnly(input: RootFieldInput): string[] {
  return Object.keys(remoteRootFields(input, 'query'));
}

/** Which view of each remote schema the role sees: roles share a schema only when these are equal. */
function remoteFingerprint(catalog: Catalog, role: string): string[] {
  const parts: string[] = [];
  for (const remote of catalog.remoteSchemas?.values() ?? []) parts.push(`${remote.name}:${remote.roles.has(role) ? role : '-'}`);
  return parts;
}

/** Remote schemas: their root fields, per the role's view. */
export const REMOTE_ROOT_FIELDS: RootFieldContributor = {
  name: 'remote schemas',
  rootFields: remoteRootFields,
  queryOnly: remoteQueryOnly,
  fingerprint: (catalog, role) => remoteFingerprint(catalog, role),
};
