import { isSpanContextValid, trace } from '@opentelemetry/api';

/**
 * pino `mixin`: the active span's `trace_id` and `span_id` on every log line written inside a
 * traced request or run (nothing elsewhere, or while tracing is off).
 */
export function logTraceFields(): { trace_id?: string; span_id?: string } {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId };
}
