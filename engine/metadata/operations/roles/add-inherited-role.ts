/**
 * `add_inherited_role`: a role whose permissions are the union of those of
 * its `role_set` (see catalog/stages/inherited-roles.ts). Refused when the
 * name is taken by another inherited role, a member is unknown, or the role
 * would (transitively) inherit from itself.
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation } from '../../define.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { nameSchema } from '../../../model/schemas/common.ts';
import { findCycle, knownRoles } from './known-roles.ts';

interface AddInheritedRoleArgs {
  role_name: string;
  role_set: string[];
}

/** The add-inherited-role operation. */
export const addInheritedRole = defineOperation<AddInheritedRoleArgs>({
  mutates: true,
  schema: {
    type: 'object',
    required: ['role_name', 'role_set'],
    properties: { role_name: nameSchema, role_set: { type: 'array', items: nameSchema, minItems: 1, uniqueItems: true } },
    additionalProperties: false,
  },
  async run(ctx, args, call) {
    const doc = ctx.state.doc;
    const name = args.role_name;
    if (name === 'admin') {
      throw new EngineError(ErrorCode.InvalidConfiguration, 'the admin role cannot be an inherited role', { path: argPath(call, 'role_name') });
    }
    if (doc.inherited_roles.some((r) => r.role_name === name)) {
      throw new EngineError(ErrorCode.AlreadyExists, `inherited role "${name}" already exists`, { path: argPath(call, 'role_name') });
    }
    const known = knownRoles(doc);
    args.role_set.forEach((member, i) => {
      if (member === 'admin' || !known.has(member)) {
        throw new EngineError(ErrorCode.NotExists, `role "${member}" does not exist`, { path: argPath(call, `role_set[${i}]`) });
      }
    });
    const sets = new Map(doc.inherited_roles.map((r) => [r.role_name, r.role_set] as const));
    sets.set(name, args.role_set);
    const cycle = findCycle(name, sets);
    if (cycle !== null) {
      throw new EngineError(ErrorCode.InvalidConfiguration, `found cycle in inherited roles: ${cycle.join(' -> ')}`, {
        path: argPath(call, 'role_set'),
      });
    }
    const next = { ...doc, inherited_roles: [...doc.inherited_roles, { role_name: name, role_set: [...args.role_set] }] };
    await ctx.commitEdit({ doc: next, touched: [{ kind: 'inherited_role', role: name }], path: argPath(call) });
    return { response: SUCCESS };
  },
});
