/**
 * `drop_inherited_role`. An inherited role naming the dropped one in its
 * `role_set` keeps the name; it simply contributes no permissions any more.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation } from '../../define.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { nameSchema } from '../../../model/schemas/common.ts';

/** The drop-inherited-role operation. */
export const dropInheritedRole = defineOperation<{ role_name: string }>({
  mutates: true,
  schema: { type: 'object', required: ['role_name'], properties: { role_name: nameSchema }, additionalProperties: false },
  async run(ctx, args, call) {
    const doc = ctx.state.doc;
    if (!doc.inherited_roles.some((r) => r.role_name === args.role_name)) {
      throw new EngineError(ErrorCode.NotExists, `inherited role "${args.role_name}" does not exist`, { path: argPath(call, 'role_name') });
    }
    const next = { ...doc, inherited_roles: doc.inherited_roles.filter((r) => r.role_name !== args.role_name) };
    await ctx.commitEdit({ doc: next, touched: [], path: argPath(call) });
    return { response: SUCCESS };
  },
});
