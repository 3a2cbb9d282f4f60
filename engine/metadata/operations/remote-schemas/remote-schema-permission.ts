/**
 * `add_remote_schema_permissions` and `drop_remote_schema_permissions`: a
 * role's view of a remote schema (remote/permissions.ts validates it when
 * the catalog is built; a document that does not fit the remote schema is
 * refused with the reasons).
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation } from '../../define.ts';
import type { JsonObject } from '../../../model/document.ts';
import { updateRemoteSchema } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { nameSchema } from '../../../model/schemas/common.ts';
import { requireRemoteSchema } from './remote-schema-args.ts';

interface AddArgs {
  remote_schema: string;
  role: string;
  definition: { schema: string };
  comment?: string | null;
}

/** The add-remote-schema-permissions operation. */
export const addRemoteSchemaPermissions = defineOperation<AddArgs>({
  mutates: true,
  schema: {
    type: 'object',
    required: ['remote_schema', 'role', 'definition'],
    properties: {
      remote_schema: nameSchema,
      role: nameSchema,
      definition: { type: 'object', required: ['schema'], properties: { schema: { type: 'string' } }, additionalProperties: false },
      comment: { type: ['string', 'null'] },
    },
    additionalProperties: false,
  },
  async run(ctx, args, call) {
    const entry = requireRemoteSchema(ctx.state.doc, args.remote_schema, call, 'remote_schema');
    if (args.role === 'admin')
      throw new EngineError(ErrorCode.InvalidConfiguration, 'the admin role sees every remote schema whole', { path: argPath(call, 'role') });
    if ((entry.permissions ?? []).some((p) => p.role === args.role)) {
      throw new EngineError(ErrorCode.AlreadyExists, `permissions for role "${args.role}" already exist for remote schema "${args.remote_schema}"`, {
        path: argPath(call, 'role'),
      });
    }
    const perm: JsonObject = {
      role: args.role,
      definition: { schema: args.definition.schema },
      ...(typeof args.comment === 'string' ? { comment: args.comment } : {}),
    };
    const next = updateRemoteSchema(ctx.state.doc, args.remote_schema, (r) => ({ ...r, permissions: [...((r['permissions'] ?? []) as JsonObject[]), perm] }));
    await ctx.commitEdit({
      doc: next,
      touched: [{ kind: 'remote_schema_permission', remoteSchema: args.remote_schema, role: args.role }],
      path: argPath(call),
    });
    return { response: SUCCESS };
  },
});

/** The drop-remote-schema-permissions operation. */
export const dropRemoteSchemaPermissions = defineOperation<{ remote_schema: string; role: string }>({
  mutates: true,
  schema: { type: 'object', required: ['remote_schema', 'role'], properties: { remote_schema: nameSchema, role: nameSchema }, additionalProperties: false },
  async run(ctx, args, call) {
    const entry = requireRemoteSchema(ctx.state.doc, args.remote_schema, call, 'remote_schema');
    if (!(entry.permissions ?? []).some((p) => p.role === args.role)) {
      throw new EngineError(ErrorCode.NotExists, `no permission for role "${args.role}" exists for remote schema "${args.remote_schema}"`, {
        path: argPath(call, 'role'),
      });
    }
    const next = updateRemoteSchema(ctx.state.doc, args.remote_schema, (r) => {
      const left = ((r['permissions'] ?? []) as JsonObject[]).filter((p) => p['role'] !== args.role);
      const { permissions: _all, ...rest } = r;
      return left.length === 0 ? rest : { ...rest, permissions: left };
    });
    await ctx.commitEdit({ doc: next, touched: [], path: argPath(call) });
    return { response: SUCCESS };
  },
});
