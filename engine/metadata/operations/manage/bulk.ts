/**
 * `bulk`: runs its calls in order against the pending state and answers the
 * list of their answers. All or nothing: the first failure fails the bulk, and
 * since only the final state is stored, nothing of it is kept. Error paths
 * name the failing call (`$.args[2].args.table`).
 * `bulk_atomic` (v2 compat) is the same run answered with one success: v2
 * applies its calls and checks consistency once at the end, which is what the
 * deferred builds of a bulk do (Note [Deferred builds] in run.ts). v2 takes
 * only relationship, native query and logical model calls there; any call is
 * taken here.
 *
 * Note [Bulk that keeps going]
 * v2's `bulk_keep_going` runs every call of its list and answers, in order,
 * each call's answer or error (`{path, error, code}`, the path within the
 * call), with 200; what a failed call did is undone, what succeeded is kept
 * and stored once. Here each call is an attempt on the pending state (Note
 * [Attempts] in run.ts): it runs and its edit is built and checked at once;
 * when that fails, the state is put back and the error takes the call's
 * place. So a later call sees exactly what the earlier successful ones did,
 * as in v2, and the request stores once. A call that declared an effect (a
 * transaction on a source) and then failed cannot be undone that way: its
 * error fails the whole request, nothing stored. One build per call, one
 * store: 300 `pg_track_table` calls took 206-303 ms (wall) here, against
 * 2.1-2.3 s when each call was its own request (its own store) and 21-32 ms
 * as one `bulk` (`node test/bench/track-tables-cost.ts 300 2`, 2026-11-29).
 */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { apiErrorBody } from '../../../errors/wire-body.ts';
import { argPath, SUCCESS, type CallResult, type MetadataCall, type Operation } from '../../operation.ts';

/** The calls of a bulk's args (`{type, args, version?}` each), or `parse-failed` at the first that is not one. */
function bulkItems(call: MetadataCall): MetadataCall[] {
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

/** `error` with its path made relative to the call at `callPath` (`$.args[2].args.table` → `$.args.table`). */
function withinCall(error: EngineError, callPath: string): EngineError {
  const path = error.path === callPath ? '$' : error.path.startsWith(callPath) ? `$${error.path.slice(callPath.length)}` : error.path;
  return new EngineError(error.code, error.message, { path, status: error.status, internal: error.internal, cause: error });
}

/** The bulk-keep-going operation: Note [Bulk that keeps going]. */
export const bulkKeepGoing: Operation = {
  mutates: true,
  async run(ctx, call: MetadataCall): Promise<CallResult> {
    const items = bulkItems(call);
    const answers: unknown[] = [];
    for (const item of items) {
      const r = await ctx.attempt(async () => (await ctx.runCall(item)).response);
      answers.push(r.ok ? r.value : apiErrorBody(withinCall(r.error, item.path), true));
    }
    return { response: answers };
  },
};
