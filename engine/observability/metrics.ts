/**
 * The engine's Prometheus metrics (prom-client, one Registry per engine so
 * that several engines in one process, as in the tests, keep their own
 * counts), served at `GET /v1/metrics` (server/routes/metrics.ts). Names are
 * v2 EE's with the product word replaced (`engine_graphql_requests_total`
 * for `hasura_graphql_requests_total`), plus the engine's own (plan cache,
 * HTTP requests by API).
 *
 * Note [Cheap request metrics]
 * The request counters and histograms are bumped on every request, the fast
 * path included. prom-client's labelled children hash their labels on every
 * `inc`/`observe` (0.39 µs for one HTTP request's counter and histogram, 0.45
 * µs for a GraphQL operation's, `node test/bench/observability-cost.ts`), so
 * the per-request series are plain numbers here (Series, StatusCounts: an
 * array index or a Map lookup on the status number, then additions) that
 * prom-client's registry reads as metrics only when scraped.
 * Plan-cache hits and misses are plain integers of the plan cache, and the
 * resource version, plan-cache size and HTTP connections are read when
 * Prometheus scrapes (`collect`), so those cost nothing per request at all.
 * prom-client's default Node metrics (collectDefaultMetrics: event-loop lag
 * and GC observers) are off unless ENGINE_GRAPHQL_METRICS_NODE_DEFAULTS asks
 * for them: the old attempt at this issue measured 159 vs 105 µs of engine
 * CPU per AlbumByPK request with them on (compare-engines, sf1).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type Metric } from 'prom-client';

/** A GraphQL operation's type, or `unknown` when it failed before the type was known (v2's labels). */
export type OperationType = 'query' | 'mutation' | 'subscription' | 'unknown';

/** The API family of an HTTP request (a bounded label). */
export type ApiLabel = 'graphql' | 'explain' | 'metadata' | 'query' | 'rest' | 'health' | 'metrics' | 'console' | 'other';

/**
 * Gauges that the WebSocket server and the subscription engine move: call
 * each `…Opened`/`…Started` once and its `…Closed`/`…Stopped` once.
 */
export interface LiveMetrics {
  websocketOpened(): void;
  websocketClosed(): void;
  subscriptionStarted(): void;
  subscriptionStopped(): void;
}

/** What GraphQL execution reports (execute/graphql-service.ts, server/graphql-answer.ts). */
export interface GraphqlMetrics {
  /** One GraphQL operation answered; `seconds` from the request's arrival (authentication included, as v2). */
  graphqlOperation(type: OperationType, ok: boolean, seconds: number): void;
}

/**
 * Note [Async metrics]
 * ~~~~~~~~~~~~~~~~~~~~
 * Event triggers, cron and one-off scheduled events and asynchronous actions
 * report each webhook call (its time and whether it answered 2xx), each
 * retry, and each event done (delivered, or failed for good, with the time
 * from its creation or scheduled time). Names are v2 EE's with `engine_`:
 * `engine_event_invocations_total`, `engine_event_processed_total`,
 * `engine_event_webhook_processing_time_seconds`,
 * `engine_event_queue_time_seconds`, `engine_event_processing_time_seconds`,
 * `engine_event_trigger_http_workers`, `engine_events_fetched_per_batch`,
 * `engine_cron_events_invocation_total`, `engine_oneoff_events_invocation_total`
 * (and their `_processed_total`); the engine adds the retries, the scheduled
 * events' and actions' webhook times and in-flight gauges. Event calls are
 * not on the GraphQL fast path (a webhook call costs far more than prom-client's
 * labelled `inc`), so these are plain prom-client metrics. Labels are
 * bounded by the metadata: trigger or action name, and `status`
 * (`success`/`failed`).
 */
export type AsyncKind = 'event_trigger' | 'cron' | 'one_off' | 'async_action';

