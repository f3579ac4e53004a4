import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';

/**
 * Where spans go without an OTLP collector: the last `capacity` finished spans, oldest dropped
 * first, so memory stays bounded however long the process runs (the SDK's InMemorySpanExporter
 * keeps every span). Meant for debugging and tests, not as a trace store.
 */
export class SpanRing implements SpanExporter {
  /** Grows with the spans kept, up to `capacity`; then the oldest slot is reused. */
  private readonly slots: ReadableSpan[] = [];
  private next = 0;
  private size = 0;

  constructor(readonly capacity = 2000) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    for (const span of spans) {
      this.slots[this.next] = span;
      this.next = (this.next + 1) % this.capacity;
      this.size = Math.min(this.size + 1, this.capacity);
    }
    done({ code: ExportResultCode.SUCCESS });
  }

  /** The spans kept, oldest first. */
  recent(): ReadableSpan[] {
    const start = (this.next - this.size + this.capacity) % this.capacity;
    const spans: ReadableSpan[] = [];
    for (let i = 0; i < this.size; i++) {
      const span = this.slots[(start + i) % this.capacity];
      if (span) spans.push(span);
    }
    return spans;
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
