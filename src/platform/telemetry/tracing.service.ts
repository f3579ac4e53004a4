import {
  HttpException,
  Inject,
  Injectable,
  type OnApplicationShutdown,
  type OnModuleInit,
  Optional,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import {
  type Attributes,
  type Context,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  type Tracer,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  context,
  isSpanContextValid,
  isValidSpanId,
  isValidTraceId,
  propagation,
  trace,
} from '@opentelemetry/api';
import {
  BatchSpanProcessor,
  RandomIdGenerator,
  type ReadableSpan,
  type Sampler,
  SamplingDecision,
  type SpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { IncomingHttpHeaders } from 'node:http';
import { PACKAGE } from '../config/package-info.js';
import type { GatewayConfig, OtlpExportConfig, TracesConfig } from '../config/gateway-config.js';
import { ProblemException } from '../http/problem.js';
import { OTLP_EXPORTERS, type OtlpExporters, requireOtlpExporters } from './otlp-loader.js';
import { startProcessTelemetry } from './process-telemetry.js';
import { samplerOf } from './sampler.js';
import { ATTR_ERROR_TYPE } from './semconv.js';
import { SpanRing } from './span-ring.processor.js';
import { telemetryResource } from './telemetry-resource.js';

/** How many finished spans the in-memory exporter keeps. */
export const SPAN_RING_CAPACITY = 2000;

/** Where finished spans go: a ring in this process, an OTLP collector, or nowhere (tracing off). */
export type SpanDestination = 'memory' | 'collector' | 'off';

/** What a span is, before it starts. */
export interface SpanSpec {
  name: string;
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /**
   * A span that is worth keeping on its own: a run's (`invoke_agent`), the root of the trees
   * `/v1/runs/{id}/spans` reads. In memory (no collector), other spans are recorded only below a
   * recording span, since nothing could read them.
   */
  root?: boolean;
}

/** Handed to work while tracing is off: every call on it does nothing. */
const NO_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** `error.type`: low-cardinality (a problem slug, an HTTP status, an error class), never a message. */
export function errorType(error: unknown): string {
  if (error instanceof ProblemException && error.slug) return error.slug;
  if (error instanceof HttpException) return String(error.getStatus());
  if (error instanceof Error) return error.name || 'Error';
  return 'unknown';
}

/** Marks a span failed without quoting the error: messages may carry prompts or tool output. */
export function markFailed(span: Span, type: string): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute(ATTR_ERROR_TYPE, type);
}

/** The trace id of a span, or null for a span that is not part of a trace (tracing off). */
export function traceIdOf(span: Span): string | null {
  const spanContext = span.spanContext();
  return isSpanContextValid(spanContext) ? spanContext.traceId : null;
}

/** A link to a span recorded earlier (e.g. the first execution of a run now resumed). */
export function linkTo(traceId: string | null, spanId: string | undefined): Link[] {
  if (!traceId || !spanId || !isValidTraceId(traceId) || !isValidSpanId(spanId)) return [];
  return [{ context: { traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true } }];
}

/** Spans in batches to the collector, as the OTEL_BSP_* variables say. */
function batchProcessor(
  exporters: OtlpExporters,
  otlp: OtlpExportConfig,
  batch: TracesConfig['batch'],
): SpanProcessor {
  return new BatchSpanProcessor({
    exporter: exporters.otlpSpanExporter(otlp),
    scheduledDelayMillis: batch.scheduledDelayMs,
    exportTimeoutMillis: batch.exportTimeoutMs,
    maxQueueSize: batch.maxQueueSize,
    maxExportBatchSize: batch.maxExportBatchSize,
  });
}

/**
 * This app instance's tracer. Spans go to the OTLP/HTTP collector the standard OTEL_* variables
 * or `--otel-endpoint` configure (batched, protobuf or JSON, sampled by OTEL_TRACES_SAMPLER),
 * else into a ring of the last 2,000 spans in memory. With OTEL_SDK_DISABLED=true there are no
 * spans at all and work runs with a span that records nothing. The provider is never registered globally, so several apps
 * in one process (tests) each have their own; what is process-wide (the context manager and
 * propagators) is set up once by startProcessTelemetry.
 *
 * Attributes never carry prompts, messages, tool arguments or results, or credentials.
 */
@Injectable()
export class Tracing implements OnModuleInit, OnApplicationShutdown {
  readonly enabled: boolean;
  private readonly provider?: TracerProvider;
  private readonly tracer?: Tracer;
  private readonly ring?: SpanRing;
  private readonly sampler?: Sampler;
  private readonly ids = new RandomIdGenerator();
  private readonly processTelemetry?: Promise<void>;

  /** `exporters`: loaded by TelemetryModule when spans or metrics go to a collector. */
  constructor(
    config: ConfigService<GatewayConfig, true>,
    @Optional() @Inject(OTLP_EXPORTERS) exporters?: OtlpExporters | null,
  ) {
    const telemetry = config.get('telemetry', { infer: true });
    this.enabled = telemetry.tracing;
    if (!this.enabled) return;
    this.processTelemetry = startProcessTelemetry();
    const { otlp, batch, sampler } = telemetry.traces;
    let processor: SpanProcessor;
    if (otlp) {
      processor = batchProcessor(requireOtlpExporters(exporters), otlp, batch);
    } else {
      this.ring = new SpanRing(SPAN_RING_CAPACITY);
      processor = this.ring;
    }
    this.sampler = samplerOf(sampler);
    this.provider = new TracerProvider({
      resource: telemetryResource(telemetry),
      sampler: this.sampler,
      spanProcessors: [processor],
    });
    this.tracer = this.provider.getTracer(PACKAGE.name, PACKAGE.version);
  }

  /** The process-wide setup is done (at once, unless OTEL_PROPAGATORS has the SDK loaded). */
  async onModuleInit(): Promise<void> {
    await this.processTelemetry;
  }

  /**
   * Runs `work` in a new span, active for everything it awaits, below `parent` (the active
   * context by default). A throw marks the span failed with its `error.type`; the span ends when
   * `work` settles.
   */
  inSpan<T>(spec: SpanSpec, work: (span: Span) => Promise<T>, parent?: Context): Promise<T> {
    if (!this.tracer) return work(NO_SPAN);
    const base = parent ?? context.active();
    if (this.ring && !spec.root) {
      const parentSpan = trace.getSpan(base);
      if (!parentSpan?.isRecording()) return work(parentSpan ?? NO_SPAN);
    }
    const span = this.tracer.startSpan(
      spec.name,
      { kind: spec.kind ?? SpanKind.INTERNAL, attributes: spec.attributes, links: spec.links },
      base,
    );
    return context.with(trace.setSpan(base, span), async () => {
      try {
        return await work(span);
      } catch (error) {
        markFailed(span, errorType(error));
        throw error;
      } finally {
        span.end();
      }
    });
  }

  /**
   * Like inSpan, but only below a span that is still recording (inside a request or a run), and
   * only for a collector; elsewhere `work` runs untraced. For frequent, cheap operations (state
   * statements) whose spans are useful only as part of something larger: background sweeps
   * make no root spans, and the in-memory ring keeps what a run did (its model, tool and step
   * spans) rather than a span per statement, which filled it four times as fast and kept the
   * garbage collector busy copying them.
   */
  inChildSpan<T>(spec: SpanSpec, work: () => Promise<T>): Promise<T> {
    if (!this.tracer || this.ring || !trace.getActiveSpan()?.isRecording()) return work();
    return this.inSpan(spec, work);
  }

  /**
   * Starts the server span of an HTTP request, continuing the caller's trace when the request
   * carries a W3C `traceparent`. Returns the span and the context to run the request in; the
   * caller ends the span. Undefined while tracing is off.
   *
   * With a collector the span is recorded like any other. In memory it is only the request's
   * place in its trace (ids, sampled as the sampler says, no SDK span): the ring keeps run trees
   * (see SpanSpec.root), and recording a span per request that nothing reads cost about a tenth
   * of a small request's CPU (its allocation and its stay in the ring).
   */
  startServerSpan(
    spec: SpanSpec,
    headers: IncomingHttpHeaders,
  ): { span: Span; context: Context } | undefined {
    if (!this.tracer) return undefined;
    const parent = propagation.extract(ROOT_CONTEXT, headers);
    const span = this.ring
      ? this.placeInTrace(spec, parent)
      : this.tracer.startSpan(
          spec.name,
          { kind: SpanKind.SERVER, attributes: spec.attributes, links: spec.links },
          parent,
        );
    return { span, context: trace.setSpan(parent, span) };
  }

  /** A non-recording span with new ids below the caller's span (or a new trace). */
  private placeInTrace(spec: SpanSpec, parent: Context): Span {
    const remote = trace.getSpanContext(parent);
    const traceId =
      remote && isSpanContextValid(remote) ? remote.traceId : this.ids.generateTraceId();
    const { decision } = this.sampler!.shouldSample(
      parent,
      traceId,
      spec.name,
      SpanKind.SERVER,
      spec.attributes ?? {},
      spec.links ?? [],
    );
    return trace.wrapSpanContext({
      traceId,
      spanId: this.ids.generateSpanId(),
      traceFlags:
        decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE,
    });
  }

  /** The trace id of the active span, or null. */
  activeTraceId(): string | null {
    const span = trace.getActiveSpan();
    return span ? traceIdOf(span) : null;
  }

  /** Where this app's finished spans go. */
  get spanDestination(): SpanDestination {
    if (!this.enabled) return 'off';
    return this.ring ? 'memory' : 'collector';
  }

  /** The last spans kept in memory, oldest first (empty when spans go to a collector). */
  recentSpans(): ReadableSpan[] {
    return this.ring?.recent() ?? [];
  }

  /** Exports every finished span now (tests, and before a process ends). */
  async forceFlush(): Promise<void> {
    await this.provider?.forceFlush();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.provider?.shutdown();
  }
}
