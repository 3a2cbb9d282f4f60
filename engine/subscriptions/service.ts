/**
 * GraphQL operations over a WebSocket (the SocketApi of api/contract.ts):
 * every operation goes through the request steps (Note [Request steps]) via
 * GraphqlService.planSocketOperation; a query or mutation then runs bind,
 * run and respond once, a subscription joins a live-query cohort
 * (live-queries.ts). When the catalog changes, running subscriptions are
 * planned again on the new one (permissions and columns may have changed);
 * one that no longer validates is ended with its errors.
 */
import type { OperationHandle, OperationSink, SocketApi } from '../api/contract.ts';
import type { Session } from '../auth/session.ts';
import { ErrorCode } from '../errors/codes.ts';
import { EngineError, errorDetails, isEngineError } from '../errors/engine-error.ts';
import { graphqlErrorBody } from '../errors/wire-body.ts';
import type { Logger } from '../logger.ts';
import type { LiveMetrics } from '../observability/metrics.ts';
import type { RequestContext } from '../request-context.ts';
import { bindStatement } from '../execute/bind-statement.ts';
import type { GraphqlService, SocketOperationPlan } from '../execute/graphql-service.ts';
import { bind, respond, run } from '../execute/request-steps.ts';
import { isActionResultPlan, subscribeActionResult } from './action-results.ts';
import { remoteSubscriptionKey, remoteSubscriptionStep, subscribeRemoteStep } from './remote-subscriptions.ts';
import { ChangeFeeds } from './change-feeds.ts';
import { LiveQueries, type LivePlan, type StreamPlan } from './live-queries.ts';
import { rowKeys, type RowKeys } from './row-keys.ts';
import type * as ir from '../ir/index.ts';
import { STREAM_CURSOR_VARIABLE } from '../ir/root.ts';

/** True when `f` is or holds a streaming field. */
function hasStream(f: ir.OperationField): boolean {
  return (f.kind === 'select' && f.stream !== undefined) || (f.kind === 'namespace' && f.fields.some(hasStream));
}

/** Settings of the socket service. */
export interface SocketServiceOptions {
  readonly logger: Logger;
  readonly liveRefetchIntervalMs: number;
  readonly liveBatchSize: number;
  readonly streamRefetchIntervalMs: number;
  readonly streamBatchSize: number;
  readonly refetchOnChange: boolean;
  /** Multiplexed statements per source at a time; 0: half its pool (Note [Live query limits]). */
  readonly liveMaxConnections?: number;
  /** The subscriptions gauge (observability/metrics.ts). */
  readonly metrics?: LiveMetrics;
}

function asEngineError(e: unknown): EngineError {
  return isEngineError(e) ? e : new EngineError(ErrorCode.Unexpected, 'unexpected error', { internal: String(e), cause: e });
}

const NOOP: OperationHandle = { stop: () => {} };

/** A running subscription, kept to plan it again when the catalog changes. */
interface LiveOperation {
  readonly session: Session;
  readonly payload: unknown;
  readonly sink: DedupSink;
  stop: () => void;
  version: number;
  /** A remote subscription's upstream key (remote-subscriptions.ts), else null. */
  remoteKey: string | null;
}

/** A sink that drops a message equal to the one before (a subscription planned again sends its result again). */
class DedupSink implements OperationSink {
  readonly #inner: OperationSink;
  #last: string | null = null;
  ended = false;
  constructor(inner: OperationSink) {
    this.#inner = inner;
  }
  next(text: string): void {
    if (this.ended || text === this.#last) return;
    this.#last = text;
    this.#inner.next(text);
  }
  /** Sends `text` even when equal to the message before (an event of a remote subscription is not a state). */
  event(text: string): void {
    if (this.ended) return;
    this.#last = null;
    this.#inner.next(text);
  }
  error(errors: readonly unknown[]): void {
    if (this.ended) return;
    this.ended = true;
    this.#inner.error(errors);
  }
  complete(): void {
    if (this.ended) return;
    this.ended = true;
    this.#inner.complete();
  }
}

/** True when the IR calls a function (functions read tables no plan shows: Note [Refetch on change]). */
function callsFunctions(plan: SocketOperationPlan['plan']): boolean {
  const text = JSON.stringify(plan.fields);
  return text.includes('"function":') || text.includes('"kind":"computed-');
}

/** Row keys per plan (plans are cached and shared: one walk of the IR each). */
const planKeys = new WeakMap<SocketOperationPlan['plan'], RowKeys | null>();

function rowKeysOf(plan: SocketOperationPlan['plan']): RowKeys | null {
  let keys = planKeys.get(plan);
  if (keys === undefined) {
    keys = rowKeys(plan.fields);
    planKeys.set(plan, keys);
  }
  return keys;
}

/** Queries, mutations and subscriptions of WebSocket clients. */
export class SocketService implements SocketApi {
  readonly #graphql: GraphqlService;
  readonly #logger: Logger;
  readonly #feeds = new ChangeFeeds();
  readonly live: LiveQueries;
  readonly #running = new Set<LiveOperation>();
  readonly #unsubscribe: () => void;
  readonly #metrics: LiveMetrics | undefined;

