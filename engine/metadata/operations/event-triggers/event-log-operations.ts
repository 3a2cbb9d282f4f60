/**
 * The operations on a source's event log (nothing in the metadata changes):
 * `pg_redeliver_event`, `pg_invoke_event_trigger` (legacy `redeliver_event`,
 * `invoke_event_trigger`), and v2's reads `pg_get_event_logs`,
 * `pg_get_event_invocation_logs`, `pg_get_event_by_id`. Reads of a trigger
 * that is inconsistent (its table dropped) still answer from the log, so its
 * pending events can be seen.
 */
import { ADMIN_ROLE } from '../../../auth/session.ts';
import { ErrorCode } from '../../../errors/codes.ts';
import { EngineError } from '../../../errors/engine-error.ts';
import { defineOperation } from '../../define.ts';
import { argPath, SUCCESS } from '../../operation.ts';
import { getEventByIdArgs, getEventInvocationLogsArgs, getEventLogsArgs, invokeEventTriggerArgs, redeliverEventArgs } from '../../../model/schemas/args.ts';
import { eventLogOf, requireConsistentEventTrigger, requireEventTrigger } from './find-event-trigger.ts';

/** v2 compat: rows a log read answers when no `limit` is given. */
const DEFAULT_LIMIT = 100;

/** `pg_redeliver_event`: the event is due again, its tries reset. */
export const redeliverEvent = defineOperation<{ event_id: string; source?: string }>({
  mutates: false,
  schema: redeliverEventArgs,
  async run(ctx, args, call) {
    const log = eventLogOf(ctx, args.source ?? 'default', call);
    if (!(await log.redeliver(args.event_id))) {
      throw new EngineError(ErrorCode.NotExists, `event with id "${args.event_id}" does not exist`, { path: argPath(call, 'event_id') });
    }
    return { response: SUCCESS };
  },
});

/** `pg_invoke_event_trigger`: a MANUAL event with `payload` as its new row; answers `{event_id}`. */
export const invokeEventTrigger = defineOperation<{ name: string; payload: unknown; source?: string }>({
  mutates: false,
  schema: invokeEventTriggerArgs,
  async run(ctx, args, call) {
    const source = args.source ?? 'default';
    const info = requireConsistentEventTrigger(ctx, source, args.name, call);
    if (!info.enableManual) {
      throw new EngineError(ErrorCode.NotSupported, `manual mode is not enabled for event trigger "${args.name}"`, { path: argPath(call, 'name') });
    }
    // Metadata calls are made by the admin role.
    const id = await eventLogOf(ctx, source, call).insertManual(info.name, info.table, args.payload ?? null, { 'x-engine-role': ADMIN_ROLE });
    return { response: { event_id: id } };
  },
});

/** `pg_get_event_logs`: events of a trigger, newest first. */
export const getEventLogs = defineOperation<{ name: string; source?: string; status?: 'pending' | 'processed' | 'all'; limit?: number; offset?: number }>({
  mutates: false,
  schema: getEventLogsArgs,
  async run(ctx, args, call) {
    const source = args.source ?? 'default';
    requireEventTrigger(ctx, source, args.name, call);
    const rows = await eventLogOf(ctx, source, call).events({
      triggerName: args.name,
      status: args.status ?? 'all',
      limit: args.limit ?? DEFAULT_LIMIT,
      offset: args.offset ?? 0,
    });
    return { response: rows };
  },
});

/** `pg_get_event_invocation_logs`: delivery attempts of a trigger, newest first. */
export const getEventInvocationLogs = defineOperation<{ name: string; source?: string; limit?: number; offset?: number }>({
  mutates: false,
  schema: getEventInvocationLogsArgs,
  async run(ctx, args, call) {
    const source = args.source ?? 'default';
    requireEventTrigger(ctx, source, args.name, call);
    const rows = await eventLogOf(ctx, source, call).invocations(args.name, args.limit ?? DEFAULT_LIMIT, args.offset ?? 0);
    return { response: rows };
  },
});

/** `pg_get_event_by_id`: `{event, invocations}`. */
export const getEventById = defineOperation<{ event_id: string; source?: string; invocation_log_limit?: number; invocation_log_offset?: number }>({
  mutates: false,
  schema: getEventByIdArgs,
  async run(ctx, args, call) {
    const log = eventLogOf(ctx, args.source ?? 'default', call);
    const found = await log.eventById(args.event_id, args.invocation_log_limit ?? DEFAULT_LIMIT, args.invocation_log_offset ?? 0);
    if (found === null) {
      throw new EngineError(ErrorCode.NotExists, `event with id "${args.event_id}" does not exist`, { path: argPath(call, 'event_id') });
    }
    return { response: found };
  },
});
