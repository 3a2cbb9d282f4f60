/**
 * Storage of scheduled events (cron and one-off) in the metadata database:
 * `engine_metadata.scheduled_events` (one row per event and kind, due or
 * done), `engine_metadata.scheduled_event_invocations` (one row per delivery
 * attempt) and the NOTIFY channel that wakes schedulers when an event is
 * added. Only SQL lives here; engine/events/scheduled/ decides when to call
 * it. Times are always parameters from the engine's clock, never `now()`, so
 * the scheduler's notion of "due" is one clock (see Note [On-time firing] in
 * events/scheduled/scheduler.ts).
 */
import type { ChannelSubscription } from '../../metadata-database.ts';
import type { MetadataDatabase } from './database.ts';
import { ensureEngineTables } from './metadata-storage.ts';

/** The NOTIFY channel of new scheduled events (payload: the earliest due time in ms). */
export const SCHEDULED_EVENTS_CHANNEL = 'engine_scheduled_events';

const SCHEMA_LOCK_KEY = 727_002;

/** Creates the tables if missing (two engines starting at once take turns on an advisory lock). */
export async function ensureScheduledEventsSchema(db: MetadataDatabase): Promise<void> {
  await ensureEngineTables(db.pool, SCHEMA_LOCK_KEY, [
    `CREATE TABLE IF NOT EXISTS engine_metadata.scheduled_events (
      id uuid PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('cron', 'one_off')),
      trigger_name text,
      schedule text,
      scheduled_time timestamptz NOT NULL,
      due_at timestamptz NOT NULL,
      status text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled', 'locked', 'delivered', 'error', 'dead')),
      tries integer NOT NULL DEFAULT 0,
      locked_by text,
      locked_until timestamptz,
      timeout_seconds integer NOT NULL,
      tolerance_seconds integer NOT NULL,
      definition jsonb,
      created_at timestamptz NOT NULL DEFAULT now()
    )`,
    `CREATE UNIQUE INDEX IF NOT EXISTS scheduled_events_cron_time
      ON engine_metadata.scheduled_events (trigger_name, scheduled_time) WHERE kind = 'cron'`,
    `CREATE INDEX IF NOT EXISTS scheduled_events_due
      ON engine_metadata.scheduled_events (due_at) WHERE status = 'scheduled'`,
    `CREATE INDEX IF NOT EXISTS scheduled_events_lease
      ON engine_metadata.scheduled_events (locked_until) WHERE status = 'locked'`,
    `CREATE TABLE IF NOT EXISTS engine_metadata.scheduled_event_invocations (
      id uuid PRIMARY KEY,
      event_id uuid NOT NULL,
      kind text NOT NULL,
      status integer,
      request jsonb NOT NULL,
      response jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`,
    `CREATE INDEX IF NOT EXISTS scheduled_event_invocations_event
      ON engine_metadata.scheduled_event_invocations (event_id, created_at)`,
  ]);
}

/** A row of `scheduled_events` as the scheduler and the API read it. */
export interface ScheduledEventRow {
  readonly id: string;
  readonly kind: 'cron' | 'one_off';
  readonly trigger_name: string | null;
  readonly scheduled_time: Date;
  readonly due_at: Date;
  readonly status: string;
  readonly tries: number;
  readonly timeout_seconds: number;
  readonly tolerance_seconds: number;
  readonly definition: unknown;
  readonly created_at: Date;
}

/** One fire time of a cron trigger to materialize. */
export interface CronEventInput {
  readonly id: string;
  readonly triggerName: string;
  readonly schedule: string;
  readonly scheduledTime: Date;
  readonly timeoutSeconds: number;
  readonly toleranceSeconds: number;
}

/**
 * Inserts the fire times not present yet (a fire time is one row per trigger
 * whichever engine inserts it first) and wakes the schedulers. Returns how many were new.
 */
