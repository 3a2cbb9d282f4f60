/**
 * Delivery of event trigger events: per source with consistent event
 * triggers, a worker takes due events from the source's event log and POSTs
 * them to their webhooks, retrying as `retry_conf` says, and records every
 * attempt.
 *
 * Note [Event delivery]
 * - Waking: each source worker LISTENs on the channel every capture trigger
 *   notifies (Note [Capture triggers]), so it takes new events as their
 *   transaction commits (the take first expands the captured batches into
 *   events, Note [Capture batches]); a poll every ENGINE_GRAPHQL_EVENTS_FETCH_INTERVAL
 *   ms covers a lost listener (re-opened on the next poll) and events made
 *   due by time (retries get a timer of their own as well).
 * - Taking: only as many events as there are free HTTP slots
 *   (ENGINE_GRAPHQL_EVENTS_HTTP_POOL_SIZE, shared by all sources), at most
 *   ENGINE_GRAPHQL_EVENTS_FETCH_BATCH_SIZE per statement, again while batches
 *   come back full. Nothing waits in memory holding a lease it is not using.
 *   While the last take came back full (a backlog), the next one waits until
 *   half the pool (or batch) is free, at most REFILL_WAIT_MS, then takes
 *   what is free: otherwise every finished delivery wakes a take of the one
 *   or few slots it freed (pg_stat_statements on the bench's 20,000 events:
 *   499 takes of 40 events on average, and more, smaller ones the faster the
 *   webhook). Without a backlog a new event is taken at once, whatever is free.
 *   take and record are named prepared statements (parsed once per
 *   connection: about 8 µs of PostgreSQL CPU less per event).
 * - Several engines: rows are taken with SKIP LOCKED and leased (Note [Event
 *   log]); a worker renews the leases of what it is sending every third of
 *   the lease. An engine that dies loses its leases after
 *   ENGINE_GRAPHQL_EVENTS_LEASE_SECONDS and others take its events again:
 *   at least once, never lost.
 * - Recording: attempts are written in batches (one statement for all the
 *   attempts finished while the previous write ran), so the database cost
 *   per event stays about one row update and one insert.
 * - Order: events are taken in capture order and sent concurrently, except
 *   that events of one row (by primary key) go one at a time in capture
 *   order, a retried one holding back the later ones (Note [Event log]).
 *   Rows of tables without a primary key have no order.
 * - Outcome: a 2xx answer is delivered; anything else, a connection error or
 *   `timeout_sec` is a failure, retried after `interval_sec` (a `Retry-After`
 *   answer wins) while `tries <= num_retries`, then the event is in error
 *   until `pg_redeliver_event`.
 *
 * Measured with `flock /work/fullsuite.lock npm run bench -- --capabilities
 * event-triggers` (defaults: pool 100, batch 100; webhook answering at once
 * in the bench process; 20,000 events from one INSERT), the engine of the
 * commit before these changes (`--engine-root`) and this one run back to
 * back (the second at a lower load average, 2-5 against 5-8, so read the
 * CPU figures): 4,191 against 5,002 events/s delivered; CPU
 * per event engine 105 against 83 µs, PostgreSQL 96 against 77 µs, webhook
 * 55 against 57 µs (256 against 217 µs in all: at most about 9,200 events/s
 * if two idle cores did nothing else). The parts, measured alone: the
 * webhook client (Note [Webhook client]) 29 µs per request against 63-75
 * with node:http; take and record as prepared statements about 8 µs of
 * PostgreSQL CPU per event less; the remaining PostgreSQL cost is per row
 * (record 43 µs: its UPDATE is not HOT since `delivered` is in the partial
 * indexes' predicates, plus the invocation insert; take 23 µs). What is
 * left in the engine is mostly socket writes (one per request, one per
 * statement). Earlier, at load average 11-12: 1,668 events/s, 119 µs engine
 * and 98 µs PostgreSQL per event. At a steady 500 inserts/s, INSERT sent →
 * webhook received p50 2.6 ms, p99 70 ms (base 2.8 / 80 in the same runs;
 * v2 polls every second: p50 about 500 ms). Writer cost, insert_<t>_one:
 * PostgreSQL CPU per mutation 0.106 ms without a trigger, 0.41 ms with one
 * (capture, and the delivery of the events made, by the same engine).
 * Issue 35, the same writer cell (16 connections, load average 11-12):
 * 2,748 mutations/s before and 3,020 after its changes (Note [Take limits],
 * statement-level capture in Note [Capture triggers]), PostgreSQL CPU 0.234
 * and 0.232 ms per mutation against 0.051 and 0.046 without a trigger. The
 * capture dominates: pg_stat_statements over 8,838 mutations gave its INSERT
 * into the event log 0.21 ms per event, record 0.11 and take 0.05 (wall
 * time, 36 and 19 events per statement: under this load a take already
 * finds many events, and spacing takes woken by notifications 4 ms apart
 * changed nothing, 665-739 takes per ~11,000 events either way); pgbench of
 * the capturing transaction alone at 16 clients: 116 µs of PostgreSQL CPU
 * against 44-48 without the trigger, and each of the log's five indexes
 * costs 5-10 µs of it.
 * With capture batches (Note [Capture batches], Note [Expanding take]),
 * three alternated pairs of `npm run bench -- --capabilities event-triggers`
 * (2026-11-28 17:25-17:31 UTC, load 8-12; `--engine-root` at e4d23ec for
 * before): the writer cell with the trigger 1,494/1,399/2,037 → 2,798/
 * 1,286/1,826 mutations/s, PostgreSQL CPU 0.347/0.392/0.304 → 0.255/0.348/
 * 0.319 ms per mutation (0.05-0.08 without a trigger); the 20,000-event
 * insert 69/79/73 → 79/88/82 µs of PostgreSQL CPU per event (the batch's
 * row written and deleted); INSERT → webhook p50 2.5/1.7/1.5 → 2.6/3.4/11.2
 * ms at 500/s (the last under a load spike: its no-trigger cell ran at
 * 2,091 rps against 7,327).
 * Tried and not kept (fa0e222, reverted in the next commit): pacing takes
 * to one per 5 ms, so that a steady stream is taken a few events at a time
 * rather than one. In the bench's steady row (500 inserts/s, PostgreSQL CPU
 * per insert until delivered) 0.82 → 0.62 ms, but in the writer cell
 * mutations/s fell from 4,612 to 2,990 (engine CPU per mutation 0.092 →
 * 0.124 ms; the deliveries came in bursts that held up the same process's
 * HTTP answers) and INSERT → webhook p50 went 1.3-2 → 4.3-4.8 ms
 * (2026-11-28 20:20-20:25 UTC, load 6-9, alternated with 529c460).
 *
 * Note [Where a mutation's event costs go]
 * Issue 35's goal: a mutation with a trigger, captured and delivered by the
 * same engine, costs PostgreSQL at most twice the same mutation without one.
 * The writer cell reads about 4× (0.24-0.33 ms against 0.05-0.07). `node
 * test/bench/event-log-cost.ts --only stream` is that cell without HTTP, every
 * backend counted, with its parts (2026-11-28 22:19, d9ebab6, load 11-13,
 * three rounds, µs per single-row mutation):
 *
 *   delivered k at a time   capture   take (+expansion)   record   listener   total
 *   k = 20                  165-175        51-61           33-50     14-21    277-302
 *   k = 80                  148-163        35-37           29-31     13-14    226-244
 *   no trigger               90-105                                           90-105
 *
 * - The capture alone is +50-80 µs, 1.6-2× the mutation: on the `capture: 1 row`
 *   cell (22:21-22:25) a trigger whose body only returns costs ~10 µs (the
 *   transition table, the plpgsql call), a NOTIFY alone ~0-10, an insert of a
 *   constant batch row ~5, a `json_agg` of the transition table ~5-10, the insert
 *   of the aggregate without HAVING, keys, variables or NOTIFY ~20; the whole
 *   statement 40-70. No part is large; none was cut below the noise.
 * - Delivery costs per row written and per statement: a perf profile of the
 *   delivery backend is spread over buffer lookups, WAL insertion, B-tree
 *   inserts and heap updates, and the cost per event falls with the take's
 *   size (k = 80 against 20: take + record 66 against ~95 µs).
 * - Prototypes in a scratch checkout, not kept (same run, same cells): single-row
 *   batches leased in place instead of expanded (the event row is written only
 *   by the record, already delivered): take 51-61 → 26-31 at k = 20, total
 *   0.228-0.259 ms; and with the record moving the leased batches into one row
 *   per record call (their rows and invocation logs as json, no index):
 *   record → 19-20 µs, total 0.206-0.218 ms at k = 20, 0.182-0.212 at k = 80.
 *   Even that floor is 2.2-2.5× the mutation without a trigger, since the
 *   capture and the listener stay. Landing it needs: ids (and the log's `seq`)
 *   given at the lease, so that a retake after a lost lease sends the same id
 *   and a retry keeps its place; a batch leased in place only while no pending
 *   event and no other batch has its row key (Note [Event log]'s order per
 *   row), its failures moved into the log as pending events; reads, redelivery
 *   and cleanup expanding what they need first; events leased in place
 *   missing from `get_event_logs` until recorded.
 * - Capture without a trigger, by logical decoding (2026-11-29 06:24, load
 *   ~1, `BENCH_PG_WAL_LEVEL=logical node test/bench/event-log-cost.ts --only
 *   stream`, three rounds, µs per single-row mutation): a pgoutput slot
 *   streamed by `pg_recvlogical` costs its walsender 51-63 µs per
 *   transaction (begin, insert and commit decoded and sent), about as much as
 *   the insert itself (63-66 on the writer, the same as with no slot: 65);
 *   with one invocation log row per change written 20 or 80 at a time (14-21
 *   µs), 138-144 in all, 2.1-2.2× the plain insert, against 175-220 (2.7-3.1×)
 *   for this engine's trigger capture and delivery in the same run. So even
 *   the cheapest capture, with no lease, retry or per-event state at all,
 *   stays above twice a single-row insert: the walsender's per-transaction
 *   work is the floor. It would also need `wal_level=logical` (a server
 *   restart), `REPLICA IDENTITY FULL` for the old row of updates, and session
 *   variables sent through the WAL (`pg_logical_emit_message`), so the
 *   engine keeps its trigger capture.
 * - Tried, no change beyond the noise (alternated, same runs): fillfactor 30 on
 *   the log (leases become HOT updates, 8,600 of 17,180 updates against 3,224
 *   of 15,120; 281 against 287 µs in all); `VACUUM` of the batch table and of
 *   the log every 500 expanded events (183 against 184 µs); a generic plan
 *   forced on the capture function (0.153 against 0.150 ms a statement).
 */