/** What the asynchronous parts report (events/, events/scheduled/, actions/). */
export interface AsyncMetrics {
  /** One webhook call made for `name` (trigger or action); `ok`: answered 2xx (an action: a valid output). */
  asyncInvocation(kind: AsyncKind, name: string, ok: boolean, seconds: number): void;
  /** A failed call that will be tried again. */
  asyncRetry(kind: AsyncKind, name: string): void;
  /** An event taken for its first attempt, `seconds` after it was created (or was due). */
  asyncQueued(kind: AsyncKind, name: string, seconds: number): void;
  /** An event done: delivered (`ok`) or failed for good, `seconds` after it was created (or was due). */
  asyncProcessed(kind: AsyncKind, name: string, ok: boolean, seconds: number): void;
  /** Calls in flight now, moved by +1/-1. */
  asyncInFlight(kind: AsyncKind, delta: number): void;
  /** Event triggers: how many events one take fetched (a full batch means a backlog). */
  eventsFetched(n: number): void;
}

/** What is read when Prometheus scrapes. */
export interface ScrapeSources {
  /** Plan-cache lookups so far, and what it holds. */
  planCache(): { readonly hits: number; readonly misses: number; readonly entries: number; readonly bytes: number };
  /** resource_version of the metadata in force. */
  resourceVersion(): number;
  /** Inconsistent objects of the metadata in force. */
  inconsistentObjects(): number;
  /** Open HTTP connections. */
  httpConnections(): Promise<number>;
  /** Each source's connection pool. */
  pools(): ReadonlyArray<{ readonly source: string; readonly total: number; readonly idle: number; readonly waiting: number }>;
}

/** The API family of a request path. */
export function apiOf(url: string | undefined): ApiLabel {
  if (url === undefined) return 'other';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  switch (path) {
    case '/v1/graphql':
    case '/v1alpha1/graphql':
    case '/v1beta1/relay':
      return 'graphql';
    case '/v1/graphql/explain':
      return 'explain';
    case '/v1/metadata':
      return 'metadata';
    case '/v1/query':
    case '/v2/query':
      return 'query';
    case '/healthz':
    case '/readyz':
    case '/v1/version':
      return 'health';
    case '/v1/metrics':
      return 'metrics';
    default:
      if (path.startsWith('/api/rest/')) return 'rest';
      if (path.startsWith('/console')) return 'console';
      return 'other';
  }
}

const TYPES: readonly OperationType[] = ['query', 'mutation', 'subscription', 'unknown'];
const APIS: readonly ApiLabel[] = ['graphql', 'explain', 'metadata', 'query', 'rest', 'health', 'metrics', 'console', 'other'];
/** v2's buckets for the GraphQL execution time. */
const GRAPHQL_BUCKETS = [0.01, 0.03, 0.1, 0.3, 1, 3, 10];
/** Finer at the low end: a plan-cache hit answers in about a millisecond. */
const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Labels = Readonly<Record<string, string>>;
/** One exported sample, in the shape prom-client's registry writes. */
interface Sample {
  readonly value: number;
  readonly labels: Record<string, string | number>;
  readonly metricName?: string;
}

/** One labelled series of a histogram: plain counts, cumulated when scraped. */
class Series {
  readonly labels: Labels;
  readonly #bounds: readonly number[];
  /** Observations per bucket (not cumulative); the last slot is above every bound. */
  readonly #counts: number[];
  #sum = 0;
  #count = 0;

