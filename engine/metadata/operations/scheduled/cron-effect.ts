/**
 * The effect of cron trigger changes in one request: once the metadata is
 * stored, the stored fire times follow the triggers of the new metadata
 * (Note [Effects]; Note [On-time firing] in events/scheduled/scheduler.ts).
 * One effect per request however many cron calls a bulk makes; it reads the
 * request's final state when it runs.
 */
import { resolveCronTriggers } from '../../../catalog/stages/cron-triggers.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import type { Effect } from '../../effects.ts';
import { argPath, type MetadataCall, type RunContext } from '../../operation.ts';
import type { ScheduledEventsApi } from '../../../events/scheduled/scheduled-events-api.ts';

interface CronEffect extends Effect {
  readonly dropPending: Set<string>;
}

/** The scheduled events store, or a clear error when this engine runs without one. */
export function requireScheduledEvents(ctx: RunContext, call: MetadataCall): ScheduledEventsApi {
  const s = ctx.scheduledEvents;
  if (s === null) throw new EngineError(ErrorCode.NotSupported, 'scheduled triggers are not enabled on this engine', { path: argPath(call) });
  return s;
}

/** Declares (once) the effect that reconciles fire times after the store commits; `drop` names triggers whose pending times must go. */
export async function cronChanged(ctx: RunContext, call: MetadataCall, drop: readonly string[]): Promise<void> {
  const store = requireScheduledEvents(ctx, call);
  const effect = await ctx.effect<CronEffect>('cron-triggers', async () => {
    const dropPending = new Set<string>();
    return {
      key: 'cron-triggers',
      description: 'the fire times of cron triggers',
      dropPending,
      beforeCommit: async () => {},
      afterCommit: async () => {
        const triggers = resolveCronTriggers(ctx.state.doc).output;
        await store.reconcileCron({ triggers, dropPending: [...dropPending] });
      },
      abandon: async () => {},
    };
  });
  for (const d of drop) effect.dropPending.add(d);
}