import { randomUUID } from 'node:crypto';
import type { AttemptRecord, EventLog, LoggedEvent, SourceConnection } from '../backends/backend.ts';
import { findBackend } from '../backends/registry.ts';
import type { CatalogRef } from '../catalog/snapshot.ts';
import type { Catalog, EventTriggerInfo } from '../catalog/types.ts';
import type { Logger } from '../logger.ts';
import type { AsyncMetrics } from '../observability/metrics.ts';
import { parseSchedule, scheduleMatches } from './scheduled/cron-schedule.ts';
import { cleanupEventLog } from './log-cleanup.ts';
import { deliveryBody, loggedRequestJson, loggedResponse } from './delivery-payload.ts';
import { WebhookClient, type WebhookResult } from './webhook-client.ts';
import { applyRequestTransform, applyResponseTransform, type TransformSession } from '../transforms/index.ts';

/** Settings of delivery (cli/settings.ts names them). */
export interface DeliveryOptions {
  readonly poolSize: number;
  /** Milliseconds between polls (0: no polling, notifications only). */
  readonly fetchIntervalMs: number;
  readonly batchSize: number;
  readonly leaseMs: number;
  readonly logger: Logger;
  /** Where calls, retries and outcomes are counted (Note [Async metrics]). */
  readonly metrics?: AsyncMetrics;
}

