/**
 * `set_api_limits` and `remove_api_limits` (v2 compat: the first replaces the
 * whole `api_limits` of the document, the second removes it). The limits are
 * applied to GraphQL requests by execute/api-limits.ts.
 */
import type { ApiLimits } from '../../../model/document.ts';
import { defineOperation } from '../../define.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { apiLimitsSchema } from '../../../model/schemas/api-limits.ts';

/** The set-api-limits operation. */
export const setApiLimits = defineOperation<ApiLimits>({
  mutates: true,
  schema: apiLimitsSchema,
  async run(ctx, args, call) {
    await ctx.commitEdit({ doc: { ...ctx.state.doc, api_limits: args }, touched: [], path: argPath(call) });
    return { response: SUCCESS };
  },
});

/** The remove-api-limits operation. */
export const removeApiLimits = defineOperation<Record<string, never>>({
  mutates: true,
  schema: { type: 'object', additionalProperties: false },
  async run(ctx, _args, call) {
    const { api_limits: _removed, ...rest } = ctx.state.doc;
    await ctx.commitEdit({ doc: rest, touched: [], path: argPath(call) });
    return { response: SUCCESS };
  },
});
