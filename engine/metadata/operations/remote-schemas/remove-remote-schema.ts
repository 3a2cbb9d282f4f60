/**
 * `remove_remote_schema`, `reload_remote_schema` and
 * `introspect_remote_schema`. v2 compat (docs/compat.md): removing is refused
 * with `dependency-error` while a table's remote relationship or another
 * remote schema's type relationship uses the remote schema, and drops its
 * permissions with it (v2's removeRemoteSchemaP1 reports only the dependents
 * that are not permissions);
 * reloading introspects it again and never fails for inconsistency (the
 * answer is the usual success, the inconsistency shows in
 * get_inconsistent_metadata).
 */
import { introspectionFromSchema } from 'graphql';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation } from '../../define.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { remoteNameArgs, requireRemoteSchema } from './remote-schema-args.ts';
import { remoteSchemaEntries, storedTypeRelationships } from '../../../remote/definition.ts';

/** The remove-remote-schema operation. */
export const removeRemoteSchema = defineOperation<{ name: string }>({
  mutates: true,
  schema: remoteNameArgs,
  async run(ctx, args, call) {
    const doc = ctx.state.doc;
    requireRemoteSchema(doc, args.name, call);
    const dependents: string[] = [];
    for (const s of doc.sources) {
      for (const t of s.tables) {
        for (const r of t.remote_relationships) {
          if (JSON.stringify(r).includes(`"remote_schema":${JSON.stringify(args.name)}`))
            dependents.push(`remote_relationship ${String(r['name'])} in table ${t.table.name} in source ${s.name}`);
        }
      }
    }
    // Relationships of other remote schemas' types that lead to this one.
    for (const other of remoteSchemaEntries(doc.remote_schemas)) {
      if (other.name === args.name) continue;
      for (const t of storedTypeRelationships(other)) {
        for (const r of t.relationships ?? []) {
          const to = r.definition?.['to_remote_schema'] as { remote_schema?: unknown } | undefined;
          if (to?.remote_schema === args.name)
            dependents.push(`remote_schema_remote_relationship ${r.name} on type ${t.type_name} in remote schema ${other.name}`);
        }
      }
    }
    if (dependents.length > 0) {
      throw new EngineError(ErrorCode.DependencyError, `cannot drop due to the following dependent objects: ${dependents.join(', ')}`, { path: argPath(call) });
    }
    const next = { ...doc, remote_schemas: doc.remote_schemas.filter((r) => r['name'] !== args.name) };
    await ctx.commitEdit({ doc: next, touched: [], drop: { cascade: false }, path: argPath(call) });
    return { response: SUCCESS };
  },
});

/** The reload-remote-schema operation. */
export const reloadRemoteSchema = defineOperation<{ name: string }>({
  mutates: true,
  schema: remoteNameArgs,
  async run(ctx, args, call) {
    requireRemoteSchema(ctx.state.doc, args.name, call);
    await ctx.commitEdit({ doc: ctx.state.doc, touched: [], refreshRemotes: new Set([args.name]), allowInconsistency: true, path: argPath(call) });
    return { response: SUCCESS };
  },
});

/** The introspect-remote-schema operation: the introspection of the remote as Engine shows it (customized). */
export const introspectRemoteSchema = defineOperation<{ name: string }>({
  mutates: false,
  schema: remoteNameArgs,
  async run(ctx, args, call) {
    requireRemoteSchema(ctx.state.doc, args.name, call);
    await ctx.flush();
    const info = ctx.state.catalog.remoteSchemas?.get(args.name);
    if (info === undefined) {
      throw new EngineError(ErrorCode.RemoteSchemaError, `remote schema "${args.name}" is inconsistent`, { path: argPath(call, 'name') });
    }
    return { response: { data: introspectionFromSchema(info.full.schema) } };
  },
});
