/**
 * What metadata operations ask of the scheduled events store (cron triggers'
 * fire times, one-off events, their logs). The implementation is
 * event-store.ts; boot.ts hands it to the metadata service. It lives here, by
 * its implementation, so that events/ never imports metadata/ (metadata
 * operations sit above the catalog and everything it resolves).
 */
import type { CronTrigger, OneOffDefinition } from './definitions.ts';
import type { JsonValue } from '../../model/document.ts';

/** `one_off` or `cron`, as v2's `type` arg says. */
export type EventKind = 'one_off' | 'cron';

/** A cron trigger change to apply to the stored fire times. */
export interface CronEventsReconcile {
  /** The consistent cron triggers of the new metadata, by name. */
  readonly triggers: ReadonlyMap<string, CronTrigger>;
  /** Triggers whose pending times must go even if their schedule is the same (replaced or deleted). */
  readonly dropPending: readonly string[];
}

/** `create_scheduled_event`, checked. */
export interface OneOffEventArgs {
  readonly id: string;
  readonly scheduledTime: Date;
  readonly definition: OneOffDefinition;
}

/** `get_scheduled_events`, checked. */
export interface EventListArgs {
  readonly kind: EventKind;
  readonly triggerName: string | null;
  readonly statuses: readonly string[] | null;
  readonly limit: number | null;
  readonly offset: number;
  readonly count: boolean;
}

/** `get_scheduled_event_invocations`, checked. */
export interface InvocationListArgs {
  readonly kind: EventKind;
  readonly eventId: string | null;
  readonly triggerName: string | null;
  readonly limit: number | null;
  readonly offset: number;
  readonly count: boolean;
}

/** The scheduled events store as metadata operations see it. */
export interface ScheduledEventsApi {
  reconcileCron(r: CronEventsReconcile): Promise<void>;
  /** Stores the event. */
  createOneOff(a: OneOffEventArgs): Promise<void>;
  /** Whether an event of that kind and id exists. */
  eventExists(kind: EventKind, id: string): Promise<boolean>;
  /** Whether an event of that kind and id existed. */
  deleteEvent(kind: EventKind, id: string): Promise<boolean>;
  listEvents(a: EventListArgs): Promise<JsonValue>;
  listInvocations(a: InvocationListArgs): Promise<JsonValue>;
}
