/**
 * `set_graphql_schema_introspection_options` (v2 compat: replaces the whole
 * `graphql_schema_introspection` of the document; an empty list removes it,
 * as v2 leaves empty options out of an export). The roles may be any names,
 * as in v2: a role no permission names yet is refused once it has one. The
 * refusal itself is Note [Introspection disabled for roles] in
 * graphql/to-ir/operation.ts.
 */
import { INTROSPECTION_KEY } from '../../../model/document.ts';
import { introspectionOptionsSchema } from '../../../model/schemas/introspection.ts';
import { defineOperation } from '../../define.ts';
import { argPath, SUCCESS } from '../../operation.ts';

/** The set-graphql-schema-introspection-options operation. */
export const setIntrospectionOptions = defineOperation<{ readonly disabled_for_roles: readonly string[] }>({
  mutates: true,
  schema: introspectionOptionsSchema,
  async run(ctx, args, call) {
    const { [INTROSPECTION_KEY]: _previous, ...extra } = ctx.state.doc.extra;
    const roles = [...new Set(args.disabled_for_roles)];
    const doc = { ...ctx.state.doc, extra: roles.length === 0 ? extra : { ...extra, [INTROSPECTION_KEY]: { disabled_for_roles: roles } } };
    await ctx.commitEdit({ doc, touched: [], path: argPath(call) });
    return { response: SUCCESS };
  },
});