/** Seconds since `createdAt` (the event log's UTC time without a zone), or null when unreadable. */
function secondsSince(createdAt: string): number | null {
  const t = Date.parse(createdAt.endsWith('Z') ? createdAt : `${createdAt}Z`);
  return Number.isNaN(t) ? null : Math.max(0, (Date.now() - t) / 1000);
}

/** Attempts recorded in one statement at most. */
const RECORD_BATCH = 500;
/** Wait before writing attempts again after a failed write. */
const RECORD_RETRY_MS = 1000;
/** Longest wait for free slots before taking a smaller batch of a backlog (Note [Event delivery]). */
const REFILL_WAIT_MS = 10;
/** How long `close` waits for deliveries in flight. */
const CLOSE_WAIT_MS = 10_000;

/** The session a transform sees: the event's session variables, if it has them. */
function sessionOf(e: LoggedEvent): TransformSession {
  const s = e.payload.session_variables;
  return typeof s === 'object' && s !== null ? (s as Record<string, string>) : null;
}

/** The request to send (after `request_transform`) with its invocation-log JSON, or why it cannot be made. */
function prepareRequest(
  trigger: EventTriggerInfo,
  payload: Record<string, unknown>,
  e: LoggedEvent,
):
  | {
      method: string;
      url: string;
      headers: ReadonlyArray<readonly [string, string]>;
      body: string;
      logged: string;
      queryParams: ReadonlyArray<readonly [string, string]>;
    }
  | { error: string } {
  if (trigger.requestTransform === undefined) {
    const body = JSON.stringify(payload);
    return { method: 'POST', url: trigger.webhook, headers: trigger.headers, body, logged: loggedRequestJson(body, trigger.headers), queryParams: [] };
  }
  try {
    const t = applyRequestTransform(
      trigger.requestTransform,
      { method: 'POST', url: trigger.webhook, headers: trigger.headers, body: payload as never },
      sessionOf(e),
    );
    const body = t.body ?? '';
    const logged = loggedRequestJson(JSON.stringify(t.bodyValue ?? null), t.headers);
    return { method: t.method, url: t.url, headers: t.headers, body, logged, queryParams: t.queryParams };
  } catch (err) {
    return { error: `request_transform failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** The answer as logged: its JSON body passed through `response_transform` when there is one. */
function transformedResponse(trigger: EventTriggerInfo, r: WebhookResult, request: ReturnType<typeof prepareRequest>, e: LoggedEvent): WebhookResult {
  if (trigger.responseTransform === undefined || r.kind !== 'response' || 'error' in request) return r;
  try {
    const body = applyResponseTransform(trigger.responseTransform, JSON.parse(r.body) as never, {
      requestBody: undefined,
      queryParams: request.queryParams,
      session: sessionOf(e),
      status: r.status,
    });
    return { ...r, body: JSON.stringify(body) };
  } catch {
    // Not JSON, or the template failed: the answer is logged as it came.
    return r;
  }
}

/** The HTTP slots shared by every source. */
class Slots {
  free: number;
  /** Wake functions and how many free slots each waits for. */
  readonly #waiting = new Map<() => void, number>();

  constructor(size: number) {
    this.free = size;
  }

  /** Calls `wake` once at least `atLeast` slots are free. */
  waitFor(wake: () => void, atLeast = 1): void {
    this.#waiting.set(wake, atLeast);
  }

  release(n = 1): void {
    this.free += n;
    if (this.#waiting.size === 0) return;
    const ready: Array<() => void> = [];
    for (const [w, atLeast] of this.#waiting) if (this.free >= atLeast) ready.push(w);
    for (const w of ready) {
      this.#waiting.delete(w);
      w();
    }
  }
}

/** The worker of one source. */
class SourceWorker {
  readonly connection: SourceConnection;
  #triggers: ReadonlyMap<string, EventTriggerInfo>;
  readonly #log: EventLog;
  readonly #owner: string;
  readonly #opts: DeliveryOptions;
  readonly #slots: Slots;
  readonly #client: WebhookClient;
  readonly #name: string;
  readonly #inFlight = new Map<string, Promise<void>>();
  #pending: AttemptRecord[] = [];
  #flushing: Promise<void> | null = null;
  #stopListening: (() => Promise<void>) | null = null;
  #listening = false;
  #fetching = false;
  #again = false;
  /** The last take came back full: more events are due than slots were free. */
  #backlog = false;
  /** Free slots a take waits for while there is a backlog. */
  readonly #refillAt: number;
  #refillTimer: ReturnType<typeof setTimeout> | null = null;
  /** The refill wait ran out: take whatever slots are free. */
  #refillDue = false;
  readonly #wakeOnSlots = (): void => this.wake();
  #stopped = false;
  readonly #timers: Array<ReturnType<typeof setInterval>> = [];
  readonly #retryTimers = new Set<ReturnType<typeof setTimeout>>();

  constructor(
    name: string,
    connection: SourceConnection,
    log: EventLog,
    triggers: ReadonlyMap<string, EventTriggerInfo>,
    shared: { owner: string; opts: DeliveryOptions; slots: Slots; client: WebhookClient },
  ) {
    this.#name = name;
    this.connection = connection;
    this.#log = log;
    this.#triggers = triggers;
    this.#owner = shared.owner;
    this.#opts = shared.opts;
    this.#slots = shared.slots;
    this.#client = shared.client;
    this.#refillAt = Math.max(1, Math.ceil(Math.min(shared.opts.batchSize, shared.opts.poolSize) / 2));
  }

  get triggers(): ReadonlyMap<string, EventTriggerInfo> {
    return this.#triggers;
  }

  start(): void {
    void this.#listen();
    if (this.#opts.fetchIntervalMs > 0) {
      this.#timers.push(
        setInterval(() => {
          if (!this.#listening) void this.#listen();
          this.wake();
        }, this.#opts.fetchIntervalMs),
      );
    }
    this.#timers.push(setInterval(() => void this.#renew(), Math.max(100, Math.floor(this.#opts.leaseMs / 3))));
    this.wake();
  }

  update(triggers: ReadonlyMap<string, EventTriggerInfo>): void {
    this.#triggers = triggers;
    this.wake();
  }

  async #listen(): Promise<void> {
    if (this.#listening || this.#stopped) return;
    this.#listening = true;
    try {
      const stop = await this.#log.listen(
        () => this.wake(),
        (e) => {
          if (!this.#listening) return;
          this.#listening = false;
          this.#opts.logger.warn('event listener lost; polling until it is back', { source: this.#name, error: String(e) });
          const s = this.#stopListening;
          this.#stopListening = null;
          if (s !== null) void s();
        },
      );
      if (this.#stopped || !this.#listening) await stop();
      else this.#stopListening = stop;
    } catch (e) {
      this.#listening = false;
      this.#opts.logger.warn('could not listen for events; polling', { source: this.#name, error: String(e) });
    }
  }

  /** Takes due events now (or right after the take under way). */
  wake(): void {
    if (this.#stopped) return;
    if (this.#fetching) {
      this.#again = true;
      return;
    }
    void this.#fetchLoop();
  }

  async #fetchLoop(): Promise<void> {
    this.#fetching = true;
    try {
      do {
        this.#again = false;
        for (;;) {
          if (this.#stopped) return;
          const n = Math.min(this.#opts.batchSize, this.#slots.free);
          if (n <= 0) {
            this.#slots.waitFor(this.#wakeOnSlots);
            break;
          }
          // A backlog is taken in large batches (Note [Event delivery]): wait for more free slots, bounded in time.
          if (this.#backlog && n < this.#refillAt && !this.#refillDue) {
            this.#slots.waitFor(this.#wakeOnSlots, this.#refillAt);
            this.#refillTimer ??= setTimeout(() => {
              this.#refillTimer = null;
              this.#refillDue = true;
              this.wake();
            }, REFILL_WAIT_MS);
            break;
          }
          this.#refillDue = false;
          if (this.#refillTimer !== null) {
            clearTimeout(this.#refillTimer);
            this.#refillTimer = null;
          }
          this.#slots.free -= n;
          let events: LoggedEvent[] = [];
          try {
            events = await this.#log.take([...this.#triggers.keys()], n, this.#opts.leaseMs, this.#owner);
          } finally {
            this.#slots.free += n - events.length;
          }
          this.#backlog = events.length === n;
          this.#opts.metrics?.eventsFetched(events.length);
          for (const e of events) this.#dispatch(e);
          if (events.length < n) break;
        }
      } while (this.#again && !this.#stopped);
    } catch (e) {
      this.#opts.logger.warn('could not take events', { source: this.#name, error: String(e) });
    } finally {
      this.#fetching = false;
    }
  }

  #dispatch(e: LoggedEvent): void {
    const metrics = this.#opts.metrics;
    metrics?.asyncInFlight('event_trigger', 1);
    const p = this.#deliver(e)
      .catch((err: unknown) => this.#opts.logger.error('event delivery failed', { source: this.#name, event_id: e.id, error: String(err) }))
      .finally(() => {
        this.#inFlight.delete(e.id);
        this.#slots.release();
        metrics?.asyncInFlight('event_trigger', -1);
      });
    this.#inFlight.set(e.id, p);
  }

  async #deliver(e: LoggedEvent): Promise<void> {
    const trigger = this.#triggers.get(e.triggerName);
    // Deleted since it was taken: the lease lapses and the event is not taken again.
    if (trigger === undefined) return;
    const metrics = this.#opts.metrics;
    if (metrics !== undefined && e.tries === 0) {
      const waited = secondsSince(e.createdAt);
      if (waited !== null) metrics.asyncQueued('event_trigger', e.triggerName, waited);
    }
    const payload = deliveryBody(e, trigger);
    const request = prepareRequest(trigger, payload, e);
    const r: WebhookResult =
      'error' in request
        ? { kind: 'failure', message: request.error, timedOut: false, durationMs: 0 }
        : await this.#client.send({ ...request, timeoutMs: trigger.retry.timeoutSec * 1000 });
    const ok = r.kind === 'response' && r.status >= 200 && r.status < 300;
    const outcome = ok ? 'delivered' : e.tries + 1 > trigger.retry.numRetries ? 'error' : 'retry';
    const retryInMs = ((r.kind === 'response' ? r.retryAfterSec : null) ?? trigger.retry.intervalSec) * 1000;
    if (metrics !== undefined) {
      metrics.asyncInvocation('event_trigger', e.triggerName, ok, r.durationMs / 1000);
      if (outcome === 'retry') metrics.asyncRetry('event_trigger', e.triggerName);
      else metrics.asyncProcessed('event_trigger', e.triggerName, ok, secondsSince(e.createdAt) ?? 0);
    }
    this.#record({
      eventId: e.id,
      triggerName: e.triggerName,
      outcome,
      retryInMs,
      status: r.kind === 'response' ? r.status : null,
      requestJson: 'error' in request ? loggedRequestJson(JSON.stringify(payload), trigger.headers) : request.logged,
      responseJson: JSON.stringify(loggedResponse(transformedResponse(trigger, r, request, e))),
      durationMs: r.durationMs,
    });
    if (outcome === 'retry') {
      const t = setTimeout(() => {
        this.#retryTimers.delete(t);
        this.wake();
      }, retryInMs + 50);
      this.#retryTimers.add(t);
    }
  }

  #record(a: AttemptRecord): void {
    this.#pending.push(a);
    if (this.#flushing === null) this.#flushing = this.#flush();
  }

  /** Writes pending attempts until none are left (one statement per batch). */
  async #flush(): Promise<void> {
    // Let attempts finishing in the same tick join the first batch.
    await new Promise((r) => setImmediate(r));
    try {
      while (this.#pending.length > 0) {
        const batch = this.#pending.splice(0, RECORD_BATCH);
        try {
          await this.#log.record(batch, this.#owner);
        } catch (err) {
          this.#pending.unshift(...batch);
          this.#opts.logger.warn('could not record event deliveries; retrying', { source: this.#name, error: String(err) });
          if (this.#stopped) return;
          await new Promise((r) => setTimeout(r, RECORD_RETRY_MS));
        }
      }
    } finally {
      this.#flushing = null;
    }
  }

  async #renew(): Promise<void> {
    const ids = [...this.#inFlight.keys(), ...this.#pending.map((a) => a.eventId)];
    if (ids.length === 0) return;
    try {
      await this.#log.renew(ids, this.#opts.leaseMs, this.#owner);
    } catch (e) {
      this.#opts.logger.warn('could not renew event leases', { source: this.#name, error: String(e) });
    }
  }

  /** Runs `cleanup_config` of the triggers whose schedule fires in this minute. */
  async cleanup(at: Date): Promise<void> {
    for (const t of this.#triggers.values()) {
      const c = t.cleanup;
      if (c === undefined || c.paused) continue;
      const parsed = parseSchedule(c.schedule);
      if (!parsed.ok || !scheduleMatches(parsed.expression, at)) continue;
      try {
        const n = await cleanupEventLog(this.#log, t.name, c.clearOlderThanHours, c.batchSize, c.cleanInvocationLogs);
        this.#opts.logger.info('event log cleaned', { source: this.#name, trigger: t.name, deleted: n });
      } catch (e) {
        this.#opts.logger.warn('event log cleanup failed', { source: this.#name, trigger: t.name, error: String(e) });
      }
    }
  }

  /** Stops taking; waits (bounded) for deliveries in flight and writes their attempts. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const t of this.#timers) clearInterval(t);
    for (const t of this.#retryTimers) clearTimeout(t);
    if (this.#refillTimer !== null) clearTimeout(this.#refillTimer);
    this.#listening = false;
    const s = this.#stopListening;
    this.#stopListening = null;
    if (s !== null) await s();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.all(this.#inFlight.values()), new Promise((r) => (timer = setTimeout(r, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
    if (this.#flushing !== null) await this.#flushing;
    if (this.#pending.length > 0) await this.#flush();
  }
}

/** Delivery for every source of the catalog in force; follows catalog swaps. */
export class EventDelivery {
  readonly #opts: DeliveryOptions;
  readonly #owner = randomUUID();
  readonly #slots: Slots;
  readonly #client: WebhookClient;
  readonly #workers = new Map<string, SourceWorker>();
  readonly #catalogRef: CatalogRef;
  #unsubscribe: (() => void) | null = null;
  #cleanupTimer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;

  constructor(catalogRef: CatalogRef, opts: DeliveryOptions) {
    this.#catalogRef = catalogRef;
    this.#opts = opts;
    this.#slots = new Slots(opts.poolSize);
    this.#client = new WebhookClient({ poolSize: opts.poolSize });
  }

  /** Starts a worker per source with event triggers, and follows metadata changes. */
  start(): void {
    this.#apply(this.#catalogRef.current);
    this.#unsubscribe = this.#catalogRef.subscribe((c) => this.#apply(c));
    this.#scheduleCleanup();
  }

  #apply(catalog: Catalog): void {
    if (this.#closed) return;
    const seen = new Set<string>();
    for (const s of catalog.sources.values()) {
      const triggers = s.eventTriggers;
      const support = findBackend(s.kind)?.eventTriggers;
      if (triggers === undefined || triggers.size === 0 || support === undefined) continue;
      seen.add(s.name);
      const known = this.#workers.get(s.name);
      if (known !== undefined && known.connection === s.connection) {
        known.update(triggers);
        continue;
      }
      if (known !== undefined) void known.stop();
      const w = new SourceWorker(s.name, s.connection, support.eventLog(s.connection), triggers, {
        owner: this.#owner,
        opts: this.#opts,
        slots: this.#slots,
        client: this.#client,
      });
      this.#workers.set(s.name, w);
      w.start();
    }
    for (const [name, w] of this.#workers) {
      if (seen.has(name)) continue;
      this.#workers.delete(name);
      void w.stop();
    }
  }

  /** Runs cleanups at the start of every minute (UTC). */
  #scheduleCleanup(): void {
    const now = Date.now();
    const next = Math.ceil((now + 1) / 60_000) * 60_000;
    this.#cleanupTimer = setTimeout(() => {
      const at = new Date(next);
      for (const w of this.#workers.values()) void w.cleanup(at);
      if (!this.#closed) this.#scheduleCleanup();
    }, next - now);
    this.#cleanupTimer.unref();
  }

  /** Stops every worker (deliveries in flight finish, bounded) and closes connections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe?.();
    if (this.#cleanupTimer !== null) clearTimeout(this.#cleanupTimer);
    await Promise.all([...this.#workers.values()].map(async (w) => await w.stop()));
    this.#workers.clear();
    this.#client.close();
  }
}
