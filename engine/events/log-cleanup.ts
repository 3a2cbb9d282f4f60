/**
 * Deleting old events of a trigger, for `cleanup_config`'s schedule
 * (event-delivery.ts) and `cleanup_event_trigger_logs`.
 *
 * Note [Event log cleanup]
 * v2 deletes a trigger's delivered and failed events older than
 * `clear_older_than` hours `batch_size` at a time, one statement after
 * another, until none is left: a statement deletes at most one batch, so a
 * cleanup never holds locks on more than `batch_size` rows, and the loop ends
 * with the first batch that comes back short. Pending events are never
 * deleted. v2's `timeout` (seconds a batch may take) is taken but not applied:
 * a batch here is one statement of the source's pool, bounded by its own
 * statement settings.
 */
import type { EventLog } from '../backends/backend.ts';

/** Deletes every event of `trigger` that {@link EventLog.cleanup} would, a batch at a time; returns how many. */
export async function cleanupEventLog(log: EventLog, trigger: string, hours: number, batch: number, invocations: boolean): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await log.cleanup(trigger, hours, batch, invocations);
    total += n;
    if (n < batch) return total;
  }
}
