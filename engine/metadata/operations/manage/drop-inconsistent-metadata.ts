/**
 * `drop_inconsistent_metadata`: removes every inconsistent object from the
 * metadata (an unreachable source included), repeating while removals make
 * more objects inconsistent.
 */
import { removeObjects } from '../../cascade.ts';
import { defineOperation } from '../../define.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { emptyArgs } from '../../../model/schemas/args.ts';

const MAX_ROUNDS = 10;

/** The drop-inconsistent-metadata operation. */
export const dropInconsistentMetadata = defineOperation<Record<string, unknown>>({
  mutates: true,
  schema: emptyArgs,
  async run(ctx, _args, call) {
    await ctx.flush();
    for (let round = 0; round < MAX_ROUNDS && ctx.state.catalog.inconsistencies.length > 0; round++) {
      const doc = removeObjects(ctx.state.doc, ctx.state.catalog.inconsistencies);
      if (doc === ctx.state.doc) break;
      await ctx.commitEdit({ doc, touched: [], allowInconsistency: true, path: argPath(call) });
    }
    return { response: SUCCESS };
  },
});
