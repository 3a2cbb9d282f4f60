/**
 * `bulk`: runs its calls in order against the pending state and answers the
 * list of their answers. All or nothing: the first failure fails the bulk, and
 * since only the final state is stored, nothing of it is kept. Error paths
 * name the failing call (`$.args[2].args.table`).
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { argPath, type CallResult, type MetadataCall, type Operation } from '../../operation.ts';

/** The bulk operation. */
export const bulk: Operation = {
  mutates: true,
  async run(ctx, call: MetadataCall): Promise<CallResult> {
    const items = call.args;
    if (!Array.isArray(items)) {
      throw new EngineError(ErrorCode.ParseFailed, 'expected Array', { path: argPath(call) });
    }
    return await ctx.batch(async () => {
      const responses: unknown[] = [];
      for (let i = 0; i < items.length; i++) {
        const item: unknown = items[i];
        const path = `${argPath(call)}[${i}]`;
        if (typeof item !== 'object' || item === null || Array.isArray(item)) {
          throw new EngineError(ErrorCode.ParseFailed, 'expected Object', { path });
        }
        const r = item as Record<string, unknown>;
        if (typeof r['type'] !== 'string') {
          throw new EngineError(ErrorCode.ParseFailed, 'key "type" not found or not a String', { path: `${path}.type` });
        }
        const version = typeof r['version'] === 'number' ? r['version'] : undefined;
        const result = await ctx.runCall({ type: r['type'], args: r['args'], version, path, legacy: call.legacy });
        responses.push(result.response);
      }
      return { response: responses };
    });
  },
};
