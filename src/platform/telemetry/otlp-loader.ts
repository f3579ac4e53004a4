import type { TelemetryConfig } from '../config/gateway-config.js';
import { importInTurn } from '../lazy/lazy-module.js';

/** The OTLP/HTTP exporters module (./otlp-exporters.js), once loaded. */
export type OtlpExporters = typeof import('./otlp-exporters.js');

/** Injects the OTLP exporters module, or null when nothing goes to a collector. */
export const OTLP_EXPORTERS = Symbol('OtlpExporters');

/**
 * The OTLP exporters, imported only when the configuration sends spans or metrics to a
 * collector: the four exporter packages and their protobuf and JSON serializers are otherwise
 * never used, and loading them costs start time and memory.
 */
export async function loadOtlpExporters(telemetry: TelemetryConfig): Promise<OtlpExporters | null> {
  const wanted = telemetry.traces.otlp !== undefined || telemetry.metrics.otlp !== undefined;
  return wanted ? importInTurn(() => import('./otlp-exporters.js')) : null;
}

/** The exporters a configuration that uses them was given, or an error naming what is missing. */
export function requireOtlpExporters(exporters: OtlpExporters | null | undefined): OtlpExporters {
  if (!exporters)
    throw new Error('OTLP export is configured but the OTLP exporters were not loaded');
  return exporters;
}
