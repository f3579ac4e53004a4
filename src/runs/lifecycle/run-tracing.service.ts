import { Injectable } from '@nestjs/common';
import type { RunRecord } from '../record/run-record.js';
import { Metrics } from '../../platform/telemetry/metrics.service.js';
import {
  type RunSpanInput,
  runEndAttributes,
  runSpan,
} from '../../platform/telemetry/span-specs.js';
import { Tracing, traceIdOf } from '../../platform/telemetry/tracing.service.js';

/** The ids of a run's span: what the run record keeps (`trace_id`, a graph's `span_id`). */
export interface RunTrace {
  /** Null while tracing is off. */
  traceId: string | null;
  /** Set with `traceId`. */
  spanId?: string;
}

/** One execution of a run in this process, as plain runs and graph runs both trace it. */
@Injectable()
export class RunTracing {
  constructor(
    private readonly tracing: Tracing,
    private readonly metrics: Metrics,
  ) {}

  /**
   * Runs `work` in an `invoke_agent` span, counted in svc_running_runs meanwhile; the span ends
   * with the status, turns and tool calls of the record `work` returns.
   */
  trace<T extends RunRecord>(run: RunSpanInput, work: (trace: RunTrace) => Promise<T>): Promise<T> {
    return this.metrics.trackRunning(() =>
      this.tracing.inSpan(runSpan(run), async (span) => {
        const traceId = traceIdOf(span);
        const record = await work(
          traceId === null ? { traceId } : { traceId, spanId: span.spanContext().spanId },
        );
        span.setAttributes(runEndAttributes(record));
        return record;
      }),
    );
  }
}
