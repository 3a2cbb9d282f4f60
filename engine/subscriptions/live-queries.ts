/**
 * Multiplexed live queries: subscribers of one plan form a cohort, those with
 * equal parameter values a group, and one statement per batch of groups reads
 * every group's result (Note [Multiplexed live queries] in
 * backends/postgres/live-query.ts). A subscriber gets a message only when its
 * result changed.
 *
 * Note [Refetch on change]
 * v2 re-runs every cohort every refetch interval, so idle subscriptions cost
 * database CPU in proportion to their number (its issues 9963, 9994). Here a
 * cohort is refetched only when a table it reads may have changed:
 * - the tables are those of the multiplexed statement's plan (EXPLAIN of an
 *   empty batch: base tables under views, tables of relationships and
 *   `_exists` filters included);
 * - each gets statement-level AFTER INSERT/UPDATE/DELETE/TRUNCATE triggers
 *   that NOTIFY `[schema, table]`, with the changed rows' key values where a
 *   cohort keys that table (Note [Row-level refetch]; delivered at commit),
 *   so writes through the engine and through plain SQL alike are seen; one
 *   LISTEN connection per source feeds `changed`;
 * - a notified cohort refetches at once while it holds a token: a cohort
 *   holds at most two (REFETCH_BURST) and gains one per refetch interval,
 *   each refetch on change takes one. So the interval bounds the delay after
 *   a change and the refetch rate under a write storm (one per interval after
 *   a burst of two), while changes about one interval apart never wait: with
 *   "no sooner than one interval after the previous refetch began", a
 *   refetch that began late (a busy process) pushed the next change's back
 *   by as much, less the gap beyond the interval, and so on down a series of
 *   changes (Note [Paced refetches]). A change that commits while a refetch
 *   runs marks the cohort again (dirty is cleared when a refetch starts, not
 *   when it ends), so none is lost;
 * - the LISTEN connection lost (notifications may be missed): every tracked
 *   cohort is refetched, and again after it reconnects;
 * - a cohort whose reads cannot be known (a function call in its plan or
 *   IR: functions read tables the plan does not show), whose triggers cannot
 *   be installed (privileges, foreign tables), or every cohort when
 *   ENGINE_GRAPHQL_LIVE_QUERIES_REFETCH_ON_CHANGE=false, is polled every
 *   interval as in v2.
 * What it does not see: results that change without a write (now() in a
 * permission filter) are refreshed only by writes; set the setting to false
 * for those. Each watched table pays one pg_notify per writing statement.
 * Measured (`npm run bench -- --capabilities subscriptions`, 10,000
 * subscribers of one by-pk query with 1,000 distinct ids on 1,000 sockets,
 * interval 1 s, batch 100, PostgreSQL on this loaded 2-core machine): idle,
 * 0.2 statements/s, the engine's own floor without subscribers (its metadata
 * version check), against 10.5/s polling; PostgreSQL CPU 0.04% of a core
 * above that floor (within /proc's 10 ms ticks) against 0.33% polling.
 * With CPU read in nanoseconds (schedstat; `flock /work/fullsuite.lock npm
 * run bench -- --capabilities subscriptions`, 30 s windows): idle
 * PostgreSQL CPU with refetch on change 0.186% of a core against the
 * engine-without-subscribers floor of 0.341% (−0.155: no cost above the
 * floor's own noise of a few tenths of a percent; no statement runs),
 * polling 0.788% against 0.242%; engine CPU idle 1.11% on change and 1.89%
 * polling, against 0.08% without subscribers (the idle poller has no timer
 * and runs nothing; the rest is the 1,000 open sockets, presumably their
 * keep-alive pings in server/ws, not profiled). One
 * change per second: change → client p50 25-90 ms, p99 73-167 ms over three
 * runs (a change refetches the whole cohort: 10 statements); polling's
 * latency is phase-locked to its interval (p50 150-850 ms). Setup 1.3-3.1 s,
 * engine RSS 190 MiB.
 * Issue 35, same bench, before (9c1a82f) and after (b0a477d) alternated in
 * two rounds on a machine at load average 11 (`BENCH_PG_STAT_STATEMENTS=1
 * npm run bench -- --capabilities subscriptions --engine-root <worktree>`):
 * - idle: pg_stat_statements shows no live-query statement either way; the
 *   0.4-0.67 statements/s were the engine's own polls (scheduler 3 statements
 *   and metadata version 1 per 10 s, cron times once a minute), now 0.2-0.23
 *   (scheduler 1, metadata 1 per 10 s; the metadata pool no longer reconnects
 *   for each poll). Idle PostgreSQL CPU above the no-subscriber floor, as a
 *   share of polling's: 52.7% / 35.0% before, 36.1% / 30.9% after; all of
 *   that excess is processes that exited within the window (30-40 ms of
 *   10 ms ticks from the postmaster's cutime, present in every on-change idle
 *   window, before and after), which a third run caught by name: PostgreSQL's
 *   autovacuum worker visiting template1, not the engine; without them 3.6%
 *   / 14.4% before, 2.0% / 0.7% after (the third run: 19.1% with it, -1.4%
 *   without);
 * - one change per second (each to a different row of the 1,000):
 *   11.0-11.6 statements/s before (a change refetched all 10 batches),
 *   2.6-2.8 after (one group), PostgreSQL CPU 0.43-0.44% → 0.28-0.29% of a
 *   core; change → client p50 103 / 21 ms before, 9 / 32 ms after, p99
 *   296 / 67 → 32 / 108 ms (the load decides these, not the change).
 * Issue 35, the idle figure made trustworthy (the bench's Note [Idle cost
 * by process]: each window's CPU by process, exited ones included, in
 * groups, and what the window wrote), e4d23ec and this alternated in three
 * rounds (2026-11-28 16:40-17:24 UTC, load average 15-20): the database's
 * backends' idle CPU above the same with no subscribers, as a share of
 * polling's, -2.0 / -1.8 / +1.6% before and -1.8 / -1.5 / -0.2% after
 * (nothing here changes idle work: a tracked cohort runs no statement).
 * Every PostgreSQL process counted, the same windows gave -3.2 / -17.7 /
 * 33.9% and 40.0 / 8.4 / -2.1%: the large ones are autovacuum workers of
 * the bench database in the idle window, set off by catalog rows written
 * just before it (the bench's own CREATE EXTENSION pg_stat_statements, the
 * trigger DDL, then its own VACUUM ANALYZE's pg_statistic rows; the bench
 * now clears them before the windows). The engine's idle statements, 0.2/s
 * with or without subscribers: the scheduler's next-due query and the
 * metadata store's resource_version check, one each per 10 s
 * (backends/postgres/metadata-db/: scheduled-events-storage.ts,
 * metadata-storage.ts); they write nothing, and as they run with
 * no subscribers too they are not in the figure above. Both could wait on
 * a NOTIFY from whoever writes (another engine's metadata change, a new
 * scheduled event) with a slower poll kept as the fallback; not done here.
 */
