import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtobufMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import {
  CompressionAlgorithm,
  type OTLPExporterNodeConfigBase,
} from '@opentelemetry/otlp-exporter-base';
import type { PushMetricExporter } from '@opentelemetry/sdk-metrics';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { OtlpExportConfig } from '../config/gateway-config.js';

/**
 * Every setting is passed explicitly, so the configuration the gateway validated (from its own
 * environment source, or a flag) is what the exporter uses; the exporter still reads the
 * variables it is not given (TLS certificates, metric temporality) from the process environment.
 */
function exporterOptions(config: OtlpExportConfig): OTLPExporterNodeConfigBase {
  return {
    url: config.url,
    headers: config.headers,
    timeoutMillis: config.timeoutMs,
    compression:
      config.compression === 'gzip' ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE,
  };
}

/** The SDK's OTLP/HTTP span exporter of the configured encoding. */
export function otlpSpanExporter(config: OtlpExportConfig): SpanExporter {
  const options = exporterOptions(config);
  return config.protocol === 'http/json'
    ? new JsonTraceExporter(options)
    : new ProtobufTraceExporter(options);
}

/** The SDK's OTLP/HTTP metric exporter of the configured encoding. */
export function otlpMetricExporter(config: OtlpExportConfig): PushMetricExporter {
  const options = exporterOptions(config);
  return config.protocol === 'http/json'
    ? new JsonMetricExporter(options)
    : new ProtobufMetricExporter(options);
}
