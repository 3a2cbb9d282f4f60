/**
 * `rename_source` (v2 compat: runRenameSource in Hasura/RQL/DDL/Schema/Source.hs):
 * gives a source a new name, keeping its place, configuration, tables and
 * functions. As in v2 only the source itself is renamed: a cross-source
 * relationship that names it by its old name is then inconsistent, and the
 * call is refused for it.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation } from '../../define.ts';
import { findSource } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { nameSchema } from '../../../model/schemas/common.ts';

interface RenameSourceArgs {
  name: string;
  new_name: string;
}

/** The rename-source operation (backend-neutral, as in v2). */
export const renameSource = defineOperation<RenameSourceArgs>({
  mutates: true,
  schema: {
    type: 'object',
    required: ['name', 'new_name'],
    properties: { name: nameSchema, new_name: nameSchema },
    additionalProperties: false,
  },
  async run(ctx, args, call) {
    const doc = ctx.state.doc;
    // v2's messages, both at `$.args`.
    if (findSource(doc, args.name) === undefined) {
      throw new EngineError(ErrorCode.NotExists, `Could not find source with name "${args.name}"`, { path: argPath(call) });
    }
    if (findSource(doc, args.new_name) !== undefined) {
      throw new EngineError(ErrorCode.AlreadyExists, `Source with name "${args.new_name}" already exists`, { path: argPath(call) });
    }
    const next = { ...doc, sources: doc.sources.map((s) => (s.name === args.name ? { ...s, name: args.new_name } : s)) };
    await ctx.commitEdit({
      doc: next,
      touched: [{ kind: 'source', source: args.new_name }],
      refresh: new Set([args.new_name]),
      path: argPath(call),
    });
    return { response: SUCCESS };
  },
});
