import { NodeSDK } from '@opentelemetry/sdk-node';

let started = false;

/**
 * The process-wide half of OpenTelemetry, set up once however many gateways a process runs
 * (tests start many): the NodeSDK registers the AsyncLocalStorage context manager (so the active
 * span follows a request across awaits), the W3C trace-context and baggage propagators, and
 * diagnostics from OTEL_LOG_LEVEL. It is given no span processors, metric readers or log
 * processors, so it registers no global providers: each app instance owns its tracer and meter
 * providers (see Tracing and Metrics), because the API takes one global provider per process.
 */
export function startProcessTelemetry(): void {
  if (started) return;
  started = true;
  new NodeSDK({
    autoDetectResources: false,
    instrumentations: [],
    spanProcessors: [],
    metricReaders: [],
    logRecordProcessors: [],
  }).start();
}
