import { ConfigError } from './config-error.js';
import type { OtlpExportConfig, TelemetryConfig, TracesConfig } from './gateway-config.js';
import type { OtelEnvironment } from './otel-environment.js';
import { parseKeyValueList } from './otel-key-value-list.js';

/** Where OTLP/HTTP goes when an exporter is asked for and no endpoint is set (the SDK's default). */
const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';
const DEFAULT_SERVICE_NAME = 'svc-gateway';

type Signal = 'TRACES' | 'METRICS';
const SIGNAL_PATH: Record<Signal, string> = { TRACES: 'v1/traces', METRICS: 'v1/metrics' };

/** The listed exporters (deduplicated), or undefined when unset; `none` stands alone. */
function exporterList(
  value: string | undefined,
  name: 'OTEL_TRACES_EXPORTER' | 'OTEL_METRICS_EXPORTER',
): Set<string> | undefined {
  if (value === undefined) return undefined;
  const exporters = new Set(value.split(',').map((item) => item.trim()));
  if (exporters.has('none') && exporters.size > 1) {
    throw new ConfigError(`${name} cannot combine none with other exporters (got "${value}")`);
  }
  return exporters;
}

/**
 * The URL a signal is posted to, by the OTLP exporter's rule: the signal's own endpoint as it
 * is; else the general one (a base URL) with `v1/traces` or `v1/metrics` appended.
 */
function signalUrl(env: OtelEnvironment, signal: Signal): string {
  const specific = env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`];
  if (specific !== undefined) return new URL(specific).toString();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT ?? DEFAULT_OTLP_ENDPOINT;
  return `${base.endsWith('/') ? base : `${base}/`}${SIGNAL_PATH[signal]}`;
}

/** One signal's exporter settings: the signal's own variable wins over the general one. */
function otlpExport(env: OtelEnvironment, signal: Signal): OtlpExportConfig {
  return {
    url: signalUrl(env, signal),
    protocol:
      env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`] ??
      env.OTEL_EXPORTER_OTLP_PROTOCOL ??
      'http/protobuf',
    // Merged like the SDK does: the signal's headers replace general ones of the same name.
    headers: {
      ...parseKeyValueList(env.OTEL_EXPORTER_OTLP_HEADERS, 'headers'),
      ...parseKeyValueList(env[`OTEL_EXPORTER_OTLP_${signal}_HEADERS`], 'headers'),
    },
    timeoutMs:
      env[`OTEL_EXPORTER_OTLP_${signal}_TIMEOUT`] ?? env.OTEL_EXPORTER_OTLP_TIMEOUT ?? 10_000,
    compression:
      env[`OTEL_EXPORTER_OTLP_${signal}_COMPRESSION`] ??
      env.OTEL_EXPORTER_OTLP_COMPRESSION ??
      'none',
  };
}

function sampler(env: OtelEnvironment): TracesConfig['sampler'] {
  const name = env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on';
  const arg = env.OTEL_TRACES_SAMPLER_ARG;
  // Other samplers take no argument; the SDK ignores it for them, and so does this.
  if (!name.endsWith('traceidratio') || arg === undefined) return { name, ratio: 1 };
  const ratio = Number(arg.trim());
  if (arg.trim() === '' || !Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    throw new ConfigError(
      `OTEL_TRACES_SAMPLER_ARG must be a number between 0 and 1 for ${name} (got "${arg}")`,
    );
  }
  return { name, ratio };
}

function batch(env: OtelEnvironment): TracesConfig['batch'] {
  const maxQueueSize = env.OTEL_BSP_MAX_QUEUE_SIZE ?? 2048;
  const maxExportBatchSize = env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE ?? Math.min(512, maxQueueSize);
  if (maxExportBatchSize > maxQueueSize) {
    throw new ConfigError(
      `OTEL_BSP_MAX_EXPORT_BATCH_SIZE must be at most OTEL_BSP_MAX_QUEUE_SIZE (${maxQueueSize}) (got ${maxExportBatchSize})`,
    );
  }
  return {
    scheduledDelayMs: env.OTEL_BSP_SCHEDULE_DELAY ?? 5000,
    exportTimeoutMs: env.OTEL_BSP_EXPORT_TIMEOUT ?? 30_000,
    maxQueueSize,
    maxExportBatchSize,
  };
}

function metricTimes(env: OtelEnvironment): { intervalMs: number; timeoutMs: number } {
  const intervalMs = env.OTEL_METRIC_EXPORT_INTERVAL ?? 60_000;
  const timeoutMs = env.OTEL_METRIC_EXPORT_TIMEOUT ?? Math.min(30_000, intervalMs);
  // The SDK's periodic reader refuses an export that may outlast its interval.
  if (timeoutMs > intervalMs) {
    throw new ConfigError(
      `OTEL_METRIC_EXPORT_TIMEOUT must be at most OTEL_METRIC_EXPORT_INTERVAL (${intervalMs}) (got ${timeoutMs})`,
    );
  }
  return { intervalMs, timeoutMs };
}

/**
 * Tracing and metrics export from the standard OTEL_* variables, with the SDK's semantics
 * (defaults, signal-specific over general, the endpoint paths). Unlike the SDK, spans go to a
 * collector only when one is configured (an endpoint, or OTEL_TRACES_EXPORTER=otlp), else they
 * are kept in memory (the spec's rule), and metrics default to `prometheus` (GET /metrics).
 * Throws ConfigError for what the SDK would quietly ignore.
 */
export function telemetryConfig(env: OtelEnvironment, metricsPublic: boolean): TelemetryConfig {
  const enabled = !(env.OTEL_SDK_DISABLED ?? false);
  const tracesExporters = exporterList(env.OTEL_TRACES_EXPORTER, 'OTEL_TRACES_EXPORTER');
  const metricsExporters =
    exporterList(env.OTEL_METRICS_EXPORTER, 'OTEL_METRICS_EXPORTER') ?? new Set(['prometheus']);
  const endpointSet =
    env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined ||
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined;
  const exportTraces = tracesExporters ? tracesExporters.has('otlp') : endpointSet;
  const attributes = parseKeyValueList(env.OTEL_RESOURCE_ATTRIBUTES, 'attributes');
  return {
    tracing: enabled,
    resource: {
      ...attributes,
      'service.name': env.OTEL_SERVICE_NAME ?? attributes['service.name'] ?? DEFAULT_SERVICE_NAME,
    },
    traces: {
      otlp: enabled && exportTraces ? otlpExport(env, 'TRACES') : undefined,
      sampler: sampler(env),
      batch: batch(env),
    },
    metrics: {
      prometheus: metricsExporters.has('prometheus'),
      otlp: enabled && metricsExporters.has('otlp') ? otlpExport(env, 'METRICS') : undefined,
      ...metricTimes(env),
    },
    metricsPublic,
  };
}