  constructor(graphql: GraphqlService, opts: SocketServiceOptions) {
    this.#graphql = graphql;
    this.#logger = opts.logger;
    this.#metrics = opts.metrics;
    this.live = new LiveQueries(
      {
        refetchIntervalMs: opts.liveRefetchIntervalMs,
        batchSize: opts.liveBatchSize,
        streamIntervalMs: opts.streamRefetchIntervalMs,
        streamBatchSize: opts.streamBatchSize,
        refetchOnChange: opts.refetchOnChange,
        maxConnections: opts.liveMaxConnections ?? 0,
        logger: opts.logger,
      },
      this.#feeds,
    );
    this.#unsubscribe = graphql.onCatalogChange((version) => setImmediate(() => this.#replan(version)));
  }

  /** Change notifications received (tests, bench). */
  get notifications(): number {
    return this.#feeds.notifications;
  }

  start(session: Session, payload: unknown, sink: OperationSink, ctx?: RequestContext): Promise<OperationHandle> {
    return Promise.resolve(this.#start(session, payload, sink, ctx));
  }

  #start(session: Session, payload: unknown, sink: OperationSink, ctx: RequestContext | undefined): OperationHandle {
    let planned: SocketOperationPlan;
    try {
      planned = this.#graphql.planSocketOperation(session, payload, ctx);
    } catch (e) {
      sink.error(this.#errors(e, session));
      return NOOP;
    }
    if (planned.kind !== 'subscription') return this.#once(session, planned, sink, ctx);
    const op: LiveOperation = { session, payload, sink: new DedupSink(sink), stop: () => {}, version: planned.catalogVersion, remoteKey: null };
    try {
      op.stop = this.#subscribe(op, planned);
    } catch (e) {
      sink.error(this.#errors(e, session));
      return NOOP;
    }
    this.#running.add(op);
    this.#metrics?.subscriptionStarted();
    return {
      stop: () => {
        op.sink.ended = true;
        this.#end(op);
        op.stop();
      },
    };
  }

  /** A query or mutation: bind, run, respond once, then complete. */
  #once(session: Session, planned: SocketOperationPlan, sink: OperationSink, ctx: RequestContext | undefined): OperationHandle {
    let stopped = false;
    const answer = async (): Promise<string> => {
      try {
        const text = respond(planned.plan, await run(bind(planned.plan, planned.variables, session), planned.runOptions, planned.services));
        planned.remember();
        return text;
      } catch (e) {
        return JSON.stringify(graphqlErrorBody(this.#logged(e), session.isAdmin));
      }
    };
    void answer().then((text) => {
      if (stopped) return;
      sink.next(text);
      sink.complete();
    });
    return {
      stop: () => {
        stopped = true;
        ctx?.cancel();
      },
    };
  }

  /** Joins the subscription's cohort; throws EngineError for what cannot be a live query. */
  #subscribe(op: LiveOperation, planned: SocketOperationPlan): () => void {
    const { session, sink } = op;
    const remote = remoteSubscriptionStep(planned.plan);
    op.remoteKey = remote === null ? null : remoteSubscriptionKey(remote, planned.variables, session);
    if (remote !== null) {
      // Note [Remote subscriptions]: served by the remote over graphql-ws, its events sent as they come.
      const events: OperationSink = { next: (t) => sink.event(t), error: (e) => sink.error(e), complete: () => sink.complete() };
      return subscribeRemoteStep(
        { step: remote, variables: planned.variables, session, services: planned.services, sink: events, remember: planned.remember },
        (e) => this.#errors(e, session),
      );
    }
    if (isActionResultPlan(planned.plan)) {
      // Note [Action result subscriptions]: read again when the action's result is stored.
      return subscribeActionResult(
        {
          plan: planned.plan,
          variables: planned.variables,
          session,
          runOptions: planned.runOptions,
          services: planned.services,
          sink,
          remember: planned.remember,
        },
        (e) => this.#errors(e, session),
      );
    }
    const step = planned.plan.steps.length === 1 ? planned.plan.steps[0] : undefined;
    if (step === undefined || step.kind !== 'read') {
      throw new EngineError(ErrorCode.NotSupported, 'this subscription cannot be served as a live query', { path: '$' });
    }
    // A live query pushes the statement's JSON as it is: joins (remote and cross-source relationships) would not run.
    if (step.joins !== undefined && step.joins.length > 0) {
      throw new EngineError(ErrorCode.NotSupported, 'Remote relationships are not allowed in subscriptions', { path: '$' });
    }
    const field = planned.plan.fields.length === 1 ? planned.plan.fields[0] : undefined;
    const cursor = field !== undefined && field.kind === 'select' ? field.stream : undefined;
    let stream: StreamPlan | null = null;
    let values: unknown[];
    if (cursor === undefined) {
      if (planned.plan.fields.some(hasStream))
        throw new EngineError(ErrorCode.NotSupported, 'a streaming field must be the only root field of its subscription, outside namespaces', { path: '$' });
      values = bindStatement(step.sql, planned.variables, session).values as unknown[];
    } else {
      // Note [Streams]: the cursor is a parameter bound per group, starting at initial_value.
      const cursorIndex = step.sql.params.findIndex((p) => p.kind === 'variable' && p.name === STREAM_CURSOR_VARIABLE);
      const param = step.sql.params[cursorIndex];
      if (param === undefined) throw new EngineError(ErrorCode.Unexpected, 'a streaming statement without its cursor parameter', { path: '$' });
      const start = bindStatement({ text: '', params: [cursor.initial], paramTypes: [null] }, planned.variables, session).values[0];
      values = bindStatement(step.sql, { ...planned.variables, [STREAM_CURSOR_VARIABLE]: 0 }, session).values as unknown[];
      values[cursorIndex] = start;
      stream = {
        alias: (field as ir.RootField).alias,
        cursorIndex,
        encoding: param !== undefined && param.kind === 'variable' && param.encoding === 'json' ? 'json' : 'plain',
      };
    }
    const keys = stream === null ? rowKeysOf(planned.plan) : null;
    const live: LivePlan = {
      plan: planned.plan,
      step,
      shareKey: planned.shareKey,
      opaque: callsFunctions(planned.plan),
      stream,
      // The role's time_limit (Note [Live query limits]); the share key holds the role, so its cohort has one.
      timeoutMs: planned.runOptions?.timeoutMs ?? null,
      keys,
    };
    const keyValues =
      keys === null
        ? []
        : (bindStatement({ text: '', params: keys.sources, paramTypes: keys.sources.map(() => null) }, planned.variables, session).values as unknown[]);
    const stop = this.live.subscribe(live, values, keyValues, session, sink);
    planned.remember();
    return stop;
  }

  /** Plans every running subscription again on catalog `version`. */
  #replan(version: number): void {
    for (const op of [...this.#running]) {
      if (op.version >= version || op.sink.ended) continue;
      op.version = version;
      if (op.remoteKey !== null && this.#sameRemote(op)) continue;
      op.stop();
      try {
        const planned = this.#graphql.planSocketOperation(op.session, op.payload);
        if (planned.kind !== 'subscription') throw new EngineError(ErrorCode.ValidationFailed, 'the operation is no longer a subscription', { path: '$' });
        op.stop = this.#subscribe(op, planned);
      } catch (e) {
        this.#end(op);
        op.stop = () => {};
        op.sink.error(this.#errors(e, op.session));
      }
    }
  }

  /** True when a remote subscription planned again asks the same of the same remote (its upstream then goes on, events not lost). */
  #sameRemote(op: LiveOperation): boolean {
    try {
      const planned = this.#graphql.planSocketOperation(op.session, op.payload);
      const step = planned.kind === 'subscription' ? remoteSubscriptionStep(planned.plan) : null;
      return step !== null && remoteSubscriptionKey(step, planned.variables, op.session) === op.remoteKey;
    } catch {
      return false;
    }
  }

  /** A subscription is over (counted once). */
  #end(op: LiveOperation): void {
    if (this.#running.delete(op)) this.#metrics?.subscriptionStopped();
  }

  #logged(e: unknown): EngineError {
    const err = asEngineError(e);
    if (err.code === ErrorCode.Unexpected) this.#logger.error('websocket operation failed', { error: errorDetails(err) });
    return err;
  }

  #errors(e: unknown, session: Session): unknown[] {
    return graphqlErrorBody(this.#logged(e), session.isAdmin)['errors'] as unknown[];
  }

  /** Stops every subscription and change listener. */
  async close(): Promise<void> {
    this.#unsubscribe();
    for (const op of [...this.#running]) {
      this.#end(op);
      op.stop();
    }
    this.live.close();
    await this.#feeds.close();
  }
}
