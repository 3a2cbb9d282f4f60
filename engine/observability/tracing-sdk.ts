/**
 * The OpenTelemetry SDK behind tracing.ts, imported only when tracing is
 * configured (Note [Tracing off costs a null check]). Spans go through a
 * batch processor to the OTLP/HTTP exporter (JSON over HTTP). Parents are
 * passed explicitly (no global context manager is installed, nothing is
 * registered globally); the incoming `traceparent`/`tracestate` are read, and
 * outgoing ones written, by the W3C propagator. The SDK's default sampler is
 * kept: parent-based, so a client that sent `sampled=0` gets no spans.
 */
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span as OtelSpan,
  type TextMapGetter,
  type Tracer as OtelTracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { Span, SpanAttributes, SpanKind as EngineSpanKind, Tracer } from './tracing.ts';

const propagator = new W3CTraceContextPropagator();
type Carrier = { readonly traceparent: string | undefined; readonly tracestate: string | undefined };
const getter: TextMapGetter<Carrier> = {
  keys: () => ['traceparent', 'tracestate'],
  get: (c, key) => (key === 'traceparent' ? c.traceparent : key === 'tracestate' ? c.tracestate : undefined),
};

/** How long spans wait in the batch before export: short, a trace is looked at soon after the request. */
const EXPORT_DELAY_MS = 500;
/**
 * Spans kept while an export is under way (the SDK's default is 2,048, then
 * it drops): a plan-cache hit makes 7 spans, and at 1,000 requests/s the
 * default queue dropped 4% of them (`npm run bench -- --capabilities
 * observability`: 6.72 spans received per request).
 */
const MAX_QUEUE = 16_384;

class SdkSpan implements Span {
  readonly #tracer: OtelTracer;
  readonly #span: OtelSpan;
  readonly #ctx: Context;

  constructor(tracer: OtelTracer, span: OtelSpan) {
    this.#tracer = tracer;
    this.#span = span;
    this.#ctx = trace.setSpan(ROOT_CONTEXT, span);
  }

  child(name: string, attributes?: SpanAttributes, kind?: EngineSpanKind): Span {
    const k = kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL;
    const s = this.#tracer.startSpan(name, attributes === undefined ? { kind: k } : { kind: k, attributes }, this.#ctx);
    return new SdkSpan(this.#tracer, s);
  }

  setAttribute(key: string, value: string | number | boolean): void {
    this.#span.setAttribute(key, value);
  }

  rename(name: string): void {
    this.#span.updateName(name);
  }

  end(error?: unknown): void {
    if (error !== undefined) {
      const message = error instanceof Error ? error.message : String(error);
      const code = typeof error === 'object' && error !== null && 'code' in error ? String((error as { code: unknown }).code) : undefined;
      this.#span.setStatus({ code: SpanStatusCode.ERROR, message });
      this.#span.addEvent('exception', code === undefined ? { 'exception.message': message } : { 'exception.message': message, 'exception.type': code });
    }
    this.#span.end();
  }

  traceparent(): string {
    const out: Record<string, string> = {};
    propagator.inject(this.#ctx, out, { set: (c, k, v) => void (c[k] = v) });
    return out['traceparent'] ?? '';
  }
}

/** A tracer exporting to `url` (the OTLP/HTTP traces endpoint). */
export function createOtlpTracer(url: string, serviceName: string, version: string): Tracer {
  const exporter = new OTLPTraceExporter({ url });
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': serviceName, 'service.version': version }),
    spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: EXPORT_DELAY_MS, maxQueueSize: MAX_QUEUE, maxExportBatchSize: 1_024 })],
  });
  const tracer = provider.getTracer('engine', version);
  let stopped = false;
  return {
    startRequest(name, traceparent, tracestate, attributes) {
      const parent = traceparent === undefined ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, { traceparent, tracestate }, getter);
      return new SdkSpan(tracer, tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent));
    },
    async shutdown() {
      if (stopped) return;
      stopped = true;
      await provider.shutdown();
    },
  };
}
