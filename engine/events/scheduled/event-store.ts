/**
 * The scheduled events of one metadata database: what metadata operations
 * ask (create, delete, list, reconcile a cron trigger's fire times) and what
 * the scheduler takes and records. Wraps the PostgreSQL storage of
 * backends/postgres/metadata-db/scheduled-events-storage.ts on the engine's
 * metadata database (Note [Metadata database]).
 */
import { randomUUID } from 'node:crypto';
import { scheduledEventsStorage as storage, type MetadataDatabase } from '../../backends/registry.ts';
import type { JsonValue } from '../../model/document.ts';
import type { CronEventsReconcile, EventKind, EventListArgs, InvocationListArgs, OneOffEventArgs, ScheduledEventsApi } from './scheduled-events-api.ts';
import { fireTimes } from './cron-schedule.ts';
import type { CronTrigger } from './definitions.ts';
import { retryConfOf } from './definitions.ts';

/** How far ahead a cron trigger's fire times are stored: at least this many, and every one in the horizon. */
export const CRON_MATERIALIZE = { minCount: 3, horizonMs: 10 * 60_000, maxCount: 100 } as const;

type Row = storage.ScheduledEventRow;

/** A page of rows as v2 answers it (`{events, count?}` / `{invocations, count?}`). */
function page<T>(key: string, rows: readonly T[], count: number | null): JsonValue {
  return (count === null ? { [key]: rows } : { [key]: rows, count }) as JsonValue;
}

/** v2's shape of a scheduled event row. */
function eventJson(r: Row): JsonValue {
  const common = {
    id: r.id,
    scheduled_time: r.scheduled_time.toISOString(),
    status: r.status,
    tries: r.tries,
    created_at: r.created_at.toISOString(),
    next_retry_at: r.tries > 0 && r.status === 'scheduled' ? r.due_at.toISOString() : null,
  };
  if (r.kind === 'cron') return { ...common, trigger_name: r.trigger_name };
  const d = (r.definition ?? {}) as Record<string, JsonValue>;
  return {
    ...common,
    webhook_conf: d['webhook'] ?? null,
    payload: d['payload'] ?? null,
    header_conf: d['headers'] ?? [],
    retry_conf: d['retry_conf'] ?? null,
    comment: d['comment'] ?? null,
  };
}

/** Scheduled events of one metadata database. */
export class ScheduledEventStore implements ScheduledEventsApi {
  /** The metadata database, opened and closed by the caller (boot.ts). */
  readonly db: MetadataDatabase;
  readonly #clock: () => number;

  private constructor(db: MetadataDatabase, clock: () => number) {
    this.db = db;
    this.#clock = clock;
  }

  /** Makes sure the tables exist in `db`. */
  static async open(db: MetadataDatabase, clock: () => number = Date.now): Promise<ScheduledEventStore> {
    await storage.ensureScheduledEventsSchema(db);
    return new ScheduledEventStore(db, clock);
  }

  /**
   * Brings stored fire times in line with `triggers` (the consistent cron
   * triggers of the metadata in force): times of removed triggers, or of a
   * trigger whose schedule changed, that were never attempted are deleted;
   * each trigger has its next fire times stored (Note [On-time firing]).
   */
  async reconcileCron(r: CronEventsReconcile): Promise<void> {
    const keep = new Map([...r.triggers.values()].map((t) => [t.name, t.schedule]));
    await storage.deleteStaleCronEvents(this.db, keep);
    if (r.dropPending.length > 0) await storage.deletePendingCronEvents(this.db, r.dropPending);
    await this.materialize(r.triggers);
  }

  /** Stores the coming fire times of every trigger (idempotent; several engines may race). */
  async materialize(triggers: ReadonlyMap<string, CronTrigger>): Promise<void> {
    // No cron trigger: nothing to store, no statement (the idle engine's minutely query, issue 35).
    if (triggers.size === 0) return;
    const now = new Date(this.#clock());
    const horizon = new Date(now.getTime() + CRON_MATERIALIZE.horizonMs);
    const latest = await storage.latestCronTimes(this.db);
    const events: storage.CronEventInput[] = [];
    for (const t of triggers.values()) {
      const last = latest.get(t.name);
      // Enough stored already: skip the insert of times that exist.
      if (last !== undefined && last >= horizon) continue;
      for (const at of fireTimes(t.schedule, now, { ...CRON_MATERIALIZE, horizon })) {
        events.push({
          id: randomUUID(),
          triggerName: t.name,
          schedule: t.schedule,
          scheduledTime: at,
          timeoutSeconds: t.retryConf.timeoutSeconds,
          toleranceSeconds: t.retryConf.toleranceSeconds,
        });
      }
    }
    await storage.insertCronEvents(this.db, events);
  }

  async createOneOff(a: OneOffEventArgs): Promise<void> {
    const retry = retryConfOf(a.definition.retry_conf);
    await storage.insertOneOffEvent(this.db, {
      id: a.id,
      scheduledTime: a.scheduledTime,
      timeoutSeconds: retry.timeoutSeconds,
      toleranceSeconds: retry.toleranceSeconds,
      definition: a.definition,
    });
  }

  async eventExists(kind: EventKind, id: string): Promise<boolean> {
    return await storage.scheduledEventExists(this.db, kind, id);
  }

  async deleteEvent(kind: EventKind, id: string): Promise<boolean> {
    return await storage.deleteScheduledEvent(this.db, kind, id);
  }

  async listEvents(a: EventListArgs): Promise<JsonValue> {
    const { rows, count } = await storage.listScheduledEvents(this.db, {
      kind: a.kind,
      triggerName: a.triggerName,
      statuses: a.statuses,
      limit: a.limit,
      offset: a.offset,
      count: a.count,
    });
    return page('events', rows.map(eventJson), count);
  }

  async listInvocations(a: InvocationListArgs): Promise<JsonValue> {
    const { rows, count } = await storage.listInvocations(this.db, {
      kind: a.kind,
      eventId: a.eventId,
      triggerName: a.triggerName,
      limit: a.limit,
      offset: a.offset,
      count: a.count,
    });
    const invocations = rows.map((r) => ({
      id: r.id,
      event_id: r.event_id,
      status: r.status,
      request: r.request as JsonValue,
      response: r.response as JsonValue,
      created_at: r.created_at.toISOString(),
    }));
    return page('invocations', invocations, count);
  }
}
