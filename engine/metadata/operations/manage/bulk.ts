/**
 * `bulk`: runs its calls in order against the pending state and answers the
 * list of their answers. All or nothing: the first failure fails the bulk, and
 * since only the final state is stored, nothing of it is kept. Error paths
 * name the failing call (`$.args[2].args.table`).
 * `bulk_atomic` (v2 compat) is the same run answered with one success: v2
 * applies its calls and checks consistency once at the end, which is what the
 * deferred builds of a bulk do (Note [Deferred builds] in run.ts). v2 takes
 * only relationship, native query and logical model calls there; any call is
 * taken here. `bulk_keep_going` is not an operation of the pending state: each
 * of its calls is a request of its own (Note [Bulk that keeps going] in
 * service.ts).
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { argPath, SUCCESS, type CallResult, type MetadataCall, type Operation } from '../../operation.ts';

/** The calls of a bulk's args (`{type, args, version?}` each), or `parse-failed` at the first that is not one. */
export function bulkItems(call: MetadataCall): MetadataCall[] {
  const items = call.args;
  if (!Array.isArray(items)) {
    throw new EngineError(ErrorCode.ParseFailed, 'expected Array', { path: argPath(call) });
  }
  return items.map((item: unknown, i): MetadataCall => {
    const path = `${argPath(call)}[${i}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw new EngineError(ErrorCode.ParseFailed, 'expected Object', { path });
    }
    const r = item as Record<string, unknown>;
    if (typeof r['type'] !== 'string') {
      throw new EngineError(ErrorCode.ParseFailed, 'key "type" not found or not a String', { path: `${path}.type` });
    }
    const version = typeof r['version'] === 'number' ? r['version'] : undefined;
    return { type: r['type'], args: r['args'], version, path, legacy: call.legacy };
  });
}

function bulkOf(answer: (responses: unknown[]) => unknown): Operation {
  return {
    mutates: true,
    async run(ctx, call: MetadataCall): Promise<CallResult> {
      const items = bulkItems(call);
      return await ctx.batch(async () => {
        const responses: unknown[] = [];
        for (const item of items) responses.push((await ctx.runCall(item)).response);
        return { response: answer(responses) };
      });
    },
  };
}

/** The bulk operation. */
export const bulk: Operation = bulkOf((responses) => responses);

/** The bulk-atomic operation. */
export const bulkAtomic: Operation = bulkOf(() => SUCCESS);
