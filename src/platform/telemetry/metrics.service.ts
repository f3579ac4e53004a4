import { Inject, Injectable, type OnApplicationShutdown, Optional } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Attributes, Counter, Histogram, Meter, ObservableCallback } from '@opentelemetry/api';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import {
  type IMetricReader,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { PACKAGE } from '../config/package-info.js';
import type { GatewayConfig, MetricsExportConfig } from '../config/gateway-config.js';
import { BoundedLabel } from './bounded-label.js';
import { OTLP_EXPORTERS, type OtlpExporters, requireOtlpExporters } from './otlp-loader.js';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_TOKEN_TYPE,
  GEN_AI_OPERATION_CHAT,
  GEN_AI_TOKEN_TYPE_INPUT,
  GEN_AI_TOKEN_TYPE_OUTPUT,
  METRIC_GEN_AI_CLIENT_TOKEN_USAGE,
} from './semconv.js';
import { TalliedCounter } from './tallied-counter.js';
import { telemetryResource } from './telemetry-resource.js';

/** The Prometheus text format version `/metrics` answers in. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Distinct agent or toolset names reported per label before the rest become `other`. */
export const NAME_LABEL_LIMIT = 100;

/** Seconds; from a fast HTTP answer to a long agent run. */
const FAST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const RUN_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/** Tokens per model call: the bucket boundaries the GenAI semantic conventions advise. */
const TOKEN_BUCKETS = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];

const HTTP_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** One value of a gauge, with its labels (keep them few and bounded). */
export interface GaugeReading {
  value: number;
  attributes?: Attributes;
}

/** What a gauge callback answers: one value, or one per label set. */
export type GaugeRead = () => number | GaugeReading[] | Promise<number | GaugeReading[]>;

/** OTLP metrics (OTEL_METRICS_EXPORTER lists otlp): pushed every OTEL_METRIC_EXPORT_INTERVAL. */
function otlpReaders(
  metrics: MetricsExportConfig,
  exporters: OtlpExporters | null | undefined,
): IMetricReader[] {
  if (!metrics.otlp) return [];
  return [
    new PeriodicExportingMetricReader({
      exporter: requireOtlpExporters(exporters).otlpMetricExporter(metrics.otlp),
      exportIntervalMillis: metrics.intervalMs,
      exportTimeoutMillis: metrics.timeoutMs,
    }),
  ];
}

/**
 * This app instance's metrics, on the OpenTelemetry metrics SDK, read by a Prometheus
 * exporter that never opens a port of its own: `GET /metrics` serializes a collection (served
 * while OTEL_METRICS_EXPORTER lists prometheus, the default); when it lists otlp they are also
 * pushed to the collector. Labels are bounded: no run, session or tenant ids; agent and toolset
 * names (chosen by tenants) stop at NAME_LABEL_LIMIT distinct values each.
 *
 * Other modules report through the record* methods, or register a gauge read at scrape time
 * with observeGauge (e.g. the outbox's depth).
 */
@Injectable()
export class Metrics implements OnApplicationShutdown {
  private readonly reader = new PrometheusExporter({ preventServerStart: true });
  private readonly serializer = new PrometheusSerializer('', false, undefined, false, true);
  private readonly provider: MeterProvider;
  private readonly meter: Meter;
  private readonly agents = new BoundedLabel(NAME_LABEL_LIMIT);
  private readonly toolsets = new BoundedLabel(NAME_LABEL_LIMIT);
  private readonly models = new BoundedLabel(NAME_LABEL_LIMIT);

  private readonly runs: TalliedCounter;
  private readonly runDuration: Histogram;
  /** Runs executing in this process now: svc_running_runs, read when metrics are collected. */
  private running = 0;
  private readonly modelCallDuration: Histogram;
  private readonly tokenUsage: Histogram;
  private readonly toolCalls: TalliedCounter;
  private readonly toolCallDuration: Histogram;
  private readonly httpDuration: Histogram;
  private readonly leaseTakeovers: Counter;

  /** `exporters`: loaded by TelemetryModule when spans or metrics go to a collector. */
  constructor(
    config: ConfigService<GatewayConfig, true>,
    @Optional() @Inject(OTLP_EXPORTERS) exporters?: OtlpExporters | null,
  ) {
    const telemetry = config.get('telemetry', { infer: true });
    this.provider = new MeterProvider({
      resource: telemetryResource(telemetry),
      readers: [this.reader, ...otlpReaders(telemetry.metrics, exporters)],
    });
    const meter = this.provider.getMeter(PACKAGE.name, PACKAGE.version);
    this.meter = meter;
    const histogram = (name: string, description: string, buckets: number[]) =>
      meter.createHistogram(name, {
        description,
        unit: 's',
        advice: { explicitBucketBoundaries: buckets },
      });
    this.runs = new TalliedCounter(
      meter,
      'svc_runs',
      'Agent runs that stopped in this process, by status and agent',
    );
    this.runDuration = histogram(
      'svc_run_duration_seconds',
      'Time a run spent executing in this process, from start (or resumption) to stop',
      RUN_BUCKETS,
    );
    meter
      .createObservableUpDownCounter('svc_running_runs', {
        description: 'Runs executing in this process now',
      })
      .addCallback((result) => result.observe(this.running));
    this.modelCallDuration = histogram(
      'svc_model_call_duration_seconds',
      'Model calls (retries included), by provider and outcome',
      RUN_BUCKETS,
    );
    // The GenAI semantic conventions' own metric (Prometheus: gen_ai_client_token_usage_*).
    this.tokenUsage = meter.createHistogram(METRIC_GEN_AI_CLIENT_TOKEN_USAGE, {
      description: 'Tokens used per model call, by token type (input, output), provider and model',
      unit: '{token}',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    });
    this.toolCalls = new TalliedCounter(
      meter,
      'svc_tool_calls',
      'Tool calls, by toolset and whether they failed',
    );
    this.toolCallDuration = histogram(
      'svc_tool_call_duration_seconds',
      'Tool call durations, by toolset',
      FAST_BUCKETS,
    );
    this.httpDuration = histogram(
      'svc_http_request_duration_seconds',
      'HTTP requests, by method, route and status',
      FAST_BUCKETS,
    );
    this.leaseTakeovers = meter.createCounter('svc_lease_takeovers', {
      description: 'Runs this process took over after their owner stopped renewing the lease',
    });
    // Series without labels are reported from the start, at 0 (the others appear once used).
    this.leaseTakeovers.add(0);
  }