import type { ChangedRows, MultiplexedStatement, SourceConnection, TableName } from '../backends/backend.ts';
import type { Cancellation } from '../request-context.ts';
import { backendFor } from '../backends/registry.ts';
import type { OperationSink } from '../api/contract.ts';
import type { Session } from '../auth/session.ts';
import { errorDetails, isEngineError, EngineError } from '../errors/engine-error.ts';
import { ErrorCode } from '../errors/codes.ts';
import { graphqlErrorBody } from '../errors/wire-body.ts';
import type { Logger } from '../logger.ts';
import type { Plan, ReadStep } from '../execute/plan.ts';
import { respond } from '../execute/request-steps.ts';
import type { ChangeFeeds } from './change-feeds.ts';
import { STREAM_CURSOR_ALIAS } from '../ir/root.ts';
import { mayRead, tableKey, type KeyColumn, type RowKeys } from './row-keys.ts';

/** Refetches on change a quiet cohort may start back to back (Note [Refetch on change]). */
const REFETCH_BURST = 2;

/** Settings of live queries. */
export interface LiveQueryOptions {
  readonly refetchIntervalMs: number;
  readonly batchSize: number;
  /** Streaming subscriptions' interval and batch size. */
  readonly streamIntervalMs: number;
  readonly streamBatchSize: number;
  /** Note [Refetch on change]; false: poll every interval. */
  readonly refetchOnChange: boolean;
  /** Multiplexed statements one source runs at a time at most; 0: half its pool (Note [Live query limits]). */
  readonly maxConnections: number;
  readonly logger: Logger;
}

/** One subscriber of a live query. */
interface Subscriber {
  readonly session: Session;
  readonly sink: OperationSink;
  /** The last message text sent (null: none yet). */
  lastSent: string | null;
  /** Its group (a stream's subscribers move when groups merge). */
  group: Group;
}

/** Subscribers with equal parameter values: one row of a multiplexed statement. */
interface Group {
  /** Parameter values as JSON (a stream's change as its cursor advances). */
  key: string;
  values: readonly unknown[];
  readonly subscribers: Set<Subscriber>;
  /** The last result's JSON text (null: not fetched yet). */
  last: string | null;
  /** The values of the cohort's row keys (RowKeys.sources), bound as the statement's (Note [Row-level refetch]). */
  readonly keyValues: readonly unknown[];
  /** Their texts per key column, made on first use (null: not comparable). */
  keyTexts: Map<KeyColumn, string | null> | null;
}

