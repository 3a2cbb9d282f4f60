/**
 * Stage "remote schemas" (Note [Catalog stages] in build.ts): each remote
 * schema of the document, with the schema its preparer introspected
 * (remote/remote-preparer.ts), customized and checked for name clashes with
 * the database's GraphQL names and with the remote schemas before it (type
 * names are global; root fields share the root types), then its permissions
 * validated against it (remote/permissions.ts). A remote that did not
 * answer, or clashes, is inconsistent with its reason; so is each permission
 * that does not fit, and every permission of an inconsistent remote.
 */
import { isIntrospectionType, isSpecifiedScalarType, type GraphQLSchema } from 'graphql';
import { inconsistency } from '../inconsistency.ts';
import type { InconsistentObject } from '../types.ts';
import type { MetadataDocument } from '../../model/document.ts';
import { customizeSchema, remoteNames, type RemoteNames } from '../../remote/customize.ts';
import { remoteSchemaEntries, type RemoteCustomization } from '../../remote/definition.ts';
import { resolveRemotePermission, unionPermissionDocuments } from '../../remote/permissions.ts';
import type { PreparedRemoteSchemas } from '../../remote/remote-preparer.ts';
import type { RemoteSchemaInfo, RemoteView } from '../../remote/types.ts';
import type { NameRegistry } from './names.ts';
import type { StageResult } from './stage.ts';

/** `root_fields_namespace` types: `<ns>_query`, `<ns>_mutation`, `<ns>_subscription`. */
export function namespaceTypeName(namespace: string, root: 'query' | 'mutation' | 'subscription'): string {
  return `${namespace}_${root}`;
}

/** The names a customized remote schema puts into every schema that shows it: [name, 'type name' | 'root field']. */
function claimedNames(schema: GraphQLSchema, namespace: string | null): Array<[string, string]> {
  const roots = new Set([schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter((t) => t != null).map((t) => t.name));
  const names: Array<[string, string]> = [];
  for (const t of Object.values(schema.getTypeMap())) {
    if (isSpecifiedScalarType(t) || isIntrospectionType(t) || roots.has(t.name)) continue;
    names.push([t.name, 'type name']);
  }
  if (namespace !== null) {
    names.push([namespace, 'root field']);
    names.push([namespaceTypeName(namespace, 'query'), 'type name']);
    if (schema.getMutationType()) names.push([namespaceTypeName(namespace, 'mutation'), 'type name']);
    if (schema.getSubscriptionType()) names.push([namespaceTypeName(namespace, 'subscription'), 'type name']);
  } else {
    for (const root of [schema.getQueryType(), schema.getMutationType()]) {
      if (root) for (const f of Object.keys(root.getFields())) names.push([f, 'root field']);
    }
    // Subscription fields meet the database's on subscription_root; the remote's own query fields are not there (one name may serve both).
    const claimed = new Set(names.filter(([, what]) => what === 'root field').map(([n]) => n));
    for (const f of Object.keys(schema.getSubscriptionType()?.getFields() ?? {})) if (!claimed.has(f)) names.push([f, 'root field']);
  }
  return names;
}

/** Resolves the document's remote schemas. */
export function resolveRemoteSchemas(
  doc: MetadataDocument,
  prepared: PreparedRemoteSchemas,
  names: NameRegistry,
): StageResult<ReadonlyMap<string, RemoteSchemaInfo>> {
  const out = new Map<string, RemoteSchemaInfo>();
  const inconsistencies: InconsistentObject[] = [];
  for (const entry of remoteSchemaEntries(doc.remote_schemas)) {
    const ref = { kind: 'remote_schema', name: entry.name } as const;
    const p = prepared.get(entry.name);
    const permissionsFail = (why: string): void => {
      for (const perm of entry.permissions ?? []) {
        inconsistencies.push(
          inconsistency({ kind: 'remote_schema_permission', remoteSchema: entry.name, role: perm.role }, { ...perm, remote_schema: entry.name }, why),
        );
      }
    };
    if (p === undefined || !p.ok) {
      const reason = p === undefined ? 'the remote schema was not introspected' : p.reason;
      const inc = inconsistency(ref, entry, `remote schema "${entry.name}" is inconsistent: ${reason}`, p?.ok === false ? p.code : undefined);
      // Note [Remote schema error codes]: a failure with v2's own code answers its bare message.
      inconsistencies.push(p?.ok === false && p.code !== undefined ? { ...inc, callMessage: reason } : inc);
      permissionsFail(`remote schema "${entry.name}" is inconsistent`);
      continue;
    }
    const c: RemoteCustomization | undefined = entry.definition.customization;
    const namespace = c?.root_fields_namespace ?? null;
    let nm: RemoteNames;
    let full: GraphQLSchema;
    try {
      nm = remoteNames(p.schema, c);
      full = customizeSchema(p.schema, c, nm);
    } catch (e) {
      inconsistencies.push(inconsistency(ref, entry, `remote schema "${entry.name}": its customization fails: ${e instanceof Error ? e.message : String(e)}`));
      permissionsFail(`remote schema "${entry.name}" is inconsistent`);
      continue;
    }
    const clash = names.claimNames(`remote schema "${entry.name}"`, claimedNames(full, namespace), '');
    if (clash !== null) {
      inconsistencies.push(inconsistency(ref, entry, clash));
      permissionsFail(`remote schema "${entry.name}" is inconsistent`);
      continue;
    }
    const roles = new Map<string, RemoteView>();
    for (const perm of entry.permissions ?? []) {
      const r = resolveRemotePermission(perm.definition.schema, p.schema);
      if ('reason' in r) {
        inconsistencies.push(
          inconsistency({ kind: 'remote_schema_permission', remoteSchema: entry.name, role: perm.role }, { ...perm, remote_schema: entry.name }, r.reason),
        );
        continue;
      }
      roles.set(perm.role, { schema: customizeSchema(r.schema, c, nm), presets: r.presets, key: perm.role });
    }
    // Inherited roles see the union of their members' views (inherited members earlier in the document included).
    const sdlOf = new Map((entry.permissions ?? []).map((x) => [x.role, x.definition.schema] as const));
    for (const inherited of doc.inherited_roles) {
      if (roles.has(inherited.role_name)) continue;
      const docs = inherited.role_set.flatMap((m) => sdlOf.get(m) ?? []);
      if (docs.length === 0) continue;
      const ref = { kind: 'remote_schema_permission', remoteSchema: entry.name, role: inherited.role_name } as const;
      let r: ReturnType<typeof resolveRemotePermission>;
      try {
        const union = unionPermissionDocuments(docs);
        sdlOf.set(inherited.role_name, union);
        r = resolveRemotePermission(union, p.schema);
      } catch (e) {
        r = { reason: e instanceof Error ? e.message : String(e) };
      }
      if ('reason' in r) {
        inconsistencies.push(inconsistency(ref, { role: inherited.role_name, remote_schema: entry.name, role_set: inherited.role_set }, r.reason));
        continue;
      }
      roles.set(inherited.role_name, { schema: customizeSchema(r.schema, c, nm), presets: r.presets, key: inherited.role_name });
    }
    out.set(entry.name, {
      name: entry.name,
      endpoint: p.endpoint,
      original: p.schema,
      names: nm,
      namespace,
      full: { schema: full, presets: new Map(), key: '*' },
      roles,
    });
  }
  return { output: out, inconsistencies };
}
