/** `delete_scheduled_event`: removes a one-off or cron event and its invocation logs. */
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation } from '../../define.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import type { EventKind } from '../../../events/scheduled/scheduled-events-api.ts';
import { deleteScheduledEventArgs } from '../../../model/schemas/scheduled.ts';
import { requireScheduledEvents } from './cron-effect.ts';

/** The delete-scheduled-event operation. */
export const deleteScheduledEvent = defineOperation<{ type: EventKind; event_id: string }>({
  mutates: false,
  schema: deleteScheduledEventArgs,
  async run(ctx, args, call) {
    const store = requireScheduledEvents(ctx, call);
    if (!(await store.eventExists(args.type, args.event_id))) {
      throw new EngineError(ErrorCode.NotExists, `scheduled event with id ${args.event_id} does not exist`, { path: argPath(call, 'event_id') });
    }
    const key = `delete-scheduled-event:${args.event_id}`;
    await ctx.effect(
      key,
      async () =>
        await Promise.resolve({
          key,
          description: `the deletion of scheduled event ${args.event_id}`,
          beforeCommit: async () => {},
          afterCommit: async () => void (await store.deleteEvent(args.type, args.event_id)),
          abandon: async () => {},
        }),
    );
    return { response: SUCCESS };
  },
});