/** What a live query stands on: its plan's one read step. */
export interface LivePlan {
  readonly plan: Plan;
  readonly step: ReadStep;
  /** Requests with the same key run the same plan (GraphqlService.planSocketOperation). */
  readonly shareKey: string;
  /** Whether the plan's IR calls functions (whose reads no plan shows). */
  readonly opaque: boolean;
  /** A streaming subscription (Note [Streams]); null: a live query. */
  readonly stream: StreamPlan | null;
  /** The role's `time_limit` in ms (null: the source's statement timeout); Note [Live query limits]. */
  readonly timeoutMs: number | null;
  /** Which rows of which tables each group reads (Note [Row-level refetch]); null: any change refetches every group. */
  readonly keys: RowKeys | null;
}

/** Where a stream's cursor is in its statement and result. */
export interface StreamPlan {
  /** The root field's response key. */
  readonly alias: string;
  /** The index of the cursor's parameter in the statement's values. */
  readonly cursorIndex: number;
  /** How a cursor value read from a row is bound. */
  readonly encoding: 'plain' | 'json';
}

/*
 * Note [Paced refetches]
 * How a tracked cohort paces its refetches on change (Note [Refetch on change]):
 * a token bucket, REFETCH_BURST = 2 tokens, one more per refetch interval.
 * The rule before, "no sooner than one interval after the previous refetch
 * began", chained delays: with changes one interval and a few ms apart (the
 * subscriptions bench's one change per second), a refetch that began 100 ms
 * late (a busy process) made the next change wait about 100 ms less the few
 * ms beyond the interval, and the next, and so on. With a token in hand after
 * every change that comes at least an interval after the one before, no
 * change waits for an earlier one's lateness; a storm still gets one refetch
 * per interval after two at once. Measured with `BENCH_PG_STAT_STATEMENTS=1
 * npm run bench -- --capabilities subscriptions [--engine-root <worktree of
 * e4d23ec>]` (10,000 subscribers, 15 changes one second apart, the bench's
 * "change→first client ms, per change in order"), 2026-11-28 16:40-17:24
 * UTC at load average 15-20, three rounds, before and after alternated:
 * - before: 119 96 89 122 83 16 3 26 30 58 32 34 29 16 6 / 9 88 50 199 264
 *   242 257 254 179 198 186 166 76 53 231 / 130 17 28 15 24 17 43 34 21 41
 *   35 48 136 103 45 (the slowly falling runs are the chain); p50 of every
 *   delivery 33 / 187 / 35 ms, p99 122 / 264 / 136;
 * - after: 79 39 93 15 8 225 9 9 5 5 50 8 48 9 40 / 27 13 12 13 5 11 8 16 5
 *   13 20 6 10 6 9 / 51 5 3 6 5 5 3 7 10 5 7 5 39 12 5 (a late one is
 *   followed by a prompt one); p50 22 / 11 / 6 ms, p99 225 / 27 / 51.
 * The delays that remain are the machine's load.
 */

/*
 * Note [Row-level refetch]
 * A cohort holds groups of different variables and session values, and
 * before this a write to any row of a table it read refetched every group.
 * Now, where the IR tells which rows a group reads, only the groups that may
 * read a changed row are refetched (row-keys.ts, and the backend's half,
 * Note [Change reports with rows] in backends/postgres/live-query.ts):
 * - a table is keyed for a cohort when every read of it in the IR is a root
 *   field (select, by_pk, aggregate) whose filter, permission and `where`
 *   conjoined, has top-level `column = value` conjuncts (a variable, a session
 *   variable or a literal); a relationship, an `_exists`, a root field
 *   without an equality, a stream or a function reading it leaves the table
 *   unkeyed (every group refetched on its changes, as before);
 * - the change triggers of a keyed table report the distinct values of the
 *   key columns over the statement's old and new rows (an UPDATE moving a row
 *   between groups refetches both), bounded (past 100 rows or 7,900 bytes
 *   the report is the table alone: every group);
 * - a group is marked when some keyed read has a changed row whose every key
 *   column equals the group's value, compared as text in the backend's
 *   canonical form (keyText: integers, text, uuid, bool; a value or column it
 *   cannot compare matches every row, so a doubt refetches);
 * - the cohort refetches its marked groups (one statement per batch of them)
 *   no sooner than one interval after its previous refetch began, as before;
 *   a lost listener, a timeout or an unkeyed change marks every group.
 * A statement that changed no row reports nothing. Measured in
 * `npm run bench -- --capabilities subscriptions` (see its README row): a
 * change to one row refetches one group of the 1,000 instead of all ten
 * batches.
 */

