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
 *   POST /v1/graphql            (SERVER; parent: the client's `traceparent`)
 *   ├── authenticate            (the auth webhook gets this span's traceparent)
 *   ├── allow                   (the role's rate and batch limits, when it has any)
 *   └── graphql                 (one per operation of a batch; graphql.operation.type/.name)
 *       ├── parse, validate     (plan-cache miss only)
 *       ├── allow
 *       ├── toIr, plan          (plan miss only)
 *       └── bind, run, respond
 */

/** Attribute values of a span. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean>>;

/** A span of the engine's (the SDK's span behind it). */
export interface Span {
  /** A child span, started now. */
  child(name: string, attributes?: SpanAttributes): Span;
  setAttribute(key: string, value: string | number | boolean): void;
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
  begin(step: string, attributes?: SpanAttributes): void {
    if (this.#open !== null) this.#open.end();
    this.#open = this.#parent.child(step, attributes);
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
