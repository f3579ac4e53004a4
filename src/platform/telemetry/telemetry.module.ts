import { type DynamicModule, Global, Module } from '@nestjs/common';
import type { TelemetryConfig } from '../config/gateway-config.js';
import { KeptSpans } from './kept-spans.js';
import { MetricsController, PublicMetricsController } from './metrics.controller.js';
import { Metrics } from './metrics.service.js';
import { OTLP_EXPORTERS, loadOtlpExporters } from './otlp-loader.js';
import { Tracing } from './tracing.service.js';

/**
 * Tracing and metrics of one app instance (issue 7): the `Tracing` and `Metrics` services every
 * module may inject (global), `KeptSpans` (the spans kept in memory, read as trees) and
 * `GET /metrics` (unless OTEL_METRICS_EXPORTER leaves prometheus out; public only with
 * SVC_METRICS_PUBLIC=true). The HTTP server span and duration metric are recorded by
 * RequestEntryMiddleware (platform/http).
 */
@Global()
@Module({})
export class TelemetryModule {
  static forRoot(config: TelemetryConfig): DynamicModule {
    return {
      module: TelemetryModule,
      controllers: config.metrics.prometheus
        ? [config.metricsPublic ? PublicMetricsController : MetricsController]
        : [],
      providers: [
        // Imported only when spans or metrics go to a collector (otlp-loader.ts).
        { provide: OTLP_EXPORTERS, useFactory: () => loadOtlpExporters(config) },
        Tracing,
        Metrics,
        KeptSpans,
      ],
      exports: [Tracing, Metrics, KeptSpans],
    };
  }
}
