/**
 * `create_scheduled_event`: a one-off event POSTed to its webhook at
 * `schedule_at` (at once when that is past, dead when past by more than its
 * tolerance). Stored when the request commits (inside a bulk, only if the
 * whole bulk succeeds); answers `{message, event_id}`.
 */
import { randomUUID } from 'node:crypto';
import type { HeaderConf, OneOffDefinition } from '../../../events/scheduled/definitions.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation } from '../../define.ts';
import type { JsonObject } from '../../../model/document.ts';
import { argPath } from '../../operation.ts';
import { createScheduledEventArgs } from '../../../model/schemas/scheduled.ts';
import { requireScheduledEvents } from './cron-effect.ts';
import { checkWebhook } from './create-cron-trigger.ts';

interface CreateScheduledEventArgs {
  readonly webhook: string;
  readonly schedule_at: string;
  readonly payload?: unknown;
  readonly headers?: readonly HeaderConf[];
  readonly retry_conf?: unknown;
  readonly comment?: string | null;
  readonly request_transform?: JsonObject;
  readonly response_transform?: JsonObject;
}

/** ISO 8601 with a date and a time; the offset (`Z` or `±hh:mm`) is optional and UTC when absent, as in v2 (aeson's UTCTime). */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/i;

/** `schedule_at` → a time, or null when it is not ISO 8601. */
function parseScheduleAt(text: string): Date | null {
  const t = text.trim();
  if (!ISO_8601.test(t)) return null;
  const d = new Date(/(Z|[+-]\d{2}(:?\d{2})?)$/i.test(t.slice(10)) ? t : `${t}Z`);
  return Number.isNaN(d.getTime()) ? null : d;
}

/** The create-scheduled-event operation. */
export const createScheduledEvent = defineOperation<CreateScheduledEventArgs>({
  mutates: false,
  schema: createScheduledEventArgs,
  async run(ctx, args, call) {
    const store = requireScheduledEvents(ctx, call);
    const at = parseScheduleAt(args.schedule_at);
    if (at === null) {
      throw new EngineError(ErrorCode.ParseFailed, `schedule_at is not an ISO 8601 timestamp: ${JSON.stringify(args.schedule_at)}`, {
        path: argPath(call, 'schedule_at'),
      });
    }
    // A time in the past is taken, as in v2: the event is due at once, and the scheduler marks it
    // dead if it is older than its retry_conf.tolerance_seconds (6 hours by default).
    checkWebhook(args.webhook, args.headers ?? [], { request: args.request_transform, response: args.response_transform }, call);
    const id = randomUUID();
    const definition: OneOffDefinition = {
      webhook: args.webhook,
      headers: args.headers ?? [],
      payload: args.payload ?? null,
      comment: args.comment ?? null,
      retry_conf: args.retry_conf ?? null,
      request_transform: args.request_transform ?? null,
      response_transform: args.response_transform ?? null,
    };
    await ctx.effect(
      `one-off-event:${id}`,
      async () =>
        await Promise.resolve({
          key: `one-off-event:${id}`,
          description: 'the new scheduled event',
          beforeCommit: async () => {},
          afterCommit: async () => void (await store.createOneOff({ id, scheduledTime: at, definition })),
          abandon: async () => {},
        }),
    );
    return { response: { message: 'success', event_id: id } };
  },
});
