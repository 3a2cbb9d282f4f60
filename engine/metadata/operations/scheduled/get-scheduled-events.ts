/**
 * `get_scheduled_events` and `get_scheduled_event_invocations`: pages of
 * events (by kind, trigger and status) and of their delivery attempts.
 */
import { defineOperation } from '../../define.ts';
import type { EventKind } from '../../../events/scheduled/scheduled-events-api.ts';
import { getScheduledEventInvocationsArgs, getScheduledEventsArgs } from '../../../model/schemas/scheduled.ts';
import { requireScheduledEvents } from './cron-effect.ts';

interface Pagination {
  readonly limit?: number;
  readonly offset?: number;
}

/** The get-scheduled-events operation. */
export const getScheduledEvents = defineOperation<{
  type: EventKind;
  trigger_name?: string;
  pagination?: Pagination;
  status?: string[];
  get_rows_count?: boolean;
}>({
  mutates: false,
  schema: getScheduledEventsArgs,
  async run(ctx, args, call) {
    const store = requireScheduledEvents(ctx, call);
    const response = await store.listEvents({
      kind: args.type,
      triggerName: args.trigger_name ?? null,
      statuses: args.status ?? null,
      limit: args.pagination?.limit ?? null,
      offset: args.pagination?.offset ?? 0,
      count: args.get_rows_count === true,
    });
    return { response };
  },
});

/** The get-scheduled-event-invocations operation. */
export const getScheduledEventInvocations = defineOperation<{
  type: EventKind;
  event_id?: string;
  trigger_name?: string;
  pagination?: Pagination;
  get_rows_count?: boolean;
}>({
  mutates: false,
  schema: getScheduledEventInvocationsArgs,
  async run(ctx, args, call) {
    const store = requireScheduledEvents(ctx, call);
    const response = await store.listInvocations({
      kind: args.type,
      eventId: args.event_id ?? null,
      triggerName: args.trigger_name ?? null,
      limit: args.pagination?.limit ?? null,
      offset: args.pagination?.offset ?? 0,
      count: args.get_rows_count === true,
    });
    return { response };
  },
});