export async function insertCronEvents(db: MetadataDatabase, events: readonly CronEventInput[]): Promise<number> {
  if (events.length === 0) return 0;
  const res = await db.pool.query(
    `INSERT INTO engine_metadata.scheduled_events
       (id, kind, trigger_name, schedule, scheduled_time, due_at, timeout_seconds, tolerance_seconds)
     SELECT e.id, 'cron', e.trigger_name, e.schedule, e.at, e.at, e.timeout_seconds, e.tolerance_seconds
     FROM unnest($1::uuid[], $2::text[], $3::text[], $4::timestamptz[], $5::integer[], $6::integer[])
       AS e(id, trigger_name, schedule, at, timeout_seconds, tolerance_seconds)
     ON CONFLICT (trigger_name, scheduled_time) WHERE kind = 'cron' DO NOTHING`,
    [
      events.map((e) => e.id),
      events.map((e) => e.triggerName),
      events.map((e) => e.schedule),
      events.map((e) => e.scheduledTime),
      events.map((e) => e.timeoutSeconds),
      events.map((e) => e.toleranceSeconds),
    ],
  );
  const inserted = res.rowCount ?? 0;
  if (inserted > 0) await notifyDue(db, Math.min(...events.map((e) => e.scheduledTime.getTime())));
  return inserted;
}

/**
 * Deletes the cron events not yet attempted whose trigger is not in `keep`
 * (name → schedule) or whose schedule differs from the trigger's now.
 */
export async function deleteStaleCronEvents(db: MetadataDatabase, keep: ReadonlyMap<string, string>): Promise<number> {
  const res = await db.pool.query(
    `DELETE FROM engine_metadata.scheduled_events e
     WHERE e.kind = 'cron' AND e.status = 'scheduled' AND e.tries = 0
       AND NOT EXISTS (SELECT 1 FROM unnest($1::text[], $2::text[]) AS k(name, schedule)
                       WHERE k.name = e.trigger_name AND k.schedule = e.schedule)`,
    [[...keep.keys()], [...keep.values()]],
  );
  return res.rowCount ?? 0;
}

/** Deletes the pending (scheduled, not yet taken) events of the named cron triggers. */
export async function deletePendingCronEvents(db: MetadataDatabase, triggerNames: readonly string[]): Promise<number> {
  const res = await db.pool.query(
    `DELETE FROM engine_metadata.scheduled_events WHERE kind = 'cron' AND status = 'scheduled' AND trigger_name = ANY($1::text[])`,
    [triggerNames],
  );
  return res.rowCount ?? 0;
}

/** The latest materialized fire time of each cron trigger. */
export async function latestCronTimes(db: MetadataDatabase): Promise<Map<string, Date>> {
  const res = await db.pool.query<{ trigger_name: string; latest: Date }>(
    `SELECT trigger_name, max(scheduled_time) AS latest FROM engine_metadata.scheduled_events
     WHERE kind = 'cron' AND status = 'scheduled' GROUP BY trigger_name`,
  );
  return new Map(res.rows.map((r) => [r.trigger_name, r.latest]));
}

/** A one-off event to store. */
export interface OneOffEventInput {
  readonly id: string;
  readonly scheduledTime: Date;
  readonly timeoutSeconds: number;
  readonly toleranceSeconds: number;
  readonly definition: unknown;
}

/** Stores a one-off event and wakes the schedulers. */
export async function insertOneOffEvent(db: MetadataDatabase, e: OneOffEventInput): Promise<void> {
  await db.pool.query(
    `INSERT INTO engine_metadata.scheduled_events
       (id, kind, scheduled_time, due_at, timeout_seconds, tolerance_seconds, definition)
     VALUES ($1, 'one_off', $2, $2, $3, $4, $5)`,
    [e.id, e.scheduledTime, e.timeoutSeconds, e.toleranceSeconds, JSON.stringify(e.definition)],
  );
  await notifyDue(db, e.scheduledTime.getTime());
}

async function notifyDue(db: MetadataDatabase, dueMs: number): Promise<void> {
  await db.pool.query('SELECT pg_notify($1, $2)', [SCHEDULED_EVENTS_CHANNEL, String(dueMs)]);
}

/** Whether an event of `kind` with `id` exists. */
export async function scheduledEventExists(db: MetadataDatabase, kind: 'cron' | 'one_off', id: string): Promise<boolean> {
  const res = await db.pool.query('SELECT 1 FROM engine_metadata.scheduled_events WHERE id = $1 AND kind = $2', [id, kind]);
  return (res.rowCount ?? 0) > 0;
}

/** Deletes one event of `kind` and its invocation logs; whether it existed. */
export async function deleteScheduledEvent(db: MetadataDatabase, kind: 'cron' | 'one_off', id: string): Promise<boolean> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    const res = await client.query('DELETE FROM engine_metadata.scheduled_events WHERE id = $1 AND kind = $2', [id, kind]);
    await client.query('DELETE FROM engine_metadata.scheduled_event_invocations WHERE event_id = $1', [id]);
    await client.query('COMMIT');
    return (res.rowCount ?? 0) > 0;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

