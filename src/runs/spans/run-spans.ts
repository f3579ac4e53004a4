import type { KeptSpan, KeptSpans } from '../../platform/telemetry/kept-spans.js';
import {
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_SVC_RUN_ID,
  ATTR_SVC_TENANT_ID,
  GEN_AI_OPERATION_INVOKE_AGENT,
} from '../../platform/telemetry/semconv.js';
import type { SpanDestination } from '../../platform/telemetry/tracing.service.js';
import type { StoredRun } from '../record/run-record.js';

/** What GET /v1/runs/{id}/spans answers. */
export interface RunSpans {
  run_id: string;
  tenant_id: string;
  /** The trace of the run's first execution (a continuation after a decision has its own). */
  trace_id: string | null;
  /** Whether this replica keeps spans in memory; false when they go to a collector, or off. */
  kept: boolean;
  destination: SpanDestination;
  /** The run's spans this replica kept, by start time: empty unless `kept`. */
  spans: KeptSpan[];
}

/**
 * A run's spans from this replica's ring: every `invoke_agent` span of the run (its first
 * execution, continuations after a decision or a takeover) and everything below them. The first
 * execution's span id is in the record, so the steps and calls of a run still executing here
 * are found before its own span ends.
 */
export function runSpans(spans: KeptSpans, run: StoredRun): RunSpans {
  const destination = spans.destination;
  const kept = destination === 'memory';
  const first = run.trace_id && run.span_id ? [{ traceId: run.trace_id, spanId: run.span_id }] : [];
  return {
    run_id: run.run_id,
    tenant_id: run.tenant_id,
    trace_id: run.trace_id,
    kept,
    destination,
    spans: kept
      ? spans.trees({
          tenantId: run.tenant_id,
          rootSpans: first,
          isRoot: ({ attributes }) =>
            attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_INVOKE_AGENT &&
            attributes[ATTR_SVC_RUN_ID] === run.run_id &&
            attributes[ATTR_SVC_TENANT_ID] === run.tenant_id,
        })
      : [],
  };
}
