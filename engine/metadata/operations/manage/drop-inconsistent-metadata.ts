/**
 * `drop_inconsistent_metadata`: removes every inconsistent object from the
 * metadata (an unreachable source included), repeating while removals make
 * more objects inconsistent.
 */
import { parseObjectId } from '../../../catalog/object-id.ts';
import { defineOperation } from '../../define.ts';
import { removeObject } from '../../edit.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { emptyArgs } from '../../schemas/args.ts';

const MAX_ROUNDS = 10;

/** The drop-inconsistent-metadata operation. */
export const dropInconsistentMetadata = defineOperation<Record<string, unknown>>({
  mutates: true,
  schema: emptyArgs,
  async run(ctx, _args, call) {
    await ctx.flush();
    for (let round = 0; round < MAX_ROUNDS && ctx.state.catalog.inconsistencies.length > 0; round++) {
      let doc = ctx.state.doc;
      for (const o of ctx.state.catalog.inconsistencies) {
        const ref = parseObjectId(o.id);
        if (ref !== null) doc = removeObject(doc, ref);
      }
      if (doc === ctx.state.doc) break;
      await ctx.commitEdit({ doc, touched: [], allowInconsistency: true, path: argPath(call) });
    }
    return { response: SUCCESS };
  },
});