/**
 * Marks dead the events never attempted whose time is more than their
 * tolerance in the past at `now` (the engine was down or overloaded).
 */
export async function markMissedDead(db: MetadataDatabase, now: Date): Promise<number> {
  const res = await db.pool.query(
    `UPDATE engine_metadata.scheduled_events SET status = 'dead'
     WHERE status = 'scheduled' AND tries = 0 AND due_at <= $1
       AND scheduled_time + tolerance_seconds * interval '1 second' < $1`,
    [now],
  );
  return res.rowCount ?? 0;
}

/**
 * Takes up to `limit` due events for `owner`: those scheduled at or before
 * `now`, and those whose lease ran out (taken by an engine that died). Row
 * locks with SKIP LOCKED make two engines take disjoint sets; the lease is the
 * event's timeout plus `leaseMarginMs`. An event never attempted and past its
 * tolerance is not taken even when {@link markMissedDead} has not seen it
 * yet (it was created between the two statements): the next tick marks it dead.
 */
export async function claimDueEvents(db: MetadataDatabase, now: Date, limit: number, owner: string, leaseMarginMs: number): Promise<ScheduledEventRow[]> {
  const res = await db.pool.query<ScheduledEventRow>(
    `WITH due AS (
       SELECT id FROM engine_metadata.scheduled_events
       WHERE (status = 'scheduled' AND due_at <= $1 AND NOT (tries = 0 AND scheduled_time + tolerance_seconds * interval '1 second' < $1))
          OR (status = 'locked' AND locked_until < $1)
       ORDER BY due_at
       LIMIT $2
       FOR UPDATE SKIP LOCKED
     )
     UPDATE engine_metadata.scheduled_events e
     SET status = 'locked', locked_by = $3,
         locked_until = $1 + (e.timeout_seconds * 1000 + $4) * interval '1 millisecond'
     FROM due WHERE e.id = due.id
     RETURNING e.id, e.kind, e.trigger_name, e.scheduled_time, e.due_at, e.status, e.tries,
               e.timeout_seconds, e.tolerance_seconds, e.definition, e.created_at`,
    [now, limit, owner, leaseMarginMs],
  );
  return res.rows;
}

/** The earliest due time among scheduled events and running leases, or null when none. */
export async function nextDueTime(db: MetadataDatabase): Promise<Date | null> {
  const res = await db.pool.query<{ next: Date | null }>(
    `SELECT least(
       (SELECT min(due_at) FROM engine_metadata.scheduled_events WHERE status = 'scheduled'),
       (SELECT min(locked_until) FROM engine_metadata.scheduled_events WHERE status = 'locked')
     ) AS next`,
  );
  return res.rows[0]?.next ?? null;
}

/** How an attempt ended, to record with its invocation log. */
export interface AttemptOutcome {
  readonly eventId: string;
  readonly owner: string;
  readonly status: 'delivered' | 'scheduled' | 'error';
  /** For a retry: when it is due again. */
  readonly dueAt: Date | null;
  readonly invocation: {
    readonly id: string;
    readonly kind: 'cron' | 'one_off';
    readonly httpStatus: number | null;
    readonly request: unknown;
    readonly response: unknown;
  };
}

/**
 * Records an attempt and its outcome in one transaction, only if `owner`
 * still holds the event (a lease taken over by another engine wins).
 */
