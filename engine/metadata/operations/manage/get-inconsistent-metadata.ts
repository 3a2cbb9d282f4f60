/**
 * `get_inconsistent_metadata`: `{is_consistent, inconsistent_objects}`; the
 * legacy API answers the bare list.
 */
import { defineOperation } from '../../define.ts';
import { emptyArgs } from '../../../model/schemas/args.ts';
import { wireInconsistencies } from './inconsistent-objects.ts';

/** The get-inconsistent-metadata operation. */
export const getInconsistentMetadata = defineOperation<Record<string, unknown>>({
  mutates: false,
  schema: emptyArgs,
  async run(ctx, _args, call) {
    await ctx.flush();
    const list = wireInconsistencies(ctx.state.catalog.inconsistencies);
    if (call.legacy) return { response: list };
    return { response: { is_consistent: list.length === 0, inconsistent_objects: list } };
  },
});
