/**
 * Spans of a request and its steps, exported as OpenTelemetry traces over
 * OTLP/HTTP when ENGINE_GRAPHQL_OTLP_TRACES_ENDPOINT is set.
 *
 * Note [Tracing off costs a null check]
 * The OpenTelemetry SDK is imported (tracing-sdk.ts, dynamically) only when
 * an endpoint is configured. Without one the tracer is null, no span object
 * exists, a request's context carries `trace: null`, and each step of
 * execute/request-steps.ts costs one optional call on a null StepSpans
 * (`steps?.begin('parse')`). The spans are passed explicitly (the request's
 * context, then the StepSpans of one operation), not through
 * AsyncLocalStorage, so nothing runs per request to carry them when tracing
 * is off.
 *
 * The trace of one GraphQL request:
 *
 *   POST /v1/graphql            (SERVER; parent: the client's `traceparent`; http.route)
 *   ├── authenticate            (the auth webhook gets this span's traceparent)
 *   ├── allow                   (the role's rate and batch limits, when it has any)
 *   └── graphql                 (one per operation of a batch; graphql.operation.type/.name)
 *       ├── parse, validate     (plan-cache miss only)
 *       ├── allow
 *       ├── toIr, plan          (plan miss only)
 *       └── bind, run, respond  (run: CLIENT of the database, Note [Database spans])
 *
 * Note [Span names and routes]
 * The request span follows OpenTelemetry's HTTP server conventions: named
 * `{method} {http.route}` once the route is known (the route template, such
 * as `/api/rest/*`, not the path, so REST paths and unknown URLs do not make
 * a name per URL; no route: the method alone), with `http.route` set. A
 * request of the metadata and query APIs adds its operation type to the name,
 * `POST /v1/metadata pg_track_table`, and sets `engine.metadata.operation`:
 * every metadata call posts to the same route, and a trace list that shows
 * only `POST /v1/metadata` says nothing. The type is a user's text, so it is
 * used only once the API accepted it as an operation it has (a bounded set).
 *
 * Note [Database spans]
 * Service graphs (Tempo's, Jaeger's, the collector's servicegraph connector)
 * draw a database as a node when a span of kind CLIENT carries database
 * attributes. The `run` step of an operation whose statements all go to one
 * database is such a span: `db.system.name` (`postgresql`), `db.namespace`
 * (the database), `server.address` and `server.port`, and `db.system` too,
 * the name of `db.system.name` before semantic conventions 1.26, which the
 * service-graph processors of Tempo up to 2.7 and Jaeger read. `db.query.text`
 * is the statements' text, which holds no user value: every value is a bound
 * parameter (the values are never put on a span). A run over several
 * databases, or none (actions, remote schemas), stays INTERNAL with
 * `engine.sources`: one CLIENT span stands for one peer.
 */

/** Attribute values of a span. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

/** What a child span stands for: the engine's own work, or a call it makes to another system (a database). */
export type SpanKind = 'internal' | 'client';

/** A span of the engine's (the SDK's span behind it). */
export interface Span {
  /** A child span, started now (kind: internal unless given). */
  child(name: string, attributes?: SpanAttributes, kind?: SpanKind): Span;
  setAttribute(key: string, value: string | number | boolean): void;
  /** Renames the span (the request span, once its route is known: Note [Span names and routes]). */
  rename(name: string): void;
  /** Ends the span; an error marks it failed and is recorded as an exception event. */
  end(error?: unknown): void;
  /** The W3C `traceparent` naming this span, for an outgoing request. */
  traceparent(): string;
}

/** Starts request spans and exports them. */
export interface Tracer {
  /** The span of one HTTP request; `traceparent`/`tracestate`: the incoming headers (continued when valid). */
  startRequest(name: string, traceparent: string | undefined, tracestate: string | undefined, attributes: SpanAttributes): Span;
  /** Exports what is pending and stops. */
  shutdown(): Promise<void>;
}

/**
 * The named steps of one operation, one span open at a time: `begin` ends
 * the open step and starts the next, `end` ends it, `fail` ends it with the
 * error. Created only when tracing (Note [Tracing off costs a null check]).
 */
export class StepSpans {
  readonly #parent: Span;
  #open: Span | null = null;

  constructor(parent: Span) {
    this.#parent = parent;
  }

  /** The operation's span (its attributes are set as they become known). */
  get parent(): Span {
    return this.#parent;
  }

  /** Ends the open step and starts `step` (with `attributes`: call as `steps?.begin(…)` so they are built only when tracing). */
  begin(step: string, attributes?: SpanAttributes, kind?: SpanKind): void {
    if (this.#open !== null) this.#open.end();
    this.#open = this.#parent.child(step, attributes, kind);
  }

  end(): void {
    if (this.#open !== null) this.#open.end();
    this.#open = null;
  }

  fail(error: unknown): void {
    if (this.#open !== null) this.#open.end(error);
    this.#open = null;
  }
}

/** Loads the SDK and starts exporting to `endpoint` (the full OTLP/HTTP traces URL, e.g. http://collector:4318/v1/traces). */
export async function loadOtlpTracer(endpoint: string, serviceName: string, version: string): Promise<Tracer> {
  const { createOtlpTracer } = await import('./tracing-sdk.ts');
  return createOtlpTracer(endpoint, serviceName, version);
}