/*
 * Note [Streams]
 * A `<t>_stream` subscription is a cohort like a live query's, whose groups'
 * parameter values include their cursor: each fetch reads up to batch_size
 * rows past it (to-ir/stream.ts), the group's subscribers get those rows (an
 * empty batch sends nothing), and the cursor moves to the last row's value,
 * so the group's key changes (groups whose cursors meet merge: their futures
 * are the same). A fetch that returned rows is followed by another at once
 * (rows may be waiting beyond the batch); otherwise the cohort waits for a
 * change of its tables or the streaming interval, as a live query does
 * (Note [Refetch on change]). Rows committed out of cursor order (a
 * transaction holding a smaller serial value commits after a larger one was
 * read) are behind the cursor and not delivered, as in v2.
 */

/*
 * Note [Live query limits]
 * A multiplexed fetch is a statement of the subscribers' role and is bounded
 * like that role's HTTP requests, and it holds a pooled connection only while
 * someone waits for it:
 * - the source's statement timeout (ENGINE_GRAPHQL_STATEMENT_TIMEOUT, a
 *   startup parameter of every pooled connection) cuts it, and so does the
 *   role's `time_limit` (set for the fetch inside a transaction, as for
 *   requests: Note [Statement timeout] in backends/postgres/connection.ts).
 *   The cohort key holds the role, so one cohort has one limit;
 * - a timed-out fetch reaches each of its subscribers as a `next` message
 *   carrying the error (code `timeout`), as v2 pushes a poll's failure to
 *   every subscriber of the cohort, and the subscription goes on: the cohort
 *   is fetched again one interval after the failure ended (`notBefore`), so
 *   a statement that always times out holds a connection at most
 *   timeout/(timeout + interval) of the time, never back to back. A batch
 *   that timed out is not retried group by group (that is for one group's
 *   bad value, and would multiply the timeouts by the batch size). A result
 *   after the failure is delivered even when equal to the one before it;
 * - a batch whose groups all lost their subscribers (`complete`, a closed
 *   socket, the cohort dropped) is cancelled with the protocol's cancel
 *   request, as a request whose client left (Note [Cancel on disconnect]);
 *   one still waiting for a connection is dropped from the queue;
 * - the fetches of one source run at most `maxConnections` at a time
 *   (ENGINE_GRAPHQL_LIVE_QUERIES_MAX_CONNECTIONS; default half of the
 *   source's pool, at least 1), the others queue in order. So however many
 *   slow cohorts there are, the rest of the pool stays for queries,
 *   mutations and the engine's own statements (issue 29: one socket's 55
 *   slow subscriptions held every connection, and plain queries failed).
 */

/** A fetch's cancellation: fired when nobody waits for its batch any more. */
class FetchCancel implements Cancellation {
  cancelled = false;
  #hook: (() => void) | null = null;

  watch(hook: () => void): void {
    if (this.cancelled) hook();
    else this.#hook = hook;
  }

  unwatch(): void {
    this.#hook = null;
  }

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    const hook = this.#hook;
    this.#hook = null;
    if (hook !== null) hook();
  }
}

/** At most `limit` multiplexed statements of one source at a time, the others queued in order (Note [Live query limits]). */
class Slots {
  readonly limit: number;
  #active = 0;
  readonly #queue: { resolve: (held: boolean) => void; cancel: FetchCancel }[] = [];

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Resolves true once a slot is held; false when `cancel` fired first. */
  async acquire(cancel: FetchCancel): Promise<boolean> {
    if (cancel.cancelled) return false;
    if (this.#active < this.limit) {
      this.#active++;
      return true;
    }
    return await new Promise<boolean>((resolve) => {
      const waiter = { resolve, cancel };
      this.#queue.push(waiter);
      cancel.watch(() => {
        const i = this.#queue.indexOf(waiter);
        if (i !== -1) this.#queue.splice(i, 1);
        resolve(false);
      });
    });
  }

  /** Gives the slot to the next waiter, or frees it. */
  release(): void {
    for (;;) {
      const next = this.#queue.shift();
      if (next === undefined) break;
      next.cancel.unwatch();
      if (next.cancel.cancelled) continue;
      next.resolve(true);
      return;
    }
    this.#active--;
  }
}

/** A batch being fetched, with what cancels it. */
interface InFlight {
  readonly groups: readonly Group[];
  readonly cancel: FetchCancel;
}