  recordRun(status: string, agent: string, seconds?: number): void {
    const attributes = { status, agent: this.agents.value(agent) };
    this.runs.increment(`${attributes.status}\n${attributes.agent}`, () => attributes);
    if (seconds !== undefined) this.runDuration.record(seconds, attributes);
  }

  /**
   * Counts `work` in svc_running_runs while it runs: a number read at collection, where a
   * synchronous up-down counter recorded (hashing its attributes) twice per run.
   */
  trackRunning<T>(work: () => Promise<T>): Promise<T> {
    this.running += 1;
    const stopped = () => {
      this.running -= 1;
    };
    let running: Promise<T>;
    try {
      running = work();
    } catch (error) {
      stopped();
      throw error;
    }
    return running.then(
      (value) => {
        stopped();
        return value;
      },
      (error: unknown) => {
        stopped();
        throw error;
      },
    );
  }

  recordModelCall(provider: string, ok: boolean, seconds: number): void {
    this.modelCallDuration.record(seconds, { provider, outcome: ok ? 'ok' : 'error' });
  }

  /**
   * The tokens one model call used, as its provider reported them (estimated by the echo
   * provider): one `input` and one `output` observation. `model` is the model it asked for.
   */
  recordTokenUsage(
    provider: string,
    model: string,
    usage: { prompt_tokens?: number; completion_tokens?: number },
  ): void {
    const attributes = {
      [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_CHAT,
      [ATTR_GEN_AI_PROVIDER_NAME]: provider,
      [ATTR_GEN_AI_REQUEST_MODEL]: this.models.value(model),
    };
    if (usage.prompt_tokens !== undefined) {
      this.tokenUsage.record(usage.prompt_tokens, {
        ...attributes,
        [ATTR_GEN_AI_TOKEN_TYPE]: GEN_AI_TOKEN_TYPE_INPUT,
      });
    }
    if (usage.completion_tokens !== undefined) {
      this.tokenUsage.record(usage.completion_tokens, {
        ...attributes,
        [ATTR_GEN_AI_TOKEN_TYPE]: GEN_AI_TOKEN_TYPE_OUTPUT,
      });
    }
  }

  recordToolCall(toolset: string, isError: boolean, seconds: number): void {
    const label = this.toolsets.value(toolset);
    this.toolCalls.increment(`${isError}\n${label}`, () => ({
      toolset: label,
      is_error: String(isError),
    }));
    this.toolCallDuration.record(seconds, { toolset: label });
  }

  /** `route` is the route template (`/v1/runs/:run_id`), undefined when nothing matched. */
  recordHttpRequest(
    method: string,
    route: string | undefined,
    status: number,
    seconds: number,
  ): void {
    this.httpDuration.record(seconds, {
      method: HTTP_METHODS.has(method) ? method : '_OTHER',
      ...(route !== undefined ? { route } : {}),
      status: String(status),
    });
  }

  recordLeaseTakeover(): void {
    this.leaseTakeovers.add(1);
  }

  /**
   * A gauge read when /metrics is scraped, for as long as the app lives; register it once, at
   * module init, e.g.
   * `metrics.observeGauge('svc_outbox_depth', 'Messages waiting in the outbox', () => n)`.
   * Name it `svc_<what>` (plus `_seconds`, `_bytes` for units). A read that throws or rejects
   * skips this gauge in that scrape only.
   */
  observeGauge(name: string, description: string, read: GaugeRead): void {
    const gauge = this.meter.createObservableGauge(name, { description });
    const callback: ObservableCallback = async (result) => {
      const value = await read();
      if (typeof value === 'number') result.observe(value);
      else for (const reading of value) result.observe(reading.value, reading.attributes);
    };
    gauge.addCallback(callback);
  }

  /**
   * A counter kept by its owner (a total that only grows, e.g. items dropped), read when
   * /metrics is scraped; register it once, at module init. Prometheus sees `<name>_total`.
   */
  observeCounter(name: string, description: string, read: () => number): void {
    const counter = this.meter.createObservableCounter(name, { description });
    counter.addCallback((result) => result.observe(read()));
  }

  /** Every metric in the Prometheus text format (PROMETHEUS_CONTENT_TYPE). */
  async scrape(): Promise<string> {
    const { resourceMetrics } = await this.reader.collect();
    return this.serializer.serialize(resourceMetrics);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.provider.shutdown();
  }
}