export async function recordAttempt(db: MetadataDatabase, o: AttemptOutcome): Promise<boolean> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    const res = await client.query(
      `UPDATE engine_metadata.scheduled_events
       SET status = $3, tries = tries + 1, due_at = coalesce($4, due_at), locked_by = NULL, locked_until = NULL
       WHERE id = $1 AND status = 'locked' AND locked_by = $2`,
      [o.eventId, o.owner, o.status, o.dueAt],
    );
    const held = (res.rowCount ?? 0) > 0;
    if (held) {
      await client.query(
        `INSERT INTO engine_metadata.scheduled_event_invocations (id, event_id, kind, status, request, response)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [o.invocation.id, o.eventId, o.invocation.kind, o.invocation.httpStatus, JSON.stringify(o.invocation.request), JSON.stringify(o.invocation.response)],
      );
    }
    await client.query('COMMIT');
    // On the same client: taking a second one while holding this could exhaust the pool.
    if (held && o.status === 'scheduled' && o.dueAt !== null)
      await client.query('SELECT pg_notify($1, $2)', [SCHEDULED_EVENTS_CHANNEL, String(o.dueAt.getTime())]);
    return held;
  } catch (e) {
    await client.query('ROLLBACK').catch(() => {});
    throw e;
  } finally {
    client.release();
  }
}

/** Gives back an event this engine took but will not attempt (its trigger is gone, or the engine is stopping). */
export async function releaseEvent(db: MetadataDatabase, id: string, owner: string, drop: boolean): Promise<void> {
  await db.pool.query(
    drop
      ? `DELETE FROM engine_metadata.scheduled_events WHERE id = $1 AND status = 'locked' AND locked_by = $2`
      : `UPDATE engine_metadata.scheduled_events SET status = 'scheduled', locked_by = NULL, locked_until = NULL
         WHERE id = $1 AND status = 'locked' AND locked_by = $2`,
    [id, owner],
  );
}

/** A page of events of one kind. */
export interface EventListQuery {
  readonly kind: 'cron' | 'one_off';
  readonly triggerName: string | null;
  readonly statuses: readonly string[] | null;
  readonly limit: number | null;
  readonly offset: number;
  readonly count: boolean;
}

/** Events of one kind (cron: of one trigger when named), newest scheduled time last, with the total when asked. */
export async function listScheduledEvents(db: MetadataDatabase, q: EventListQuery): Promise<{ rows: ScheduledEventRow[]; count: number | null }> {
  const where = `kind = $1 AND ($2::text IS NULL OR trigger_name = $2) AND ($3::text[] IS NULL OR status = ANY($3))`;
  const params = [q.kind, q.triggerName, q.statuses];
  const res = await db.pool.query<ScheduledEventRow>(
    `SELECT id, kind, trigger_name, scheduled_time, due_at, status, tries, timeout_seconds, tolerance_seconds, definition, created_at
     FROM engine_metadata.scheduled_events WHERE ${where}
     ORDER BY scheduled_time, id LIMIT $4 OFFSET $5`,
    [...params, q.limit, q.offset],
  );
  let count: number | null = null;
  if (q.count) {
    const c = await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM engine_metadata.scheduled_events WHERE ${where}`, params);
    count = Number(c.rows[0]?.n ?? 0);
  }
  return { rows: res.rows, count };
}

/** A row of `scheduled_event_invocations`. */
export interface InvocationRow {
  readonly id: string;
  readonly event_id: string;
  readonly status: number | null;
  readonly request: unknown;
  readonly response: unknown;
  readonly created_at: Date;
}

/** Invocation logs of one event, or of every event of a cron trigger, or of every event of a kind; oldest first. */
export async function listInvocations(
  db: MetadataDatabase,
  q: { kind: 'cron' | 'one_off'; eventId: string | null; triggerName: string | null; limit: number | null; offset: number; count: boolean },
): Promise<{ rows: InvocationRow[]; count: number | null }> {
  const where = `i.kind = $1 AND ($2::uuid IS NULL OR i.event_id = $2)
    AND ($3::text IS NULL OR EXISTS (SELECT 1 FROM engine_metadata.scheduled_events e WHERE e.id = i.event_id AND e.trigger_name = $3))`;
  const params = [q.kind, q.eventId, q.triggerName];
  const res = await db.pool.query<InvocationRow>(
    `SELECT i.id, i.event_id, i.status, i.request, i.response, i.created_at
     FROM engine_metadata.scheduled_event_invocations i WHERE ${where}
     ORDER BY i.created_at, i.id LIMIT $4 OFFSET $5`,
    [...params, q.limit, q.offset],
  );
  let count: number | null = null;
  if (q.count) {
    const c = await db.pool.query<{ n: string }>(`SELECT count(*) AS n FROM engine_metadata.scheduled_event_invocations i WHERE ${where}`, params);
    count = Number(c.rows[0]?.n ?? 0);
  }
  return { rows: res.rows, count };
}

/**
 * Subscribes to new events on the metadata database's LISTEN connection:
 * `onDue` gets each earliest due time (ms); `missed` is called when notices
 * may have been missed (the connection lost, and back).
 */
export async function listenScheduledEvents(db: MetadataDatabase, onDue: (dueMs: number) => void, missed: () => void): Promise<ChannelSubscription> {
  return await db.listen(SCHEDULED_EVENTS_CHANNEL, {
    notify: (payload) => {
      const due = Number(payload);
      if (Number.isFinite(due)) onDue(due);
    },
    missed,
  });
}
