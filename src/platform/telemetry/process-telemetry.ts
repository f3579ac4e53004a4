import { DiagConsoleLogger, diag, propagation } from '@opentelemetry/api';
import {
  CompositePropagator,
  W3CBaggagePropagator,
  W3CTraceContextPropagator,
  diagLogLevelFromString,
  getBooleanFromEnv,
  getStringFromEnv,
  getStringListFromEnv,
} from '@opentelemetry/core';
import { registerAmbientContext } from '../context/ambient-slot.js';
import { importInTurn } from '../lazy/lazy-module.js';

let started: Promise<void> | undefined;

/**
 * The process-wide half of OpenTelemetry, set up once however many gateways a process runs
 * (tests start many): the AsyncLocalStorage context manager (so the active span follows a
 * request across awaits; platform/context registers it, as every ambient value rides in it),
 * the W3C trace-context and baggage propagators, and diagnostics from
 * OTEL_LOG_LEVEL. No global tracer, meter or logger provider is registered: each app instance
 * owns its tracer and meter providers (see Tracing and Metrics), because the API takes one
 * global provider per process.
 *
 * This is what the NodeSDK's `start()` does when given no span processors, metric readers or
 * log processors, done directly: @opentelemetry/sdk-node imports every exporter it could
 * configure (gRPC, Zipkin, logs, the declarative configuration with its YAML parser), a
 * noticeable part of the gateway's start and memory. Only when OTEL_PROPAGATORS asks for other
 * propagators (b3, jaeger, none), which the SDK builds, is the SDK loaded and started as before;
 * the answer settles once that is done (Tracing waits for it at module init).
 */
export function startProcessTelemetry(): Promise<void> {
  started ??= setUp();
  return started;
}

function setUp(): Promise<void> {
  registerAmbientContext();
  if (getStringListFromEnv('OTEL_PROPAGATORS') != null) return startNodeSdk();
  // As the NodeSDK's constructor: diagnostics first, whether or not the SDK is disabled.
  const logLevel = getStringFromEnv('OTEL_LOG_LEVEL');
  if (logLevel != null) {
    diag.setLogger(new DiagConsoleLogger(), { logLevel: diagLogLevelFromString(logLevel) });
  }
  if (getBooleanFromEnv('OTEL_SDK_DISABLED')) return Promise.resolve();
  propagation.setGlobalPropagator(
    new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    }),
  );
  return Promise.resolve();
}

async function startNodeSdk(): Promise<void> {
  const { NodeSDK } = await importInTurn(() => import('@opentelemetry/sdk-node'));
  new NodeSDK({
    autoDetectResources: false,
    // The ambient context manager is registered already (registerAmbientContext). The SDK
    // reads null as "register none" (setupContextManager); its type only says undefined.
    contextManager: null as unknown as undefined,
    instrumentations: [],
    spanProcessors: [],
    metricReaders: [],
    logRecordProcessors: [],
  }).start();
}
