/**
 * `add_remote_schema` and `update_remote_schema`. The remote is introspected
 * (again, on update, when the definition changed: the preparer compares it)
 * and the call is refused, storing nothing, when the remote schema would be
 * inconsistent (down, garbage, a name clash); an update that makes its
 * permissions or relationships inconsistent is refused as well.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { remoteSchemaEntries, type RemoteSchemaDefinition } from '../../../remote/definition.ts';
import { defineOperation } from '../../define.ts';
import type { JsonObject } from '../../../model/document.ts';
import { updateRemoteSchema } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { remoteSchemaArgs, requireRemoteSchema } from './remote-schema-args.ts';

interface RemoteSchemaArgs {
  name: string;
  definition: RemoteSchemaDefinition;
  comment?: string | null;
}

function entryOf(args: RemoteSchemaArgs, keep: JsonObject = {}): JsonObject {
  const out: Record<string, JsonObject[keyof JsonObject]> = { ...keep, name: args.name, definition: args.definition as unknown as JsonObject };
  delete out['comment'];
  if (typeof args.comment === 'string') out['comment'] = args.comment;
  return out;
}

/** The add-remote-schema operation. */
export const addRemoteSchema = defineOperation<RemoteSchemaArgs>({
  mutates: true,
  schema: remoteSchemaArgs,
  async run(ctx, args, call) {
    const doc = ctx.state.doc;
    if (remoteSchemaEntries(doc.remote_schemas).some((r) => r.name === args.name)) {
      throw new EngineError(ErrorCode.AlreadyExists, `remote schema with name "${args.name}" already exists`, { path: argPath(call, 'name') });
    }
    const next = { ...doc, remote_schemas: [...doc.remote_schemas, entryOf(args)] };
    await ctx.commitEdit({ doc: next, touched: [{ kind: 'remote_schema', name: args.name }], refreshRemotes: new Set([args.name]), path: argPath(call) });
    return { response: SUCCESS };
  },
});

/** The update-remote-schema operation: the permissions and relationships stay. */
export const updateRemoteSchemaOp = defineOperation<RemoteSchemaArgs>({
  mutates: true,
  schema: remoteSchemaArgs,
  async run(ctx, args, call) {
    requireRemoteSchema(ctx.state.doc, args.name, call);
    const next = updateRemoteSchema(ctx.state.doc, args.name, (r) => entryOf(args, r));
    await ctx.commitEdit({ doc: next, touched: [{ kind: 'remote_schema', name: args.name }], path: argPath(call) });
    return { response: SUCCESS };
  },
});