  constructor(labels: Labels, bounds: readonly number[]) {
    this.labels = labels;
    this.#bounds = bounds;
    this.#counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(v: number): void {
    const b = this.#bounds;
    let i = 0;
    while (i < b.length && v > (b[i] as number)) i++;
    (this.#counts[i] as number)++;
    this.#sum += v;
    this.#count++;
  }

  samples(name: string): Sample[] {
    const out: Sample[] = [];
    let acc = 0;
    for (let i = 0; i < this.#bounds.length; i++) {
      acc += this.#counts[i] as number;
      out.push({ metricName: `${name}_bucket`, labels: { le: this.#bounds[i] as number, ...this.labels }, value: acc });
    }
    out.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', ...this.labels }, value: this.#count });
    out.push({ metricName: `${name}_sum`, labels: { ...this.labels }, value: this.#sum });
    out.push({ metricName: `${name}_count`, labels: { ...this.labels }, value: this.#count });
    return out;
  }
}

/** A histogram whose series are made once (Note [Cheap request metrics]); registered as a prom-client metric. */
class FixedHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #series: Series[] = [];
  readonly #bounds: readonly number[];

  constructor(name: string, help: string, bounds: readonly number[]) {
    this.name = name;
    this.help = help;
    this.#bounds = bounds;
  }

  series(labels: Labels): Series {
    const s = new Series(labels, this.#bounds);
    this.#series.push(s);
    return s;
  }

  get(): { name: string; help: string; type: string; aggregator: string; values: Sample[] } {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: this.#series.flatMap((s) => s.samples(this.name)) };
  }
}

/** A counter of (labels, HTTP status) whose counts are plain numbers (Note [Cheap request metrics]). */
class StatusCounter {
  readonly name: string;
  readonly help: string;
  readonly type = 'counter';
  readonly aggregator = 'sum';
  readonly #counts: Array<{ readonly labels: Labels; readonly byStatus: Map<number, { n: number }> }> = [];

  constructor(name: string, help: string) {
    this.name = name;
    this.help = help;
  }

  /** The counts of one label set, by status. */
  series(labels: Labels): Map<number, { n: number }> {
    const byStatus = new Map<number, { n: number }>();
    this.#counts.push({ labels, byStatus });
    return byStatus;
  }

  get(): { name: string; help: string; type: string; aggregator: string; values: Sample[] } {
    const values: Sample[] = [];
    for (const { labels, byStatus } of this.#counts) for (const [status, c] of byStatus) values.push({ labels: { ...labels, status }, value: c.n });
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

function register(registry: Registry, metric: FixedHistogram | StatusCounter): void {
  registry.registerMetric(metric as unknown as Metric);
}

/** Counts by status for one API, and its duration series. */
interface ApiSeries {
  readonly duration: Series;
  readonly byStatus: Map<number, { n: number }>;
}

/** Options of {@link EngineMetrics}. */
export interface MetricsOptions {
  /** prom-client's default Node metrics (process CPU, memory, event loop, GC), prefixed `engine_`. */
  readonly nodeDefaults?: boolean;
}

/** The engine's metrics. */
export class EngineMetrics implements LiveMetrics, GraphqlMetrics, AsyncMetrics {
  readonly registry = new Registry();
  #sources: ScrapeSources | null = null;
  /** [type index * 2 + (ok ? 0 : 1)] → engine_graphql_requests_total's count. */
  readonly #graphqlCount: number[] = new Array<number>(TYPES.length * 2).fill(0);
  /** [type index] → engine_graphql_execution_time_seconds's series. */
  readonly #graphqlTime: Series[] = [];
  /** API → its duration series and counts by status. */
  readonly #http = new Map<ApiLabel, ApiSeries>();
  readonly #websockets: Gauge;
  readonly #subscriptions: Gauge;
  readonly #async: AsyncSeries;

  constructor(opts: MetricsOptions = {}) {
    const registers = [this.registry];
    if (opts.nodeDefaults === true) collectDefaultMetrics({ register: this.registry, prefix: 'engine_' });
    const counts = this.#graphqlCount;
    new Counter({
      name: 'engine_graphql_requests_total',
      help: 'GraphQL requests answered (excluding subscriptions), by operation type (unknown: failed before it was known) and response status',
      labelNames: ['operation_type', 'response_status'],
      registers,
      collect() {
        this.reset();
        TYPES.forEach((t, i) => {
          this.labels(t, 'success').inc(counts[i * 2] as number);
          this.labels(t, 'failed').inc(counts[i * 2 + 1] as number);
        });
      },
    });
    const time = new FixedHistogram(
      'engine_graphql_execution_time_seconds',
      'Wall-clock time of successful GraphQL requests from arrival to answer (authentication, parsing, validation, planning, execution)',
      GRAPHQL_BUCKETS,
    );
    for (const t of TYPES) this.#graphqlTime.push(time.series({ operation_type: t }));
    register(this.registry, time);
    const requests = new StatusCounter(
      'engine_http_requests_total',
      'HTTP requests answered, by API (graphql, explain, metadata, query, rest, health, metrics, console, other) and HTTP status',
    );
    const duration = new FixedHistogram('engine_http_request_duration_seconds', 'Time from the request to its response written, by API', HTTP_BUCKETS);
    for (const api of APIS) this.#http.set(api, { duration: duration.series({ api }), byStatus: requests.series({ api }) });
    register(this.registry, requests);
    register(this.registry, duration);
    this.#websockets = new Gauge({ name: 'engine_websocket_connections', help: 'Open WebSocket connections', registers });
    this.#subscriptions = new Gauge({ name: 'engine_active_subscriptions', help: 'Active GraphQL subscriptions', registers });

    this.#async = asyncSeries(registers);

    const sources = (): ScrapeSources | null => this.#sources;
    new Gauge({
      name: 'engine_http_connections',
      help: 'Open HTTP connections (WebSocket connections included until they are upgraded)',
      registers,
      async collect() {
        const s = sources();
        if (s !== null) this.set(await s.httpConnections());
      },
    });
    new Counter({
      name: 'engine_plan_cache_lookups_total',
      help: 'GraphQL requests that found their operation in the plan cache (hit) or had to parse, validate and plan it (miss); hit ratio: rate of hit over rate of both',
      labelNames: ['result'],
      registers,
      collect() {
        const s = sources();
        if (s === null) return;
        const { hits, misses } = s.planCache();
        this.reset();
        this.labels('hit').inc(hits);
        this.labels('miss').inc(misses);
      },
    });
    new Gauge({
      name: 'engine_plan_cache_entries',
      help: 'Operations held by the plan cache',
      registers,
      collect() {
        const s = sources();
        if (s !== null) this.set(s.planCache().entries);
      },
    });
    new Gauge({
      name: 'engine_plan_cache_bytes',
      help: 'Estimated bytes held by the plan cache (bounded by ENGINE_GRAPHQL_PLAN_CACHE_SIZE_MB)',
      registers,
      collect() {
        const s = sources();
        if (s !== null) this.set(s.planCache().bytes);
      },
    });
    new Gauge({
      name: 'engine_postgres_connections',
      help: "Connections of each source's pool: total open, idle, and waiting (requests queued for a connection)",
      labelNames: ['source_name', 'state'],
      registers,
      collect() {
        const s = sources();
        if (s === null) return;
        this.reset();
        for (const p of s.pools()) {
          this.labels(p.source, 'total').set(p.total);
          this.labels(p.source, 'idle').set(p.idle);
          this.labels(p.source, 'waiting').set(p.waiting);
        }
      },
    });
    new Gauge({
      name: 'engine_schema_cache_metadata_resource_version',
      help: 'resource_version of the metadata in force',
      registers,
      collect() {
        const s = sources();
        if (s !== null) this.set(s.resourceVersion());
      },
    });
    new Gauge({
      name: 'engine_metadata_inconsistent_objects',
      help: 'Inconsistent objects in the metadata in force (0: consistent)',
      registers,
      collect() {
        const s = sources();
        if (s !== null) this.set(s.inconsistentObjects());
      },
    });
  }

  /** Connects the scrape-time readings (once the services exist). */
  setSources(sources: ScrapeSources): void {
    this.#sources = sources;
  }

  graphqlOperation(type: OperationType, ok: boolean, seconds: number): void {
    const i = TYPES.indexOf(type);
    (this.#graphqlCount[i * 2 + (ok ? 0 : 1)] as number)++;
    if (ok) (this.#graphqlTime[i] as Series).observe(seconds);
  }

  /** One HTTP request answered (Note [Cheap request metrics]). */
  httpRequest(url: string | undefined, status: number, seconds: number): void {
    const api = apiOf(url);
    const c = this.#http.get(api) as ApiSeries;
    c.duration.observe(seconds);
    const counter = c.byStatus.get(status);
    if (counter === undefined) c.byStatus.set(status, { n: 1 });
    else counter.n++;
  }

  websocketOpened(): void {
    this.#websockets.inc();
  }

  websocketClosed(): void {
    this.#websockets.dec();
  }

  subscriptionStarted(): void {
    this.#subscriptions.inc();
  }

  subscriptionStopped(): void {
    this.#subscriptions.dec();
  }

  asyncInvocation(kind: AsyncKind, name: string, ok: boolean, seconds: number): void {
    const a = this.#async;
    const status = ok ? 'success' : 'failed';
    if (kind === 'event_trigger') {
      a.eventInvocations.labels(name, status).inc();
      a.eventWebhookTime.labels(name).observe(seconds);
    } else if (kind === 'async_action') {
      a.actionInvocations.labels(name, status).inc();
      a.actionWebhookTime.labels(name).observe(seconds);
    } else {
      (kind === 'cron' ? a.cronInvocations : a.oneoffInvocations).labels(status).inc();
      a.scheduledWebhookTime.labels(kind).observe(seconds);
    }
  }

  asyncRetry(kind: AsyncKind, name: string): void {
    if (kind === 'event_trigger') this.#async.eventRetries.labels(name).inc();
    else if (kind === 'cron' || kind === 'one_off') this.#async.scheduledRetries.labels(kind).inc();
  }

  asyncQueued(kind: AsyncKind, name: string, seconds: number): void {
    if (kind === 'event_trigger') this.#async.eventQueueTime.labels(name).observe(seconds);
    else if (kind === 'cron' || kind === 'one_off') this.#async.scheduledQueueTime.labels(kind).observe(seconds);
  }

  asyncProcessed(kind: AsyncKind, name: string, ok: boolean, seconds: number): void {
    const a = this.#async;
    const status = ok ? 'success' : 'failed';
    if (kind === 'event_trigger') {
      a.eventProcessed.labels(name, status).inc();
      a.eventProcessingTime.labels(name).observe(seconds);
    } else if (kind === 'cron' || kind === 'one_off') {
      (kind === 'cron' ? a.cronProcessed : a.oneoffProcessed).labels(status).inc();
    }
  }

  asyncInFlight(kind: AsyncKind, delta: number): void {
    if (kind === 'event_trigger') this.#async.eventWorkers.inc(delta);
    else if (kind === 'async_action') this.#async.actionsInFlight.inc(delta);
    else this.#async.scheduledInFlight.inc(delta);
  }

  eventsFetched(n: number): void {
    this.#async.eventsFetched.set(n);
  }

  /** The text exposition format. */
  async text(): Promise<string> {
    return this.registry.metrics();
  }

  /** Its content type. */
  get contentType(): string {
    return this.registry.contentType;
  }
}

/** Buckets for webhook calls and event waits: from a local answer to a call near its timeout. */
const ASYNC_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/** The metrics of the asynchronous parts (Note [Async metrics]). */
interface AsyncSeries {
  readonly eventInvocations: Counter<'trigger_name' | 'status'>;
  readonly eventProcessed: Counter<'trigger_name' | 'status'>;
  readonly eventRetries: Counter<'trigger_name'>;
  readonly eventWebhookTime: Histogram<'trigger_name'>;
  readonly eventQueueTime: Histogram<'trigger_name'>;
  readonly eventProcessingTime: Histogram<'trigger_name'>;
  readonly eventWorkers: Gauge;
  readonly eventsFetched: Gauge;
  readonly cronInvocations: Counter<'status'>;
  readonly oneoffInvocations: Counter<'status'>;
  readonly cronProcessed: Counter<'status'>;
  readonly oneoffProcessed: Counter<'status'>;
  readonly scheduledRetries: Counter<'type'>;
  readonly scheduledWebhookTime: Histogram<'type'>;
  readonly scheduledQueueTime: Histogram<'type'>;
  readonly scheduledInFlight: Gauge;
  readonly actionInvocations: Counter<'action_name' | 'status'>;
  readonly actionWebhookTime: Histogram<'action_name'>;
  readonly actionsInFlight: Gauge;
}

function asyncSeries(registers: Registry[]): AsyncSeries {
  const counter = <L extends string>(name: string, help: string, labelNames: L[]): Counter<L> => new Counter({ name, help, labelNames, registers });
  const histogram = <L extends string>(name: string, help: string, labelNames: L[]): Histogram<L> =>
    new Histogram({ name, help, labelNames, buckets: ASYNC_BUCKETS, registers });
  const gauge = (name: string, help: string): Gauge => new Gauge({ name, help, registers });
  return {
    eventInvocations: counter('engine_event_invocations_total', 'Event trigger webhook calls, by trigger and status (success: a 2xx answer)', [
      'trigger_name',
      'status',
    ]),
    eventProcessed: counter('engine_event_processed_total', 'Event trigger events done, by trigger and status (success: delivered; failed: out of retries)', [
      'trigger_name',
      'status',
    ]),
    eventRetries: counter('engine_event_retries_total', 'Event trigger calls that failed and will be tried again, by trigger', ['trigger_name']),
    eventWebhookTime: histogram('engine_event_webhook_processing_time_seconds', 'Time of one event trigger webhook call, by trigger', ['trigger_name']),
    eventQueueTime: histogram('engine_event_queue_time_seconds', "Time from an event's capture to its first attempt, by trigger", ['trigger_name']),
    eventProcessingTime: histogram(
      'engine_event_processing_time_seconds',
      "Time from an event's capture to its being done (delivered or out of retries), by trigger",
      ['trigger_name'],
    ),
    eventWorkers: gauge('engine_event_trigger_http_workers', 'Event trigger webhook calls in flight (bounded by ENGINE_GRAPHQL_EVENTS_HTTP_POOL_SIZE)'),
    eventsFetched: gauge('engine_events_fetched_per_batch', 'Events the last take fetched (a full batch means a backlog)'),
    cronInvocations: counter('engine_cron_events_invocation_total', 'Cron event webhook calls, by status', ['status']),
    oneoffInvocations: counter('engine_oneoff_events_invocation_total', 'One-off scheduled event webhook calls, by status', ['status']),
    cronProcessed: counter('engine_cron_events_processed_total', 'Cron events done (success: delivered; failed: out of retries)', ['status']),
    oneoffProcessed: counter('engine_oneoff_events_processed_total', 'One-off scheduled events done (success: delivered; failed: out of retries)', ['status']),
    scheduledRetries: counter('engine_scheduled_event_retries_total', 'Scheduled event calls that failed and will be tried again, by type (cron, one_off)', [
      'type',
    ]),
    scheduledWebhookTime: histogram('engine_scheduled_event_webhook_processing_time_seconds', 'Time of one scheduled event webhook call, by type', ['type']),
    scheduledQueueTime: histogram('engine_scheduled_event_queue_time_seconds', "Time from a scheduled event's due time to its first attempt, by type", [
      'type',
    ]),
    scheduledInFlight: gauge('engine_scheduled_events_in_flight', 'Scheduled event webhook calls in flight'),
    actionInvocations: counter(
      'engine_async_action_invocations_total',
      'Asynchronous action handler calls, by action and status (success: a valid output stored)',
      ['action_name', 'status'],
    ),
    actionWebhookTime: histogram('engine_async_action_webhook_processing_time_seconds', 'Time of one asynchronous action handler call, by action', [
      'action_name',
    ]),
    actionsInFlight: gauge('engine_async_actions_in_flight', 'Asynchronous action handler calls in flight'),
  };
}