/** A cohort: subscribers of one plan. */
class Cohort {
  readonly key: string;
  readonly live: LivePlan;
  readonly groups = new Map<string, Group>();
  /** Groups not fetched yet. */
  readonly fresh = new Set<Group>();
  /** The multiplexed statement and change tracking, made once. */
  ready: Promise<MultiplexedStatement> | null = null;
  /** Refetched on change (Note [Refetch on change]); false: polled. */
  tracked = false;
  tables: readonly TableName[] = [];
  /** Every group is to be refetched (a change the row keys cannot place, a lost listener, a timeout). */
  dirtyAll = false;
  /** Groups to refetch (Note [Row-level refetch]). */
  readonly dirtyGroups = new Set<Group>();
  /** Start of the previous full fetch (a polled cohort's next is one interval after it). */
  lastRun = 0;
  /** Refetches on change it may start at once, as of `tokensAt` (Note [Refetch on change]). */
  tokens = REFETCH_BURST;
  tokensAt = 0;
  timer: NodeJS.Timeout | null = null;
  timerAt = 0;
  running = false;
  freshQueued = false;
  closed = false;
  /** A stream fetch returned rows: fetch again at once (Note [Streams]). */
  more = false;
  /** After a timeout: no full fetch before this time (Note [Live query limits]). */
  notBefore = 0;
  /** Batches being fetched. */
  readonly inflight = new Set<InFlight>();

  constructor(key: string, live: LivePlan) {
    this.key = key;
    this.live = live;
  }
}

/** Every live query of the process. */
export class LiveQueries {
  readonly #opts: LiveQueryOptions;
  readonly #feeds: ChangeFeeds;
  readonly #cohorts = new Map<string, Cohort>();
  /** Connection slots per source (Note [Live query limits]). */
  readonly #slots = new WeakMap<SourceConnection, Slots>();
  /** Statements run (bench and tests). */
  statements = 0;
  /** Groups fetched again after their first fetch (bench and tests; Note [Row-level refetch]). */
  refetches = 0;

  constructor(opts: LiveQueryOptions, feeds: ChangeFeeds) {
    this.#opts = opts;
    this.#feeds = feeds;
  }

  /** Cohorts and groups (tests, bench). */
  get stats(): { readonly cohorts: number; readonly groups: number; readonly tracked: number } {
    let groups = 0;
    let tracked = 0;
    for (const c of this.#cohorts.values()) {
      groups += c.groups.size;
      if (c.tracked) tracked++;
    }
    return { cohorts: this.#cohorts.size, groups, tracked };
  }

  #interval(cohort: Cohort): number {
    return cohort.live.stream === null ? this.#opts.refetchIntervalMs : this.#opts.streamIntervalMs;
  }

  /**
   * Adds a subscriber with its bound parameter values (`keyValues`: those of `live.keys.sources`);
   * returns its stop function.
   */
  subscribe(live: LivePlan, values: readonly unknown[], keyValues: readonly unknown[], session: Session, sink: OperationSink): () => void {
    let cohort = this.#cohorts.get(live.shareKey);
    if (cohort === undefined) {
      cohort = new Cohort(live.shareKey, live);
      this.#cohorts.set(live.shareKey, cohort);
      this.#prepare(cohort);
    }
    // The key values come from the same variables and session as the statement's: part of the key all the same.
    const key = keyValues.length === 0 ? JSON.stringify(values) : JSON.stringify([values, keyValues]);
    let group = cohort.groups.get(key);
    if (group === undefined) {
      group = { key, values, subscribers: new Set(), last: null, keyValues, keyTexts: null };
      cohort.groups.set(key, group);
      cohort.fresh.add(group);
      this.#queueFresh(cohort);
    }
    const sub: Subscriber = { session, sink, lastSent: null, group };
    group.subscribers.add(sub);
    if (group.last !== null) this.#send(cohort, sub, group.last);
    const c = cohort;
    return () => this.#remove(c, sub);
  }

  /** Stops every cohort (engine shutdown). */
  close(): void {
    for (const c of this.#cohorts.values()) this.#drop(c);
  }

  #remove(cohort: Cohort, sub: Subscriber): void {
    const group = sub.group;
    if (!group.subscribers.delete(sub) || group.subscribers.size > 0) return;
    if (cohort.groups.get(group.key) === group) cohort.groups.delete(group.key);
    cohort.fresh.delete(group);
    cohort.dirtyGroups.delete(group);
    if (cohort.groups.size === 0 && this.#cohorts.get(cohort.key) === cohort) {
      this.#drop(cohort);
      return;
    }
    // A batch nobody waits for any more is cancelled (Note [Live query limits]).
    for (const f of cohort.inflight) if (f.groups.every((g) => g.subscribers.size === 0)) f.cancel.cancel();
  }

  #drop(cohort: Cohort): void {
    cohort.closed = true;
    for (const f of cohort.inflight) f.cancel.cancel();
    if (cohort.timer !== null) clearTimeout(cohort.timer);
    cohort.timer = null;
    this.#cohorts.delete(cohort.key);
    if (cohort.tracked) this.#feeds.unwatch(cohort.live.step.connection, cohort.tables, cohort);
  }

  /** Makes the multiplexed statement, then tracks the tables it reads (or leaves the cohort polled). */
  #prepare(cohort: Cohort): void {
    const { step, opaque } = cohort.live;
    const conn: SourceConnection = step.connection;
    const support = backendFor(conn.kind).liveQueries;
    cohort.ready = (async () => {
      if (support === undefined) throw new EngineError(ErrorCode.NotSupported, `live queries are not supported on ${conn.kind} sources`, { path: '$' });
      const stmt = await support.multiplex(conn, step.sql);
      if (this.#opts.refetchOnChange && !opaque && stmt.tables !== null && !cohort.closed) {
        const keys = cohort.live.keys;
        try {
          await this.#feeds.watch(
            conn,
            stmt.tables.map((table) => ({ table, columns: keys?.columns.get(tableKey(table)) ?? [] })),
            cohort,
            (table, rows) => this.#changed(cohort, table, rows),
            () => this.#lost(cohort),
          );
          cohort.tables = stmt.tables;
          cohort.tracked = true;
          // Dropped while the triggers were being installed.
          if (cohort.closed) this.#feeds.unwatch(conn, stmt.tables, cohort);
        } catch (e) {
          this.#opts.logger.warn('live query polled: its tables cannot be watched', { error: errorDetails(e) });
        }
      }
      return stmt;
    })();
    // A failure reaches the subscribers through the first fetch.
    cohort.ready.catch(() => {});
  }

  /** A write to `table` committed (Note [Row-level refetch]): the groups that may read its rows are refetched. */
  #changed(cohort: Cohort, table: TableName, rows: ChangedRows | null): void {
    if (cohort.dirtyAll) return;
    const reads = rows === null ? undefined : cohort.live.keys?.tables.get(tableKey(table));
    const support = backendFor(cohort.live.step.connection.kind).liveQueries;
    const keyText = support?.keyText;
    if (reads === undefined || rows === null || keyText === undefined || cohort.live.stream !== null) {
      cohort.dirtyAll = true;
      this.#scheduleFull(cohort);
      return;
    }
    let any = false;
    for (const g of cohort.groups.values()) {
      if (cohort.dirtyGroups.has(g)) continue;
      const texts = (g.keyTexts ??= new Map());
      const text = (c: KeyColumn): string | null => {
        let t = texts.get(c);
        if (t === undefined) {
          t = keyText.call(support, c.dbType, g.keyValues[c.param]);
          texts.set(c, t);
        }
        return t;
      };
      if (!mayRead(reads, text, rows)) continue;
      cohort.dirtyGroups.add(g);
      any = true;
    }
    if (any) this.#scheduleFull(cohort);
  }

  #lost(cohort: Cohort): void {
    cohort.dirtyAll = true;
    this.#scheduleFull(cohort);
  }

  /** Whether the cohort has anything to refetch. */
  #dirty(cohort: Cohort): boolean {
    return cohort.dirtyAll || cohort.dirtyGroups.size > 0;
  }

  /** Refetches on change `cohort` may start at `now`: one more per interval since `tokensAt`, at most REFETCH_BURST. */
  #tokens(cohort: Cohort, now: number): number {
    return Math.min(REFETCH_BURST, cohort.tokens + (now - cohort.tokensAt) / this.#interval(cohort));
  }

  /** A full refetch as soon as the cohort's pace allows (Note [Refetch on change]); a polled one an interval after the last. */
  #scheduleFull(cohort: Cohort): void {
    if (cohort.closed) return;
    const now = Date.now();
    const interval = this.#interval(cohort);
    const tokens = this.#tokens(cohort, now);
    const paced = cohort.tracked ? (tokens >= 1 ? now : now + Math.ceil((1 - tokens) * interval)) : Math.max(now, cohort.lastRun + interval);
    const at = Math.max(paced, cohort.notBefore);
    if (cohort.timer !== null) {
      if (cohort.timerAt <= at) return;
      clearTimeout(cohort.timer);
    }
    cohort.timerAt = at;
    cohort.timer = setTimeout(() => {
      cohort.timer = null;
      void this.#runFull(cohort);
    }, at - Date.now());
  }

  /** New groups are fetched at once, together (a burst of subscribes is one statement per batch). */
  #queueFresh(cohort: Cohort): void {
    if (cohort.freshQueued) return;
    cohort.freshQueued = true;
    setImmediate(() => {
      cohort.freshQueued = false;
      void this.#runFresh(cohort);
    });
  }

  async #runFresh(cohort: Cohort): Promise<void> {
    if (cohort.closed || cohort.fresh.size === 0) return;
    const groups = [...cohort.fresh];
    cohort.fresh.clear();
    await this.#fetch(cohort, groups, true);
    if (cohort.more && !cohort.running) {
      this.#scheduleNow(cohort);
      return;
    }
    // A polled cohort starts its interval after its first fetch; one that timed out tries again.
    if ((!cohort.tracked || this.#dirty(cohort)) && cohort.timer === null && !cohort.running) {
      if (cohort.lastRun === 0) cohort.lastRun = Date.now();
      this.#scheduleFull(cohort);
    }
  }

  async #runFull(cohort: Cohort): Promise<void> {
    if (cohort.closed) return;
    // Its dirty marks stay: the run's end schedules the next.
    if (cohort.running) return;
    if (Date.now() < cohort.notBefore) {
      // A timer set before a timeout (Note [Live query limits]).
      cohort.dirtyAll = true;
      this.#scheduleFull(cohort);
      return;
    }
    cohort.running = true;
    // Polled cohorts, streams and changes the row keys cannot place read every group; others the groups marked.
    const all = !cohort.tracked || cohort.dirtyAll || cohort.more;
    const marked = cohort.dirtyGroups;
    const groups = [...(all ? cohort.groups.values() : marked)].filter((g) => !cohort.fresh.has(g) && cohort.groups.get(g.key) === g);
    cohort.dirtyAll = false;
    cohort.dirtyGroups.clear();
    cohort.more = false;
    const now = Date.now();
    cohort.lastRun = now;
    cohort.tokens = Math.max(0, this.#tokens(cohort, now) - 1);
    cohort.tokensAt = now;
    try {
      this.refetches += groups.length;
      await this.#fetch(cohort, groups, false);
    } finally {
      cohort.running = false;
    }
    if (cohort.more) this.#scheduleNow(cohort);
    else if (!cohort.tracked || this.#dirty(cohort)) this.#scheduleFull(cohort);
  }

  /** A full fetch at once (a stream with rows waiting). */
  #scheduleNow(cohort: Cohort): void {
    if (cohort.closed) return;
    if (cohort.timer !== null) clearTimeout(cohort.timer);
    cohort.timerAt = Date.now();
    cohort.timer = setTimeout(() => {
      cohort.timer = null;
      void this.#runFull(cohort);
    }, 0);
  }

  /** Fetches `groups` in batches and delivers what changed. `first`: their first fetch (a failure ends them). */
  async #fetch(cohort: Cohort, groups: readonly Group[], first: boolean): Promise<void> {
    if (groups.length === 0) return;
    let stmt: MultiplexedStatement;
    try {
      stmt = await (cohort.ready as Promise<MultiplexedStatement>);
    } catch (e) {
      const err = this.#engineError(cohort, e, null, []);
      for (const g of groups) this.#fail(cohort, g, err, true);
      return;
    }
    const size = Math.max(1, cohort.live.stream === null ? this.#opts.batchSize : this.#opts.streamBatchSize);
    const batches: Group[][] = [];
    for (let i = 0; i < groups.length; i += size) batches.push(groups.slice(i, i + size));
    await Promise.all(batches.map((b) => this.#fetchBatch(cohort, stmt, b, first)));
  }

  /** Connection slots of a source: the setting, or half its pool (Note [Live query limits]). */
  #slotsOf(conn: SourceConnection): Slots {
    let slots = this.#slots.get(conn);
    if (slots === undefined) {
      const pool = conn.maxConnections;
      const setting = this.#opts.maxConnections;
      const limit = setting > 0 ? Math.min(setting, pool ?? setting) : pool === undefined ? Infinity : Math.max(1, Math.floor(pool / 2));
      slots = new Slots(limit);
      this.#slots.set(conn, slots);
    }
    return slots;
  }

  async #fetchBatch(cohort: Cohort, stmt: MultiplexedStatement, batch: readonly Group[], first: boolean): Promise<void> {
    const cancel = new FetchCancel();
    const flight: InFlight = { groups: batch, cancel };
    cohort.inflight.add(flight);
    const slots = this.#slotsOf(cohort.live.step.connection);
    let held = false;
    let results: (string | null)[] | null = null;
    let failure: { e: unknown } | null = null;
    try {
      held = await slots.acquire(cancel);
      if (held) {
        this.statements++;
        results = await stmt.run(
          batch.map((g) => g.values),
          { cancel, timeoutMs: cohort.live.timeoutMs },
        );
      }
    } catch (e) {
      failure = { e };
    } finally {
      // Released before any retry below, which takes a slot of its own.
      if (held) slots.release();
      cohort.inflight.delete(flight);
    }
    // Its subscribers left: the cancel's error is nobody's.
    if (cancel.cancelled || cohort.closed) return;
    if (failure !== null) {
      const err = this.#engineError(cohort, failure.e, stmt, batch.length === 1 ? (batch[0] as Group).values : []);
      if (err.code === ErrorCode.Timeout) {
        // Note [Live query limits]: reported, kept, fetched again an interval from now.
        cohort.notBefore = Date.now() + this.#interval(cohort);
        cohort.dirtyAll = true;
        for (const g of batch) this.#fail(cohort, g, err, false);
        return;
      }
      if (batch.length > 1) {
        // One group's values may fail the whole statement (a value its type refuses): run each alone.
        await Promise.all(batch.map((g) => this.#fetchBatch(cohort, stmt, [g], first)));
        return;
      }
      const g = batch[0];
      if (g !== undefined) this.#fail(cohort, g, err, first);
      return;
    }
    const rows = results;
    if (rows === null) return;
    const stream = cohort.live.stream;
    batch.forEach((g, i) => {
      if (cohort.closed || cohort.groups.get(g.key) !== g) return;
      if (stream !== null) {
        this.#advance(cohort, stream, g, rows[i] ?? null);
        return;
      }
      const text = rows[i] ?? 'null';
      if (text === g.last) return;
      g.last = text;
      for (const sub of g.subscribers) this.#send(cohort, sub, text);
    });
  }

  /** Delivers a stream group's batch and moves its cursor (Note [Streams]). */
  #advance(cohort: Cohort, stream: StreamPlan, g: Group, text: string | null): void {
    if (text === null) return;
    const data = JSON.parse(text) as Record<string, unknown>;
    const rows = data[stream.alias];
    if (!Array.isArray(rows) || rows.length === 0) return;
    const last = (rows[rows.length - 1] as Record<string, unknown>)[STREAM_CURSOR_ALIAS];
    for (const r of rows as Record<string, unknown>[]) delete r[STREAM_CURSOR_ALIAS];
    const message = JSON.stringify({ data });
    for (const sub of g.subscribers) {
      sub.lastSent = message;
      sub.sink.next(message);
    }
    const values = [...g.values];
    values[stream.cursorIndex] = stream.encoding === 'json' ? JSON.stringify(last) : last;
    cohort.groups.delete(g.key);
    g.values = values;
    g.key = JSON.stringify(values);
    const same = cohort.groups.get(g.key);
    if (same !== undefined) {
      for (const sub of g.subscribers) {
        same.subscribers.add(sub);
        sub.group = same;
      }
      g.subscribers.clear();
    } else {
      cohort.groups.set(g.key, g);
    }
    // Rows may be waiting beyond this batch.
    cohort.more = true;
  }

  #send(cohort: Cohort, sub: Subscriber, resultText: string): void {
    const message = respond(cohort.live.plan, [resultText]);
    if (message === sub.lastSent) return;
    sub.lastSent = message;
    sub.sink.next(message);
  }

  /** A failure of `stmt` (null: of its preparation) as the EngineError subscribers see. */
  #engineError(cohort: Cohort, e: unknown, stmt: MultiplexedStatement | null, values: readonly unknown[]): EngineError {
    const conn = cohort.live.step.connection;
    const err = isEngineError(e) ? e : backendFor(conn.kind).toEngineError(e, { text: stmt?.text ?? cohort.live.step.sql.text, values });
    if (err.code === ErrorCode.Unexpected) this.#opts.logger.error('live query failed', { error: errorDetails(err) });
    return err;
  }

  /** A group whose statement failed: on a first fetch its subscribers are refused and it ends; later, an error message (once per change). */
  #fail(cohort: Cohort, g: Group, err: EngineError, first: boolean): void {
    if (cohort.groups.get(g.key) !== g) return;
    // The next result is news even when equal to the last one before the error.
    g.last = null;
    for (const sub of [...g.subscribers]) {
      const body = graphqlErrorBody(err, sub.session.isAdmin);
      if (first) {
        sub.sink.error(body['errors'] as unknown[]);
        continue;
      }
      const text = JSON.stringify(body);
      if (text !== sub.lastSent) {
        sub.lastSent = text;
        sub.sink.next(text);
      }
    }
    if (first) {
      g.last = null;
      g.subscribers.clear();
      cohort.groups.delete(g.key);
      if (cohort.groups.size === 0 && this.#cohorts.get(cohort.key) === cohort) this.#drop(cohort);
    }
  }
}
